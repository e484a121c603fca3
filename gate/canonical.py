"""Canonical JSON and digests: one byte form for everything gate hashes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 kept: equal values give equal strings.

    Raises TypeError for values JSON cannot carry (gate only hashes JSON data).
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(value: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of ``value``."""
    return "sha256:" + hashlib.sha256(canonical_json(value).encode()).hexdigest()


def mask_arguments(args: Mapping[str, Any], masked: Iterable[str]) -> dict[str, Any]:
    """Arguments with each masked one replaced by its digest, so the ledger never holds it."""
    hidden = set(masked)
    return {k: (digest(v) if k in hidden else v) for k, v in args.items()}
