"""Checking the records a reader is about to show, one by one, against the chain.

:meth:`gate.Ledger.verify` checks everything; a reader that shows a handful
of records (``gate audit show``, a page of ``list``, the viewer) checks just
those, as it shows them: the record's digest is recomputed from its columns
and compared with its entry, the entry's hash is recomputed, and its links
are checked (it follows the entry before it, the entry after it follows
it). A forged amount is then marked where a reviewer looks, not only by a
separate ``verify`` run. What this cannot see alone is a chain rewritten and
recomputed from the forged record on: signed checkpoints catch that
(``gate audit verify --key``).

The cost is one indexed query for the entries of all records checked
together, and one SHA-256 per record and per entry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Table, select

from gate.ledger.chain import FORMATS, GENESIS, RecordDigest, entry_hash
from gate.ledger.tables import ChainRow

_CH: Table = ChainRow.__table__  # type: ignore[attr-defined]
_DIGESTS: dict[str, RecordDigest] = {}
_CHUNK = 300


def _digest(kind: str) -> RecordDigest:
    found = _DIGESTS.get(kind)
    if found is None:
        from sqlmodel import SQLModel

        table, columns = FORMATS[kind]
        found = _DIGESTS[kind] = RecordDigest(SQLModel.metadata.tables[table], columns)
    return found


def digest_of(kind: str, values: Sequence[Any]) -> str:
    """The digest a record of ``kind`` has, from its values as read back, in the format's column order."""
    return _digest(kind).of_values(values)


def entries(conn: Any, seqs: Sequence[int]) -> dict[int, Any]:
    """Chain entries by sequence number: each of ``seqs`` and its neighbours."""
    wanted = sorted({s + d for s in seqs for d in (-1, 0, 1) if s + d > 0})
    found: dict[int, Any] = {}
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        query = select(
            _CH.c.seq, _CH.c.at, _CH.c.kind, _CH.c.ref_id, _CH.c.digest, _CH.c.prev_hash, _CH.c.hash
        )
        for e in conn.execute(query.where(_CH.c.seq.in_(chunk))):
            found[int(e.seq)] = e
    return found


def entry_problem(entry: Any, before: Any | None, after: Any | None) -> str | None:
    """What is wrong with one chain entry given its neighbours (None: it holds)."""
    if entry_hash(entry.prev_hash, entry.seq, entry.at, entry.kind, entry.ref_id, entry.digest) != entry.hash:
        return "its chain entry does not match its hash"
    expected_prev = GENESIS if entry.seq == 1 else (before.hash if before is not None else None)
    if expected_prev is None:
        return "the chain entry before it is missing"
    if entry.prev_hash != expected_prev:
        return "its chain entry does not follow the entry before it"
    if after is not None and after.prev_hash != entry.hash:
        return "the chain entry after it does not follow it"
    return None


def record_problem(table: str, record: Mapping[str, Any], found: Mapping[int, Any]) -> str | None:
    """Why ``record`` (a row of ``table``, every column) does not verify against the chain, or None.

    ``found`` holds the entries :func:`entries` read for its ``chain_seq``.
    """
    seq = record.get("chain_seq")
    if seq is None:
        return "it is not in the chain"
    entry = found.get(seq)
    if entry is None or entry.ref_id != record["id"] or FORMATS.get(entry.kind, ("",))[0] != table:
        return "it is not in the chain"
    values = [record[c] for c in FORMATS[entry.kind][1]]
    if _digest(entry.kind).of_values(values) != entry.digest:
        return "it was changed after it was recorded"
    return entry_problem(entry, found.get(seq - 1), found.get(seq + 1))


def check(conn: Any, records: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str | None]:
    """:func:`record_problem` for each (table, record), reading their entries in one go."""
    seqs = [int(r["chain_seq"]) for _, r in records if r.get("chain_seq") is not None]
    found = entries(conn, seqs)
    return [record_problem(table, record, found) for table, record in records]


def asked_form(record: Mapping[str, Any]) -> dict[str, Any]:
    """A confirmation as it was first recorded (asked, pending), rebuilt from its answered form."""
    return {**record, "status": "pending", "words": None, "answered_at": None, "answer_message_id": None}


def earlier_problem(kind: str, record: Mapping[str, Any], digest: str) -> str | None:
    """For a confirmation's earlier entry: whether its asked form still matches the entry's digest."""
    asked = asked_form(record)
    values = [asked[c] for c in FORMATS[kind][1]]
    return None if _digest(kind).of_values(values) == digest else "it was changed after it was recorded"
