"""Hostile split patterns (issue 39, item 1): capture groups, and random patterns against tiktoken.

A pattern with a capture group used to pass the pattern check: ``findall`` then
returned the group, not the match, so the Python encoder raised, the compiled one
dropped bytes and ``train`` learned nothing. Now one check (``resolve_pattern``,
called by ``check_pattern``) refuses it everywhere. The reference for the patterns
the check accepts is tiktoken: ``tiktoken.Encoding(pat_str=...)`` with our ranks.
"""

import json
import random

import pytest
import tiktoken

from bpe_lesson import Tokenizer, train
from bpe_lesson.patterns import check_pattern, resolve_pattern

CAPTURING = r"(a)b|\s+|[^\s]"


@pytest.fixture(scope="module")
def merges():
    text = "the cat sat on the mat; a bat ate 42 apples, 7 pears & 1234 figs!\n  Caf\u00e9 na\u00efve.\t" * 30
    return train(text, 256 + 120, pattern="gpt4").merges


def test_capture_group_refused_by_the_tokenizer(merges, backend):
    # before: the Python encoder raised a TypeError, the compiled one gave [97, 97]
    # where tiktoken gives [256, 32, 256] (it takes whole matches)
    with pytest.raises(ValueError, match="capture group.*non-capturing"):
        Tokenizer([((97, 98), 256)], pattern=CAPTURING, backend=backend)


def test_capture_group_refused_by_train(backend):
    with pytest.raises(ValueError, match="capture group"):  # before: 0 merges learned, no error
        train("ab ab ab ab", 260, pattern=CAPTURING, backend=backend)


def test_capture_group_refused_by_the_yaml_trainer(tmp_path):
    from bpe_lesson.scale.config import ConfigError, load_config

    (tmp_path / "c.txt").write_text("ab ab ab\n" * 50, encoding="utf-8")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(json.dumps({"output": "o.tiktoken", "pattern": CAPTURING, "hardcoded_merges": False,
                               "phases": [{"merges": 50, "sources": [{"file": "c.txt"}]}]}), encoding="utf-8")
    with pytest.raises(ConfigError, match="pattern.*capture group"):  # before: 3 of 50 merges, exit 0
        load_config(str(cfg))


def test_capture_group_refused_by_the_importers(tmp_path):
    tok = Tokenizer([((97, 98), 256)], pattern=r"(?:a)b|\s+|[^\s]")
    json_path = tmp_path / "t.json"
    tok.save(json_path)
    d = json.loads(json_path.read_text(encoding="utf-8"))
    d["pattern"] = CAPTURING
    json_path.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(ValueError, match="t.json.*'pattern'.*capture group"):
        Tokenizer.load(json_path)

    tok.save_tiktoken(tmp_path / "t.tiktoken")
    with pytest.raises(ValueError, match="capture group"):
        Tokenizer.load_tiktoken(tmp_path / "t.tiktoken", pattern=CAPTURING)

    from bpe_lesson.formats.huggingface import from_huggingface, huggingface_dict
    hf = huggingface_dict(tok)
    hf["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = CAPTURING
    (tmp_path / "tokenizer.json").write_text(json.dumps(hf), encoding="utf-8")
    with pytest.raises(ValueError, match="tokenizer.json.*capture group"):
        from_huggingface(tmp_path / "tokenizer.json")


def test_named_groups_are_capture_groups_too():
    with pytest.raises(ValueError, match="2 capture groups"):
        resolve_pattern(r"(?P<word>\w+)|(\s+)|[^\w\s]")
    check_pattern(r"(?:\w+)|(?>\s+)|(?=.)[^\w\s]|(?i:x)")  # non-capturing forms pass


# ---- random patterns of the accepted kind: our ids equal tiktoken's, or a clear refusal --

ALTERNATIVES = [r" ?\p{L}+", r"\p{L}++", r"\p{N}{1,3}", r"\p{N}", r" ?[^\s\p{L}\p{N}]+", r"\s+(?!\S)", r"\s+",
                r"[a-z]+", r"[A-Z][a-z]*", r"'(?i:s|t|re)", r"(?:ab)+", r"(?:th|he)", r"\s*[\r\n]+", r"[^\s]",
                r"\s", r"\w+", r"[^\r\n\p{L}\p{N}]?\p{L}+", r"\d\d", r"(?:a|e)(?=t)", r"(?i:the)"]
ALPHABET = "the cat sat on mat ab 42 7 1234 ! ? ; , . & \n \t Caf\u00e9 'S 'T \u00a7" + " " * 8


def random_pattern(rng) -> str:
    parts = rng.sample(ALTERNATIVES, rng.randint(1, 5))
    if rng.random() < 0.7:  # most patterns cover all text; the others may be refused at construction
        # or, leaving out only the section sign (not in the coverage probe), at encode
        parts.append(rng.choice([r"\s|[^\s]", r"\s|[^\s]", r"\s|[^\s\u00a7]"]))
    if rng.random() < 0.15:
        parts[0] = "(" + parts[0] + ")"  # a capture group: must be refused, never run
    return "|".join(parts)


def random_text(rng) -> str:
    words = ALPHABET.split(" ")
    return "".join(rng.choice(words) + rng.choice(["", " ", "  ", "\n"]) for _ in range(rng.randint(1, 30)))


def test_random_patterns_give_tiktokens_ids_or_a_clear_refusal(merges, backend):
    rng = random.Random(39)
    base = Tokenizer(merges)
    ranks = {b: i for i, b in base.vocab.items()}
    outcomes = {"equal": 0, "refused at construction": 0, "refused at encode": 0}
    for case in range(120):
        pattern = random_pattern(rng)
        try:
            tok = Tokenizer(merges, pattern=pattern, backend=backend)
        except ValueError as e:
            assert "capture group" in str(e) or "leaves character" in str(e), (pattern, e)
            outcomes["refused at construction"] += 1
            continue
        assert "(" not in pattern.replace("(?", ""), f"a capture group got through: {pattern!r}"
        enc = tiktoken.Encoding(f"random{case}", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
        for _ in range(8):
            text = random_text(rng)
            theirs = enc.encode_ordinary(text)
            try:
                ours = tok.encode_ordinary(text)
            except ValueError as e:
                # the clear refusal: tiktoken dropped some of the text here
                assert "not matched by the split pattern" in str(e), (pattern, text, e)
                assert len(enc.decode_bytes(theirs)) < len(text.encode("utf-8")), (pattern, text)
                outcomes["refused at encode"] += 1
                continue
            assert ours == theirs, (pattern, text)
            assert tok.decode(ours) == text  # and no byte was dropped
            outcomes["equal"] += 1
    assert min(outcomes.values()) > 0, outcomes  # every branch was exercised
