"""The YAML trainer's runner: phases in order, their summaries, and ``bpe-lesson train``.

Each phase streams its sources into the memory budget, counts the chunks (on
worker processes when the text is large), runs the merge loop continuing from
every earlier merge, and reports one summary line. The output is written once,
at the end, atomically; whether it can be written is checked before training
starts, and if writing still fails the tokenizer is saved in a temporary folder
(the error says where), so an hour of training is never lost to a bad path.

Ctrl-C: ``bpe-lesson train`` records the interrupt in a flag as well as raising
``KeyboardInterrupt``, and the reading loop and the merge loop check the flag.
subtle: a ``KeyboardInterrupt`` raised while a finalizer (``__del__``, a weakref
callback, a generator being closed) happens to run is printed as "Exception
ignored" and lost; the flag is not. A process started with SIGINT ignored (a
background job of a non-interactive shell) keeps ignoring it, as it should.

What this module does not do: check the config (``config.py``), or read, split,
count or merge by itself (``sources.py``, ``counting.py`` and the trainers do).
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass

from .._compiled.backend import PARALLEL_MIN_BYTES, resolve_backend
from .._internal.files import check_output
from .._internal.progress import check_progress, progress_bar
from ..formats.documents import STDIN, skipped_message
from .hardcoded import hardcoded_merges
from ..tokenizer import Tokenizer
from ..trainer import get_trainer
from .config import MB, Config, Phase, load_config
from .counting import TASK_BYTES, CountingPool, count_units
from .dask_count import count_phase
from .flags import add_flag_arguments, given_flags, run_flags
from .reservoir import Reservoir
from .sources import cut_regex, files_units

__all__ = ["PhaseReport", "TrainResult", "peak_rss_mb", "Interrupts", "count_local",
           "run_phase", "train_from_config", "write_output", "describe",
           "add_train_arguments", "run_train"]


@dataclass
class PhaseReport:
    """What one phase did; ``line()`` is the summary the trainer prints."""

    name: str
    merges_asked: int
    merges: list  # the phase's new merges, [((left, right), new_id), ...]
    bytes_read: int
    units_read: int
    bytes_held: int  # text bytes trained on (all of it, or the sample)
    units_held: int
    sampled: bool
    unique_chunks: int
    seconds_read: float  # streaming the sources (workers already count meanwhile, while all fits)
    seconds_count: float  # the counting still left once the last byte was read
    seconds_merge: float  # the merge loop (with the base merges applied first)
    peak_mb: float  # this process's peak resident memory so far

    @property
    def seconds(self) -> float:
        return self.seconds_read + self.seconds_count + self.seconds_merge

    @property
    def merges_per_second(self) -> float:
        return len(self.merges) / self.seconds_merge if self.seconds_merge > 0 else 0.0

    def line(self) -> str:
        kept = (f"a {self.bytes_held / MB:,.1f} MiB uniform sample ({self.units_held:,} of {self.units_read:,} units)"
                if self.sampled else "all of it")
        ids = f"ids {self.merges[0][1]}-{self.merges[-1][1]}" if self.merges else "no ids"
        short = "" if len(self.merges) == self.merges_asked else f" of {self.merges_asked:,} asked (no pair occurs twice)"
        return (f"phase {self.name!r}: read {self.bytes_read / MB:,.1f} MiB, trained on {kept}; "
                f"{self.unique_chunks:,} unique chunks; {len(self.merges):,} merges{short} ({ids}) "
                f"in {self.seconds:.1f} s (read {self.seconds_read:.1f}, count {self.seconds_count:.1f}, "
                f"merge {self.seconds_merge:.1f} s = {self.merges_per_second:,.0f} merges/s); "
                f"peak memory {self.peak_mb:,.0f} MiB")


@dataclass
class TrainResult:
    tokenizer: Tokenizer
    phases: list[PhaseReport]
    hardcoded: int  # how many hardcoded merges came first (0 or 1,161)


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MiB (0 where ``resource`` is missing: Windows)."""
    try:
        import resource  # POSIX only
    except ImportError:
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / MB if sys.platform == "darwin" else peak / 1024  # macOS: bytes; Linux: KB


