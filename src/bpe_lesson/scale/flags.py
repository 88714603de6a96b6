"""``bpe-lesson train FILE... --vocab-size N -o OUT``: the Python ``train()`` from the command line.

Each flag is a keyword of ``bpe_lesson.train`` (``--vocab-size``, ``--pattern``,
``--special-token`` once per token, ``--algorithm``, ``--backend``, ``--workers``,
``--normalize``, ``--tie-break``, ``--min-frequency``, ``--max-token-length``,
``--verbose``), and the files are read as ``read_documents`` reads them (files,
folders, path globs, ``-`` for standard input; ``--text-field``, ``--glob``,
``--errors``), so that

    bpe-lesson train corpus/*.txt --vocab-size 16384 --special-token '<|endoftext|>' -o tok.json

writes the file that ``train(read_documents(files), 16384,
special_tokens=["<|endoftext|>"]).save("tok.json")`` writes. The output's name
picks its format, as ``bpe_lesson.load`` reads it back: ``.tiktoken`` (and its
JSON sidecar) or ``.tiktoken.gz``, else our JSON file.

A bad value is refused before any file is read, naming its flag; a bad file is
refused naming the file (exit status 2, ``__main__``).

What this module does not do: phases, hardcoded merges or a memory budget (the
YAML config, ``bpe-lesson train -c CONFIG``, ``phases.py``); or train by itself
(``trainer.train`` does; this is its command line).
"""

from __future__ import annotations

import argparse
import os
import sys

from .._internal.files import check_output
from ..formats.documents import ERRORS, expand_sources, iter_documents
from ..incremental import TIE_BREAKS
from ..patterns import FORMS, check_pattern, resolve_pattern
from ..trainer import ALGORITHMS, train

__all__ = ["TOKENIZER_SUFFIXES", "FLAG_DEFAULTS", "add_flag_arguments", "given_flags",
           "run_flags"]

TOKENIZER_SUFFIXES = (".json", ".tiktoken", ".tiktoken.gz")
# the flags that train from files; None = not given (so -c CONFIG can refuse them by name)
FLAG_DEFAULTS = {"vocab_size": None, "output": None, "pattern": "gpt4", "special_tokens": [],
                 "algorithm": "incremental", "backend": None, "workers": None, "normalize": None,
                 "tie_break": "smallest-ids", "min_frequency": 2, "max_token_length": None,
                 "text_field": "text", "glob": None, "errors": "strict", "verbose": False}


def _whole(low: int, also=()):
    """An argparse ``type``: a whole number >= ``low`` (or one of ``also``).

    >>> _whole(2)("3"), _whole(1, also=(-1,))("-1")
    (3, -1)
    """
    def parse(text):
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if n < low and n not in also:
            extra = "".join(f" or {a}" for a in also)
            raise argparse.ArgumentTypeError(f"{n} should be a whole number >= {low}{extra}")
        return n
    return parse


def add_flag_arguments(parser) -> None:
    """The options of training from files (``train``'s keywords), on ``bpe-lesson train``'s parser."""
    parser.add_argument("sources", nargs="*", metavar="FILE",
                        help="text to train on: files, folders, path globs, - for standard input")
    parser.add_argument("--vocab-size", type=_whole(256), metavar="N",
                        help="ids in all: 256 bytes + merges + special tokens")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="the tokenizer file to write: .json (ours), .tiktoken or .tiktoken.gz")
    parser.add_argument("--pattern", metavar="NAME|REGEX",
                        help="the split pattern: gpt2, gpt4 (default), o200k, a regex, or none")
    parser.add_argument("--special-token", action="append", dest="special_tokens", metavar="TOKEN",
                        help="a special token (the ids after the merges, in order); repeat for more")
    parser.add_argument("--algorithm", choices=ALGORITHMS, help="incremental (default) or textbook")
    parser.add_argument("--backend", choices=("python", "cython"), help="default: bpe_lesson.BACKEND")
    parser.add_argument("--workers", type=_whole(1, also=(-1,)), metavar="N",
                        help="counting the chunks; -1 = every core (default: every core for large text)")
    parser.add_argument("--normalize", choices=FORMS, help="a Unicode form to put the text in first")
    parser.add_argument("--tie-break", choices=TIE_BREAKS, help="smallest-ids (default) or greatest-bytes")
    parser.add_argument("--min-frequency", type=_whole(1), metavar="N",
                        help="stop when the best pair occurs fewer times (default 2)")
    parser.add_argument("--max-token-length", type=_whole(2), metavar="BYTES",
                        help="never make a token longer than this")
    parser.add_argument("--text-field", metavar="NAME", help="the .jsonl field or parquet column (default text)")
    parser.add_argument("--glob", metavar="GLOB", help="a folder's files: those matching it (e.g. '*.py')")
    parser.add_argument("--errors", choices=ERRORS,
                        help="a file that cannot be read or decoded: stop (strict, default) or skip it")
    parser.add_argument("--verbose", action="store_true", default=None, help="print every merge")


