"""The hash chain: each entry commits to a record's content and to the entry before it.

An entry holds the SHA-256 digest of one record (a decision, a confirmation
or a receipt) in a fixed column order, and its hash covers the previous
entry's hash. Records carry the sequence number of their latest entry, so
verification joins the two in the database and streams, in constant memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Boolean, Float, Integer, Table

GENESIS = "sha256:" + "0" * 64

# Columns that change after a record is written (delivery of a receipt) or that
# point into the chain itself; neither is part of what the chain commits to.
UNCHAINED = frozenset(
    {
        "chain_seq",
        "service_decision_id",
        "delivery_state",
        "delivered_at",
        "attempts",
        "last_error",
        "policy_alignment",
        "service_receipt_id",
    }
)


def entry_hash(prev_hash: str, seq: int, at: float, kind: str, ref_id: str, digest: str) -> str:
    """SHA-256 over the previous hash and this entry's fields."""
    body = f"{prev_hash}\n{seq}\n{at!r}\n{kind}\n{ref_id}\n{digest}"
    return "sha256:" + hashlib.sha256(body.encode()).hexdigest()


class RecordDigest:
    """Digests one table's records the same way when written and when read back.

    On write, values are coerced to their column's type (``1`` in a float
    column becomes ``1.0``), which is what the database hands back on read; so
    :meth:`of_row` (writing) and :meth:`of_values` (raw rows read back) agree.
    """

    def __init__(self, table: Table) -> None:
        self.columns = [c.name for c in table.columns if c.name not in UNCHAINED]
        self._coerce: list[Callable[[Any], Any]] = [_coercer(table.c[name].type) for name in self.columns]

    def of_values(self, values: Sequence[Any]) -> str:
        """Digest of a row as the database returns it, in :attr:`columns` order.

        The canonical form is the ``repr`` of the value tuple: values are only
        ``str``, ``int``, ``float`` and ``None``, whose reprs are exact and
        stable, and it costs half of JSON on the millions of rows verify reads.
        """
        return "sha256:" + hashlib.sha256(repr(tuple(values)).encode()).hexdigest()

    def of_row(self, row: Any) -> str:
        """Digest of a record about to be written (values coerced to column types)."""
        values = [getattr(row, name) for name in self.columns]
        coerced = [None if v is None else f(v) for f, v in zip(self._coerce, values, strict=True)]
        return self.of_values(coerced)


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
