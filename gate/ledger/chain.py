"""The hash chain: each entry commits to its content and to the entry before it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from gate.canonical import canonical_json

GENESIS = "sha256:" + "0" * 64


def entry_hash(prev_hash: str, seq: int, at: float, kind: str, ref_id: str, payload: str) -> str:
    """SHA-256 over the previous hash and the canonical form of this entry."""
    body = canonical_json({"seq": seq, "at": at, "kind": kind, "ref": ref_id, "payload": payload})
    return "sha256:" + hashlib.sha256(f"{prev_hash}\n{body}".encode()).hexdigest()


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

    @property
    def ok(self) -> bool:
        return self.first_broken is None
