"""The YAML trainer: ``bpe-lesson train -c config.yaml``.

A config names an output file, a split pattern, special tokens, whether to start
from the 1,161 hardcoded merges (``hardcoded.py``), and a list of *phases*, each
with its own merge budget and sources. Phases run in order; each continues from
the vocabulary the earlier ones built (their merges are its ``base_merges``) and
learns only from its own sources. The ids come out as

    0-255 bytes | 256-1416 hardcoded | phase 1 | phase 2 | ... | special tokens

Per phase: stream the sources (``sources.py``) into a memory budget
(``reservoir.py``), count the chunks on ``threads`` worker processes
(``counting.py``), then run the compiled merge loop with a progress bar, and
print a one-line summary.

An example, with every field (``examples/tokenizer.yaml``)::

    output: ./my_tokenizer.tiktoken   # required; relative paths are relative to this file
    working_set_mb: 1024              # memory budget for a phase's training text, MiB (default 1024)
    threads: -1                       # worker processes for counting; -1 = all cores
    verbose: false                    # print every merge
    pattern: gpt4                     # gpt2 | gpt4 | o200k | a regex
    hardcoded_merges: true            # ids 256-1416, before any phase
    special_tokens: ["<|endoftext|>", "<|pad|>"]
    seed: 0                           # for the reservoir sample
    phases:
      - name: English
        merges: 30000
        sources:
          - path: ./corpus/english    # a folder: every .txt and .parquet under it
          - file: ./corpus/extra.txt  # or one file (a .parquet may add `columns: [text]`)

What this module does not do: read, split, count or merge by itself (``sources.py``,
``counting.py`` and the trainers do), or write the file format (``tiktoken_io.py``).
"""

from __future__ import annotations

import difflib
import os
import sys
import time
from dataclasses import dataclass, field

from .counting import TASK_BYTES, CountingPool, count_units
from .hardcoded import hardcoded_merges
from .patterns import PATTERNS, resolve_pattern
from .reservoir import Reservoir
from .sources import cut_regex, list_files, stream_units
from .tokenizer import Tokenizer

MB = 1 << 20
DEFAULT_WORKING_SET_MB = 1024
PARALLEL_MIN_BYTES = 4 * MB  # below this much text on disk, worker processes cost more than they save
TOP_FIELDS = ("output", "working_set_mb", "threads", "verbose", "pattern", "hardcoded_merges",
              "special_tokens", "seed", "phases")
PHASE_FIELDS = ("name", "merges", "sources")
SOURCE_FIELDS = ("path", "file", "columns")


class ConfigError(ValueError):
    """A config that cannot be trained; the message names the field and what it expects."""


@dataclass
class Source:
    kind: str  # "path" (a folder) or "file"
    path: str  # absolute
    files: list[str]  # the files it stands for, sorted
    columns: list[str] | None = None  # parquet text columns (None: every string column)


@dataclass
class Phase:
    name: str
    merges: int
    sources: list[Source]


@dataclass
class Config:
    output: str  # absolute path of the .tiktoken file
    phases: list[Phase]
    working_set_mb: float = DEFAULT_WORKING_SET_MB
    threads: int = -1
    verbose: bool = False
    pattern: str = PATTERNS["gpt4"]  # the regex itself
    hardcoded_merges: bool = True
    special_tokens: list[str] = field(default_factory=list)
    seed: int = 0

    @property
    def processes(self) -> int:
        """``threads`` as a number of processes (-1 = the cores this process may use)."""
        if self.threads != -1:
            return self.threads
        try:
            return len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            return os.cpu_count() or 1


# ---- reading and checking a config -----------------------------------------


def load_config(path) -> Config:
    """Read and check a YAML config; relative paths in it are relative to its folder."""
    import yaml

    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            raw = yaml.safe_load(f)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path} is not valid YAML: {e}") from None
    return parse_config(raw, base_dir=os.path.dirname(os.path.abspath(path)), source=path)