class Interrupts:
    """Within ``with Interrupts() as sigint:``, SIGINT sets ``sigint.seen`` and raises
    ``KeyboardInterrupt``; ``sigint.check()`` raises it again if it was swallowed.

    Only in the main thread, and only when SIGINT has Python's default handler.
    """

    def __init__(self):
        self.seen = False
        self._old = None

    def _handler(self, signum, frame):
        self.seen = True  # first: whatever becomes of the exception, the flag stays
        raise KeyboardInterrupt

    def check(self) -> None:
        if self.seen:
            raise KeyboardInterrupt

    def __enter__(self):
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc):
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


def _never_interrupted():
    pass


class _Overflow(Exception):
    """Text let go once counted did not fit the budget after all: read it again (``count_local``)."""


def count_local(cfg: Config, phase: Phase, seed: int, progress=None, check_interrupt=None, backend=None):
    """Stream, sample and count one phase here: ``(counts, report fields, seconds reading)``.

    The units the workers have counted are held only for the case where the budget
    overflows: the sample is then drawn from them. When the sources are text files
    (their size on disk is their text's) that fill at most half the budget, they are
    let go as soon as the workers have them, so the text is not in memory at the
    peak (50 MB of code: 173 MB peak before, see ``benchmarks/train_config.py``);
    should they overflow all the same (many tiny units), the phase is read again,
    holding them, and the sample is the one it would have been.
    """
    files = [path for source in phase.sources for path in source.files]
    size = sum(os.path.getsize(path) for path in files if path != STDIN)
    plain = all(path != STDIN and not path.endswith(".parquet") for path in files)  # .jsonl: file >= text
    if plain and size <= cfg.working_set_mb * MB / 2 and _workers(cfg, size) > 1:
        try:
            return _read_and_count(cfg, phase, seed, progress, check_interrupt, backend, forget=True)
        except _Overflow:
            pass  # subtle: nothing kept from that pass; the one below starts from the same seed
    return _read_and_count(cfg, phase, seed, progress, check_interrupt, backend, forget=False)


def _workers(cfg: Config, size: int) -> int:
    return cfg.workers if size >= PARALLEL_MIN_BYTES else 1


def _read_and_count(cfg: Config, phase: Phase, seed: int, progress, check_interrupt, backend, *, forget: bool):
    """``count_local``'s one pass; ``forget``: let counted units go, raise ``_Overflow`` if sampling."""
    t0 = time.perf_counter()
    files = [(path, source.columns) for source in phase.sources for path in source.files]
    # on disk: parquet is compressed, a guess; standard input has no size (read it with one process)
    size = sum(os.path.getsize(path) for path, _ in files if path != STDIN)
    workers = _workers(cfg, size)
    pool = CountingPool(workers, cfg.pattern, cfg.special_tokens, backend=backend) if workers > 1 else None
    try:
        # 1. stream every source into the memory budget; while everything still fits, the
        #    workers count what has been read so far (so reading and counting overlap)
        reservoir = Reservoir(int(cfg.working_set_mb * MB), seed=seed)
        cut = cut_regex(cfg.pattern)
        sent = sent_held = 0  # units (and their budget bytes) already given to the workers
        all_text = all(not path.endswith((".parquet", ".jsonl")) and path != STDIN for path, _ in files)
        skipped = []  # (path, why) of the files errors: skip left out
        with progress_bar(progress, total=size if all_text else None, desc=f"phase {phase.name}: reading",
                          unit="B", unit_scale=True) as bar:
            for units, alone in files_units(files, cut, cfg.errors, skipped):
                if check_interrupt is not None:
                    check_interrupt()
                seen = reservoir.bytes_seen
                reservoir.offer(units, alone)
                bar.update(reservoir.bytes_seen - seen)
                if forget and reservoir.sampling:
                    raise _Overflow
                if pool is not None and not reservoir.sampling and reservoir.held - sent_held >= TASK_BYTES:
                    pool.submit(reservoir.units[sent:], reservoir.alone[sent:])
                    if forget:
                        reservoir.forget()  # the workers have them
                    sent, sent_held = len(reservoir.units), reservoir.held
        if skipped:  # once: a pass that overflowed (_Overflow) never gets here
            warnings.warn(f"phase {phase.name!r}: {skipped_message(skipped, len(files))}", stacklevel=2)
        t1 = time.perf_counter()
        # 2. count the chunks of what we kept (map on workers, reduce here), then let the text go
        if pool is not None and not reservoir.sampling:
            pool.submit(reservoir.units[sent:], reservoir.alone[sent:])
            counts = pool.result()
        else:
            # subtle: once sampling, units counted early may have left the sample; count the sample afresh
            if pool is not None:
                pool.close()
                pool = None
            counts = count_units(reservoir.units, reservoir.alone, cfg.pattern, cfg.special_tokens, workers,
                                 backend=backend)
    finally:
        if pool is not None:
            pool.close()
    report_args = dict(bytes_read=reservoir.bytes_seen, units_read=reservoir.seen, bytes_held=reservoir.text_bytes,
                       units_held=reservoir.units_held, sampled=reservoir.sampling)
    del reservoir
    return counts, report_args, t1 - t0


