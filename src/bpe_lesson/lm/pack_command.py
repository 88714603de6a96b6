"""``bpe-lesson pack``: the command line of ``pack.pack`` (its options and what it prints).

What this module does not do: pack (``pack.py``).
"""

from __future__ import annotations

import argparse
import sys

from .._internal.arguments import renamed
from ..formats.documents import ERRORS
from .pack import DEFAULT_SHARD_TOKENS, pack
from .shards import DEFAULT_EOS

__all__ = ["add_pack_arguments", "run_pack"]


def add_pack_arguments(p: argparse.ArgumentParser) -> None:
    """``bpe-lesson pack``'s options, on its parser.

    >>> p = argparse.ArgumentParser(prog="bpe-lesson pack"); add_pack_arguments(p)
    >>> vars(p.parse_args(["docs/", "--tokenizer", "cl100k_base", "--out", "shards", "--errors", "skip"]))["errors"]
    'skip'
    """
    p.add_argument("sources", nargs="+", metavar="SOURCE",
                   help="files or folders: .jsonl (a document per line), .parquet (per row), any other file (one "
                        "document); a folder: its .txt/.jsonl/.parquet files (or --glob); - reads standard input")
    p.add_argument("--tokenizer", required=True, help="tokenizer file (our .json or a .tiktoken), or a model vocabulary's name "
                   "(cl100k_base, o200k_base, llama3, ...), then written into --out")
    p.add_argument("--out", required=True, help="folder for the shards and manifest.json")
    p.add_argument("--shard-tokens", type=int, default=DEFAULT_SHARD_TOKENS,
                   help=f"most ids per shard (default {DEFAULT_SHARD_TOKENS:,})")
    p.add_argument("--eos", default=None, help=f"special token appended after every document (default: the "
                                               f"tokenizer's end-of-text token, {DEFAULT_EOS} when it has one)")
    p.add_argument("--pad", default=None, help="special token recorded as pad_token_id (default: none)")
    p.add_argument("--text-field", default="text", help="the text field of .jsonl lines / parquet rows (default: text)")
    p.add_argument("--glob", default=None, metavar="PATTERN",
                   help="in a folder, read the files whose relative path matches, e.g. '*.py' (default: every "
                        ".txt, .jsonl and .parquet file)")
    p.add_argument("--errors", choices=ERRORS, default="strict",
                   help="a file that cannot be read or decoded: stop (strict, default) or skip it, with a warning")
    p.add_argument("--workers", type=int, metavar="N", help="how many encode at once: threads with the compiled "
                   "encoder, processes with the Python one (default: all cores for large inputs; -1: all cores)")
    p.add_argument("--processes", type=int, metavar="N", help="the older name of --workers (deprecated: it warns)")
    p.add_argument("--engine", choices=("local", "dask"), default="local",
                   help="local: workers here (default); dask: the workers of a Dask cluster")
    p.add_argument("--scheduler", default=None, metavar="ADDR",
                   help="with --engine dask: a running cluster, e.g. tcp://10.0.0.5:8786 "
                        "(default: a LocalCluster of --workers workers)")
    p.add_argument("--overwrite", action="store_true", help="replace the shards of a finished pack in --out")
    p.add_argument("--quiet", action="store_true", help="no progress bar (there is one only when stderr is a "
                   "terminal)")


def run_pack(args) -> int:
    workers = renamed("processes", args.processes, "workers", args.workers, shown="--{}", category=FutureWarning)
    try:
        m = pack(args.sources, args.tokenizer, args.out, shard_tokens=args.shard_tokens, eos=args.eos, pad=args.pad,
                 text_field=args.text_field, workers=workers, overwrite=args.overwrite,
                 progress=False if args.quiet else None, engine=args.engine, scheduler=args.scheduler, glob=args.glob,
                 errors=args.errors)
    except OSError as e:  # a disk that fills up, a folder made read-only mid-run: a message, not a traceback
        if isinstance(e, FileNotFoundError):
            raise
        print(f"bpe-lesson pack: error: {e.filename or args.out}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"packed {m['documents']:,} documents ({m['empty_documents_skipped']:,} empty ones skipped) into "
          f"{m['total_tokens']:,} {m['dtype']} tokens in {m['shard_count']} shard(s) in {args.out}")
    return 0
