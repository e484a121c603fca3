"""The learned reader (placeholder until trained)."""

from __future__ import annotations

from gate.values import Value


def yes_score(words: str, question: str, pending: tuple[Value, ...], lang: str) -> float | None:
    return None


def threshold() -> float:
    return 1.0
