"""The vocabulary ladder of *From a vocabulary to a model*, at more seeds: how much of the
chapter's comparison is the seed.

How to run (from the repository root, with the project's environment active):

    python benchmarks/vocab_ladder.py                 # seeds 0 1 2 (about 8 minutes on one core)
    python benchmarks/vocab_ladder.py --seeds 0 1 2 3 4

It trains the chapter's grid (``bpe_lesson.lm.ladder``: one GPT-pattern tokenizer cut to
512, 1,024, 2,048 and 4,096 ids; the same small model at two budgets of training FLOPs,
tied, and untied at the first budget) once per seed, and the chapter's extension
(the V = 1,024 model at the second budget, extended by 256 tokens learned on Unicode
character names, trained on for 100 steps with each start of the new rows, and without
extending), then writes ``benchmarks/results/vocab_ladder.json``: every row, the machine
and the command. The chapter reads that file; it does not run this script.

What it does not do: pick a learning rate per size, or train past the chapter's budgets.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import bpe_lesson
from bpe_lesson.lm import ladder, new_token_pieces
from bpe_lesson.teaching import samples
from bpe_lesson.tokenizer import Tokenizer

OUT = os.path.join(os.path.dirname(__file__), "results", "vocab_ladder.json")
EXTEND_STEPS, CHECKPOINTS = 100, (10, 25, 50, 100)


def cpu_name() -> str:
    """The CPU's model name (Linux), or what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    started = time.time()
    prose_train, prose_held = samples.prose_split()
    code_train, code_held = samples.code_split()
    train_docs = prose_train + code_train
    held = {"prose": samples.first_bytes(prose_held, 30_000), "code": samples.first_bytes(code_held, 30_000)}
    big = bpe_lesson.train(train_docs, max(ladder.SIZES), pattern="gpt4")
    tokenizers = {v: Tokenizer(big.merges[:v - 256], pattern="gpt4") for v in ladder.SIZES}
    names_train, names_held = samples.unicode_names()
    rows, extension = [], []
    for seed in args.seeds:
        some, models = ladder.grid(tokenizers, train_docs, held, seeds=(seed,))
        rows += some
        print(f"seed {seed}: ladder done at {time.time() - started:.0f} s", flush=True)
        base, model = tokenizers[1024], models[1024, ladder.BUDGETS[1], True, seed]
        extended = bpe_lesson.train(names_train, base.n_vocab + 256, start_from=base)
        pieces = new_token_pieces(base, extended)
        for init in (None, "random", "mean", "pieces"):
            tok = base if init is None else extended
            curve = ladder.extension_curve(model, tok, names_train, held=names_held, steps=EXTEND_STEPS,
                                           checkpoints=CHECKPOINTS, init=init, pieces=pieces, seed=seed)
            extension.append({"init": init or "not extended", "seed": seed, "curve": curve})
    result = {"command": "python benchmarks/vocab_ladder.py --seeds " + " ".join(map(str, args.seeds)),
              "machine": f"{cpu_name()}, {os.cpu_count()} cores; "
                         f"Python {sys.version.split()[0]}, torch {ladder.torch.__version__}",
              "shape": ladder.SHAPE, "seconds": round(time.time() - started),
              "ladder": rows, "extension": extension}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(result, f, indent=1)
    print(f"wrote {OUT} ({result['seconds']} s)")


if __name__ == "__main__":
    main()
