"""The audit ledger: decisions, confirmations and receipts under one hash chain.

Every write appends a chain entry in the same transaction as the record it
covers, so the two cannot disagree unless someone edits the database by
hand, which :meth:`Ledger.verify` then reports. Writers are serialised (an
advisory lock on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite) because each
entry needs the hash of the one before it. In each process one writer
thread applies every write, as many as are waiting to one transaction (group
commit, :mod:`gate.ledger.writer`), so the lock is taken once per batch, not
once per record; every SQLite connection waits for the lock (a busy timeout)
instead of failing when many processes share one file.

Opened with ``read_only=True`` the ledger never writes: SQLite is opened
read-only (``mode=ro``, or ``immutable`` when even that needs a write, as on
a read-only copy), no schema is created, and PostgreSQL needs only SELECT.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, and_, delete, event, exists, func, insert, or_, text, update
from sqlalchemy.engine import Engine
from sqlalchemy.engine.url import make_url
from sqlalchemy.exc import DatabaseError, OperationalError
from sqlmodel import Session, SQLModel, create_engine, select

from gate.errors import ConfigError, LedgerGone, ReceiptConflict
from gate.ledger import checkpoints, personal, schema
from gate.ledger.chain import (
    CURRENT_KIND,
    FORMATS,
    GENESIS,
    BrokenEntry,
    ChainReport,
    RecordDigest,
    entry_hash,
)
from gate.ledger.checkpoints import Checkpoint, Signer
from gate.ledger.tables import (
    FINAL_DELIVERY_STATES,
    ChainRow,
    ConfirmationRow,
    DecisionRow,
    DeliveryRow,
    OutboxRow,
    PersonalRow,
    ReceiptRow,
    summarise,
)
from gate.ledger.writer import FileLock, Job, Writer, log

Record = DecisionRow | ConfirmationRow | ReceiptRow | DeliveryRow
_TABLE_OF: dict[str, Any] = {
    name: SQLModel.metadata.tables[name]
    for name in ("gate_decisions", "gate_confirmations", "gate_receipts", "gate_deliveries")
}
_DIGEST = {kind: RecordDigest(_TABLE_OF[table], cols) for kind, (table, cols) in FORMATS.items()}
_CHAIN_TABLE = ChainRow.__table__  # type: ignore[attr-defined]
_RECEIPTS = ReceiptRow.__table__  # type: ignore[attr-defined]
_DECISIONS = DecisionRow.__table__  # type: ignore[attr-defined]
_DELIVERIES = DeliveryRow.__table__  # type: ignore[attr-defined]
_CONFIRMATIONS = ConfirmationRow.__table__  # type: ignore[attr-defined]
_OUTBOX = OutboxRow.__table__  # type: ignore[attr-defined]
_PERSONAL = PersonalRow.__table__  # type: ignore[attr-defined]
_TAIL = select(_CHAIN_TABLE.c.seq, _CHAIN_TABLE.c.hash).order_by(_CHAIN_TABLE.c.seq.desc()).limit(1)
_PG_CHAIN_LOCK = 0x6A7E_0001
_PG_RESERVE_SPACE = 0x6A7E
_BUSY_TIMEOUT_MS = 60_000
T = TypeVar("T")
R = TypeVar("R", DecisionRow, ConfirmationRow)


def normalise_url(url: str) -> str:
    """Route plain PostgreSQL URLs to the psycopg 3 driver gate ships with.

    Raises:
        ConfigError: the URL is neither SQLite nor PostgreSQL (the databases the ledger supports).
    """
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    if not url.startswith(("sqlite:", "sqlite+", "postgresql+")):
        scheme = url.split(":", 1)[0] if ":" in url else url
        raise ConfigError(
            f"the ledger runs on SQLite or PostgreSQL, not {scheme!r}: use sqlite:///PATH or postgresql://..."
        )
    return url


@dataclass(frozen=True)
class Erasure:
    """What :meth:`Ledger.erase_caller` did: texts erased now, and older records that keep theirs.

    ``kept_in_chain`` counts the caller's decisions and answered confirmations
    written before personal text was held apart: their text is part of what
    the chain hashes, so it cannot be erased without breaking the chain.
    """

    erased: int
    kept_in_chain: int


@dataclass(frozen=True)
class ReceiptWrite:
    """The receipt that closes a decision, and whether this call wrote it."""

    receipt: ReceiptRow
    created: bool


class Ledger:
    """The audit ledger on any SQLAlchemy URL (SQLite file by default, or PostgreSQL).

    Raises:
        ConfigError: the URL cannot be used or the database cannot be reached.
    """

    def __init__(self, url: str, *, create: bool = True, read_only: bool = False) -> None:
        self.url = normalise_url(url)
        self.read_only = read_only
        self._tail: tuple[int, str] | None = None  # the chain's tail, inside the writer's transaction
        self._chain_locked = False  # PostgreSQL's chain lock is held by the writer's transaction
        self._inline: Engine | None = None  # SQLite reads on the event loop's thread (acount_executed)
        self._file: _SQLiteFile | None = None  # the SQLite file opened, checked before each write
        self._writer = Writer(self._begin_write, on_begin=self._forget_tail)
        try:
            self.engine = self._make_engine(self.url, read_only=read_only)
            try:
                schema.ensure(self.engine, self.url, create_if_empty=create and not read_only)
            except DatabaseError:
                if not (read_only and self.is_sqlite):
                    raise
                # mode=ro still needs the WAL's shared-memory file; a copy on read-only
                # media has none, and immutable is the only way in.
                self.engine.dispose()
                self.engine = self._make_engine(self.url, read_only=True, immutable=True)
                schema.ensure(self.engine, self.url, create_if_empty=False)
            self.write_engine = self.engine.execution_options(gate_write=True)
            self._file = _SQLiteFile.of(self.engine) if self.is_sqlite and not read_only else None
            if self._file is not None:
                self._writer.share_file(FileLock.beside(self._file.path))  # see gate.ledger.writer
            # Records beside the chain, on PostgreSQL (see write()); threads start on first use.
            self._side_writer = (
                None if self.is_sqlite else Writer(self.write_engine.begin, name="gate-ledger-side")
            )
        except ConfigError:
            raise
        except (DatabaseError, ValueError, ImportError) as exc:
            raise ConfigError(f"cannot open the ledger at {self.url}: {_first_line(exc)}") from exc

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @staticmethod
    def _make_engine(url: str, *, read_only: bool = False, immutable: bool = False) -> Engine:
        if url.startswith("sqlite"):
            connect_url = _read_only_sqlite(url, immutable=immutable) if read_only else url
            engine = create_engine(
                connect_url,
                connect_args={"check_same_thread": False, "timeout": _BUSY_TIMEOUT_MS / 1000},
                pool_pre_ping=False,
            )

            @event.listens_for(engine, "connect")
            def _on_connect(dbapi_conn: Any, _record: Any) -> None:
                # Take over transaction control so BEGIN IMMEDIATE below is honoured.
                dbapi_conn.isolation_level = None
                cur = dbapi_conn.cursor()
                # The busy timeout first: everything after it waits for a busy file
                # instead of failing. Nothing here writes (WAL is set at creation).
                cur.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")
                cur.execute("PRAGMA synchronous=NORMAL")
                # Erased text is overwritten in the file, not only unlinked from it.
                cur.execute("PRAGMA secure_delete=ON")
                cur.close()

            @event.listens_for(engine, "begin")
            def _on_begin(conn: Any) -> None:
                # Writers take the lock up front: a chain append reads the tail and
                # must not lose a race to another process between read and insert.
                # Readers begin deferred, so a long read never blocks the writers.
                write = conn.get_execution_options().get("gate_write", False)
                conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

            return engine
        return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)

    def close(self) -> None:
        """Apply the writes still queued, then release the connection pool."""
        self._writer.close()
        if self._side_writer is not None:
            self._side_writer.close()
        if self._inline is not None:
            self._inline.dispose()
        self.engine.dispose()
        if self._file is not None:
            FileLock.beside(self._file.path).close()  # else one open file per ledger ever opened

    # -- writing ---------------------------------------------------------------
    #
    # Every write goes through the ledger's one Writer (see gate.ledger.writer): many
    # writes of this process share a transaction and a commit. Each public write
    # has a blocking form and an ``a``-prefixed one for event loops.

    def write(self, job: Job[T]) -> T:
        """Apply ``job(conn)`` in a write transaction; its result once committed.

        For records beside the chain (the embedded decision service's tables):
        ``job`` must not append to the chain. On PostgreSQL these go through a
        writer of their own, so they never wait behind other processes' chain
        appends; on SQLite, where one file lock covers every write, through the
        ledger's writer.

        Raises:
            Exception: whatever ``job`` raised (nothing of it is written), or the
                database's error when the transaction could not commit.
        """
        return self._beside_chain().call(job)

    async def awrite(self, job: Job[T]) -> T:
        """:meth:`write` for an event loop."""
        return await self._beside_chain().acall(job)

    def _beside_chain(self) -> Writer:
        return self._writer if self._side_writer is None else self._side_writer

    @contextmanager
    def _begin_write(self) -> Iterator[Connection]:
        # SQLite's BEGIN IMMEDIATE (see _make_engine) locks the file here. PostgreSQL's
        # chain lock is taken by the transaction's first write that appends to the chain
        # (before what it reads to decide): a batch that appends nothing (the embedded
        # service's own records, the outbox's claims) never waits for it.
        if self._file is not None:
            self._file.check()  # before connecting: a new connection would create an empty file
        with self.write_engine.begin() as conn:
            yield conn

    def _forget_tail(self) -> None:
        self._tail = None
        self._chain_locked = False

    def _lock_chain(self, conn: Connection) -> None:
        """Take PostgreSQL's chain lock in this transaction (SQLite's file lock is already held).

        Re-entrant, and taken again after a savepoint rollback (which releases it).
        Every other lock a write takes comes after this one, so two processes
        never wait for each other in opposite orders.
        """
        if not self.is_sqlite and not self._chain_locked:
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_CHAIN_LOCK})
            self._chain_locked = True

    def _chain_tail(self, conn: Connection) -> tuple[int, str]:
        """The chain's last (seq, hash), read once per transaction (the lock keeps it ours until commit)."""
        if self._tail is None:
            self._lock_chain(conn)
            found = conn.execute(_TAIL).first()
            self._tail = (int(found[0]), str(found[1])) if found else (0, GENESIS)
        return self._tail

    def _chain(self, conn: Connection, table: str, ref_id: str, stored: dict[str, Any]) -> int:
        """Append the chain entry for a record as stored; returns its sequence number."""
        kind = CURRENT_KIND[table]
        digest = _DIGEST[kind].of_mapping(stored)
        last, prev = self._chain_tail(conn)
        seq = last + 1
        at = time.time()
        hashed = entry_hash(prev, seq, at, kind, ref_id, digest)
        conn.execute(
            insert(_CHAIN_TABLE),
            [
                {
                    "seq": seq,
                    "at": at,
                    "kind": kind,
                    "ref_id": ref_id,
                    "digest": digest,
                    "prev_hash": prev,
                    "hash": hashed,
                }
            ],
        )
        self._tail = (seq, hashed)
        return seq

    def _stored(self, conn: Connection, row: Record) -> dict[str, Any]:
        """``row`` as stored, chained: personal text apart (see gate.ledger.personal), entry appended.

        ``row`` keeps its text; only its ``chain_seq`` is set.
        """
        table = type(row).__tablename__
        stored, sealed = personal.seal_record(table, row.model_dump())
        row.chain_seq = stored["chain_seq"] = self._chain(conn, table, row.id, stored)
        if sealed:
            caller = str(getattr(row, "caller_id", ""))
            conn.execute(
                insert(_PERSONAL),
                [
                    {
                        "digest": t.digest,
                        "record_id": row.id,
                        "caller_id": caller,
                        "salt": t.salt,
                        "text": t.text,
                    }
                    for t in sealed
                ],
            )
        return stored

    def _insert(self, conn: Connection, row: Record) -> None:
        conn.execute(insert(type(row).__table__), [self._stored(conn, row)])  # type: ignore[union-attr]

    def _rewrite(self, conn: Connection, row: ConfirmationRow) -> None:
        stored = self._stored(conn, row)
        stored.pop("id")
        c = _CONFIRMATIONS.c
        conn.execute(update(_CONFIRMATIONS).where(c.id == row.id).values(**stored))

    def record_decision(self, row: DecisionRow, *, reserve: tuple[int, float] | None = None) -> bool:
        """Write a decision before anything is executed for it.

        With ``reserve=(max, since)``, the write is also a reservation: in the
        same transaction, under a lock per caller and tool, the caller's acted-on
        decisions of this tool since ``since`` that are not released (see
        :meth:`count_executed`) are counted; at ``max`` or more nothing is
        written and False is returned. Processes racing for the last slot get
        exactly one True between them. Returns True when the row was written.
        """
        return self._writer.call(self._decision_job(row, reserve))

    async def arecord_decision(self, row: DecisionRow, *, reserve: tuple[int, float] | None = None) -> bool:
        """:meth:`record_decision` for an event loop."""
        return await self._writer.acall(self._decision_job(row, reserve))

    def _decision_job(self, row: DecisionRow, reserve: tuple[int, float] | None) -> Job[bool]:
        def job(conn: Connection) -> bool:
            if reserve is not None:
                limit, since = reserve
                if not self.is_sqlite:
                    # Per caller and tool, in the same transaction, after the chain lock
                    # (see _lock_chain); SQLite's BEGIN IMMEDIATE already holds the whole file.
                    self._lock_chain(conn)
                    conn.execute(
                        text("SELECT pg_advisory_xact_lock(:space, hashtext(:key))"),
                        {"space": _PG_RESERVE_SPACE, "key": f"{row.caller_id}\x1f{row.tool}"},
                    )
                if _count_held(conn, row.caller_id, row.tool, since, None) >= limit:
                    return False
            self._insert(conn, row)
            return True

        return job

    def record_confirmation(self, row: ConfirmationRow, *, supersede_session: bool = True) -> None:
        """Write a pending confirmation; earlier pending ones of the session are superseded."""
        self._writer.call(self._confirmation_job(row, supersede_session))

    async def arecord_confirmation(self, row: ConfirmationRow, *, supersede_session: bool = True) -> None:
        """:meth:`record_confirmation` for an event loop."""
        await self._writer.acall(self._confirmation_job(row, supersede_session))

    def _confirmation_job(self, row: ConfirmationRow, supersede_session: bool) -> Job[None]:
        def job(conn: Connection) -> None:
            self._lock_chain(conn)  # what is pending is read under the lock that serialises writes
            if supersede_session:
                c = _CONFIRMATIONS.c
                stale = conn.execute(
                    select(_CONFIRMATIONS)
                    .where(c.session_id == row.session_id, c.status == "pending")
                    .order_by(c.created_at)
                ).all()
                for found in stale:
                    old = ConfirmationRow(**found._mapping)
                    old.status = "superseded"
                    self._rewrite(conn, old)
            self._insert(conn, row)

        return job

    def answer_confirmation(
        self,
        confirmation_id: str,
        *,
        status: str,
        words: str | None,
        message_id: str | None,
    ) -> ConfirmationRow | None:
        """Close a pending confirmation, exactly once.

        Returns the updated row, or None when it was no longer pending (used,
        superseded or expired): the single-use check.
        """
        return self._writer.call(self._answer_job(confirmation_id, status, words, message_id))

    async def aanswer_confirmation(
        self,
        confirmation_id: str,
        *,
        status: str,
        words: str | None,
        message_id: str | None,
    ) -> ConfirmationRow | None:
        """:meth:`answer_confirmation` for an event loop."""
        return await self._writer.acall(self._answer_job(confirmation_id, status, words, message_id))

    def _answer_job(
        self, confirmation_id: str, status: str, words: str | None, message_id: str | None
    ) -> Job[ConfirmationRow | None]:
        def job(conn: Connection) -> ConfirmationRow | None:
            # The single-use check is read under the lock, so two answers cannot both find it pending.
            self._lock_chain(conn)
            found = conn.execute(select(_CONFIRMATIONS).where(_CONFIRMATIONS.c.id == confirmation_id)).first()
            if found is None:
                return None
            row = ConfirmationRow(**found._mapping)
            if row.status != "pending":
                return None
            now = time.time()
            row.status = "expired" if now > row.expires_at and status == "confirmed" else status
            row.words = words
            row.answered_at = now
            row.answer_message_id = message_id
            self._rewrite(conn, row)
            return row if row.status == status else None

        return job

    def record_receipt(self, row: ReceiptRow) -> ReceiptWrite:
        """Close a decision with its one terminal receipt.

        The same receipt (same key, same content) written again returns the
        stored one with ``created=False``; this is what makes retries and racing
        processes safe.

        Raises:
            ReceiptConflict: the decision already has a different receipt, or the
                key already belongs to another decision.
        """
        return self._writer.call(self._receipt_job(row))

    async def arecord_receipt(self, row: ReceiptRow) -> ReceiptWrite:
        """:meth:`record_receipt` for an event loop."""
        return await self._writer.acall(self._receipt_job(row))

    def _receipt_job(self, row: ReceiptRow) -> Job[ReceiptWrite]:
        def job(conn: Connection) -> ReceiptWrite:
            # Under the chain lock until commit, so no other writer can slip a receipt
            # in between this read and the insert.
            self._lock_chain(conn)
            r = _RECEIPTS.c
            found = conn.execute(
                select(_RECEIPTS).where(
                    (r.decision_id == row.decision_id) | (r.idempotency_key == row.idempotency_key)
                )
            ).first()
            if found is not None:
                existing = ReceiptRow(**found._mapping)
                history = conn.execute(
                    select(_DELIVERIES)
                    .where(_DELIVERIES.c.receipt_id == existing.id)
                    .order_by(_DELIVERIES.c.chain_seq)
                ).all()
                existing._delivery = summarise(existing, [DeliveryRow(**h._mapping) for h in history])
                return ReceiptWrite(_same_receipt(existing, row), created=False)
            self._insert(conn, row)
            if row.service_decision_id is not None:
                conn.execute(insert(_OUTBOX), [{"receipt_id": row.id, "created_at": row.created_at}])
            return ReceiptWrite(row, created=True)

        return job

    def record_delivery(
        self,
        receipt_id: str,
        *,
        state: str,
        error: str | None = None,
        policy_alignment: str | None = None,
        service_receipt_id: str | None = None,
    ) -> DeliveryRow | None:
        """Append one delivery attempt of a receipt, chained like the receipt itself.

        ``state`` is what the attempt leaves the receipt in: ``pending`` (tried
        again later), ``delivered`` (acknowledged, with the service's
        ``policy_alignment`` and receipt id), ``conflict`` or ``rejected``.
        Returns None when there is no such receipt. A receipt is settled once:
        when a final record is already there (another process delivered it
        first), nothing is written and that record is returned.
        """
        job = self._delivery_job(receipt_id, state, error, policy_alignment, service_receipt_id)
        return self._writer.call(job)

    async def arecord_delivery(
        self,
        receipt_id: str,
        *,
        state: str,
        error: str | None = None,
        policy_alignment: str | None = None,
        service_receipt_id: str | None = None,
    ) -> DeliveryRow | None:
        """:meth:`record_delivery` for an event loop."""
        job = self._delivery_job(receipt_id, state, error, policy_alignment, service_receipt_id)
        return await self._writer.acall(job)

    def _delivery_job(
        self,
        receipt_id: str,
        state: str,
        error: str | None,
        policy_alignment: str | None,
        service_receipt_id: str | None,
    ) -> Job[DeliveryRow | None]:
        def job(conn: Connection) -> DeliveryRow | None:
            # Under the chain lock from here, so the settled check below cannot race
            # another process's delivery of the same receipt.
            self._lock_chain(conn)
            found = conn.execute(
                select(_RECEIPTS.c.service_decision_id).where(_RECEIPTS.c.id == receipt_id)
            ).first()
            if found is None:
                return None
            settled = conn.execute(
                select(_DELIVERIES)
                .where(
                    _DELIVERIES.c.receipt_id == receipt_id,
                    _DELIVERIES.c.state.in_(FINAL_DELIVERY_STATES),
                )
                .order_by(_DELIVERIES.c.chain_seq)
                .limit(1)
            ).first()
            if settled is not None:
                return DeliveryRow(**settled._mapping)
            attempt = conn.execute(
                select(func.coalesce(func.max(_DELIVERIES.c.attempt), 0)).where(
                    _DELIVERIES.c.receipt_id == receipt_id
                )
            ).scalar_one()
            row = DeliveryRow(
                id=f"gv_{uuid.uuid4().hex}",
                receipt_id=receipt_id,
                at=time.time(),
                attempt=int(attempt) + 1,
                state=state,
                service_decision_id=found[0],
                error=error,
                policy_alignment=policy_alignment if state == "delivered" else None,
                service_receipt_id=service_receipt_id if state == "delivered" else None,
            )
            self._insert(conn, row)
            if state in FINAL_DELIVERY_STATES:
                conn.execute(delete(_OUTBOX).where(_OUTBOX.c.receipt_id == receipt_id))
            return row

        return job

    def deliveries(self, receipt_id: str) -> list[DeliveryRow]:
        """A receipt's delivery records, in chain order."""
        with Session(self.engine) as session:
            query = select(DeliveryRow).where(DeliveryRow.receipt_id == receipt_id)
            return list(session.exec(query.order_by(_DELIVERIES.c.chain_seq)).all())

    def _with_delivery(self, session: Session, receipts: list[ReceiptRow]) -> list[ReceiptRow]:
        """Attach each receipt's delivery summary (one query for all of them)."""
        if not receipts:
            return receipts
        by_receipt: dict[str, list[DeliveryRow]] = {r.id: [] for r in receipts}
        ids = list(by_receipt)
        for start in range(0, len(ids), 500):
            query = select(DeliveryRow).where(_DELIVERIES.c.receipt_id.in_(ids[start : start + 500]))
            for d in session.exec(query.order_by(_DELIVERIES.c.chain_seq)).all():
                by_receipt[d.receipt_id].append(d)
        for r in receipts:
            r._delivery = summarise(r, by_receipt[r.id])
        return receipts

    def undelivered(self, limit: int = 500) -> list[ReceiptRow]:
        """Receipts still waiting for the decision service to acknowledge them, oldest first.

        Read from the outbox queue, so it costs the same on a ledger of any size.
        """
        r, o = _RECEIPTS.c, _OUTBOX.c
        with Session(self.engine) as session:
            query = (
                select(ReceiptRow)
                .join(_OUTBOX, o.receipt_id == r.id)
                .order_by(o.created_at, o.receipt_id)
                .limit(limit)
            )
            return self._with_delivery(session, list(session.exec(query).all()))

    def count_undelivered(self) -> int:
        """How many receipts are waiting for the decision service to acknowledge them."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(_OUTBOX)).scalar_one())

    def claim_undelivered(
        self, owner: str, *, lease_s: float, limit: int = 100, take_held: bool = False
    ) -> list[ReceiptRow]:
        """Take up to ``limit`` waiting receipts for one drain to send, oldest first, for ``lease_s``.

        A receipt is taken when nobody holds it, its lease ran out (the
        drain's process died, or the service was down and the lease is the
        others' backoff), or ``owner`` already holds it; so drains of many
        processes on one ledger send each receipt once instead of once each.
        ``take_held`` takes receipts other drains hold as well (an operator's
        drain after an outage: a second send is harmless, the service keeps
        one receipt per idempotency key and the ledger one settling record).
        The claim is the queue's bookkeeping, outside the chain.

        Raises the database's error when the claim cannot be written.
        """
        ids = self._beside_chain().call(self._claim_job(owner, lease_s, limit, take_held))
        return self._receipts_by_id(ids)

    async def aclaim_undelivered(
        self, owner: str, *, lease_s: float, limit: int = 100, take_held: bool = False
    ) -> list[ReceiptRow]:
        """:meth:`claim_undelivered` for an event loop."""
        ids = await self._beside_chain().acall(self._claim_job(owner, lease_s, limit, take_held))
        return await asyncio.to_thread(self._receipts_by_id, ids)

    def _claim_job(self, owner: str, lease_s: float, limit: int, take_held: bool) -> Job[list[str]]:
        def job(conn: Connection) -> list[str]:
            o = _OUTBOX.c
            now = time.time()
            query = select(o.receipt_id).order_by(o.created_at, o.receipt_id).limit(limit)
            if not take_held:
                query = query.where(
                    or_(o.claimed_until.is_(None), o.claimed_until < now, o.claimed_by == owner)
                )
            if not self.is_sqlite:
                # Two drains claiming at once each skip the rows the other is taking.
                query = query.with_for_update(skip_locked=True)
            ids = list(conn.execute(query).scalars())
            if ids:
                conn.execute(
                    update(_OUTBOX)
                    .where(o.receipt_id.in_(ids))
                    .values(claimed_by=owner, claimed_until=now + lease_s)
                )
            return ids

        return job

    def _receipts_by_id(self, ids: list[str]) -> list[ReceiptRow]:
        if not ids:
            return []
        with Session(self.engine) as session:
            found = {r.id: r for r in session.exec(select(ReceiptRow).where(_RECEIPTS.c.id.in_(ids))).all()}
            return self._with_delivery(session, [found[i] for i in ids if i in found])

    def unclosed(self, older_than: float, limit: int = 500) -> list[DecisionRow]:
        """Decisions with no receipt, made before ``older_than``: the work of a process that died."""
        d, r = DecisionRow.__table__, ReceiptRow.__table__  # type: ignore[attr-defined]
        with Session(self.engine) as session:
            query = (
                select(DecisionRow)
                .select_from(d.outerjoin(r, r.c.decision_id == d.c.id))
                .where(r.c.id.is_(None), d.c.created_at < older_than)
                .order_by(d.c.created_at)
                .limit(limit)
            )
            return list(session.exec(query).all())

    # -- reading ---------------------------------------------------------------

    def decision(self, decision_id: str) -> DecisionRow | None:
        """One decision with its personal text put back (None where it was erased)."""
        with Session(self.engine) as session:
            found = session.get(DecisionRow, decision_id)
            return self._restored(session, [found])[0] if found is not None else None

    def receipt_for(self, decision_id: str) -> ReceiptRow | None:
        with Session(self.engine) as session:
            found = session.exec(select(ReceiptRow).where(ReceiptRow.decision_id == decision_id)).first()
            return self._with_delivery(session, [found])[0] if found else None

    def confirmation(self, confirmation_id: str) -> ConfirmationRow | None:
        """One confirmation with the caller's answer put back (None where it was erased)."""
        with Session(self.engine) as session:
            found = session.get(ConfirmationRow, confirmation_id)
            return self._restored(session, [found])[0] if found is not None else None

    def live_confirmation(self, session_id: str) -> ConfirmationRow | None:
        """The session's pending confirmation, if any (expired ones are not live)."""
        with Session(self.engine) as session:
            row = session.exec(
                select(ConfirmationRow)
                .where(ConfirmationRow.session_id == session_id, ConfirmationRow.status == "pending")
                .order_by(ConfirmationRow.created_at.desc())  # type: ignore[attr-defined]
            ).first()
        if row is None or row.expires_at < time.time():
            return None
        return row

    def decisions(self, *, caller_id: str | None = None, tool: str | None = None) -> list[DecisionRow]:
        """Decisions in time order, optionally for one caller and/or tool, personal text put back."""
        with Session(self.engine) as session:
            query = select(DecisionRow)
            if caller_id is not None:
                query = query.where(DecisionRow.caller_id == caller_id)
            if tool is not None:
                query = query.where(DecisionRow.tool == tool)
            found = list(session.exec(query.order_by(DecisionRow.created_at)).all())  # type: ignore[arg-type]
            return self._restored(session, found)

    def _restored(self, session: Session, rows: list[R]) -> list[R]:
        """Copies of ``rows`` with the personal text they name read back from ``gate_personal``."""
        if not rows:
            return rows
        table = type(rows[0]).__tablename__
        dumped = [r.model_dump() for r in rows]
        texts = personal.lookup(session.connection(), [d for v in dumped for d in personal.refs(table, v)])
        kind = type(rows[0])
        return [kind(**personal.restore_record(table, v, texts)) for v in dumped]

    # -- checkpoints -------------------------------------------------------------

    def checkpoint(self, signer: Signer, *, min_gap_s: float = 0.0) -> tuple[Checkpoint, bool]:
        """Sign the chain's head as the next checkpoint (see :mod:`gate.ledger.checkpoints`).

        Written under the chain lock, so the head cannot move while it is read
        and two processes signing at once write one after the other, never two
        checkpoints naming the same previous one. With ``min_gap_s``, when a
        checkpoint was signed less than that long ago that one is returned
        and nothing is written. Returns (checkpoint, written).

        Raises the database's error when the ledger cannot be written.
        """
        return self._writer.call(self._checkpoint_job(signer, min_gap_s))

    async def acheckpoint(self, signer: Signer, *, min_gap_s: float = 0.0) -> tuple[Checkpoint, bool]:
        """:meth:`checkpoint` for an event loop."""
        return await self._writer.acall(self._checkpoint_job(signer, min_gap_s))

    def _checkpoint_job(self, signer: Signer, min_gap_s: float) -> Job[tuple[Checkpoint, bool]]:
        def job(conn: Connection) -> tuple[Checkpoint, bool]:
            return checkpoints.append(conn, self._chain_tail(conn), signer, min_gap_s=min_gap_s)

        return job

    # -- erasure ---------------------------------------------------------------

    def erase_caller(self, caller_id: str) -> Erasure:
        """Erase a caller's personal text (their words, the questions they heard, what memories said).

        The text and its salt are removed from ``gate_personal`` and the time
        noted; every record, chain entry and digest stays, so :meth:`verify`
        still passes. Records written before personal text was held apart keep
        theirs inside the chain: they are counted in ``kept_in_chain``. Safe
        to run again (nothing left to erase is not an error).

        Raises the database's error when the ledger cannot be written.
        """
        erased = self.write(self._erase_job(caller_id))
        self._flush_wal()
        return erased

    async def aerase_caller(self, caller_id: str) -> Erasure:
        """:meth:`erase_caller` for an event loop."""
        erased = await self.awrite(self._erase_job(caller_id))
        await asyncio.to_thread(self._flush_wal)
        return erased

    def _flush_wal(self) -> None:
        """SQLite: copy the write-ahead log into the file and empty it, so no old page keeps erased text.

        Best effort: a reader still holding an old snapshot keeps the log for
        now, and the next checkpoint after it finishes clears it.
        """
        if not self.is_sqlite or self.read_only:
            return
        raw = self.engine.raw_connection()
        try:
            raw.cursor().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except Exception as exc:  # the driver's own error class; the erasure itself is committed
            log.debug("ledger: WAL checkpoint after erasure failed: %s", exc)
        finally:
            raw.close()

    def _erase_job(self, caller_id: str) -> Job[Erasure]:
        def job(conn: Connection) -> Erasure:
            p = _PERSONAL.c
            erased = conn.execute(
                update(_PERSONAL)
                .where(p.caller_id == caller_id, p.erased_at.is_(None))
                .values(text=None, salt=None, erased_at=time.time())
            ).rowcount
            return Erasure(int(erased or 0), _count_kept_in_chain(conn, caller_id))

        return job

    def receipts(self) -> list[ReceiptRow]:
        """Every receipt with its delivery summary, oldest first (small ledgers and tests)."""
        with Session(self.engine) as session:
            found = list(session.exec(select(ReceiptRow).order_by(ReceiptRow.created_at)).all())  # type: ignore[arg-type]
            return self._with_delivery(session, found)

    def count_executed(self, caller_id: str, tool: str, since: float, until: float | None = None) -> int:
        """Actions of this caller and tool that count against a rate limit, made in ``[since, until)``.

        Counted: decisions whose enforced outcome was act and that are not
        released, i.e. still running (no receipt yet), succeeded, or failed with
        an unknown outcome. Released: closed ``skipped``, or ``failed`` with any
        other error code (the action did not happen).
        """
        with self.engine.connect() as conn:
            return _count_held(conn, caller_id, tool, since, until)

    async def acount_executed(
        self, caller_id: str, tool: str, since: float, until: float | None = None
    ) -> int:
        """:meth:`count_executed` for an event loop.

        On SQLite the count (one indexed query, well under a millisecond) runs on
        the loop's own thread, on a read-only connection that never waits for a
        lock: a trip to a pool thread and back cost up to 14 ms at p95 under
        load, on every decision of a rate-limited tool. When the file is busy
        the count goes to a pool thread, which waits for it, so the loop never
        does. On PostgreSQL it always goes to a pool thread (a network round
        trip must not hold the loop).

        Raises the database's error when the ledger cannot be read.
        """
        if self.is_sqlite and not self.read_only:
            try:
                with self._inline_reads().connect() as conn:
                    return _count_held(conn, caller_id, tool, since, until)
            except OperationalError:
                pass  # busy or locked: the pool thread below waits for it
        return await asyncio.to_thread(self.count_executed, caller_id, tool, since, until)

    def _inline_reads(self) -> Engine:
        """SQLite: read-only connections that fail at once on a lock instead of waiting."""
        if self._inline is None:
            self._inline = create_engine(
                _read_only_sqlite(self.url), connect_args={"check_same_thread": False, "timeout": 0}
            )
        return self._inline

    # -- verification ----------------------------------------------------------

    def verify(self, *, parallel: bool | None = None) -> ChainReport:
        """Recompute the chain, and check every record (decision, confirmation, receipt, delivery) against it.

        Finds edited, deleted, inserted and reordered entries, and records
        edited, deleted or added behind the chain's back; returns the earliest
        problem in chain order. It streams, so memory stays flat on large
        ledgers. ``parallel`` (default: automatic above 200,000 entries on a
        machine with more than one core) checks the chain and each record table
        in separate processes. A chain cut off at its tail cannot be told from a
        shorter one without keeping the last hash elsewhere.
        """
        started = time.perf_counter()
        parts = ["chain", *_PARTS, "personal"]
        if parallel is None:
            with self.engine.connect() as conn:
                size = conn.execute(text("SELECT COALESCE(MAX(seq), 0) FROM gate_chain")).scalar_one()
            parallel = size > _PARALLEL_ABOVE and (os.cpu_count() or 1) > 1
        if parallel:
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(
                max_workers=min(len(parts), os.cpu_count() or 1), mp_context=ctx
            ) as pool:
                n = len(parts)
                results = list(pool.map(_verify_part, [self.url] * n, parts, [self.read_only] * n))
        else:
            with self.engine.connect() as conn:
                results = [_check_part(conn, part) for part in parts]
        checked = results[0][0]
        problems = [broken for _, broken in results if broken is not None]
        first = min(problems, key=lambda b: (b.seq is None, b.seq or 0), default=None)
        return ChainReport(checked, first, time.perf_counter() - started)


_PARTS = ("gate_decisions", "gate_confirmations", "gate_receipts", "gate_deliveries")
_KINDS_OF_TABLE: dict[str, tuple[str, ...]] = {
    table: tuple(k for k, (t, _) in FORMATS.items() if t == table) for table in _PARTS
}
_PARALLEL_ABOVE = 200_000


def _count_kept_in_chain(conn: Any, caller_id: str) -> int:
    """The caller's records of the older kinds that hold personal text inside the hashed record."""
    ch, d, cf = _CHAIN_TABLE.c, _DECISIONS.c, _CONFIRMATIONS.c
    decisions = (
        select(func.count())
        .select_from(_DECISIONS.join(_CHAIN_TABLE, ch.seq == d.chain_seq))
        .where(d.caller_id == caller_id, ch.kind == "decision")
    )
    answers = (
        select(func.count())
        .select_from(_CONFIRMATIONS.join(_CHAIN_TABLE, ch.seq == cf.chain_seq))
        .where(cf.caller_id == caller_id, ch.kind == "confirmation", cf.words.is_not(None))
    )
    return int(conn.execute(decisions).scalar_one()) + int(conn.execute(answers).scalar_one())


def _count_held(conn: Any, caller_id: str, tool: str, since: float, until: float | None) -> int:
    d, r = _DECISIONS.c, _RECEIPTS.c
    released = exists().where(
        r.decision_id == d.id,
        or_(
            r.status == "skipped",
            and_(r.status == "failed", func.coalesce(r.error_code, "") != "outcome_unknown"),
        ),
    )
    query = (
        select(func.count())
        .select_from(_DECISIONS)
        .where(
            d.caller_id == caller_id,
            d.tool == tool,
            d.created_at >= since,
            d.enforced_outcome == "act",
            ~released,
        )
    )
    if until is not None:
        query = query.where(d.created_at < until)
    return int(conn.execute(query).scalar_one())


def _first_line(exc: BaseException) -> str:
    inner = getattr(exc, "orig", None) or exc
    text_ = str(inner).strip().splitlines()
    return text_[0] if text_ else type(inner).__name__


def _read_only_sqlite(url: str, *, immutable: bool = False) -> str:
    """A read-only URI for a SQLite file: ``mode=ro``, or ``immutable`` when the file is read-only.

    A WAL database opened ``mode=ro`` still creates its shared-memory and WAL
    files; on a read-only copy that fails, and ``immutable=1`` (no locks, no
    WAL, nothing created) is the only way in. A live ledger is opened
    ``mode=ro`` so its readers see what the writers commit.
    """
    parsed = make_url(url)
    path = Path(parsed.database or "").resolve()
    # A file nobody may write (mode 0444) is a frozen copy even to a superuser, whom
    # os.access always lets write: read it as one.
    frozen = path.exists() and not path.stat().st_mode & 0o222
    writable = not frozen and os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
    flag = "mode=ro" if writable and not immutable else "immutable=1"
    return f"sqlite:///file:{path}?{flag}&uri=true"


def _check_part(conn: Any, part: str) -> tuple[int, BrokenEntry | None]:
    if part == "chain":
        return _verify_chain(conn)
    if part == "personal":
        return 0, _verify_personal(conn)
    return 0, _verify_records(conn, part)


def _verify_part(url: str, part: str, read_only: bool) -> tuple[int, BrokenEntry | None]:
    """One part of :meth:`Ledger.verify`, in a worker process with its own connection."""
    ledger = Ledger(url, create=False, read_only=read_only)
    try:
        with ledger.engine.connect() as conn:
            return _check_part(conn, part)
    finally:
        ledger.close()


def _stream(conn: Any, sql: str, params: dict[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
    """Rows straight from the driver in batches: verification reads millions of them."""
    raw = conn.connection.dbapi_connection
    if conn.dialect.name == "postgresql":
        cursor = raw.cursor(name=f"gate_verify_{id(sql)}")  # server-side: constant memory
        cursor.itersize = 5000
        cursor.execute(sql.replace(":k", "%(k)s"), params or {})
    else:
        cursor = raw.cursor()
        cursor.execute(sql, params or {})
    try:
        while batch := cursor.fetchmany(5000):
            yield from batch
    finally:
        cursor.close()


def _verify_chain(conn: Any) -> tuple[int, BrokenEntry | None]:
    prev = GENESIS
    expected = 1
    sql = "SELECT seq, at, kind, ref_id, digest, prev_hash, hash FROM gate_chain ORDER BY seq"
    for seq, at, kind, ref_id, digest, prev_hash, hashed in _stream(conn, sql):
        if seq != expected:
            return expected - 1, BrokenEntry(expected, None, f"entry missing (found {seq} next)")
        if prev_hash != prev:
            return expected - 1, BrokenEntry(seq, ref_id, "does not follow the entry before it")
        if entry_hash(prev, seq, at, kind, ref_id, digest) != hashed:
            return expected - 1, BrokenEntry(seq, ref_id, "content does not match its hash")
        prev = hashed
        expected += 1
    return expected - 1, None


def _verify_records(conn: Any, name: str) -> BrokenEntry | None:
    """The earliest record of one table that disagrees with the chain."""
    kinds = _KINDS_OF_TABLE[name]
    noun = kinds[0]
    # Every column any format of this table commits to, and where each format's are.
    columns: list[str] = []
    for kind in kinds:
        columns += [c for c in FORMATS[kind][1] if c not in columns]
    picks = {kind: [columns.index(c) for c in FORMATS[kind][1]] for kind in kinds}
    cols = ", ".join(f"r.{c}" for c in columns)
    sql = (
        f"SELECT r.id, r.chain_seq, c.kind, c.ref_id, c.digest, {cols} FROM {name} r "
        "LEFT JOIN gate_chain c ON c.seq = r.chain_seq ORDER BY r.chain_seq"
    )
    for row in _stream(conn, sql):
        rid, seq, ckind, cref, cdigest = row[:5]
        if seq is None or ckind not in picks or cref != rid:
            return BrokenEntry(seq, rid, f"{noun} is not in the chain")
        values = row[5:]
        if _DIGEST[ckind].of_values([values[i] for i in picks[ckind]]) != cdigest:
            return BrokenEntry(seq, rid, f"{noun} was changed after it was recorded")
    kind_list = ", ".join(f"'{k}'" for k in kinds)
    # An entry whose record is gone. Every record matched its own entry above, so when
    # the counts agree nothing is missing and the slower search is skipped.
    if noun != "confirmation":
        entries = conn.execute(
            text(f"SELECT COUNT(*) FROM gate_chain WHERE kind IN ({kind_list})")
        ).scalar_one()
        records = conn.execute(text(f"SELECT COUNT(*) FROM {name}")).scalar_one()
        if entries == records:
            return None
    gone = conn.execute(
        text(
            f"SELECT c.seq, c.ref_id FROM gate_chain c LEFT JOIN {name} r ON r.id = c.ref_id "
            f"WHERE c.kind IN ({kind_list}) AND r.id IS NULL ORDER BY c.seq LIMIT 1"
        )
    ).first()
    if gone is not None:
        return BrokenEntry(gone[0], gone[1], f"{noun} was deleted")
    if noun != "confirmation":
        return None
    # Confirmations change (asked, then answered): each must point at its latest entry.
    rolled_back = conn.execute(
        text(
            f"SELECT x.latest, r.id FROM {name} r JOIN (SELECT ref_id, MAX(seq) AS latest FROM gate_chain "
            f"WHERE kind IN ({kind_list}) GROUP BY ref_id) x ON x.ref_id = r.id "
            "WHERE x.latest <> r.chain_seq ORDER BY x.latest LIMIT 1"
        )
    ).first()
    if rolled_back is not None:
        return BrokenEntry(rolled_back[0], rolled_back[1], f"{noun} was set back to an earlier version")
    return None


def _verify_personal(conn: Any) -> BrokenEntry | None:
    """The first personal text that no longer matches the digest its record holds.

    Texts are outside the chain; each is checked against its salted digest,
    which is inside it. An erased text (no text, no salt) is fine.
    """
    sql = "SELECT digest, salt, text, erased_at, record_id FROM gate_personal"
    for digest, salt, text_, erased_at, record_id in _stream(conn, sql):
        problem = personal.Stored(digest, salt, text_, erased_at).problem()
        if problem is not None:
            seq = conn.execute(
                text(
                    "SELECT chain_seq FROM gate_decisions WHERE id = :k "
                    "UNION ALL SELECT chain_seq FROM gate_confirmations WHERE id = :k"
                ),
                {"k": record_id},
            ).scalar()
            return BrokenEntry(seq, record_id, f"{problem} ({digest})")
    return None


def _same_receipt(existing: ReceiptRow, wanted: ReceiptRow) -> ReceiptRow:
    same = (
        existing.decision_id == wanted.decision_id
        and existing.idempotency_key == wanted.idempotency_key
        and existing.status == wanted.status
        and existing.action_name == wanted.action_name
        and existing.external_ref == wanted.external_ref
        and existing.error_code == wanted.error_code
    )
    if not same:
        raise ReceiptConflict(
            f"decision {existing.decision_id} is already closed by receipt {existing.id} "
            f"({existing.status}, key {existing.idempotency_key})"
        )
    return existing


@dataclass(frozen=True)
class _SQLiteFile:
    """The SQLite file a ledger opened, to notice it being deleted or replaced under us."""

    path: str
    identity: tuple[int, int]

    @staticmethod
    def of(engine: Engine) -> _SQLiteFile | None:
        database = engine.url.database
        if not database or database == ":memory:" or database.startswith("file:"):
            return None
        path = os.path.abspath(database)
        try:
            found = os.stat(path)
        except OSError:
            return None
        return _SQLiteFile(path, (found.st_dev, found.st_ino))

    def check(self) -> None:
        """Raises :class:`LedgerGone` when the path no longer names the file that was opened."""
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            raise LedgerGone(f"the ledger file {self.path} was deleted while in use") from None
        except OSError:
            return  # unreadable for a moment: the write itself will say what is wrong
        if (found.st_dev, found.st_ino) != self.identity:
            raise LedgerGone(f"the ledger file {self.path} was replaced by another file while in use")
