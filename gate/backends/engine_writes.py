"""The gate's own short writes to the embedded engine's SQLite file.

The engine (pycontextdb) writes through one aiosqlite connection: each
statement is a round trip to that connection's thread, and remembering a
fact and confirming it takes five commits (the row, the store revision, an
audit entry; the confirmation, another audit entry), each transaction begun
lazily. With several worker processes on one file, a transaction that read
before it wrote loses the race for the file's lock as soon as another
process commits in between, and waits in SQLite's polling busy handler
otherwise: a decision that waited for such writes waited for all of that.

:class:`EngineWrites` applies one change as one ``BEGIN IMMEDIATE``
transaction on a connection of its own, run whole on a writer thread
(:class:`gate.ledger.writer.Writer`: what several calls of a process write
at the same moment shares one commit), and takes the cross-process write
lock first (:class:`gate.ledger.writer.FileLock`): the memory rows, the
engine's own audit entries, chained to its audit log exactly as the engine
chains them, and the store revision every process's index watches.

Only the engine's plain rows are written here (no slot: a slot's
corroboration and supersession rules stay the engine's own). Failure
modes: the job raises what SQLite raises (nothing of it is written), or
:class:`MemoryMissing` when a memory to confirm is not the caller's.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from contextdb.core.models import MemoryItem
from contextdb.privacy.audit import AuditEntry
from contextdb.store.sqlite_store import (
    _BUMP_REVISION_SQL,
    _BUMP_SCOPED_REVISION_SQL,
    _REVISION_KEY,
)
from sqlalchemy import Connection, create_engine, event
from sqlalchemy.engine import Engine

from gate.ledger.writer import FileLock, Job, Writer

_BUSY_TIMEOUT_S = 30.0
_GENESIS = "0" * 64
# The engine's confirmation raises confidence to at least this (contextdb.dynamics.trust).
CONFIRMED_CONFIDENCE = 0.95
_COLUMNS = (
    "id, content, embedding, embedding_dim, memory_type, source, metadata, user_id, event_time, "
    "ingestion_time, pii_annotations, retention_policy, created_at, updated_at, access_count, "
    "last_accessed, confidence, status, entity_mentions, tags, epistemic_source, corroboration_count, "
    "action_relevant, entity_key, attribute_key, valid_from, valid_until, superseded_by, "
    "pending_consolidation, injection_suspect, corroborated_by, confirmed, confirmed_at, "
    "write_generation, slot_class, slot_value, negated, tenant_id, agent_id, session_id, pii_shadow, "
    "contested, embedding_model_id"
)
_INSERT = f"INSERT INTO memories ({_COLUMNS}) VALUES ({', '.join('?' * len(_COLUMNS.split(',')))})"


class MemoryMissing(LookupError):
    """A memory to confirm is not in the caller's partition (or no longer exists)."""


@dataclass(frozen=True)
class Confirmed:
    """What an attestation wrote: its memory, the ones it confirmed, and those left to the engine."""

    memory_id: str
    confirmed: list[str]
    in_slots: list[str]  # memories in a slot: their confirmation has the engine's slot rules


@dataclass
class _Chain:
    """The engine's audit chain tail within one transaction (read once, then kept)."""

    tail: tuple[int, str] | None = None