def parse_config(raw, base_dir=".", source="<config>") -> Config:
    """Check a config given as a dict (what YAML gives) and resolve its paths.

    >>> parse_config({"phases": []})
    Traceback (most recent call last):
    ...
    bpe_lesson.config.ConfigError: <config>: output: missing; expected the path of the .tiktoken file to write, e.g. output: ./my_tokenizer.tiktoken
    """

    def fail(where, why):
        return ConfigError(f"{source}: {where}: {why}")

    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: expected a mapping of fields (output, phases, ...), got {type(raw).__name__}")
    _unknown(raw, TOP_FIELDS, "", fail)

    output = raw.get("output")
    if output is None:
        raise fail("output", "missing; expected the path of the .tiktoken file to write, "
                             "e.g. output: ./my_tokenizer.tiktoken")
    if not isinstance(output, str) or not output.endswith(".tiktoken"):
        raise fail("output", f"{output!r} should be a path ending in .tiktoken "
                             "(bpe_lesson.load tells the formats apart by the name)")

    ws = raw.get("working_set_mb", DEFAULT_WORKING_SET_MB)
    if isinstance(ws, bool) or not isinstance(ws, (int, float)) or not ws > 0:
        raise fail("working_set_mb", f"{ws!r} should be a positive number of megabytes, e.g. 1024")

    threads = raw.get("threads", -1)
    if isinstance(threads, bool) or not isinstance(threads, int) or not (threads == -1 or threads >= 1):
        raise fail("threads", f"{threads!r} should be a whole number >= 1, or -1 for all cores")

    flags = {}
    for name, default in (("verbose", False), ("hardcoded_merges", True)):
        v = raw.get(name, default)
        if not isinstance(v, bool):
            raise fail(name, f"{v!r} should be true or false")
        flags[name] = v

    seed = raw.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise fail("seed", f"{seed!r} should be a whole number >= 0")

    pattern = raw.get("pattern", "gpt4")
    if not isinstance(pattern, str) or not pattern:
        raise fail("pattern", f"{pattern!r} should be one of {sorted(PATTERNS)} or a regex")
    try:
        pattern = resolve_pattern(pattern)
    except ValueError as e:
        raise fail("pattern", str(e)) from None

    specials = raw.get("special_tokens") or []
    if not isinstance(specials, list):
        raise fail("special_tokens", f"{specials!r} should be a list of strings, e.g. [\"<|endoftext|>\"]")
    for k, s in enumerate(specials):
        if not isinstance(s, str) or not s:
            raise fail(f"special_tokens[{k}]", f"{s!r} should be a non-empty string")
        if "\n" in s or "\r" in s:
            raise fail(f"special_tokens[{k}]", f"{s!r} contains a line break; special tokens must fit on "
                                               "one line (sources are cut at line breaks)")
        if s in specials[:k]:
            raise fail(f"special_tokens[{k}]", f"{s!r} is a duplicate of special_tokens[{specials.index(s)}]")

    phases_raw = raw.get("phases")
    if not isinstance(phases_raw, list) or not phases_raw:
        raise fail("phases", f"{phases_raw!r} should be a non-empty list of phases, each with "
                             "name, merges and sources")
    phases = [_parse_phase(p, f"phases[{i}]", i, base_dir, fail) for i, p in enumerate(phases_raw)]

    return Config(output=_abs(output, base_dir), phases=phases, working_set_mb=ws, threads=threads,
                  verbose=flags["verbose"], pattern=pattern, hardcoded_merges=flags["hardcoded_merges"],
                  special_tokens=list(specials), seed=seed)


def _parse_phase(p, where, i, base_dir, fail) -> Phase:
    if not isinstance(p, dict):
        raise fail(where, f"{p!r} should be a mapping with name, merges and sources")
    _unknown(p, PHASE_FIELDS, where + ".", fail)
    name = p.get("name", f"phase {i + 1}")
    if not isinstance(name, str) or not name:
        raise fail(f"{where}.name", f"{name!r} should be a non-empty string")
    merges = p.get("merges")
    if merges is None:
        raise fail(f"{where}.merges", "missing; expected how many merges this phase learns, e.g. merges: 30000")
    if isinstance(merges, bool) or not isinstance(merges, int):
        raise fail(f"{where}.merges", f"{merges!r} should be a whole number >= 0")
    if merges < 0:
        raise fail(f"{where}.merges", f"{merges} is negative; expected a whole number >= 0")
    sources_raw = p.get("sources")
    if not isinstance(sources_raw, list) or not sources_raw:
        raise fail(f"{where}.sources", f"{sources_raw!r}: a phase needs at least one source, "
                                       "e.g. sources: [{path: ./corpus}] or [{file: ./extra.txt}]")
    sources = [_parse_source(s, f"{where}.sources[{k}]", base_dir, fail) for k, s in enumerate(sources_raw)]
    return Phase(name=name, merges=merges, sources=sources)


