"""The YAML trainer's config: the schema, read and checked (``bpe-lesson train -c config.yaml``).

A config names an output file, a split pattern, special tokens, whether to start
from the 1,161 hardcoded merges (``hardcoded.py``), and a list of *phases*, each
with its own merge budget and sources; or, instead of the merge budgets, a
``vocab_size``: the ids the tokenizer has, 256 bytes, hardcoded merges and special
tokens included, with one phase that learns every merge left. (``hardcoded_merges``
is then false unless the config says true, so a plain config gives what
``bpe_lesson.train`` and ``bpe-lesson train FILE... --vocab-size N`` give; with
merge budgets it stays true unless the config says false, as it always was.)
Phases run in order; each continues from the vocabulary the earlier ones built
(their merges are its ``base_merges``) and learns only from its own sources. The
ids come out as

    0-255 bytes | 256-1416 hardcoded | phase 1 | phase 2 | ... | special tokens

``phases.py`` runs them: per phase, stream the sources (``sources.py``) into a
memory budget (``reservoir.py``), count the chunks on ``workers`` worker
processes (``counting.py``), then run the compiled merge loop with a progress
bar, and print a one-line summary.

An example, with every field (``examples/tokenizer.yaml``)::

    output: ./my_tokenizer.tiktoken   # required; relative paths are relative to this file
    working_set_mb: 1024              # memory budget for a phase's training text, MiB (default 1024)
    workers: -1                       # worker processes for counting; -1 = all cores
    engine: local                     # local (worker processes here) | dask (a Dask cluster)
    # scheduler: tcp://10.0.0.5:8786  # engine dask: a running cluster (none: a LocalCluster of `workers`)
    verbose: false                    # print every merge
    progress: null                    # bars on stderr: null = on a terminal only; true = always; false = never
    pattern: gpt4                     # gpt2 | gpt4 | o200k | a regex
    hardcoded_merges: true            # ids 256-1416, before any phase (default: true; with vocab_size, false)
    special_tokens: ["<|endoftext|>", "<|pad|>"]
    seed: 0                           # for the reservoir sample
    tie_break: smallest-ids           # smallest-ids | greatest-bytes (CS336's rule)
    min_frequency: 2                  # stop when the best pair occurs fewer times
    max_token_length: null            # never make a token of more bytes than this
    # vocab_size: 16384               # instead of the phases' merges: the ids in all (one phase)
    errors: strict                    # a source file not UTF-8 or unreadable: stop | skip it (a warning)
    phases:
      - name: English
        merges: 30000
        sources:
          - path: ./corpus/english    # a folder: every .txt, .jsonl and .parquet under it
          - path: ./corpus/code       # or the files matching a glob in it
            glob: "*.py"
          - file: ./corpus/extra.jsonl  # or one file
            text_field: body          # .jsonl: each line's field; .parquet: the column

A source reads its files as ``pack`` and ``train`` read them (``documents.py``):
``text_field`` names the field of a ``.jsonl`` line (default ``text``) and the
parquet column (default: every string column); ``glob`` picks a folder's files.
``columns: [a, b]`` (several parquet columns) is the older name, still accepted
and deprecated in favour of ``text_field``. So is ``threads:``, the older name of
``workers:`` (it always meant worker processes); it warns (``checks.renamed``).

What this module does not do: run anything (``phases.py``), or read, split, count
or merge (``sources.py``, ``counting.py`` and the trainers do).
"""

from __future__ import annotations

import difflib
import math
import os
import reprlib
import stat
import warnings
from dataclasses import dataclass, field

import yaml

from .._compiled.backend import CORES, resolve_workers
from .._internal.arguments import renamed
from .._internal.cluster import check_address
from ..formats.documents import ERRORS, STDIN, stdin_buffer
from ..incremental import options_problem
from ..patterns import PATTERNS, check_pattern
from .._internal.files import file_kind
from .hardcoded import hardcoded_tokens
from .safe_yaml import read_yaml
from .sources import list_files

__all__ = ["MB", "DEFAULT_WORKING_SET_MB", "TOP_FIELDS", "ENGINES", "HARDCODED",
           "OLDER_FIELDS", "PHASE_FIELDS", "SOURCE_FIELDS", "ConfigError", "Source",
           "Phase", "Config", "SHOW_CHARS", "load_config", "parse_config"]

