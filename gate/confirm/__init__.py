"""Spoken confirmation: what the caller heard and what they answered."""

from gate.confirm.answer import Answer, AnswerReading, classify_answer, read_answer
from gate.confirm.heard import Heard, question_heard

__all__ = ["Answer", "AnswerReading", "Heard", "classify_answer", "question_heard", "read_answer"]
