"""The YAML trainer: every schema error names its field; phases continue from the
vocabulary before them and learn only from their own sources; special tokens stay
atomic; the output loads in bpe_lesson and in tiktoken with equal ids; an interrupted
run writes nothing; and the command line works end to end."""

import argparse
import base64
import glob
import json
import os
import subprocess
import sys
import warnings

import pytest
import yaml

import bpe_lesson
from bpe_lesson import textbook
from bpe_lesson._compiled import backend as _backend
from bpe_lesson.scale import phases as phases_mod
from bpe_lesson.scale.config import ConfigError, load_config, parse_config
from bpe_lesson.scale.phases import train_from_config
from bpe_lesson.chunks import count_chunks, to_byte_counts
from bpe_lesson.scale.hardcoded import hardcoded_merges
from bpe_lesson.teaching.samples import code_split, prose_split
from bpe_lesson.tokenizer import Tokenizer
from bpe_lesson.trainer import get_trainer
from conftest import stdlib_files

EOT = "<|endoftext|>"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Two folders of real text: English prose (topics joined by <|endoftext|>) and Python code."""
    root = tmp_path_factory.mktemp("corpus")
    prose_train, prose_held = prose_split()
    code_train, code_held = code_split(600_000)
    (root / "english" / "more").mkdir(parents=True)
    (root / "code").mkdir()
    half = len(prose_train) // 2
    (root / "english" / "a.txt").write_text(EOT.join(prose_train[:half]), encoding="utf-8")
    (root / "english" / "more" / "b.txt").write_text(EOT.join(prose_train[half:]), encoding="utf-8")
    for k, doc in enumerate(code_train):
        (root / "code" / f"f{k:03d}.txt").write_text(doc, encoding="utf-8")
    return {"root": root, "english": prose_train, "code": code_train,
            "held": prose_held[:40] + code_held[:20]}


def make_config(root, **fields):
    d = {"output": str(root / "out" / "tok.tiktoken"), "special_tokens": [EOT, "<|pad|>"],
         "phases": [{"name": "English", "merges": 300, "sources": [{"path": str(root / "english")}]},
                    {"name": "code", "merges": 200, "sources": [{"path": str(root / "code")}]}]}
    d.update(fields)
    return d


def quiet(cfg, backend=None, write=True):
    return train_from_config(cfg, backend=backend, progress=False, log=lambda line: None, write=write)


# ---- the schema --------------------------------------------------------------

def without(d, key):
    return {k: v for k, v in d.items() if k != key}


BAD = [
    # (change to a good config, the field the message must name, words it must contain)
    (lambda d, r: without(d, "output"), "output", "missing"),
    (lambda d, r: {**d, "output": "tok.bin"}, "output", "ending in .tiktoken"),
    (lambda d, r: without(d, "phases"), "phases", "non-empty list"),
    (lambda d, r: {**d, "phases": []}, "phases", "non-empty list"),
    (lambda d, r: {**d, "phases": [{"name": "x", "merges": 10, "sources": []}]}, "phases[0].sources",
     "at least one source"),
    (lambda d, r: {**d, "phases": [{"name": "x", "merges": 10}]}, "phases[0].sources", "at least one source"),
    (lambda d, r: {**d, "phases": [{"merges": 10, "sources": [{"path": str(r / "nope")}]}]},
     "phases[0].sources[0].path", "does not exist"),
    (lambda d, r: {**d, "phases": [{"merges": 10, "sources": [{"file": str(r / "nope.txt")}]}]},
     "phases[0].sources[0].file", "does not exist"),
    (lambda d, r: {**d, "phases": [d["phases"][0], {"merges": -5, "sources": d["phases"][1]["sources"]}]},
     "phases[1].merges", "-5 is negative"),
    (lambda d, r: {**d, "phases": [{"sources": d["phases"][0]["sources"]}]}, "phases[0].merges", "missing"),
    (lambda d, r: {**d, "phases": [{"merges": 1.5, "sources": d["phases"][0]["sources"]}]}, "phases[0].merges",
     "whole number"),
    (lambda d, r: {**d, "special_tokens": [EOT, ""]}, "special_tokens[1]", "non-empty string"),
    (lambda d, r: {**d, "special_tokens": [EOT, "<|pad|>", EOT]}, "special_tokens[2]", "duplicate"),
    (lambda d, r: {**d, "special_tokens": ["<|a\nb|>"]}, "special_tokens[0]", "line break"),
    (lambda d, r: {**d, "special_tokens": "<|endoftext|>"}, "special_tokens", "list of strings"),
    (lambda d, r: {**d, "working_set": 10}, "working_set", "did you mean 'working_set_mb'"),
    (lambda d, r: {**d, "working_set_mb": -1}, "working_set_mb", "positive number"),
    (lambda d, r: {**d, "workers": 0}, "workers", "-1 for all cores"),
    (lambda d, r: {**d, "pattern": "gpt3"}, "pattern", "unknown pattern name 'gpt3'"),
    (lambda d, r: {**d, "pattern": "(unclosed"}, "pattern", "not a valid regex"),
    (lambda d, r: {**d, "hardcoded_merges": "yes please"}, "hardcoded_merges", "true or false"),
    (lambda d, r: {**d, "tie_break": "largest"}, "tie_break", "smallest-ids, greatest-bytes"),
    (lambda d, r: {**d, "min_frequency": 0}, "min_frequency", "whole number >= 1"),
    (lambda d, r: {**d, "max_token_length": 1}, "max_token_length", "whole number >= 2, or null"),
    (lambda d, r: {**d, "phases": [{"merges": 1, "sources": [{"path": str(r / "english" / "a.txt")}]}]},
     "phases[0].sources[0].path", "is a file; use `file:"),
    (lambda d, r: {**d, "phases": [{"merges": 1, "sources": [{"file": str(r / "code")}]}]},
     "phases[0].sources[0].file", "is a folder; use `path:"),
    (lambda d, r: {**d, "phases": [{"merges": 1, "sources": [{"path": str(r), "file": str(r)}]}]},
     "phases[0].sources[0]", "exactly one of"),
    (lambda d, r: {**d, "phases": [{"merges": 1, "sorces": []}]}, "phases[0].sorces", "did you mean 'sources'"),
]


@pytest.mark.parametrize("change, field, words", BAD, ids=[f"{b[1]}: {b[2]}" for b in BAD])
def test_schema_errors_name_the_field_and_what_is_expected(corpus, change, field, words):
    raw = change(make_config(corpus["root"]), corpus["root"])
    with pytest.raises(ConfigError) as e:
        parse_config(raw, source="cfg.yaml")
    assert f"cfg.yaml: {field}: " in str(e.value)
    assert words in str(e.value)


def test_threads_is_the_older_name_of_workers(corpus):
    # threads: always meant worker processes; it is still read, and warns naming workers:
    raw = make_config(corpus["root"], workers=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name warns of nothing
        want = parse_config(raw, source="cfg.yaml")
    older = {**without(raw, "workers"), "threads": 2}
    with pytest.warns(FutureWarning, match=r"^cfg\.yaml: threads: is deprecated, the older name of workers:; "
                                           r"use workers:$"):
        assert parse_config(older, source="cfg.yaml") == want
    with pytest.raises(ConfigError, match=r"^cfg\.yaml: workers: and threads: are one setting \(threads: is its "
                                          r"older name\); give only workers:$"):
        parse_config({**raw, "threads": 2}, source="cfg.yaml")
    with pytest.raises(ConfigError) as e:  # a typo is pointed at the new name, and threads: is not offered
        parse_config({**raw, "worker": 2}, source="cfg.yaml")
    assert "did you mean 'workers'" in str(e.value) and "threads" not in str(e.value)


def test_a_folder_without_text_files_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.md").write_text("hi")
    with pytest.raises(ConfigError, match=r"phases\[0\].sources\[0\].path: the folder .* holds no file of the kinds .txt, .jsonl, .parquet"):
        parse_config({"output": "o.tiktoken", "phases": [{"merges": 1, "sources": [{"path": str(tmp_path / "empty")}]}]})


def test_relative_paths_are_relative_to_the_config_file(corpus, tmp_path):
    cfg_file = corpus["root"] / "cfg.yaml"
    cfg_file.write_text(yaml.safe_dump({"output": "out/x.tiktoken",
                                        "phases": [{"merges": 5, "sources": [{"path": "./english"}]}]}))
    cfg = load_config(cfg_file)
    assert cfg.output == str(corpus["root"] / "out" / "x.tiktoken")
    assert cfg.phases[0].sources[0].files == [str(corpus["root"] / "english" / "a.txt"),
                                               str(corpus["root"] / "english" / "more" / "b.txt")]
    assert cfg.phases[0].name == "phase 1" and cfg.working_set_mb == 1024 and cfg.workers == _backend.CORES
    assert cfg.hardcoded_merges is True and cfg.pattern == bpe_lesson.patterns.GPT4_PATTERN


def test_unreadable_config_files_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")
    (tmp_path / "bad.yaml").write_text("output: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(tmp_path / "bad.yaml")
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="expected a mapping of fields"):
        load_config(tmp_path / "list.yaml")


def test_the_example_config_is_valid_apart_from_its_corpus():
    example = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "examples", "tokenizer.yaml")
    with open(example, encoding="utf-8") as f:
        raw = yaml.safe_load(f)
    assert raw["hardcoded_merges"] is True and raw["special_tokens"] == [EOT, "<|pad|>"]
    with pytest.raises(ConfigError, match=r"phases\[0\].sources\[0\].path: ./corpus/english does not exist"):
        load_config(example)


# ---- training -----------------------------------------------------------------

def test_the_merge_options_reach_the_trainer(corpus):
    """tie_break, min_frequency and max_token_length in YAML: the merges train() makes with them
    (train() itself is held to an independent trainer in tests/test_trainer_options.py)."""
    options = {"tie_break": "greatest-bytes", "min_frequency": 3, "max_token_length": 5}
    raw = make_config(corpus["root"], hardcoded_merges=False, special_tokens=[], **options)
    raw["phases"] = raw["phases"][:1]
    cfg = parse_config(raw)
    assert (cfg.tie_break, cfg.min_frequency, cfg.max_token_length) == ("greatest-bytes", 3, 5)
    got = quiet(cfg, write=False).tokenizer
    text = [open(p, encoding="utf-8").read() for p in sorted(glob.glob(str(corpus["root"] / "english" / "**" /
                                                                          "*.txt"), recursive=True))]
    want = bpe_lesson.train(text, 256 + 300, **options)
    assert got.merges == want.merges and max(len(b) for b in got.vocab.values()) <= 5


@pytest.fixture(scope="module")
def trained(corpus):
    """The two-phase config trained once with the default backend (read-only for the tests)."""
    cfg = parse_config(make_config(corpus["root"]))
    return cfg, quiet(cfg)


def test_ids_run_bytes_hardcoded_phases_then_special_tokens(trained):
    cfg, result = trained
    tok = result.tokenizer
    english, code = result.phases
    assert [n for _, n in tok.merges] == list(range(256, 256 + 1161 + 300 + 200))
    assert english.merges[0][1] == 1417 and english.merges[-1][1] == 1716
    assert code.merges[0][1] == 1717 and code.merges[-1][1] == 1916
    assert tok.special_tokens == {EOT: 1917, "<|pad|>": 1918} and tok.vocab_size == 1919
    assert tok.merges[:1161] == hardcoded_merges()
    assert phases_mod.describe(result) == ("vocabulary 1,919 = 256 bytes + 1,161 hardcoded + 300 (English) "
                                           "+ 200 (code) + 2 special tokens")


@pytest.fixture(scope="module")
def phase_counts(corpus, trained):
    """The chunk counts of each phase's own sources, counted here from the texts."""
    cfg, _ = trained
    specials = [EOT, "<|pad|>"]
    return (to_byte_counts(count_chunks(corpus["english"], cfg.pattern, specials, workers=1)),
            to_byte_counts(count_chunks(corpus["code"], cfg.pattern, specials, workers=1)))