MB = 1 << 20
DEFAULT_WORKING_SET_MB = 1024
TOP_FIELDS = ("output", "working_set_mb", "workers", "engine", "scheduler", "verbose", "progress", "pattern",
              "hardcoded_merges", "special_tokens", "seed", "tie_break", "min_frequency", "max_token_length",
              "vocab_size", "errors", "phases")
ENGINES = ("local", "dask")
HARDCODED = hardcoded_tokens()  # the 1,161 tokens put in first when hardcoded_merges is true
OLDER_FIELDS = {"threads": "workers"}  # older name -> the field's name now; still read, with a warning
PHASE_FIELDS = ("name", "merges", "sources")
SOURCE_FIELDS = ("path", "file", "text_field", "glob", "columns")


class ConfigError(ValueError):
    """A config that cannot be trained; the message names the field and what it expects."""


@dataclass
class Source:
    kind: str  # "path" (a folder) or "file"
    path: str  # absolute
    files: list[str]  # the files it stands for, sorted
    columns: list[str] | None = None  # [text_field], or the deprecated `columns:` (None: parquet's every string column)
    text_field: str | None = None  # the .jsonl field / parquet column (None: "text" / every string column)
    glob: str | None = None  # a folder's files: those matching it (None: every .txt, .jsonl, .parquet)


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
    workers: int = CORES  # worker processes (engine dask: LocalCluster workers) that count; YAML's -1: CORES
    verbose: bool = False
    pattern: str = PATTERNS["gpt4"]  # the regex itself
    hardcoded_merges: bool = True
    special_tokens: list[str] = field(default_factory=list)
    seed: int = 0
    engine: str = "local"  # "local" or "dask" (scale/dask_count.py)
    scheduler: str | None = None  # engine dask: tcp://host:port, or None for a LocalCluster of `workers` workers
    tie_break: str = "smallest-ids"  # or "greatest-bytes"
    min_frequency: int = 2
    max_token_length: int | None = None
    progress: bool | None = None  # None: bars on a terminal only (_internal/progress.py)
    vocab_size: int | None = None  # the ids asked for, when the config gives them (its one phase's merges: the rest)
    errors: str = "strict"  # a source file that cannot be read or decoded: stop, or "skip" it (sources.files_units)

    @property
    def merge_options(self) -> dict:
        """The options every trainer's ``train_merges`` takes."""
        return {"tie_break": self.tie_break, "min_frequency": self.min_frequency,
                "max_token_length": self.max_token_length}


# ---- reading and checking a config -----------------------------------------


SHOW_CHARS = 60  # a value shown in a message: at most this many characters of its repr


_REPR = reprlib.Repr()  # nested lists and dicts shown 3 levels deep, 8 items each, then "..."
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict, _REPR.maxstring, _REPR.maxother = 3, 8, 8, 10**6, 10**6


def _show(value) -> str:
    """``repr(value)``, cut to ``SHOW_CHARS`` characters: a message never prints a whole
    hostile value (nor takes long to make: a list is cut before its repr is built).

    >>> _show("x" * 100)
    "'xxxxxxxxxx...xxxxx... (102 characters)"
    """
    if isinstance(value, (list, dict)) and len(value) > SHOW_CHARS:
        value = value[:SHOW_CHARS] if isinstance(value, list) else dict(list(value.items())[:SHOW_CHARS])
    text = _REPR.repr(value)
    return text if len(text) <= SHOW_CHARS else f"{text[:SHOW_CHARS - 2]}... ({len(text)} characters)"


def load_config(path) -> Config:
    """Read and check a YAML config; relative paths in it are relative to its folder."""
    path = os.fspath(path)
    try:
        raw = read_yaml(path)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except ConfigError:
        raise
    except ValueError as e:
        raise ConfigError(str(e)) from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path} is not valid YAML: {_cut(str(e))}") from None
    return parse_config(raw, base_dir=os.path.dirname(os.path.abspath(path)), source=path)