def _parse_source(s, where, base_dir, fail) -> Source:
    if not isinstance(s, dict):
        raise fail(where, f"{s!r} should be a mapping: {{path: FOLDER}} or {{file: FILE}}")
    _unknown(s, SOURCE_FIELDS, where + ".", fail)
    kinds = [k for k in ("path", "file") if k in s]
    if len(kinds) != 1:
        raise fail(where, "needs exactly one of `path:` (a folder) or `file:` (one file)")
    kind = kinds[0]
    value = s[kind]
    if not isinstance(value, str) or not value:
        raise fail(f"{where}.{kind}", f"{value!r} should be a path")
    path = _abs(value, base_dir)
    if not os.path.exists(path):
        raise fail(f"{where}.{kind}", f"{value} does not exist (looked for {path})")
    if kind == "path":
        if not os.path.isdir(path):
            raise fail(f"{where}.path", f"{value} is a file; use `file: {value}` for one file")
        files = list_files(path)
        if not files:
            raise fail(f"{where}.path", f"the folder {value} holds no .txt or .parquet file")
    else:
        if not os.path.isfile(path):
            raise fail(f"{where}.file", f"{value} is a folder; use `path: {value}` for a folder")
        files = [path]
    columns = s.get("columns")
    if columns is not None and (not isinstance(columns, list) or not columns
                                or not all(isinstance(c, str) and c for c in columns)):
        raise fail(f"{where}.columns", f"{columns!r} should be a list of parquet column names, e.g. [text]")
    return Source(kind=kind, path=path, files=files, columns=columns)


def _unknown(d, known, prefix, fail):
    for key in d:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise fail(f"{prefix}{key}", f"unknown field{hint} (known: {', '.join(known)})")


def _abs(path, base_dir) -> str:
    return os.path.normpath(os.path.join(base_dir, os.path.expanduser(path)))


# ---- running the phases -----------------------------------------------------


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
        import resource
    except ImportError:
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / MB if sys.platform == "darwin" else peak / 1024  # macOS: bytes; Linux: KB


