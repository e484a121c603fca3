"""Structured events: one per decision and one per receipt."""

from __future__ import annotations

from typing import Any

import structlog

logger = structlog.get_logger("gate")


def event(name: str, **fields: Any) -> None:
    """Emit one structured event (``gate.decision``, ``gate.receipt``, ...)."""
    logger.info(name, **fields)


def warning(name: str, **fields: Any) -> None:
    logger.warning(name, **fields)