def _cut(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def parse_config(raw, base_dir=".", source="<config>") -> Config:
    """Check a config given as a dict (what YAML gives) and resolve its paths.

    >>> parse_config({"phases": []})
    Traceback (most recent call last):
    ...
    bpe_lesson.scale.config.ConfigError: <config>: output: missing; expected the path of the .tiktoken file to write, e.g. output: ./my_tokenizer.tiktoken
    """

    def fail(where, why):
        return ConfigError(f"{source}: {where}: {why}")

    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: expected a mapping of fields (output, phases, ...), got {type(raw).__name__}")
    _unknown({k: v for k, v in raw.items() if k not in OLDER_FIELDS}, TOP_FIELDS, "", fail)

    output = raw.get("output")
    if output is None:
        raise fail("output", "missing; expected the path of the .tiktoken file to write, "
                             "e.g. output: ./my_tokenizer.tiktoken")
    if not isinstance(output, str) or not output.endswith(".tiktoken"):
        raise fail("output", f"{_show(output)} should be a path ending in .tiktoken "
                             "(bpe_lesson.load tells the formats apart by the name)")

    ws = raw.get("working_set_mb", DEFAULT_WORKING_SET_MB)
    if isinstance(ws, bool) or not isinstance(ws, (int, float)) or not ws > 0 or not math.isfinite(ws):
        raise fail("working_set_mb", f"{_show(ws)} should be a positive number of megabytes, finite, e.g. 1024")

    try:
        workers = renamed("threads", raw.get("threads"), "workers", raw.get("workers"), shown="{}:",
                          where=f"{source}: ", category=FutureWarning, stacklevel=3)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    workers = -1 if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or not (workers == -1 or workers >= 1):
        raise fail("workers", f"{_show(workers)} should be a whole number >= 1, or -1 for all cores")
    try:  # the one rule for every worker count (a remote cluster has its own cores)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            workers = resolve_workers(workers, 0, remote=raw.get("scheduler") is not None)
    except ValueError as e:  # ("workers: ..." already)
        raise ConfigError(f"{source}: {e}") from None
    for w in caught:
        warnings.warn(f"{source}: {w.message}", stacklevel=2)

    engine = raw.get("engine", "local")
    if engine not in ENGINES:
        raise fail("engine", f"{_show(engine)} should be local (worker processes on this machine) "
                             "or dask (a Dask cluster)")
    scheduler = raw.get("scheduler")
    if scheduler is not None:
        if engine != "dask":
            raise fail("scheduler", "is only used with engine: dask; add engine: dask or remove scheduler")
        try:
            check_address(scheduler)
        except ValueError as e:
            raise fail("scheduler", str(e)) from None

    flags = {}
    # a config with vocab_size asks for plain BPE unless it says otherwise; one with merge budgets, as before
    for name, default in (("verbose", False), ("hardcoded_merges", "vocab_size" not in raw)):
        v = raw.get(name, default)
        if not isinstance(v, bool):
            raise fail(name, f"{_show(v)} should be true or false")
        flags[name] = v

    progress = raw.get("progress")
    if progress is not None and not isinstance(progress, bool):
        raise fail("progress", f"{progress!r} should be true (bars always), false (never) or null "
                               "(on a terminal only, the default)")

    errors = raw.get("errors", "strict")
    if errors not in ERRORS:
        raise fail("errors", f"{_show(errors)} should be strict (stop at a file that cannot be read or decoded, "
                             "the default) or skip (leave it out, with a warning)")
    if errors == "skip" and engine == "dask":
        raise fail("errors", "skip is for engine: local; a Dask cluster's workers read ranges of files")

    seed = raw.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise fail("seed", f"{_show(seed)} should be a whole number >= 0")

    tie_break = raw.get("tie_break", "smallest-ids")
    min_frequency = raw.get("min_frequency", 2)
    max_token_length = raw.get("max_token_length")
    problem = options_problem(tie_break, min_frequency, max_token_length, show=_show, none="null")  # train's check
    if problem is not None:
        raise fail(*problem)

    pattern = raw.get("pattern", "gpt4")
    if not isinstance(pattern, str) or not pattern:
        raise fail("pattern", f"{_show(pattern)} should be one of {sorted(PATTERNS)} or a regex")
    try:
        pattern = check_pattern(pattern)  # the regex; it must cover the text, not drop some of it
    except ValueError as e:
        raise fail("pattern", str(e)) from None

    specials = raw.get("special_tokens") or []
    if not isinstance(specials, list):
        raise fail("special_tokens", f"{_show(specials)} should be a list of strings, e.g. [\"<|endoftext|>\"]")
    for k, s in enumerate(specials):
        if not isinstance(s, str) or not s:
            raise fail(f"special_tokens[{k}]", f"{_show(s)} should be a non-empty string")
        if "\n" in s or "\r" in s:
            raise fail(f"special_tokens[{k}]", f"{_show(s)} contains a line break; special tokens must fit on "
                                               "one line (sources are cut at line breaks)")
        if s in specials[:k]:
            raise fail(f"special_tokens[{k}]", f"{_show(s)} is a duplicate of special_tokens[{specials.index(s)}]")

    phases_raw = raw.get("phases")
    if not isinstance(phases_raw, list) or not phases_raw:
        raise fail("phases", f"{_show(phases_raw)} should be a non-empty list of phases, each with "
                             "name, merges and sources")
    vocab_size = _vocab_size(raw, phases_raw, len(HARDCODED) if flags["hardcoded_merges"] else 0, fail)
    phases = [_parse_phase(p, f"phases[{i}]", i, base_dir, fail, vocab_size) for i, p in enumerate(phases_raw)]
    stdin = [f"phases[{i}].sources[{k}]" for i, ph in enumerate(phases) for k, src in enumerate(ph.sources)
             if src.path == STDIN]
    if len(stdin) > 1:
        raise fail(stdin[1] + ".file", f"standard input can be read once; it is already the source {stdin[0]}")
    if stdin and engine == "dask":
        raise fail(stdin[0] + ".file", "standard input cannot be shared out to Dask workers; "
                                       "write it to a file first, or use engine: local")

    out_real = os.path.realpath(_abs(output, base_dir))  # the output is never an input
    for i, k, src in ((i, k, src) for i, ph in enumerate(phases) for k, src in enumerate(ph.sources)):
        src.files = [f for f in src.files if f == STDIN or os.path.realpath(f) != out_real]  # left out of a folder
        if not src.files:
            raise fail(f"phases[{i}].sources[{k}].{src.kind}", f"{src.path} is, or holds no file but, the output "
                                                                f"{output} this config writes")

    return Config(output=_abs(output, base_dir), phases=phases, working_set_mb=ws, workers=workers,
                  verbose=flags["verbose"], pattern=pattern, hardcoded_merges=flags["hardcoded_merges"],
                  special_tokens=list(specials), seed=seed, engine=engine, scheduler=scheduler,
                  tie_break=tie_break, min_frequency=min_frequency, max_token_length=max_token_length,
                  progress=progress, vocab_size=raw.get("vocab_size"), errors=errors)


def _vocab_size(raw, phases_raw, n_hardcoded, fail):
    """The merges of the one phase of a config that gives ``vocab_size``, or None when it does not."""
    if "vocab_size" not in raw:
        return None
    n, specials = raw["vocab_size"], raw.get("special_tokens") or []
    if isinstance(n, bool) or not isinstance(n, int):
        raise fail("vocab_size", f"{_show(n)} should be a whole number: the ids the tokenizer has, e.g. 16384")
    least = 256 + n_hardcoded + len(specials)
    if n < least:
        hardcoded = f" + {n_hardcoded:,} hardcoded merges" if n_hardcoded else ""
        raise fail("vocab_size", f"{n:,} leaves no room for 256 bytes{hardcoded} + {len(specials)} special "
                                 f"token(s); give at least {least:,}")
    if len(phases_raw) > 1:
        raise fail("vocab_size", f"gives the ids of a config with one phase; this one has {len(phases_raw)}: "
                                 "give each phase its merges: instead of vocab_size")
    return n - least


def _parse_phase(p, where, i, base_dir, fail, vocab_merges=None) -> Phase:
    if not isinstance(p, dict):
        raise fail(where, f"{_show(p)} should be a mapping with name, merges and sources")
    _unknown(p, PHASE_FIELDS, where + ".", fail)
    name = p.get("name", f"phase {i + 1}")
    if not isinstance(name, str) or not name:
        raise fail(f"{where}.name", f"{_show(name)} should be a non-empty string")
    merges = p.get("merges")
    if vocab_merges is not None:
        if merges is not None:
            raise fail(f"{where}.merges", "is given with vocab_size; give vocab_size (the ids in all) "
                                          "or the phases' merges, not both")
        merges = vocab_merges
    if merges is None:
        raise fail(f"{where}.merges", "missing; expected how many merges this phase learns, e.g. merges: 30000 "
                                      "(or vocab_size: N at the top, the ids in all)")
    if isinstance(merges, bool) or not isinstance(merges, int):
        raise fail(f"{where}.merges", f"{_show(merges)} should be a whole number >= 0")
    if merges < 0:
        raise fail(f"{where}.merges", f"{merges} is negative; expected a whole number >= 0")
    sources_raw = p.get("sources")
    if not isinstance(sources_raw, list) or not sources_raw:
        raise fail(f"{where}.sources", f"{_show(sources_raw)}: a phase needs at least one source, "
                                       "e.g. sources: [{path: ./corpus}] or [{file: ./extra.txt}]")
    sources = [_parse_source(s, f"{where}.sources[{k}]", base_dir, fail) for k, s in enumerate(sources_raw)]
    return Phase(name=name, merges=merges, sources=sources)


def _parse_source(s, where, base_dir, fail) -> Source:
    if not isinstance(s, dict):
        raise fail(where, f"{_show(s)} should be a mapping: {{path: FOLDER}} or {{file: FILE}}")
    _unknown(s, SOURCE_FIELDS, where + ".", fail)
    kinds = [k for k in ("path", "file") if k in s]
    if len(kinds) != 1:
        raise fail(where, "needs exactly one of `path:` (a folder) or `file:` (one file)")
    kind = kinds[0]
    value = s[kind]
    if not isinstance(value, str) or not value:
        raise fail(f"{where}.{kind}", f"{_show(value)} should be a path")
    text_field, pattern = s.get("text_field"), s.get("glob")
    if value == STDIN:
        if kind != "file" or text_field is not None or pattern is not None or "columns" in s:
            raise fail(f"{where}.{kind}", "- (standard input) is read as one UTF-8 text: "
                                          "give it as `file: \"-\"` with no text_field, columns or glob")
        try:
            stdin_buffer()
        except ValueError as e:
            raise fail(f"{where}.file", str(e)) from None
        return Source(kind="file", path=STDIN, files=[STDIN], columns=None, text_field=None, glob=None)
    path = _abs(value, base_dir)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise fail(f"{where}.{kind}", f"{value} does not exist (looked for {path})") from None
    except OSError as e:
        raise fail(f"{where}.{kind}", f"{value}: cannot read it ({e.strerror or e})") from None
    if text_field is not None and (not isinstance(text_field, str) or not text_field):
        raise fail(f"{where}.text_field", f"{text_field!r} should be the name of the .jsonl field or parquet "
                                          "column that holds the text, e.g. text_field: text")
    if pattern is not None and (not isinstance(pattern, str) or not pattern):
        raise fail(f"{where}.glob", f"{pattern!r} should be a file pattern, e.g. glob: \"*.py\"")
    if kind == "path":
        if not stat.S_ISDIR(mode):
            what = "a file" if stat.S_ISREG(mode) else file_kind(mode)
            hint = f"; use `file: {value}` for one file" if stat.S_ISREG(mode) else ", not a folder"
            raise fail(f"{where}.path", f"{value} is {what}{hint}")
        try:
            files = list_files(path, pattern)
        except ValueError as e:
            raise fail(f"{where}.path", str(e)) from None
    else:
        if pattern is not None:
            raise fail(f"{where}.glob", "a glob picks a folder's files; use it with `path:`, not `file:`")
        if not stat.S_ISREG(mode):
            hint = f"; use `path: {value}` for a folder" if stat.S_ISDIR(mode) else ", not a regular file"
            raise fail(f"{where}.file", f"{value} is {file_kind(mode)}{hint}")
        files = [path]
    columns = s.get("columns")
    if columns is not None and (not isinstance(columns, list) or not columns
                                or not all(isinstance(c, str) and c for c in columns)):
        raise fail(f"{where}.columns", f"{_show(columns)} should be a list of parquet column names, e.g. [text] "
                                       "(or use text_field: text, the newer name)")
    if columns is not None and text_field is not None:
        raise fail(f"{where}.columns", "give text_field or the older columns, not both")
    if text_field is not None:
        columns = [text_field]
    return Source(kind=kind, path=path, files=files, columns=columns, text_field=text_field, glob=pattern)


def _unknown(d, known, prefix, fail):
    for key in d:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise fail(f"{prefix}{_show(key) if not isinstance(key, str) or len(key) > SHOW_CHARS else key}",
                       f"unknown field{hint} (known: {', '.join(known)})")


def _abs(path, base_dir) -> str:
    return os.path.normpath(os.path.join(base_dir, os.path.expanduser(path)))
