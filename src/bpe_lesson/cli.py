"""The ``bpe-lesson`` command (also ``python -m bpe_lesson``).

Subcommands:
  train -c CONFIG.yaml     train a tokenizer from a YAML config (``scale/phases.py``)
  pack ...                 encode documents into token shards (``lm/pack.py``)
  verify DIR               re-check a shard directory against its manifest (``lm/shards.py``)

What this module does not do: any work itself; each subcommand's module owns its
options (``add_arguments``) and its behaviour (``run``).
"""

from __future__ import annotations

import argparse
import importlib
import sys

# subcommand -> (module, help); each module has add_<name>_arguments(parser) and run_<name>(args) -> int
COMMANDS = {
    "train": ("bpe_lesson.scale.phases", "train a tokenizer from a YAML config"),
    "pack": ("bpe_lesson.lm.pack", "encode documents into uint16/uint32 token shards with a manifest"),
    "verify": ("bpe_lesson.lm.shards", "re-check a shard directory against its manifest"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bpe-lesson", description="Byte-pair encoding from first principles.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module, help_) in COMMANDS.items():
        p = sub.add_parser(name, help=help_)
        mod = importlib.import_module(module)
        getattr(mod, f"add_{name}_arguments")(p)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    module = importlib.import_module(COMMANDS[args.command][0])
    try:
        return int(getattr(module, f"run_{args.command}")(args) or 0)
    except (ValueError, FileNotFoundError) as e:
        print(f"bpe-lesson {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