def test_each_phase_is_what_the_textbook_trainer_learns(trained, phase_counts):
    # independent of the incremental trainers (of both backends): the textbook one, phase by
    # phase, from the vocabulary before the phase (about 6 s)
    _, result = trained
    english, code = result.phases
    counts1, counts2 = phase_counts
    assert textbook.train_merges(counts1, 300, base_merges=hardcoded_merges()) == english.merges
    assert textbook.train_merges(counts2, 200, base_merges=hardcoded_merges() + english.merges) == code.merges


def test_each_phase_continues_from_the_vocabulary_before_it_on_its_own_sources(trained, phase_counts, backend):
    _, result = trained
    english, code = result.phases
    impl = get_trainer("incremental", backend)
    counts1, counts2 = phase_counts
    # phase 1 = training the English text from the hardcoded merges
    assert impl.train_merges(counts1, 300, base_merges=hardcoded_merges()) == english.merges
    # phase 2 = training the code alone, with everything before it as base merges
    assert impl.train_merges(counts2, 200, base_merges=hardcoded_merges() + english.merges) == code.merges
    # and phase 2 really learned from code: its tokens are not the ones English would add next
    more_english = impl.train_merges(counts1, 200, base_merges=hardcoded_merges() + english.merges)
    assert more_english != code.merges