def run_phase(cfg: Config, phase: Phase, base_merges, seed: int, backend=None, progress=True) -> PhaseReport:
    """Stream, sample, count and train one phase, continuing from ``base_merges``."""
    from tqdm import tqdm

    from .trainer import get_trainer

    impl = get_trainer("incremental", backend)
    t0 = time.perf_counter()
    files = [(path, source.columns) for source in phase.sources for path in source.files]
    size = sum(os.path.getsize(path) for path, _ in files)  # on disk: parquet is compressed, a guess
    processes = cfg.processes if size >= PARALLEL_MIN_BYTES else 1
    # bars only on a terminal (disable=None: off when stderr is not a TTY, e.g. in a notebook)
    quiet = True if (cfg.verbose or not progress) else None
    pool = CountingPool(processes, cfg.pattern, cfg.special_tokens) if processes > 1 else None
    try:
        # 1. stream every source into the memory budget; while everything still fits, the
        #    workers count what has been read so far (so reading and counting overlap)
        reservoir = Reservoir(int(cfg.working_set_mb * MB), seed=seed)
        cut = cut_regex(cfg.pattern)
        sent = sent_held = 0  # units (and their budget bytes) already given to the workers
        all_text = all(not path.endswith(".parquet") for path, _ in files)  # else the size is no total
        with tqdm(total=size if all_text else None, desc=f"phase {phase.name}: reading", unit="B",
                  unit_scale=True, delay=1.0, disable=quiet) as bar:
            for path, columns in files:
                for units, alone in stream_units(path, cut, columns):
                    seen = reservoir.bytes_seen
                    reservoir.offer(units, alone)
                    bar.update(reservoir.bytes_seen - seen)
                    if pool is not None and not reservoir.sampling and reservoir.held - sent_held >= TASK_BYTES:
                        pool.submit(reservoir.units[sent:], reservoir.alone[sent:])
                        sent, sent_held = len(reservoir.units), reservoir.held
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
            counts = count_units(reservoir.units, reservoir.alone, cfg.pattern, cfg.special_tokens, processes)
    finally:
        if pool is not None:
            pool.close()
    report_args = dict(bytes_read=reservoir.bytes_seen, units_read=reservoir.seen, bytes_held=reservoir.text_bytes,
                       units_held=len(reservoir.units), sampled=reservoir.sampling)
    del reservoir
    t2 = time.perf_counter()
    # 3. the merge loop, with its bar: merges done of the budget, merges per second
    with tqdm(total=phase.merges, desc=f"phase {phase.name}: merges", unit="merge",
              disable=True if (quiet or phase.merges == 0) else None) as bar:
        merges = impl.train_merges(counts, phase.merges, base_merges=base_merges, verbose=cfg.verbose,
                                   progress=bar.update)
    t3 = time.perf_counter()
    return PhaseReport(name=phase.name, merges_asked=phase.merges, merges=merges, unique_chunks=len(counts),
                       seconds_read=t1 - t0, seconds_count=t2 - t1, seconds_merge=t3 - t2,
                       peak_mb=peak_rss_mb(), **report_args)


def train_from_config(config, backend=None, progress=True, log=None, write=True) -> TrainResult:
    """Train the tokenizer a config describes and write it (``.tiktoken`` + JSON sidecar).

    ``config``: a ``Config`` or the path of a YAML file. ``log``: where the summary
    lines go (default: stderr); ``progress=False`` hides the bars; ``write=False``
    skips writing the output. The file is written only at the end, atomically, so
    an interrupted run leaves no partial output.
    """
    cfg = config if isinstance(config, Config) else load_config(config)
    if log is None:
        def log(line):
            print(line, file=sys.stderr, flush=True)
    merges = hardcoded_merges() if cfg.hardcoded_merges else []
    n_hardcoded = len(merges)
    reports = []
    for k, phase in enumerate(cfg.phases):
        # subtle: each phase continues from *all* earlier merges; it learns only from its own sources
        report = run_phase(cfg, phase, list(merges), seed=cfg.seed + k, backend=backend, progress=progress)
        merges += report.merges
        reports.append(report)
        log(report.line())
    first = 256 + len(merges)
    name = os.path.basename(cfg.output).split(".")[0]
    tok = Tokenizer(merges, pattern=cfg.pattern, name=name,
                    special_tokens={s: first + k for k, s in enumerate(cfg.special_tokens)})
    if write:
        write_output(cfg, tok)
    return TrainResult(tokenizer=tok, phases=reports, hardcoded=n_hardcoded)


def write_output(cfg: Config, tok: Tokenizer) -> None:
    """The .tiktoken file and its JSON sidecar, each written atomically (``_files.atomic_write``)."""
    os.makedirs(os.path.dirname(cfg.output), exist_ok=True)
    tok.save_tiktoken(cfg.output)


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
    parser.add_argument("-c", "--config", required=True, help="the YAML config (see examples/tokenizer.yaml)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars and no summary lines")


def run_train(args) -> int:
    cfg = load_config(args.config)
    try:
        result = train_from_config(cfg, progress=not args.quiet, write=False,
                                   log=(lambda line: None) if args.quiet else None)
    except KeyboardInterrupt:
        print(f"bpe-lesson train: interrupted; {os.path.relpath(cfg.output)} was not written", file=sys.stderr)
        return 130
    write_output(cfg, result.tokenizer)
    print(f"wrote {os.path.relpath(cfg.output)} (+ .json sidecar): {describe(result)}")
    return 0
