"""What the checks share: calling the reader's code, and comparing it with the package's.

``call`` runs the reader's function so that a crash reads as a failed check.
``compare`` is the differential grader every check uses: the reader's function and
the package's (the *reference*) on the same inputs, hand-picked ones first, then
``MIN_GENERATED`` generated ones, which ``compare`` itself draws from the check's
generator with a ``random.Random`` seeded from the exercise label (so a failure
reproduces, and no check counts or seeds its own). On the first disagreement it
shrinks the input to a smaller one that still disagrees and fails in three lines:
the input, what the package gives, what the reader's code gave. ``Shown`` is the one
kind of argument that prints by its name and is never copied (``Table``: a dict);
``alarm`` is the one timer (``grade``'s time limit, a trainer's CPU-time bound).

What this module does not do: register checks (the chapter modules do), build
inputs (``_gen.py`` does), or decide the time limit (``grade`` does).
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import signal
import threading

from ._gen import MIN_GENERATED, Generated, draw, drawing  # noqa: F401  (MIN_GENERATED: the chapter prints it)

STATS = {}     # exercise label -> number of generated cases its last grading compared
_CURRENT = []  # the label being graded (grade() pushes it), so compare() can count for it
SHRINK_BUDGET = 400  # at most this many smaller inputs are tried after a failure


class ReaderError(AssertionError):
    """The reader's code raised, or returned something of the wrong kind."""


class TooSlow(BaseException):
    """Raised by grade's timer inside the reader's code (a BaseException, so ``except Exception``
    in the reader's code cannot swallow it)."""


_PASS_THROUGH = (KeyboardInterrupt, SystemExit, TooSlow, GeneratorExit)  # never the reader's mistake


def call(fn, *args):
    """Call the reader's ``fn``; an exception it raises becomes a failed check that names it.

    >>> call(len, "abc")
    3
    >>> call(int, "x")
    Traceback (most recent call last):
    bpe_lesson.teaching.checks._calls.ReaderError: int('x') raised ValueError: invalid literal for int() with base 10: 'x'
    """
    try:
        return fn(*args)
    except ReaderError:  # a check nested in the call has already said what is wrong
        raise
    except Exception as e:  # AssertionError too: the reader's own assert failed  # the reader's code failed: say where, as a failed check
        raise ReaderError(f"{_name(fn)}({', '.join(_short(a) for a in args)}) raised "
                          f"{type(e).__name__}: {_short(str(e), 60)}") from None


def _name(fn) -> str:
    return getattr(fn, "__name__", "the solution")


def _short(value, width: int = 40) -> str:
    r = value if isinstance(value, str) and width == 60 else repr(value)
    return r if len(r) <= width else r[:width - 3] + "..."


def _shown(value, width: int = 64) -> str:
    """A value as a failure message prints it: one line, cut at ``width`` characters.

    >>> _shown([1, 2, 3])
    '[1, 2, 3]'
    >>> _shown(list(range(100)), 20)
    '[0, 1, 2, 3, 4, ...'
    """
    r = repr(value)
    return r if len(r) <= width else r[:width - 4].rstrip() + " ..."


def _label(b: bytes) -> str:
    """A token as a failure message shows it: its text when it is whole UTF-8, else its bytes.

    >>> _label(b"ab"), _label(b"\\xe4")
    ('ab', "b'\\\\xe4'")
    """
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError:
        return repr(b)
    return s if s.isprintable() and "+" not in s and "," not in s and s.strip() == s and s else repr(s)


def merges_shown(merges, width: int = 40) -> str:
    """A merge list in a line of at most ``width`` characters: each merge as left + right.

    >>> merges_shown([((97, 98), 256), ((256, 99), 257)])
    '[a+b, ab+c]'
    >>> merges_shown([((97, 98), 256), ((256, 99), 257)], 8)
    '[a+b ...]'
    """
    vocab = {i: bytes([i]) for i in range(256)}
    out = []
    for (a, b), new_id in merges:
        left, right = vocab.get(a, b"?"), vocab.get(b, b"?")
        vocab[new_id] = left + right
        out.append(f"{_label(left)}+{_label(right)}")
    shown = "[" + ", ".join(out) + "]"
    while len(shown) > width and len(out) > 1:  # drop merges from the end until it fits
        out.pop()
        shown = "[" + ", ".join(out) + " ...]"
    return shown