class EngineWrites:
    """Short transactions on one engine's SQLite file (see the module's note).

    Args:
        path: the engine's database file.
        revision_key: the store's revision key (the engine's ``_revision_key``).
        audit: whether the engine keeps its audit log (then every change is entered in it).
        tenant_id / agent_id: the store's scope, written into new rows as the engine does.
    """

    def __init__(
        self,
        path: str,
        *,
        revision_key: str = _REVISION_KEY,
        audit: bool = True,
        tenant_id: str | None = None,
        agent_id: str | None = None,
    ) -> None:
        self.path = path
        self.revision_key = revision_key
        self.audit = audit
        self.tenant_id = tenant_id
        self.agent_id = agent_id
        self._engine: Engine = _engine(path, busy_timeout_s=_BUSY_TIMEOUT_S)
        # Inline writes never wait for the file: the engine's own connection may hold it
        # mid-transaction, waiting for this very event loop to go on.
        self._inline: Engine = _engine(path, busy_timeout_s=0.0)
        self._writer = Writer(
            self._engine.begin,
            name="gate-memory-writer",
            lock=FileLock.beside(path),
            inline_begin=self._inline.begin,
        )

    async def attest(self, item: MemoryItem, pending: Sequence[str], speaker: str) -> Confirmed:
        """Write ``item`` (a confirmed memory, no vector yet) and confirm the plain ones of ``pending``.

        Raises:
            MemoryMissing: a pending memory is not the caller's (nothing is written).
            sqlite3.Error: the file could not be written (nothing is written).
        """
        return await self._writer.acall(self._attest_job(item, list(pending), speaker))

    async def fill_vector(self, memory_id: str, vector: Sequence[float], model_id: str | None) -> bool:
        """Give a memory written without a vector its vector; False when it is gone (erased meanwhile)."""
        blob = _blob(vector)
        return await self._writer.acall(self._fill_job(memory_id, blob, len(vector), model_id))

    def close(self) -> None:
        """Apply what is queued, then release the connection (idempotent)."""
        self._writer.close()
        self._engine.dispose()
        self._inline.dispose()

    # -- jobs -------------------------------------------------------------------------

    def _attest_job(self, item: MemoryItem, pending: list[str], speaker: str) -> Job[Confirmed]:
        def job(conn: Connection) -> Confirmed:
            now = item.created_at
            confirmed, in_slots = [], []
            chain = _Chain()
            for memory_id in pending:
                found = (
                    _driver(conn)
                    .execute(
                        "SELECT user_id, entity_key, attribute_key, corroborated_by, confidence, status "
                        "FROM memories WHERE id = ?",
                        (memory_id,),
                    )
                    .fetchone()
                )
                if found is None or found[0] != item.user_id or found[5] != "ACTIVE":
                    raise MemoryMissing(memory_id)
                if found[1] and found[2]:
                    in_slots.append(memory_id)
                    continue
                speakers = list(json.loads(found[3] or "[]"))
                if speaker not in speakers:
                    speakers.append(speaker)
                _driver(conn).execute(
                    "UPDATE memories SET confirmed = 1, confirmed_at = ?, contested = 0, "
                    "corroboration_count = ?, corroborated_by = ?, epistemic_source = 'user_stated', "
                    "confidence = ?, updated_at = ? WHERE id = ?",
                    (
                        now.isoformat(),
                        len(speakers),
                        json.dumps(speakers),
                        max(float(found[4] or 0.0), CONFIRMED_CONFIDENCE),
                        now.isoformat(),
                        memory_id,
                    ),
                )
                self._audit(
                    conn, chain, "CONFIRM", memory_id, item.user_id, _confirm_details(now, speaker), now
                )
                confirmed.append(memory_id)
            _driver(conn).execute(_INSERT, _row(item, self.tenant_id, self.agent_id))
            created = {"memory_type": item.memory_type.value}
            self._audit(conn, chain, "CREATE", item.id, item.user_id, created, now)
            self._audit(conn, chain, "CONFIRM", item.id, item.user_id, _confirm_details(now, speaker), now)
            self._bump(conn)
            return Confirmed(item.id, [*confirmed, item.id], in_slots)

        return job

    def _fill_job(self, memory_id: str, blob: bytes, dim: int, model_id: str | None) -> Job[bool]:
        def job(conn: Connection) -> bool:
            changed = (
                _driver(conn)
                .execute(
                    "UPDATE memories SET embedding = ?, embedding_dim = ?, embedding_model_id = ?, "
                    "updated_at = ? WHERE id = ? AND embedding IS NULL",
                    (blob, dim, model_id, _now_iso(), memory_id),
                )
                .rowcount
            )
            if changed:
                self._bump(conn)
            return bool(changed)

        return job

    def _bump(self, conn: Connection) -> None:
        """Move the store revision, in the same commit: every process's index then looks again."""
        if self.revision_key == _REVISION_KEY:
            _driver(conn).execute(_BUMP_REVISION_SQL, (self.revision_key,)).fetchall()
        else:
            _driver(conn).execute(_BUMP_SCOPED_REVISION_SQL, (self.revision_key, _REVISION_KEY)).fetchall()

    def _audit(
        self,
        conn: Connection,
        chain: _Chain,
        operation: str,
        memory_id: str,
        user_id: str | None,
        details: dict[str, Any],
        at: datetime,
    ) -> None:
        """Append to the engine's audit chain as the engine does (the tail is ours until commit)."""
        if not self.audit:
            return
        if chain.tail is None:
            found = (
                _driver(conn)
                .execute("SELECT sequence, entry_hash FROM audit_log ORDER BY sequence DESC LIMIT 1")
                .fetchone()
            )
            chain.tail = (int(found[0]), str(found[1])) if found else (0, _GENESIS)
        entry = AuditEntry(
            sequence=chain.tail[0] + 1,
            operation=operation,
            memory_id=memory_id,
            user_id=user_id,
            details=details,
            previous_hash=chain.tail[1],
            entry_hash="",
            timestamp=at,
        )
        entry.entry_hash = hashlib.sha256(entry.canonical_payload().encode("utf-8")).hexdigest()
        chain.tail = (entry.sequence, entry.entry_hash)
        _driver(conn).execute(
            "INSERT INTO audit_log (id, sequence, operation, memory_id, user_id, details, previous_hash, "
            "entry_hash, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                entry.id,
                entry.sequence,
                entry.operation,
                entry.memory_id,
                entry.user_id,
                json.dumps(entry.details),
                entry.previous_hash,
                entry.entry_hash,
                entry.timestamp.isoformat(),
            ),
        )