def run_phase(cfg: Config, phase: Phase, base_merges, seed: int, backend=None, progress=None,
              check_interrupt=_never_interrupted) -> PhaseReport:
    """Stream, sample, count and train one phase, continuing from ``base_merges``.

    ``check_interrupt()`` is called often while reading and merging; it raises to stop.
    ``engine: dask`` counts on a Dask cluster instead (``dask_count.py``): every
    byte, no sample; "read" is then the map on the workers, "count" the reduce.
    """
    backend = resolve_backend(backend)  # once: the counting and the merges run on it
    impl = get_trainer("incremental", backend)
    # ``progress``: None = bars on a terminal only (not in a log, a pipe or a notebook), True always
    progress = False if cfg.verbose else progress
    t0 = time.perf_counter()
    if cfg.engine == "dask":
        counts, report_args, seconds_reduce = count_phase(cfg, phase, backend=backend)
        t2 = time.perf_counter()
        t1 = t2 - seconds_reduce
    else:
        counts, report_args, seconds_read = count_local(cfg, phase, seed, progress, check_interrupt, backend)
        t1, t2 = t0 + seconds_read, time.perf_counter()
    check_interrupt()
    # 3. the merge loop, with its bar: merges done of the budget, merges per second
    with progress_bar(False if phase.merges == 0 else progress, total=phase.merges,
                      desc=f"phase {phase.name}: merges", unit="merge") as bar:

        def step(n):
            bar.update(n)
            check_interrupt()

        merges = impl.train_merges(counts, phase.merges, base_merges=base_merges, verbose=cfg.verbose,
                                   progress=step, **cfg.merge_options)
    t3 = time.perf_counter()
    return PhaseReport(name=phase.name, merges_asked=phase.merges, merges=merges, unique_chunks=len(counts),
                       seconds_read=t1 - t0, seconds_count=t2 - t1, seconds_merge=t3 - t2,
                       peak_mb=peak_rss_mb(), **report_args)


def train_from_config(config, *, backend=None, progress=None, log=None, write=True,
                      check_interrupt=_never_interrupted) -> TrainResult:
    """Train the tokenizer a config describes and write it (``.tiktoken`` + JSON sidecar).

    ``config``: a ``Config`` or the path of a YAML file. ``log``: where the summary
    lines go (default: stderr); ``progress``: the bars on stderr, None (default) as the
    config's ``progress:`` says (itself by default: on a terminal only), True always
    (a notebook shows them too), False never (``_internal/progress.py``); ``write=False``
    skips writing the output. The file is written only at the end, atomically, so
    an interrupted run leaves no partial output; with ``write`` the output path is
    checked before training (``check_output``).
    """
    cfg = config if isinstance(config, Config) else load_config(config)
    progress = cfg.progress if progress is None else check_progress(progress)
    if write:
        check_output(cfg.output)
    if log is None:
        def log(line):
            print(line, file=sys.stderr, flush=True)
    merges = hardcoded_merges() if cfg.hardcoded_merges else []
    n_hardcoded = len(merges)
    reports = []
    for k, phase in enumerate(cfg.phases):
        # subtle: each phase continues from *all* earlier merges; it learns only from its own sources
        report = run_phase(cfg, phase, list(merges), seed=cfg.seed + k, backend=backend, progress=progress,
                           check_interrupt=check_interrupt)
        merges += report.merges
        reports.append(report)
        log(report.line())
    first = 256 + len(merges)
    name = os.path.basename(cfg.output).split(".")[0]
    tok = Tokenizer(merges, pattern=cfg.pattern, name=name, backend=backend,
                    special_tokens={s: first + k for k, s in enumerate(cfg.special_tokens)})
    if write:
        write_output(cfg, tok)
    return TrainResult(tokenizer=tok, phases=reports, hardcoded=n_hardcoded)


