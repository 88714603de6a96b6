"""What an exercise forbids: a call, or a constant, the text rules out.

``called_while`` runs the reader's function with the functions it must not call replaced by
tripwires and names the first one it called; ``uses_constant`` finds a constant (say
``errors="replace"``) in the reader's code, its nested functions and its helpers.

What this module does not do: compare answers (``_calls.compare`` does).
"""

from __future__ import annotations

import types

__all__ = ["called_while", "uses_constant", "Forbidden"]


def _own_codes(fn, seen=None):
    """The code objects of ``fn``, of the functions nested in it, and of the functions of the same
    module it calls by a global name (one helper deep, and so on): where the reader's code lives."""
    seen = set() if seen is None else seen
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if code is None or code in seen:
        return seen
    stack = [code]
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen.add(c)
        stack += [k for k in c.co_consts if isinstance(k, types.CodeType)]
        for name in c.co_names:
            g = getattr(fn, "__globals__", {}).get(name)
            if isinstance(g, types.FunctionType) and g.__module__ == fn.__module__:
                _own_codes(g, seen)
    return seen


def uses_constant(fn, value) -> bool:
    """Whether ``value`` is a constant in the reader's code (``fn``, its nested functions, its
    helpers): how a check sees ``errors="replace"`` where the text forbids it.

    >>> uses_constant(lambda b: b.decode("utf-8", errors="replace"), "replace")
    True
    >>> uses_constant(lambda s: s.replace("a", "b"), "replace")
    False
    """
    return any(value in c.co_consts for c in _own_codes(fn))


class Forbidden(Exception):
    """Raised by a tripwire: the reader's code called what the exercise forbids."""


def called_while(fn, args, name_part: str):
    """Call ``fn(*args)`` with every function of the reader's module whose name holds ``name_part``
    (``merge``, say), and every such function of the package's modules it names, replaced by a
    tripwire; the name of the first one called, or None.

    >>> def merge(ids, pair, idx): return ids
    >>> called_while(lambda ids: len(ids) - len(merge(ids, (1, 2), -1)), ([1, 2],), "merge")
    'merge'
    """
    fn0 = getattr(fn, "__func__", fn)
    space = getattr(fn0, "__globals__", {})
    patched = []  # (namespace, name, original)

    def wire(namespace, name, original):
        def tripwire(*a, **k):
            raise Forbidden(getattr(original, "__qualname__", name))
        patched.append((namespace, name, original))
        namespace[name] = tripwire

    for name, value in list(space.items()):
        if value is fn0 or name.startswith("__"):
            continue
        named = name.lower() + " " + str(getattr(value, "__name__", "")).lower()  # an alias keeps its __name__
        if callable(value) and name_part in named and not isinstance(value, type):
            wire(space, name, value)
        elif isinstance(value, types.ModuleType) and value.__name__.startswith("bpe_lesson"):
            for attr, member in list(vars(value).items()):
                if isinstance(member, types.FunctionType) and name_part in attr.lower():
                    wire(vars(value), attr, member)
    try:
        fn(*args)
    except Forbidden as e:
        return str(e)
    except Exception:
        return None
    finally:
        for namespace, name, original in reversed(patched):
            namespace[name] = original
    return None