def test_a_two_phase_vocabulary_has_phase_one_as_its_prefix(corpus, trained, backend):
    cfg, result = trained
    one = parse_config(make_config(corpus["root"], phases=make_config(corpus["root"])["phases"][:1]))
    alone = quiet(one, backend=backend, write=False)
    assert result.tokenizer.merges[: 1161 + 300] == alone.tokenizer.merges


def test_without_hardcoded_merges_it_equals_train_on_the_same_documents(corpus, backend):
    cfg = parse_config(make_config(corpus["root"], hardcoded_merges=False, special_tokens=[],
                                   phases=[{"merges": 400, "sources": [{"path": str(corpus["root"] / "code")}]}]))
    ours = quiet(cfg, backend=backend, write=False).tokenizer
    direct = bpe_lesson.train(corpus["code"], 256 + 400, pattern="gpt4", backend=backend, workers=1)
    assert ours.merges == direct.merges


def test_special_tokens_are_never_merged_and_encode_as_units(trained):
    cfg, result = trained
    tok = result.tokenizer
    # the English text holds <|endoftext|> between every two topics: none of it leaks into a token
    for token in tok.vocab.values():
        assert b"<|" not in token and b"endoftext" not in token and b"|>" not in token
    text = "first document" + EOT + "second<|pad|><|pad|>"
    ids = tok.encode(text, allowed_special="all")
    assert ids.count(1917) == 1 and ids.count(1918) == 2
    assert tok.decode(ids) == text
    assert tok.decode([1917]) == EOT
    with pytest.raises(ValueError, match="disallowed"):
        tok.encode(text)


