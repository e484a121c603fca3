"""Spoken confirmation: what the caller heard and what they answered."""

from gate.confirm.answer import classify_answer

__all__ = ["classify_answer"]
