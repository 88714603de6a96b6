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


def normalize_answer(answer: str):
    """A number as a ``Fraction`` (any way it is written), other text casefolded with single spaces.

    >>> normalize_answer("1,250.0"), normalize_answer("3/4"), normalize_answer("  Paris  France ")
    (Fraction(1250, 1), Fraction(3, 4), 'paris france')
    """
    s = answer.strip()
    if _NUMBER.fullmatch(s):
        if "/" in s:
            num, den = s.split("/")
            if int(den) == 0:
                return s  # 1/0 is no number: compare as text
            return Fraction(int(num), int(den))
        return Fraction(s.replace(",", ""))
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