def test_the_output_loads_in_bpe_lesson_and_in_tiktoken_with_equal_ids(corpus, trained):
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    cfg, result = trained
    assert os.path.exists(cfg.output) and os.path.exists(cfg.output + ".json")
    ours = bpe_lesson.load(cfg.output)
    side = json.load(open(cfg.output + ".json", encoding="utf-8"))
    theirs = tiktoken.Encoding(name="trained", pat_str=side["pattern"], special_tokens=side["special_tokens"],
                               mergeable_ranks=load_tiktoken_bpe(cfg.output))
    assert ours.vocab == result.tokenizer.vocab and ours.special_tokens == result.tokenizer.special_tokens
    assert theirs.n_vocab == ours.vocab_size == 1919
    held = corpus["held"]  # held-out prose and code
    assert sum(len(d) for d in held) > 100_000
    for doc in held:
        ids = ours.encode(doc)
        assert ids == theirs.encode_ordinary(doc) == result.tokenizer.encode(doc)
        assert theirs.decode(ids) == doc
    assert theirs.encode("a" + EOT, allowed_special="all") == ours.encode("a" + EOT, allowed_special="all")
    # each line of the file is base64(token bytes) and its id
    first = open(cfg.output, "rb").read().splitlines()[256]
    assert first == base64.b64encode(b"00") + b" 256"


