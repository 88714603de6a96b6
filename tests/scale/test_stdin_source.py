"""A YAML source read from standard input (``file: "-"``), as ``pack -`` and ``train()`` take it.

The merges of ``cat text | bpe-lesson train -c cfg.yaml`` are held to the textbook
trainer's on the same text (recount every pair, merge the best: an independent
implementation of the rule); the refusals name the source and say why.
"""

import subprocess
import sys

import pytest
import yaml

from bpe_lesson import load, train
from bpe_lesson.scale.config import ConfigError, parse_config


def config(tmp_path, sources, **extra):
    return {"output": str(tmp_path / "t.tiktoken"), "hardcoded_merges": False, "pattern": "gpt4",
            "phases": [{"name": "all", "merges": 40, "sources": sources}], **extra}


def test_standard_input_trains_what_the_textbook_trainer_learns(tmp_path, prose_docs):
    text = "\n\n".join(prose_docs[:30])
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(config(tmp_path, [{"file": "-"}])))
    p = subprocess.run([sys.executable, "-m", "bpe_lesson", "train", "-c", str(cfg), "--quiet"],
                       input=text.encode(), capture_output=True)
    assert p.returncode == 0, p.stderr.decode()
    want = train(text, 256 + 40, pattern="gpt4", algorithm="textbook")
    assert load(str(tmp_path / "t.tiktoken")).merges == want.merges


def test_non_utf8_standard_input_is_named(tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(config(tmp_path, [{"file": "-"}])))
    p = subprocess.run([sys.executable, "-m", "bpe_lesson", "train", "-c", str(cfg), "--quiet"],
                       input=b"caf\xe9 au lait\n", capture_output=True)
    assert p.returncode == 2
    assert "<stdin>: not UTF-8 text (byte 3" in p.stderr.decode()
    assert not (tmp_path / "t.tiktoken").exists()


@pytest.mark.parametrize("sources, extra, message", [
    ([{"file": "-"}, {"file": "-"}], {}, r"sources\[1\]\.file: standard input can be read once"),
    ([{"file": "-"}], {"engine": "dask"}, r"sources\[0\]\.file: standard input cannot be shared out"),
    ([{"file": "-", "text_field": "body"}], {}, r"sources\[0\]\.file: - \(standard input\) is read as one"),
    ([{"path": "-"}], {}, r"sources\[0\]\.path: - \(standard input\) is read as one"),
])
def test_standard_input_misused_is_refused_by_name(tmp_path, sources, extra, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(config(tmp_path, sources, **extra), str(tmp_path))
