"""``python -m bpe_lesson``, and the ``bpe-lesson`` command: the subcommand dispatch.

Subcommands:
  train FILE... --vocab-size N -o OUT   ``bpe_lesson.train`` from flags (``scale/flags.py``)
  train -c CONFIG.yaml     train a tokenizer from a YAML config (``scale/phases.py``)
  pack ...                 encode documents into token shards (``lm/pack.py``, ``lm/pack_command.py``)
  verify DIR               re-check a shard directory against its manifest (``lm/shards.py``)

Exit codes: 0 done; 1 problems found (``verify``); 2 a usage or input error (the
message names it, on stderr; a missing optional package, with the pip command that
installs it); 130 interrupted (Ctrl-C); 141 the reader of our output went away
(``bpe-lesson verify DIR | head``: quietly, as a Unix tool killed by SIGPIPE).
A warning (an option's older name, say) is one line on stderr, as an error is
(``bpe-lesson pack: warning: ...``), and the command goes on.

What this module does not do: any work itself; each subcommand's module owns its
options (``add_arguments``) and its behaviour (``run``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

import bpe_lesson_cli

from . import __version__
from ._internal.optional import MissingExtra

EXIT_CODES = """exit codes: 0 done, 1 problems found (verify), 2 usage or input error,
130 interrupted, 141 output pipe closed"""

# subcommand -> (module, help); each module has add_<name>_arguments(parser) and run_<name>(args) -> int
COMMANDS = {
    "train": ("bpe_lesson.scale.phases", "train a tokenizer from files and flags, or a YAML config"),
    "pack": ("bpe_lesson.lm.pack_command", "encode documents into uint16/uint32 token shards with a manifest"),
    "verify": ("bpe_lesson.lm.shards", "re-check a shard directory against its manifest"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bpe-lesson", description="Byte-pair encoding from first principles.",
                                     epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"bpe-lesson {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module, help_) in COMMANDS.items():
        p = sub.add_parser(name, help=help_)
        mod = importlib.import_module(module)
        getattr(mod, f"add_{name}_arguments")(p)
    return parser


def main(argv=None) -> int:
    command = "bpe-lesson"
    with warnings.catch_warnings():
        # a warning is one line, as an error is (not Python's file:line and source line)
        warnings.showwarning = lambda message, *_, **__: print(f"{command}: warning: {message}",
                                                               file=sys.stderr)
        try:
            bpe_lesson_cli.end_of_start_up()  # Ctrl-C is caught below from here on, quiet before
            try:
                args = build_parser().parse_args(argv)
            except SystemExit:  # --help, --version or a usage error: argparse printed, then exits
                sys.stdout.flush()
                raise
            command = f"bpe-lesson {args.command}"
            module = importlib.import_module(COMMANDS[args.command][0])
            code = int(getattr(module, f"run_{args.command}")(args) or 0)
            sys.stdout.flush()  # subtle: a closed pipe shows here, not at exit, where it would print a traceback
            return code
        except (ValueError, FileNotFoundError, MissingExtra) as e:  # a missing extra: the pip command
            print(f"{command}: error: {e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"{command}: interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:
            # nobody reads our output any more: stop quietly (Python would complain at exit while
            # flushing stdout, so point it at /dev/null first; the Python docs' recipe)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141


if __name__ == "__main__":
    sys.exit(main())
