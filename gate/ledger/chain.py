"""The hash chain: each entry commits to a record's content and to the entry before it.

An entry holds the SHA-256 digest of one record (a decision, a confirmation
or a receipt) in a fixed column order, and its hash covers the previous
entry's hash. Records carry the sequence number of their latest entry, so
verification joins the two in the database and streams, in constant memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Boolean, Float, Integer, Table

GENESIS = "sha256:" + "0" * 64

# What each kind of entry commits to, column by column, in this order. A
# format never changes once entries use it (old entries must keep verifying);
# a record that gains a column an auditor reads gets a new kind instead
# (``receipt`` -> ``receipt.2``, which also commits to the service decision).
# ``decision.2`` and ``confirmation.2`` commit to the same columns as the first
# kinds, but their personal text is held apart (see gate.ledger.personal): each
# such field holds ``personal:<salted digest>``, so the text can be erased.
_DECISION_COLUMNS = (
    "id",
    "created_at",
    "session_id",
    "caller_id",
    "caller_json",
    "tool",
    "action_name",
    "args_json",
    "args_digest",
    "action_digest",
    "policy_name",
    "policy_hash",
    "mode",
    "outcome",
    "enforced_outcome",
    "rule",
    "trace_json",
    "evidence_json",
    "state_version",
    "confirmation_id",
    "call_id",
    "latency_ms",
)
_CONFIRMATION_COLUMNS = (
    "id",
    "decision_id",
    "created_at",
    "expires_at",
    "session_id",
    "caller_id",
    "tool",
    "action_digest",
    "state_version",
    "memory_ids_json",
    "status",
    "words",
    "answered_at",
    "answer_message_id",
)
FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {
    "decision": ("gate_decisions", _DECISION_COLUMNS),
    "decision.2": ("gate_decisions", _DECISION_COLUMNS),
    "confirmation": ("gate_confirmations", _CONFIRMATION_COLUMNS),
    "confirmation.2": ("gate_confirmations", _CONFIRMATION_COLUMNS),
    "receipt": (
        "gate_receipts",
        (
            "id",
            "decision_id",
            "idempotency_key",
            "created_at",
            "caller_id",
            "action_name",
            "status",
            "external_ref",
            "error_code",
        ),
    ),
    "receipt.2": (
        "gate_receipts",
        (
            "id",
            "decision_id",
            "idempotency_key",
            "created_at",
            "caller_id",
            "action_name",
            "status",
            "external_ref",
            "error_code",
            "service_decision_id",
        ),
    ),
    "delivery": (
        "gate_deliveries",
        (
            "id",
            "receipt_id",
            "at",
            "attempt",
            "state",
            "service_decision_id",
            "error",
            "policy_alignment",
            "service_receipt_id",
        ),
    ),
}
# Kinds whose personal text is held apart.
SEALED_KINDS = frozenset({"decision.2", "confirmation.2"})
# The kind new records of each table are written as.
CURRENT_KIND = {"gate_decisions": "decision.2", "gate_confirmations": "confirmation.2"} | {
    "gate_receipts": "receipt.2",
    "gate_deliveries": "delivery",
}


def entry_hash(prev_hash: str, seq: int, at: float, kind: str, ref_id: str, digest: str) -> str:
    """SHA-256 over the previous hash and this entry's fields."""
    body = f"{prev_hash}\n{seq}\n{at!r}\n{kind}\n{ref_id}\n{digest}"
    return "sha256:" + hashlib.sha256(body.encode()).hexdigest()


class RecordDigest:
    """Digests one kind of record the same way when written and when read back.

    On write, values are coerced to their column's type (``1`` in a float
    column becomes ``1.0``), which is what the database hands back on read; so
    :meth:`of_row` (writing) and :meth:`of_values` (raw rows read back) agree.
    """

    def __init__(self, table: Table, columns: Sequence[str]) -> None:
        self.columns = list(columns)
        self._coerce: list[Callable[[Any], Any]] = [_coercer(table.c[name].type) for name in self.columns]

    def of_values(self, values: Sequence[Any]) -> str:
        """Digest of a row as the database returns it, in :attr:`columns` order.

        The canonical form is the ``repr`` of the value tuple: values are only
        ``str``, ``int``, ``float`` and ``None``, whose reprs are exact and
        stable, and it costs half of JSON on the millions of rows verify reads.
        """
        return "sha256:" + hashlib.sha256(repr(tuple(values)).encode()).hexdigest()

    def of_mapping(self, values: Mapping[str, Any]) -> str:
        """Digest of a record about to be written (values coerced to column types)."""
        got = [values[name] for name in self.columns]
        coerced = [None if v is None else f(v) for f, v in zip(self._coerce, got, strict=True)]
        return self.of_values(coerced)

    def of_row(self, row: Any) -> str:
        return self.of_mapping({name: getattr(row, name) for name in self.columns})


def _coercer(kind: Any) -> Callable[[Any], Any]:
    if isinstance(kind, Float):
        return float
    if isinstance(kind, Boolean):
        return bool
    if isinstance(kind, Integer):
        return int
    return str


@dataclass(frozen=True)
class BrokenEntry:
    """The first place the ledger disagrees with its chain, and why."""

    seq: int | None
    ref_id: str | None
    reason: str

    def __str__(self) -> str:
        where = f"entry {self.seq}" if self.seq is not None else "ledger"
        ref = f" ({self.ref_id})" if self.ref_id else ""
        return f"{where}{ref}: {self.reason}"


@dataclass(frozen=True)
class ChainReport:
    """The result of :meth:`gate.Ledger.verify`: ``ok`` or the first broken entry."""

    checked: int
    first_broken: BrokenEntry | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.first_broken is None