def test_an_interrupted_run_leaves_no_partial_output(corpus, tmp_path, monkeypatch):
    out = tmp_path / "tok.tiktoken"
    cfg = parse_config(make_config(corpus["root"], output=str(out)))
    calls = []

    def interrupt(*args, **kwargs):
        calls.append(1)
        raise KeyboardInterrupt  # Ctrl-C in the middle of the second phase's merges

    real = phases_mod.run_phase

    def second_phase_interrupted(cfg, phase, *args, **kwargs):
        if phase.name == "code":
            if _backend.native is not None:
                monkeypatch.setattr(_backend.native, "train_merges", interrupt)
            monkeypatch.setattr("bpe_lesson.incremental.train_merges", interrupt)
        return real(cfg, phase, *args, **kwargs)

    monkeypatch.setattr(phases_mod, "run_phase", second_phase_interrupted)
    with pytest.raises(KeyboardInterrupt):
        quiet(cfg)
    assert calls and os.listdir(tmp_path) == []  # no output, no sidecar, no temporary file


def test_an_interrupted_write_keeps_the_previous_output(corpus, tmp_path, monkeypatch):
    out = tmp_path / "tok.tiktoken"
    out.write_bytes(b"previous")
    cfg = parse_config(make_config(corpus["root"], output=str(out), hardcoded_merges=False,
                                   phases=[{"merges": 20, "sources": [{"path": str(corpus["root"] / "code")}]}]))

    def replace_interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", replace_interrupted)
    with pytest.raises(KeyboardInterrupt):
        quiet(cfg)
    assert out.read_bytes() == b"previous" and sorted(os.listdir(tmp_path)) == ["tok.tiktoken"]


def test_a_phase_that_runs_out_of_pairs_says_so(tmp_path):
    (tmp_path / "tiny.txt").write_text("abab abab\n")
    cfg = parse_config({"output": str(tmp_path / "t.tiktoken"), "hardcoded_merges": False,
                        "phases": [{"name": "tiny", "merges": 50, "sources": [{"file": str(tmp_path / "tiny.txt")}]}]})
    lines = []
    result = train_from_config(cfg, progress=False, log=lines.append)
    assert 0 < len(result.phases[0].merges) < 50
    assert "of 50 asked (no pair occurs twice)" in lines[0]


def test_verbose_prints_every_merge(tmp_path, capsys, backend):
    (tmp_path / "t.txt").write_text("aaabdaaabac\n")
    cfg = parse_config({"output": str(tmp_path / "t.tiktoken"), "verbose": True, "hardcoded_merges": False,
                        "pattern": r"[^\n]+|\n", "phases": [{"merges": 3, "sources": [{"file": str(tmp_path / "t.txt")}]}]})
    train_from_config(cfg, backend=backend, progress=False, log=print)
    out = capsys.readouterr().out
    assert "merge 1: (b'a', b'a') -> b'aa' count 4" in out and "merge 3:" in out
    assert "phase 'phase 1': read 0.0 MiB, trained on all of it; 2 unique chunks; 3 merges (ids 256-258)" in out


