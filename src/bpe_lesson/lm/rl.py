"""RL prompts with verifiable answers: ``{"prompt", "gold"}`` records, and the verifier that scores a reply.

An RL example is only a prompt (the policy writes the rest) and a gold answer
the reward is computed from. The answer format, stated once and checked here::

    ... any reasoning ...
    #### 1,250

* the final answer is the text after ``####`` up to the end of that line, with
  surrounding whitespace and one trailing full stop removed;
* no ``####``, an empty answer, or ``####`` more than once: no answer, reward 0
  (a policy that writes several answers must not be paid for the right one);
* numbers compare by value: ``1,250`` = ``1250`` = ``1250.0`` = ``+1250``, and
  ``3/4`` = ``0.75`` (thousands separators only in groups of three: ``1,25`` is
  not a number); anything else compares as text, case and runs of whitespace ignored.

What this module does not do: generate replies, or parse LaTeX (``\\frac{3}{4}``) or
units (``$12``, ``12 kg`` are text, so they match only the same text).
"""

from __future__ import annotations

import re
from fractions import Fraction

from .chat import render_chat

__all__ = ["MARKER", "extract_answer", "MAX_DIGITS", "normalize_answer", "reward",
           "rl_prompts"]

MARKER = "####"
# a number: optional sign, digits with optional thousands groups, optional decimals; or a fraction
_NUMBER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[+-]?\.\d+|[+-]?\d+/\d+")


def extract_answer(text: str) -> str | None:
    """The final answer of a reply in the ``#### answer`` format, or None.

    >>> extract_answer("3 + 4 = 7\\n#### 7"), extract_answer("no marker"), extract_answer("#### 1\\n#### 2")
    ('7', None, None)
    """
    if not isinstance(text, str):
        raise ValueError(f"a reply must be a str, got {type(text).__name__}")
    if text.count(MARKER) != 1:
        return None
    answer = text.split(MARKER, 1)[1].split("\n", 1)[0].strip()
    if answer.endswith("."):
        answer = answer[:-1].rstrip()
    return answer or None


# digits a number may have and still become a Fraction: int() of a longer string raises
# (Python's 4,300-digit limit) and a policy's reply may be any string; longer numbers
# compare by their digits, written canonically (``_canonical``)
MAX_DIGITS = 1000


def _canonical(s: str) -> tuple[str, str, str]:
    """A decimal number's sign, integer digits and decimals, without leading/trailing zeros.

    >>> _canonical("+001,250.500"), _canonical("-0.0")
    (('', '1250', '5'), ('', '', ''))
    """
    sign = "-" if s.startswith("-") else ""
    whole, _, frac = s.lstrip("+-").replace(",", "").partition(".")
    whole, frac = whole.lstrip("0"), frac.rstrip("0")
    return ("" if not (whole or frac) else sign), whole, frac


def normalize_answer(answer: str):
    """A number as a ``Fraction`` (any way it is written), other text casefolded with single spaces.

    A number with more than ``MAX_DIGITS`` digits is compared by its digits (its value,
    written canonically), never converted; a fraction that long compares as text.

    >>> normalize_answer("1,250.0"), normalize_answer("3/4"), normalize_answer("  Paris  France ")
    (Fraction(1250, 1), Fraction(3, 4), 'paris france')
    >>> normalize_answer("1" * 5000) == normalize_answer("0" + "1" * 5000 + ".0")
    True
    """
    s = answer.strip()
    if _NUMBER.fullmatch(s):
        if "/" in s:
            num, den = s.split("/")
            if len(num) + len(den) > MAX_DIGITS or int(den) == 0:
                return " ".join(s.split()).casefold()  # 1/0 is no number (nor is one too long): text
            return Fraction(int(num), int(den))
        sign, whole, frac = _canonical(s)
        if len(whole) + len(frac) > MAX_DIGITS:
            return ("number", sign, whole, frac)
        return Fraction(f"{sign}{whole or 0}.{frac or 0}")
    return " ".join(s.split()).casefold()


def reward(reply: str, gold: str) -> float:
    """1.0 when the reply's final answer equals ``gold`` (as ``normalize_answer`` sees them), else 0.0.

    >>> reward("so 1000 in all.\\n#### 1,000.", "1000"), reward("#### 999", "1000"), reward("1000", "1000")
    (1.0, 0.0, 0.0)
    """
    if not isinstance(gold, str) or not gold.strip():
        raise ValueError(f"gold must be a non-empty str, got {gold!r}")
    answer = extract_answer(reply)
    return float(answer is not None and normalize_answer(answer) == normalize_answer(gold))


def rl_prompts(tokenizer, records, template="plain", **kw) -> list[tuple[list[int], str]]:
    """``(prompt_ids, gold)`` for each ``{"prompt", "gold"}`` record: the prompt as a user message
    ending in the assistant's header, which the policy completes."""
    out = []
    for k, r in enumerate(records):
        if not isinstance(r, dict) or not isinstance(r.get("prompt"), str) or not isinstance(r.get("gold"), str):
            got = sorted(r) if isinstance(r, dict) else type(r).__name__
            raise ValueError(f"record {k}: an RL record needs str fields 'prompt' and 'gold' (found {got})")
        if not r["gold"].strip():
            raise ValueError(f"record {k}: 'gold' is empty; no reply could earn a reward")
        ids, _ = render_chat(tokenizer, [{"role": "user", "content": r["prompt"]}], template,
                             add_generation_prompt=True, **kw)
        out.append((ids, r["gold"]))
    return out
