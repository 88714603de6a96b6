"""Which encoder a Tokenizer runs, bound once: the backend it was given, and its compiled plans.

Mixed into ``Tokenizer`` (``CompiledPath``): ``tok.backend`` resolves the backend
(``_backend.resolve_backend``) once, when it is set, and keeps the compiled extension
it names (``_backend.compiled``); the compiled ``Encoder`` is built then, not inside
the first encode. ``_plan`` works out, once per pair of special-token arguments,
whether the compiled encoder can take a whole call.

What this module does not do: look at the environment (``_backend`` does, once), or
encode (``Tokenizer.encode`` and the compiled ``Encoder`` do).
"""

from __future__ import annotations

from .._compiled import backend as _backend
from ..patterns import special_longest_first, special_prefix

__all__ = ["CompiledPath"]

_ALL = "all"  # (interned: ``disallowed_special is _ALL`` holds for the default argument)
_NONE = ()    # (the one empty tuple: ``allowed_special is _NONE`` holds for the default)


class CompiledPath:
    """Mixed into ``Tokenizer``: needs ``_ranks``, ``pattern``, ``normalize``, ``_check_cover``,
    ``_check_arguments`` and ``_special_sets``."""

    @property
    def backend(self) -> str:
        """Which encoder runs: "python" or "cython"; assign to switch (the ids are the same).

        >>> from bpe_lesson import Tokenizer
        >>> tok = Tokenizer([((97, 97), 256)], pattern=None, backend="python")
        >>> tok.backend, tok._fast_encoder() is None
        ('python', True)
        """
        return self._backend

    @backend.setter
    def backend(self, value):
        self._bind_backend(_backend.resolve_backend(value))

    def _bind_backend(self, value: str) -> None:
        """Run on ``value``, a backend already resolved ("python" or "cython")."""
        if getattr(self, "_backend", None) != value:
            self._backend = value
            self._fast = None  # the compiled Encoder, built now: not inside the first encode
            self._plans = {}   # see _plan
            # the plans of the default arguments, kept apart: False until first asked
            self._plan_default = self._plan_ordinary = False
            if self._fast_encoder() is not None:
                # the default call's plan is worked out now too, as the encoder is built:
                # inside a new tokenizer's first call it had taken ~80 us, as long as
                # encoding 14 documents of prose (benchmarks/per_document.py, cold)
                self._plan_default = self._plan((), "all")

    @property
    def _native(self):
        """The compiled extension this tokenizer's backend names, or None on "python" (asked,
        not stored: a module does not pickle)."""
        return _backend.extension(self._backend)

    def _fast_encoder(self):
        """The compiled encoder (built once), or None when the backend is "python"."""
        if self._fast is None:
            self._fast = False
            # a vocabulary without all 256 single bytes stays on the Python path
            if self._native is not None and all(bytes([b]) in self._ranks for b in range(256)):
                self._fast = self._native.Encoder(self._ranks, self.pattern)
        return self._fast or None

    def _whole_call(self, text, allowed_special, disallowed_special, array: bool):
        """The ids of a call the compiled encoder takes whole (see ``_plan``): a list, or
        a NumPy uint32 array when ``array``; None when it cannot, and the caller then
        takes the steps of ``_encode``. The plan of the default arguments is kept in an
        attribute: on a 10-character document, looking it up had been most of the call.
        """
        if allowed_special is _NONE and disallowed_special is _ALL:
            plan = self._plan_default
            if plan is False:
                plan = self._plan_default = self._plan((), "all")
        else:
            plan = self._plan(allowed_special, disallowed_special)
        if plan is None:
            return None
        try:
            return plan[0].encode_unless_special(text, plan[1], array)  # None: a disallowed special
        except UnicodeEncodeError:  # a lone surrogate: the caller's path replaces it
            return None

    def _whole_call_utf8(self, data, allowed_special, disallowed_special, array: bool):
        """``_whole_call`` for UTF-8 bytes (a binary stream's stretch), with no str made;
        None when the compiled encoder does not take them (see ``Encoder.encode_utf8``):
        the caller decodes them and takes the str path."""
        plan = self._plan(allowed_special, disallowed_special)
        if plan is None:
            return None
        return plan[0].encode_utf8(data, plan[1], array)

    def _plan(self, allowed_special, disallowed_special):
        """(compiled encoder, ``SpecialSearch`` or None) for a call the compiled encoder can
        take whole, or None for one that needs the steps of ``_encode``.

        What does not depend on the text (the two argument sets and their checks, the
        special tokens' UTF-8, the encoder) is worked out once per distinct pair of
        arguments and kept: on a 70-character document, working it out on each call
        had cost 3-4 us, three times the encoding (``benchmarks/per_call.py``). A call
        it cannot take: the Python backend, a normalization form, a pattern that may
        leave text unmatched, an allowed special token (the text is cut at them), or
        disallowed tokens without a common beginning of 2 bytes (the regex searches).
        """
        key = (allowed_special, disallowed_special)
        try:
            return self._plans[key]
        except KeyError:
            pass
        except TypeError:  # a set: the same plan as the frozenset
            key = tuple(frozenset(v) if isinstance(v, (set, list)) else v for v in key)
            try:
                return self._plans[key]
            except (KeyError, TypeError):
                pass
        fast = self._fast_encoder()
        if fast is None or self.normalize or self._check_cover:
            plan = None
        else:
            self._check_arguments(allowed_special, disallowed_special, 0.0)
            allowed, disallowed = self._special_sets(allowed_special, disallowed_special)  # checked against ours
            prefix = special_prefix(frozenset(disallowed))
            if allowed or (disallowed and len(prefix.encode("utf-8")) < 2):
                plan = None
            elif disallowed:
                plan = (fast, self._native.SpecialSearch(special_longest_first(frozenset(disallowed)), prefix))
            else:
                plan = (fast, None)
        if len(self._plans) < 64:  # (a caller passing a new set each time does not grow it)
            try:
                self._plans[key] = plan
            except TypeError:
                pass
        return plan