def _engine(path: str, *, busy_timeout_s: float) -> Engine:
    engine = create_engine(
        f"sqlite:///{path}",
        connect_args={"check_same_thread": False, "timeout": busy_timeout_s},
        pool_size=1,
        max_overflow=0,
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # BEGIN IMMEDIATE below is ours to issue
        dbapi_conn.execute("PRAGMA synchronous=NORMAL")

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # The lock up front: the audit tail read below must not go stale before the insert.
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _driver(conn: Connection) -> sqlite3.Connection:
    """The transaction's own sqlite3 connection: statements without SQLAlchemy's per-statement work."""
    raw: sqlite3.Connection = conn.connection.driver_connection  # type: ignore[assignment]
    return raw


def _confirm_details(at: datetime, speaker: str) -> dict[str, Any]:
    return {"confirmed_at": at.isoformat(), "speaker": speaker}


def _blob(vector: Sequence[float]) -> bytes:
    import numpy as np

    return np.asarray(vector, dtype=np.float32).tobytes()


def _now_iso() -> str:
    from contextdb import utc_now

    return utc_now().isoformat()


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _row(item: MemoryItem, tenant_id: str | None, agent_id: str | None) -> tuple[Any, ...]:
    """``item`` as the engine's SQLite store writes a row (``SQLiteStore.add``), with no vector."""
    return (
        item.id,
        item.content,
        None,
        None,
        item.memory_type.value,
        item.source,
        json.dumps(item.metadata),
        item.user_id,
        _iso(item.event_time),
        item.ingestion_time.isoformat(),
        json.dumps([a.model_dump(mode="json") for a in item.pii_annotations]),
        item.retention_policy.model_dump_json() if item.retention_policy else None,
        item.created_at.isoformat(),
        item.updated_at.isoformat(),
        item.access_count,
        _iso(item.last_accessed),
        item.confidence,
        item.status.value,
        json.dumps(item.entity_mentions),
        json.dumps(item.tags),
        item.epistemic_source,
        item.corroboration_count,
        int(item.action_relevant),
        item.entity_key,
        item.attribute_key,
        _iso(item.valid_from),
        _iso(item.valid_until),
        item.superseded_by,
        int(item.pending_consolidation),
        int(item.injection_suspect),
        json.dumps(item.corroborated_by),
        int(item.confirmed),
        _iso(item.confirmed_at),
        item.write_generation,
        item.slot_class,
        item.slot_value,
        int(item.negated),
        item.tenant_id or tenant_id,
        item.agent_id or agent_id,
        item.session_id,
        item.pii_shadow,
        int(item.contested),
        None,
    )
