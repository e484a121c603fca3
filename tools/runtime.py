"""Which system of record the tools write to: ``business.db`` in ``GATE_HOME`` unless told otherwise."""

from __future__ import annotations

from gate.config import GateSettings
from tools.store import Business

_current: Business | None = None


def business() -> Business:
    """The process's system of record (created on first use)."""
    global _current
    if _current is None:
        _current = Business(GateSettings().home)
    return _current


def use_business(store: Business) -> None:
    """Point the tools at another system of record (the demo and tests use their own)."""
    global _current
    _current = store
