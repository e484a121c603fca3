"""Spoken confirmation: what the caller heard and what they answered.

The names below are imported on first use (``gate.confirm.read_answer``), so importing this
package, or :mod:`gate.confirm.loading` alone, compiles none of the reader: a worker's session
imports it in a thread, off the event loop, the first time a confirmation is answered.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gate.confirm.answer import RULES, Answer, AnswerReading, classify_answer, read_answer
    from gate.confirm.heard import Heard, question_heard
    from gate.confirm.loading import ready, warm

__all__ = [
    "RULES",
    "Answer",
    "AnswerReading",
    "Heard",
    "classify_answer",
    "question_heard",
    "read_answer",
    "ready",
    "warm",
]

_WHERE = {
    "RULES": "answer",
    "Answer": "answer",
    "AnswerReading": "answer",
    "classify_answer": "answer",
    "read_answer": "answer",
    "Heard": "heard",
    "question_heard": "heard",
    "ready": "loading",
    "warm": "loading",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'gate.confirm' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"gate.confirm.{module}"), name)
    globals()[name] = value
    return value
