"""Spoken confirmation: what the caller heard and what they answered."""

from gate.confirm.answer import RULES, Answer, AnswerReading, classify_answer, read_answer
from gate.confirm.heard import Heard, question_heard
from gate.confirm.warm import ready, warm

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