def write_output(cfg: Config, tok: Tokenizer) -> str:
    """The .tiktoken file and its JSON sidecar, each written atomically (``_files.atomic_write``).

    If that fails (the folder turned read-only, the disk filled up during training),
    the tokenizer goes to a new temporary folder instead and the ``OSError`` raised
    says where. Returns the path written.
    """
    try:
        os.makedirs(os.path.dirname(cfg.output), exist_ok=True)
        tok.save_tiktoken(cfg.output)
        return cfg.output
    except OSError as e:
        rescue = os.path.join(tempfile.mkdtemp(prefix="bpe-lesson-rescued-"), os.path.basename(cfg.output))
        tok.save_tiktoken(rescue)
        raise OSError(e.errno, f"could not write {cfg.output} ({e.strerror or e}); the trained tokenizer "
                               f"is saved in {rescue} (+ .json sidecar) instead") from None


def describe(result: TrainResult) -> str:
    """One line: where the ids came from.

    e.g. "vocabulary 33,419 = 256 bytes + 1,161 hardcoded + 32,000 (English) + 2 special tokens"
    """
    parts = [f"{result.tokenizer.vocab_size:,} = 256 bytes"]
    if result.hardcoded:
        parts.append(f"{result.hardcoded:,} hardcoded")
    parts += [f"{len(r.merges):,} ({r.name})" for r in result.phases]
    parts.append(f"{len(result.tokenizer.special_tokens)} special tokens")
    return "vocabulary " + " + ".join(parts)


# ---- the command line -------------------------------------------------------


def add_train_arguments(parser) -> None:
    """``bpe-lesson train -c CONFIG``, or ``bpe-lesson train FILE... --vocab-size N -o OUT`` (``flags.py``)."""
    parser.usage = ("%(prog)s FILE... --vocab-size N -o OUT [options]\n"
                    "       %(prog)s -c CONFIG [--quiet]")
    parser.add_argument("-c", "--config", help="the YAML config (see examples/tokenizer.yaml)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars and no summary lines")
    add_flag_arguments(parser)


def run_train(args) -> int:
    if getattr(args, "config", None) is None:
        return run_flags(args)
    given = given_flags(args) + (["FILE"] if getattr(args, "sources", None) else [])
    if given:
        raise ValueError(f"{given[0]}: is an option of training from files (FILE... --vocab-size N -o OUT); "
                         f"with -c CONFIG the config says it")
    cfg = load_config(args.config)
    check_output(cfg.output)  # before training: a bad path fails now, not after an hour
    with Interrupts() as sigint:
        try:
            if not args.quiet:
                print(f"bpe-lesson train: training {len(cfg.phases)} phase(s) into {os.path.relpath(cfg.output)} "
                      f"(Ctrl-C stops without writing)", file=sys.stderr, flush=True)
            # bars on a terminal only (never into a pipe or a file), unless quiet or the config says false
            cfg = dataclasses.replace(cfg, progress=False if (args.quiet or cfg.progress is False) else None)
            result = train_from_config(cfg, write=False, check_interrupt=sigint.check,
                                       log=(lambda line: None) if args.quiet else None)
            sigint.check()  # an interrupt swallowed on the way (see the module's docstring) still counts
        except KeyboardInterrupt:
            print(f"bpe-lesson train: interrupted; {os.path.relpath(cfg.output)} was not written", file=sys.stderr)
            return 130
    try:
        write_output(cfg, result.tokenizer)
    except OSError as e:
        print(f"bpe-lesson train: error: {e.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {os.path.relpath(cfg.output)} (+ .json sidecar): {describe(result)}")
    return 0