def given_flags(args) -> list[str]:
    """The training flags given on the command line, as typed (``--vocab-size``), in order."""
    return [f"--{name.replace('_', '-')}" if name != "special_tokens" else "--special-token"
            for name in FLAG_DEFAULTS if getattr(args, name, None) not in (None, [])]


def _settings(args) -> dict:
    """Every flag's value, its default where it was not given."""
    return {name: default if getattr(args, name, None) in (None, []) else getattr(args, name)
            for name, default in FLAG_DEFAULTS.items()}


def _check(args, s) -> None:
    """Refuse, naming the flag, what ``train`` would refuse only after reading the files."""
    if not args.sources:
        raise ValueError("give the files to train on (FILE..., - for standard input), or a config with -c CONFIG")
    if s["vocab_size"] is None:
        raise ValueError("--vocab-size: missing; how many ids the tokenizer has, e.g. --vocab-size 16384")
    if s["output"] is None:
        raise ValueError("-o/--output: missing; the tokenizer file to write, e.g. -o tokenizer.json")
    if not s["output"].endswith(TOKENIZER_SUFFIXES):
        raise ValueError(f"-o/--output: {s['output']} should end in .json (ours), .tiktoken or .tiktoken.gz "
                         "(bpe_lesson.load tells them apart by the name)")
    specials = s["special_tokens"]
    for k, token in enumerate(specials):
        if not token:
            raise ValueError("--special-token: an empty string; a special token has at least one character")
        if token in specials[:k]:
            raise ValueError(f"--special-token: {token!r} is given twice")
    if s["vocab_size"] < 256 + len(specials):
        raise ValueError(f"--vocab-size: {s['vocab_size']} leaves no room for the 256 bytes and "
                         f"{len(specials)} special token(s); give at least {256 + len(specials)}")
    try:
        check_pattern(s["pattern"])
    except ValueError as e:
        raise ValueError(f"--pattern: {e}") from None


def run_flags(args) -> int:
    """``bpe-lesson train FILE... --vocab-size N -o OUT``: train, write, print one line."""
    s = _settings(args)
    if s["pattern"] == "none":
        s["pattern"] = None  # each document is one chunk
    try:
        s["pattern"] = resolve_pattern(s["pattern"])
    except ValueError as e:
        raise ValueError(f"--pattern: {e}") from None
    _check(args, s)
    output = os.path.abspath(s.pop("output"))
    check_output(output, "-o/--output")  # before training: a bad path fails now
    text_field, glob, errors = s.pop("text_field"), s.pop("glob"), s.pop("errors")
    paths = expand_sources(args.sources, glob, outputs=[output], errors=errors)  # a missing file fails now
    docs = (text for _, text in iter_documents(paths, text_field, errors))
    if not args.quiet:
        print(f"bpe-lesson train: training on {len(paths):,} file(s) into {os.path.relpath(output)}",
              file=sys.stderr, flush=True)
    tok = train(docs, s.pop("vocab_size"), progress=False if args.quiet else None, **s)
    if output.endswith((".tiktoken", ".tiktoken.gz")):
        tok.save_tiktoken(output)
    else:
        tok.save(output)
    n_merges = len(tok.merges)
    print(f"wrote {os.path.relpath(output)}: vocabulary {tok.vocab_size:,} = 256 bytes + {n_merges:,} merges "
          f"+ {len(tok.special_tokens)} special tokens")
    return 0