def test_a_parquet_file_source(tmp_path, prose_docs, backend):
    import pyarrow as pa
    import pyarrow.parquet as pq

    docs = prose_docs[:60]
    pq.write_table(pa.table({"text": docs, "n": list(range(len(docs)))}), tmp_path / "p.parquet")
    cfg = parse_config({"output": str(tmp_path / "t.tiktoken"), "hardcoded_merges": False,
                        "phases": [{"merges": 100, "sources": [{"file": str(tmp_path / "p.parquet")}]}]})
    tok = quiet(cfg, backend=backend, write=False).tokenizer
    assert tok.merges == bpe_lesson.train(docs, 356, backend=backend, workers=1).merges


@pytest.mark.parametrize("budget_mb", [64, 0.2], ids=["all fits", "sampled"])
def test_counting_on_workers_while_reading_changes_nothing(corpus, budget_mb, monkeypatch):
    cfg = parse_config(make_config(corpus["root"], working_set_mb=budget_mb, workers=2,
                                   phases=[{"merges": 150, "sources": [{"path": str(corpus["root"] / "english")},
                                                                       {"path": str(corpus["root"] / "code")}]}]))
    serial = quiet(cfg, write=False).phases[0]  # the corpus is below PARALLEL_MIN_BYTES: one process
    # now force workers, and tasks small enough that many are sent while the files are still read
    monkeypatch.setattr(phases_mod, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(phases_mod, "TASK_BYTES", 30_000)
    monkeypatch.setattr("bpe_lesson.scale.counting.TASK_BYTES", 30_000)
    parallel = quiet(cfg, write=False).phases[0]
    assert parallel.merges == serial.merges and parallel.unique_chunks == serial.unique_chunks
    assert parallel.sampled == (budget_mb < 1)  # with sampling, the early counts are dropped, the sample recounted


def test_text_let_go_that_overflows_after_all_is_read_again(tmp_path, monkeypatch):
    # 60 KB of two-byte lines: a quarter of the 0.25 MB budget on disk, but each line is a unit
    # that costs ~50 bytes of objects, so they overflow it. The workers had them and the
    # reader had let them go: it reads again, holding them, and samples as one process does.
    lines = "".join(f"{'abcdefghij'[i % 10]}{'klmnopq'[i % 7]}\n" for i in range(30_000))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lines.txt").write_text(lines)
    cfg = parse_config({"output": str(tmp_path / "t.tiktoken"), "hardcoded_merges": False, "workers": 2,
                        "working_set_mb": 0.25, "phases": [{"merges": 40, "sources": [{"path": str(tmp_path / "src")}]}]})
    serial = quiet(cfg, write=False).phases[0]  # one process: never lets a unit go
    passes = []
    read = phases_mod._read_and_count
    monkeypatch.setattr(phases_mod, "_read_and_count", lambda *a, **k: passes.append(k["forget"]) or read(*a, **k))
    monkeypatch.setattr(phases_mod, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(phases_mod, "TASK_BYTES", 10_000)
    again = quiet(cfg, write=False).phases[0]
    assert passes == [True, False]  # let go, overflowed, read again
    assert serial.sampled and again.sampled and again.units_held == serial.units_held < 30_000
    assert again.merges == serial.merges


def test_a_sampled_phase_trains_on_about_the_budget(corpus, tmp_path):
    budget_mb = 0.05
    cfg = parse_config(make_config(corpus["root"], working_set_mb=budget_mb,
                                   phases=[{"merges": 100, "sources": [{"path": str(corpus["root"] / "english")}]}]))
    r = quiet(cfg, write=False).phases[0]
    assert r.sampled and r.bytes_read > 5 * budget_mb * 2**20
    assert r.bytes_held < budget_mb * 2**20 and r.units_held < r.units_read
    assert len(r.merges) == 100
    again = quiet(cfg, write=False).phases[0]
    assert again.merges == r.merges  # seeded: the same sample, the same merges


# ---- the command line ------------------------------------------------------------

def test_the_command_line_end_to_end(corpus, tmp_path):
    cfg = make_config(corpus["root"], output="out/cli.tiktoken", workers=2,
                      phases=[{"name": "code", "merges": 50, "sources": [{"path": str(corpus["root"] / "code")}]}])
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    run = subprocess.run([sys.executable, "-m", "bpe_lesson", "train", "-c", "cfg.yaml"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    out = tmp_path / "out" / "cli.tiktoken"
    assert "wrote out/cli.tiktoken (+ .json sidecar): vocabulary 1,469 = 256 bytes + 1,161 hardcoded + 50 (code)" \
        in run.stdout
    assert "phase 'code': read " in run.stderr and "merges/s" in run.stderr and "peak memory" in run.stderr
    assert bpe_lesson.load(out).vocab_size == 1469

    (tmp_path / "bad.yaml").write_text(yaml.safe_dump({**cfg, "phases": [{"merges": -1, "sources": []}]}))
    bad = subprocess.run([sys.executable, "-m", "bpe_lesson", "train", "-c", str(tmp_path / "bad.yaml")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert "bpe-lesson train: error: " in bad.stderr and "phases[0].merges: -1 is negative" in bad.stderr


def test_the_command_line_warns_of_an_older_name_in_one_line(corpus, tmp_path):
    code = [{"name": "code", "merges": 20, "sources": [{"path": str(corpus["root"] / "code")}]}]
    cfg = make_config(corpus["root"], output="out/old.tiktoken", threads=1, hardcoded_merges=False, phases=code)
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    run = subprocess.run([sys.executable, "-m", "bpe_lesson", "train", "-c", "cfg.yaml", "--quiet"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == ["bpe-lesson train: warning: cfg.yaml: threads: is deprecated, the older "
                                       "name of workers:; use workers:"]
    new = {**without(cfg, "threads"), "workers": 1, "output": str(tmp_path / "new.tiktoken")}
    assert bpe_lesson.load(str(tmp_path / "out" / "old.tiktoken")).merges == \
        quiet(parse_config(new), write=False).tokenizer.merges


def test_ctrl_c_on_the_command_line_writes_nothing(corpus, tmp_path):
    import signal

    big = tmp_path / "big.txt"  # all of the stdlib's top-level modules, several MB
    big.write_bytes(b"".join(open(p, "rb").read() for p in stdlib_files()))
    cfg = make_config(corpus["root"], output="out/never.tiktoken",
                      phases=[{"merges": 30000, "sources": [{"file": str(big)}]}])
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    # the readable Python trainer: reading, counting and 30,000 merges take long after the line below
    env = {**os.environ, "BPE_LESSON_PUREPYTHON": "1"}
    # subtle: a child inherits an ignored SIGINT (pytest started as a background job of a
    # non-interactive shell) and Python then keeps ignoring it; give the child the default
    proc = subprocess.Popen([sys.executable, "-m", "bpe_lesson", "train", "-c", "cfg.yaml"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    first = proc.stderr.readline()  # the event: printed once the interrupt handler is in place
    assert first.startswith("bpe-lesson train: training 1 phase(s) into out/never.tiktoken"), first
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted; out/never.tiktoken was not written" in err
    assert not (tmp_path / "out").exists() or os.listdir(tmp_path / "out") == []


def test_an_interrupt_swallowed_by_a_finalizer_still_stops_the_run(corpus, tmp_path, monkeypatch, capsys):
    # a KeyboardInterrupt raised while a __del__ runs is printed as "Exception ignored" and
    # lost; the trainer must stop anyway, and write nothing
    import signal

    class SwallowsInterrupts:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)  # the handler runs inside this __del__
            sum(range(1000))

    def train_then_finalize(cfg, check_interrupt=lambda: None, **kw):
        SwallowsInterrupts()  # its __del__ runs at once
        result = quiet(cfg, write=False)
        check_interrupt()
        return result

    cfg = make_config(corpus["root"], output=str(tmp_path / "out" / "t.tiktoken"))
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    monkeypatch.setattr(phases_mod, "train_from_config", train_then_finalize)
    swallowed = []  # what Python prints as "Exception ignored in ..."
    monkeypatch.setattr(sys, "unraisablehook", lambda u: swallowed.append(u.exc_type))
    args = argparse.Namespace(config=str(tmp_path / "cfg.yaml"), quiet=True)
    # subtle: run_train handles SIGINT only where it has Python's default handler; a
    # pytest started with SIGINT ignored (a background job of a non-interactive shell)
    # has none, and SIGINT would do nothing at all
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert phases_mod.run_train(args) == 130
    finally:
        signal.signal(signal.SIGINT, old)
    assert swallowed == [KeyboardInterrupt]  # it was swallowed, and still honoured
    assert not (tmp_path / "out" / "t.tiktoken").exists()


@pytest.mark.parametrize("make, words", [
    (lambda d: (d / "out.tiktoken").mkdir(), "is a folder"),
    (lambda d: (d / "afile").write_text("x"), "which is a file"),
])
def test_a_bad_output_path_fails_before_training(corpus, tmp_path, monkeypatch, make, words):
    make(tmp_path)
    output = tmp_path / ("out.tiktoken" if "folder" in words else "afile/sub/out.tiktoken")
    cfg = make_config(corpus["root"], output=str(output))
    monkeypatch.setattr(phases_mod, "run_phase", lambda *a, **k: pytest.fail("trained before checking the output"))
    with pytest.raises(ValueError, match=words):
        quiet(parse_config(cfg))
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    run = subprocess.run([sys.executable, "-m", "bpe_lesson", "train", "-c", "cfg.yaml", "--quiet"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "bpe-lesson train: error: output: " in run.stderr and words in run.stderr
    assert "Traceback" not in run.stderr


def test_a_failed_write_keeps_the_tokenizer_and_says_where(corpus, tmp_path, monkeypatch, capsys):
    cfg = make_config(corpus["root"], output=str(tmp_path / "out" / "t.tiktoken"),
                      phases=[{"name": "code", "merges": 20, "sources": [{"path": str(corpus["root"] / "code")}]}])
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    real_save = Tokenizer.save_tiktoken

    def disk_full_at_the_output(self, path):
        if str(path).startswith(str(tmp_path)):
            raise OSError(28, "No space left on device")
        real_save(self, path)

    monkeypatch.setattr(Tokenizer, "save_tiktoken", disk_full_at_the_output)
    args = argparse.Namespace(config=str(tmp_path / "cfg.yaml"), quiet=True)
    assert phases_mod.run_train(args) == 1
    err = capsys.readouterr().err
    assert "No space left on device" in err
    rescued = err.split("is saved in ")[1].split(" (+ .json sidecar)")[0]
    assert bpe_lesson.load(rescued).vocab_size == 256 + 1161 + 20 + 2


def test_an_infinite_working_set_is_a_config_error(corpus):
    with pytest.raises(ConfigError, match=r"working_set_mb: inf should be a positive number of megabytes, finite"):
        parse_config(make_config(corpus["root"], working_set_mb=float("inf")))


def test_a_config_pattern_that_drops_text_is_a_config_error(corpus):
    with pytest.raises(ConfigError, match=r"pattern: split pattern '\[a-z\]\+' leaves"):
        parse_config(make_config(corpus["root"], pattern="[a-z]+"))


def test_invalid_utf8_in_a_source_is_refused_naming_the_file_and_byte(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.txt").write_bytes(b"fine text\nthen caf\xe9 in latin-1\n" * 3)
    cfg = {"output": str(tmp_path / "t.tiktoken"), "hardcoded_merges": False,
           "phases": [{"name": "p", "merges": 10, "sources": [{"path": str(tmp_path / "src")}]}]}
    with pytest.raises(ValueError, match=r"a\.txt: not UTF-8 text \(byte 18: invalid continuation byte\)"):
        quiet(parse_config(cfg))