def _first_difference(want, got):
    """The index of the first element where two sequences differ (or the shorter's length);
    None when they are not both sequences of one kind, or do not differ that way.

    >>> _first_difference([1, 2, 3], [1, 5, 3]), _first_difference("abc", "ab"), _first_difference(1, 2)
    (1, 2, None)
    """
    kinds = (list, tuple, str, bytes)
    if not (isinstance(want, kinds) and isinstance(got, kinds)) or isinstance(want, str) != isinstance(got, str):
        return None
    for k, (a, b) in enumerate(zip(want, got)):
        try:
            if a != b:
                return k
        except Exception:
            return k
    return min(len(want), len(got)) if len(want) != len(got) else None


def _window(text: str, at: int, width: int) -> str:
    """``text`` cut to about ``width`` characters around position ``at``, "..." where cut.

    >>> _window("abcdefghij" * 3, 15, 10)
    '...cdefghijab...'
    """
    if len(text) <= width:
        return text
    start = max(0, min(at - width // 3, len(text) - width))
    return ("..." if start else "") + text[start:start + width] + ("..." if start + width < len(text) else "")


def _expected_got(want, got, width: int = 64) -> list:
    """The lines "expected:" and "got:", each cut around the first difference when long,
    with a line that says where it is.

    >>> _expected_got([1, 2], [1, 3])
    ['  expected: [1, 2]', '  got:      [1, 3]']
    >>> for line in _expected_got(list(range(40)), list(range(30)) + [99] + list(range(31, 40)), 30):
    ...     print(line)
      expected: ..., 28, 29, 30, 31, 32, 33, 34, ...
      got:      ..., 28, 29, 99, 31, 32, 33, 34, ...
      first difference at index 30 (of 40 expected, 40 got)
    """
    rw, rg = repr(want), repr(got)
    if len(rw) <= width and len(rg) <= width:
        return [f"  expected: {rw}", f"  got:      {rg}"]
    at = next((k for k, (a, b) in enumerate(zip(rw, rg)) if a != b), min(len(rw), len(rg)))
    lines = [f"  expected: {_window(rw, at, width)}", f"  got:      {_window(rg, at, width)}"]
    k = _first_difference(want, got)
    if k is not None:
        lines.append(f"  first difference at index {k} (of {len(want)} expected, {len(got)} got)")
    elif isinstance(want, dict) and isinstance(got, dict):
        missing = [key for key in want if key not in got]
        extra = [key for key in got if key not in want]
        wrong = [key for key in want if key in got and want[key] != got[key]]
        for name, keys in (("missing", missing), ("not expected", extra), ("with a wrong value", wrong)):
            if keys:
                lines.append(f"  {len(keys)} key(s) {name}, e.g. {_shown(keys[0], 40)}"
                             + (f": expected {_shown(want[keys[0]], 24)}, got {_shown(got[keys[0]], 24)}"
                                if name == "with a wrong value" else ""))
    else:
        lines.append(f"  first difference at character {at} of the printed values")
    return lines


def _smaller(value):
    """Candidates a little smaller than ``value``, most aggressive first.

    Lists, strings and bytes lose a half, then one element at each place; the
    elements of a list or a tuple shrink in turn (a tuple keeps its length); dicts lose a key; numbers stay.

    >>> list(_smaller("abc"))
    ['bc', 'a', 'bc', 'ac', 'ab']
    >>> list(_smaller(5))
    []
    """
    if isinstance(value, (bool, int, float)):
        return  # numbers stay as they are: an id of 0 in place of 97 reads worse, not better
    if isinstance(value, tuple):  # a tuple is a record (a pair, a range): its length stays
        for i, item in enumerate(value):
            for s in _smaller(item):
                yield value[:i] + (s,) + value[i + 1:]
        return
    if isinstance(value, (str, bytes, list)):
        yield from shorter(value)
        if isinstance(value, list):
            for i, item in enumerate(value):
                for s in _smaller(item):
                    yield value[:i] + [s] + value[i + 1:]
        return
    if isinstance(value, dict):
        for k in list(value):
            yield {j: v for j, v in value.items() if j != k}


def shorter(seq):
    """``seq`` shortened: its second half, its first half, then one element fewer at each place.

    >>> list(shorter("abc"))
    ['bc', 'a', 'bc', 'ac', 'ab']
    """
    n = len(seq)
    if n >= 2:
        yield seq[n // 2:]
        yield seq[:n // 2]
    for i in range(n):
        yield seq[:i] + seq[i + 1:]


def _shrink_args(args):
    """Smaller argument tuples: each argument shrunk in turn, the others kept."""
    for i, a in enumerate(args):
        for s in _smaller(a):
            yield args[:i] + (s,) + args[i + 1:]


def compare(reader, reference, cases=(), *, generate=None, seed=None, order=None, then=(), label=None,
            equal=None, shrink=None, valid=None, show=None, kind=None, pure=True, hint=None):
    """Compare ``reader(*args)`` with ``reference(*args)`` on hand-picked and generated ``args``.

    ``cases`` are hand-picked argument tuples, compared first. ``generate(rng)`` returns one
    generated argument tuple (or None: no legal input, draw again): compare draws ``MIN_GENERATED`` of them, with one
    ``random.Random`` seeded from the label (``seed=(label, salt)`` names another), sorted by
    ``order`` when given (a key: small inputs first, so a failure shows on a small one), then
    compares ``then``, hand-picked cases that go last (a large real input, slow to shrink).
    A tuple of ``cases`` wrapped as ``Generated(args)`` counts as generated too. ``equal(want, got)``
    decides agreement (default ``==`` after ``kind`` is checked); ``shrink(args)``
    yields smaller candidates (default: shrink each argument structurally);
    ``valid(args)`` says a candidate is a legal input (default: the reference
    accepts it); ``show(args)`` prints the input; ``kind`` is the type (or tuple of
    types) the answer must have; ``pure``: the reader must not change its
    arguments. ``hint(args, want, got)`` may add one line of advice.

    >>> compare(sorted, lambda xs: sorted(xs), [([3, 1, 2],), ([],)])
    2
    >>> compare(lambda xs: xs[:-1], lambda xs: xs, [([3, 1, 2],)], label="ex-demo")
    Traceback (most recent call last):
    bpe_lesson.teaching.checks._calls.ReaderError: ex-demo: <lambda>([2]) is wrong
      expected: [2]
      got:      []
    """
    label = label or (_CURRENT[-1] if _CURRENT else "exercise")
    n_generated = n = 0

    def disagrees(args):  # None, or (want, got, why) on these arguments
        return _disagreement(reader, reference, args, equal, kind, pure)

    if generate is not None:
        seed = seed or (label,)
        drawn = draw(generate, *seed, order=order) if order else drawing(generate, *seed)
        cases = itertools.chain(cases, drawn, then)
    for args in cases:
        generated = isinstance(args, Generated)
        args = tuple(args.args) if generated else tuple(args)
        n += 1
        n_generated += generated
        problem = disagrees(args)
        if problem is None:
            continue
        args, problem = _shrunk(disagrees, args, problem, shrink or _shrink_args, valid)
        want, got, why = problem
        shown = show(args) if show else ", ".join(_shown(a, 48) for a in args)
        lines = [f"{label}: {_name(reader)}({shown}) {why}"]
        if got is not _RAISED and not why.startswith("changed"):
            lines += _expected_got(want, got)
            if repr(want) == repr(got):
                lines.append(f"  (the same when printed: {type(want).__name__} expected, "
                             f"{type(got).__name__} given)")
        if hint and why == "is wrong":  # a hint reads a value of the right kind only
            try:
                advice = hint(args, want, got)
            except Exception:  # a hint that cannot read this answer gives none
                advice = None
            if advice:
                lines.append(f"  hint: {advice}")
        raise ReaderError("\n".join(lines))
    if _CURRENT:
        STATS[_CURRENT[-1]] = STATS.get(_CURRENT[-1], 0) + n_generated
    return n


class Shown:
    """What a failure prints by its name and ``compare`` never copies: a large argument (GPT-4's
    ranks, an encoder) the reader reads but should not see spelled out. Its subclasses say what the
    value is (``Table``: a dict); ``name`` is what a failure prints.
    """

    name = "a value"

    def __repr__(self):
        return self.name

    def __deepcopy__(self, memo):
        return self


class Table(Shown, dict):
    """A dict (a rank table, a vocabulary) printed by its name and never copied for a case.

    >>> t = Table({b"a": 0}, "tiny"); t[b"a"], t, copy.deepcopy(t) is t, isinstance(t, dict)
    (0, tiny, True, True)
    """

    def __init__(self, items=(), name=None):
        super().__init__(items)
        self.name = name


@contextlib.contextmanager
def alarm(seconds: float, error: type, cpu: bool = False):
    """Raise ``error`` in the running code after ``seconds`` of real time (or of CPU time, ``cpu``),
    then every half second: a signal raised while a finalizer runs is lost ("Exception ignored in
    __del__"), and the next one must still stop the code. Main thread, POSIX; elsewhere no limit.
    ``grade``'s limit uses real time and a trainer's bound CPU time, so the two do not meet.
    """
    which, signum = (("ITIMER_PROF", "SIGPROF") if cpu else ("ITIMER_REAL", "SIGALRM"))
    usable = (seconds and seconds > 0 and hasattr(signal, which)
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def _fire(signum, frame):
        raise error()

    previous = signal.signal(getattr(signal, signum), _fire)
    signal.setitimer(getattr(signal, which), seconds, 0.5)
    try:
        yield
    finally:
        signal.setitimer(getattr(signal, which), 0)
        signal.signal(getattr(signal, signum), previous)


_RAISED = object()


def _disagreement(reader, reference, args, equal, kind, pure):
    """None when the reader agrees with the reference on ``args``; else (want, got, why)."""
    want = reference(*copy.deepcopy(args))
    mine = copy.deepcopy(args)
    try:
        got = reader(*mine)
    except ReaderError:  # a check nested in the reader's call has already said what is wrong
        raise
    except RecursionError:
        return want, _RAISED, "raised RecursionError (too deep: a recursion without a memo?)"
    except _PASS_THROUGH:
        raise
    except BaseException as e:  # a panic inside a compiled library is a BaseException too
        return want, _RAISED, f"raised {type(e).__name__}: {_short(str(e).splitlines()[0] if str(e) else '', 60)}"
    if kind is not None and not isinstance(got, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        return want, got, f"returned a {type(got).__name__}, not a {names}"
    try:
        same = equal(want, got) if equal else got == want
    except Exception:  # the reader's value cannot even be compared
        same = False
    if not same:
        return want, got, "is wrong"
    if pure and not _same(mine, args):
        return want, got, "changed its input; return a new value instead"
    return None


def _same(mine, given) -> bool:
    """Whether the reader's copies of the arguments still equal the originals; an argument
    whose type has no equality of its own (a Tokenizer, say) is not compared."""
    for a, b in zip(mine, given):
        if type(b).__eq__ is object.__eq__:
            continue
        try:
            if not a == b:
                return False
        except Exception:
            return False
    return True


def _shrunk(disagrees, args, problem, shrink, valid):
    """Greedy shrinking: take the first smaller input that still disagrees, until none does.

    ``disagrees(args)`` is None where the reader and the reference agree, else (want, got, why);
    ``shrink(args)`` yields smaller inputs, ``valid`` (or None) says which are legal.

    >>> odd = lambda a: None if a[0] % 2 == 0 else (0, a[0], "is odd")
    >>> _shrunk(odd, (9,), odd((9,)), lambda a: [(n,) for n in range(a[0])], None)
    ((1,), (0, 1, 'is odd'))
    """
    budget = SHRINK_BUDGET
    improved = True
    while improved and budget > 0:
        improved = False
        for smaller in shrink(args):
            budget -= 1
            if budget <= 0:
                break
            try:
                if valid is not None and not valid(smaller):
                    continue
                p = disagrees(smaller)
            except AssertionError:
                continue
            except Exception:  # the reference refuses it: not a legal input
                continue
            if p is not None:
                args, problem, improved = smaller, p, True
                break
    return args, problem
