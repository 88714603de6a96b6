"""The low items of issue 39: each a clear message naming the problem, the file and the key.

(The others are beside the defects of their kind: a repeated merge and a lone-surrogate
special token in ``test_specials.py``, ``version: true`` in ``test_importers.py``,
``encode_ordinary(None)`` in ``test_str_subclasses.py``, a non-UTF-8 YAML in
``test_config.py``.)
"""

import json

import pytest

from bpe_lesson import Tokenizer, train
from bpe_lesson.lm.pack import pack
from bpe_lesson.lm.shards import verify
from bpe_lesson.lm.windows import window_count


def test_save_into_a_missing_folder_names_the_file_not_the_temporary(tmp_path):
    target = tmp_path / "no_such_folder" / "t.json"
    with pytest.raises(FileNotFoundError) as e:
        Tokenizer([]).save(target)
    assert str(e.value) == f"cannot write {target}: the folder {target.parent} does not exist"  # before: ".t.json.123.x.tmp"
    assert not (tmp_path / "no_such_folder").exists()


@pytest.mark.parametrize("args, key", [((10, 0), "context_length"), ((10, 4, 0), "stride"),
                                       ((10, -4), "context_length"), ((-1, 4), "n_tokens")])
def test_window_count_refuses_what_is_no_window(args, key):
    with pytest.raises(ValueError, match=f"^{key} must be"):  # before: ZeroDivisionError, or 0 windows
        window_count(*args)
    assert window_count(10, 4) == 2 and window_count(9, 4, 2) == 3  # by hand: starts 0, 2, 4 (ids ..8)


def test_verify_refuses_an_edited_document_count(tmp_path):
    tok = train("alpha beta gamma\n" * 20, 270, special_tokens=["<|endoftext|>"])
    tok.save(tmp_path / "tok.json")
    src = tmp_path / "docs.jsonl"
    src.write_text("".join(json.dumps({"text": f"alpha beta {k}"}) + "\n" for k in range(7)), encoding="utf-8")
    out = tmp_path / "shards"
    pack([str(src)], str(tmp_path / "tok.json"), str(out))
    assert verify(str(out)) == []
    m = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert m["documents"] == 7
    m["documents"] = 8
    (out / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    assert verify(str(out)) == ["manifest.json: documents: says 8, the shards hold 7 EOS-ended documents"]


def damaged_parquets(folder):
    """A file that only looks like parquet, a truncated one, and one with its middle
    overwritten: pyarrow's own errors for these name no file."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    good = folder / "good.parquet"
    pq.write_table(pa.table({"text": [f"document {i} " * 20 for i in range(2000)]}), good,
                   compression="none", row_group_size=500)
    data = good.read_bytes()
    out = {"garbage.parquet": b"PAR1 not a parquet file PAR1",
           "truncated.parquet": data[: len(data) // 2],
           "overwritten.parquet": data[:4] + b"\xff" * (len(data) - 8 - 2000) + data[-(4 + 2000):]}
    for name, content in out.items():
        (folder / name).write_bytes(content)
    return sorted(out)


def test_a_damaged_parquet_is_named_by_every_reader(tmp_path):
    # before: ArrowInvalid "Parquet file size is 27 bytes, ..." naming no file
    from bpe_lesson import read_documents
    from bpe_lesson.scale.config import load_config
    from bpe_lesson.scale.phases import train_from_config

    for name in damaged_parquets(tmp_path):
        path = str(tmp_path / name)
        with pytest.raises(ValueError, match=f"{name}: not a readable parquet file"):
            list(read_documents(path))
        with pytest.raises(ValueError, match=f"{name}: not a readable parquet file"):
            pack([path], Tokenizer([], pattern="gpt2", special_tokens={"<|endoftext|>": 256}),
                 str(tmp_path / f"out_{name}"))
        config = tmp_path / f"{name}.yaml"
        config.write_text(f"output: {tmp_path}/t_{name}.tiktoken\n"
                          f"phases: [{{name: a, merges: 3, sources: [{{file: {path}}}]}}]\n")
        with pytest.raises(ValueError, match=f"{name}: not a readable parquet file"):
            train_from_config(load_config(str(config)), write=False)
        assert not (tmp_path / f"t_{name}.tiktoken").exists()
