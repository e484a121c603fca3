"""Did the agent put the pending question to the caller?

A yes confirms only the question the caller heard. The agent words the question its own way,
so the check is on values, not wording: every pending value must be in the agent's message as
a value ("50", "fifty" and "$50.00" are one amount; "Thu" and "Thursday" one day; "A-1001" is
never "A-10011"). A message that carries other values (900 instead of 50, account Y instead of
X), or only some of them, did not put the pending question.

Masking is the caller's business: pass only the values the caller must have heard (a masked
card number is not spoken, so it is not passed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gate.values import mentions

__all__ = ["Heard", "question_heard"]


@dataclass(frozen=True)
class Heard:
    """Whether the question was put; ``missing`` names the pending values not found, in order."""

    ok: bool
    missing: list[str] = field(default_factory=list)


def question_heard(agent_words: str, pending: Mapping[str, object], *, lang: str | None = None) -> Heard:
    """Whether ``agent_words`` carry every value in ``pending`` (name -> value), as values.

    ``lang`` narrows how values are read ("en", "es", "fr", "de"); None reads all four.
    A value that cannot be a value (NaN, infinity, a bool, a list) can never have been heard:
    it is reported missing rather than raised, so a bad argument fails closed.
    An empty ``pending`` is heard by any message, including an empty one.
    """
    missing: list[str] = []
    for name, value in pending.items():
        try:
            heard = mentions(agent_words, value, lang)
        except (ValueError, TypeError):
            heard = False
        if not heard:
            missing.append(name)
    return Heard(ok=not missing, missing=missing)
