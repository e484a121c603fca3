"""What did the caller answer to the confirmation question?

Only a plain yes to the question that was put confirms an action. The reader is deterministic
and offline: named rules read the answer (:mod:`gate.confirm.reading`), and where they find no
veto but no yes word either, a small learned reader may propose a yes (:mod:`gate.confirm.model`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from gate.confirm.lexicon import language
from gate.confirm.reading import read_rules
from gate.confirm.restate import pending_values
from gate.confirm.verdict import RULES, Answer, AnswerReading

__all__ = ["RULES", "Answer", "AnswerReading", "classify_answer", "read_answer"]


def read_answer(
    words: str,
    *,
    question: str = "",
    pending: Mapping[str, object] | None = None,
    lang: str = "en",
    today: date | None = None,
) -> AnswerReading:
    """Read the caller's answer to ``question`` about the ``pending`` values (name -> value).

    ``lang`` is the caller's language ("en", "es", "fr", "de"; a region suffix is ignored; an
    unknown code reads English). Never raises: odd input (empty, symbols only, a pending value
    that is not a value) reads as ``unclear`` or is ignored.
    """
    code = language(lang)
    return read_rules(words, question, tuple(pending_values(pending, code)), code, today)


def classify_answer(
    words: str,
    *,
    question: str = "",
    pending: Mapping[str, object] | None = None,
    lang: str = "en",
    today: date | None = None,
) -> Answer:
    """``yes``, ``no``, ``change`` or ``unclear``: the verdict of :func:`read_answer`."""
    return read_answer(words, question=question, pending=pending, lang=lang, today=today).answer
