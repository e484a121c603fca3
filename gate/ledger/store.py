"""The audit ledger: decisions, confirmations and receipts under one hash chain.

Every write appends a chain entry in the same transaction as the record it
covers, so the two cannot disagree unless someone edits the database by
hand, which :meth:`Ledger.verify` then reports. Writers are serialised (an
advisory lock on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite) because each
entry needs the hash of the one before it.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, event, func, insert, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, SQLModel, create_engine, select

from gate.errors import ConfigError, ReceiptConflict
from gate.ledger.chain import GENESIS, BrokenEntry, ChainReport, RecordDigest, entry_hash
from gate.ledger.tables import (
    ChainRow,
    ConfirmationRow,
    DecisionRow,
    ReceiptRow,
    ServiceDecisionRow,
    ServiceReceiptRow,
)

_TABLES = [
    DecisionRow.__table__,  # type: ignore[attr-defined]
    ConfirmationRow.__table__,  # type: ignore[attr-defined]
    ReceiptRow.__table__,  # type: ignore[attr-defined]
    ChainRow.__table__,  # type: ignore[attr-defined]
    ServiceDecisionRow.__table__,  # type: ignore[attr-defined]
    ServiceReceiptRow.__table__,  # type: ignore[attr-defined]
]
Record = DecisionRow | ConfirmationRow | ReceiptRow
_KIND_OF: dict[type[Record], str] = {
    DecisionRow: "decision",
    ConfirmationRow: "confirmation",
    ReceiptRow: "receipt",
}
_DIGEST = {kind: RecordDigest(model.__table__) for model, kind in _KIND_OF.items()}  # type: ignore[union-attr]
_CHAIN_TABLE = ChainRow.__table__  # type: ignore[attr-defined]
_RECEIPTS = ReceiptRow.__table__  # type: ignore[attr-defined]
_TAIL = select(_CHAIN_TABLE.c.seq, _CHAIN_TABLE.c.hash).order_by(_CHAIN_TABLE.c.seq.desc()).limit(1)
_PG_CHAIN_LOCK = 0x6A7E_0001


def normalise_url(url: str) -> str:
    """Route plain PostgreSQL URLs to the psycopg 3 driver gate ships with."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


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

    def __init__(self, url: str, *, create: bool = True) -> None:
        self.url = normalise_url(url)
        self._lock = threading.Lock()
        try:
            self.engine = self._make_engine(self.url)
            self.write_engine = self.engine.execution_options(gate_write=True)
            if create:
                SQLModel.metadata.create_all(self.engine, tables=_TABLES)
            else:
                with self.engine.connect() as conn:
                    conn.execute(text("SELECT 1"))
        except (OperationalError, ValueError, ImportError) as exc:
            raise ConfigError(f"cannot open the ledger at {self.url}: {exc}") from exc

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @staticmethod
    def _make_engine(url: str) -> Engine:
        if url.startswith("sqlite"):
            engine = create_engine(
                url, connect_args={"check_same_thread": False, "timeout": 30}, pool_pre_ping=False
            )

            @event.listens_for(engine, "connect")
            def _on_connect(dbapi_conn: Any, _record: Any) -> None:
                # Take over transaction control so BEGIN IMMEDIATE below is honoured.
                dbapi_conn.isolation_level = None
                cur = dbapi_conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")
                cur.execute("PRAGMA busy_timeout=30000")
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
        """Release the connection pool."""
        self.engine.dispose()

    # -- writing ---------------------------------------------------------------

    @contextmanager
    def writing(self) -> Iterator[Session]:
        with self._lock, Session(self.write_engine, expire_on_commit=False) as session:
            if not self.is_sqlite:
                session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_CHAIN_LOCK})
            yield session
            session.commit()

    @contextmanager
    def _core_writing(self) -> Iterator[Connection]:
        """A serialised write transaction without the ORM: the per-call hot path."""
        with self._lock, self.write_engine.begin() as conn:
            if not self.is_sqlite:
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_CHAIN_LOCK})
            yield conn

    def _chain(self, conn: Connection, row: Record) -> None:
        """Append the chain entry for ``row``'s current content and point ``row`` at it."""
        kind = _KIND_OF[type(row)]
        digest = _DIGEST[kind].of_row(row)
        # Only the tail's number and hash are needed: skip loading the rest.
        tail = conn.execute(_TAIL).first()
        seq = tail[0] + 1 if tail else 1
        prev = tail[1] if tail else GENESIS
        at = time.time()
        hashed = entry_hash(prev, seq, at, kind, row.id, digest)
        conn.execute(
            insert(_CHAIN_TABLE),
            [
                {
                    "seq": seq,
                    "at": at,
                    "kind": kind,
                    "ref_id": row.id,
                    "digest": digest,
                    "prev_hash": prev,
                    "hash": hashed,
                }
            ],
        )
        row.chain_seq = seq

    def _insert(self, conn: Connection, row: Record) -> None:
        self._chain(conn, row)
        conn.execute(insert(type(row).__table__), [row.model_dump()])  # type: ignore[union-attr]

    def _update(self, session: Session, row: ConfirmationRow) -> None:
        self._chain(session.connection(), row)
        session.add(row)

    def record_decision(self, row: DecisionRow) -> None:
        """Write a decision before anything is executed for it."""
        with self._core_writing() as conn:
            self._insert(conn, row)

    def record_confirmation(self, row: ConfirmationRow, *, supersede_session: bool = True) -> None:
        """Write a pending confirmation; earlier pending ones of the session are superseded."""
        with self.writing() as session:
            if supersede_session:
                stale = session.exec(
                    select(ConfirmationRow).where(
                        ConfirmationRow.session_id == row.session_id,
                        ConfirmationRow.status == "pending",
                    )
                ).all()
                for old in stale:
                    old.status = "superseded"
                    self._update(session, old)
            self._chain(session.connection(), row)
            session.add(row)

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
        with self.writing() as session:
            row = session.get(ConfirmationRow, confirmation_id)
            if row is None or row.status != "pending":
                return None
            now = time.time()
            row.status = "expired" if now > row.expires_at and status == "confirmed" else status
            row.words = words
            row.answered_at = now
            row.answer_message_id = message_id
            self._update(session, row)
            return row if row.status == status else None

    def record_receipt(self, row: ReceiptRow) -> ReceiptWrite:
        """Close a decision with its one terminal receipt.

        The same receipt (same key, same content) written again returns the
        stored one with ``created=False``; this is what makes retries and racing
        processes safe.

        Raises:
            ReceiptConflict: the decision already has a different receipt, or the
                key already belongs to another decision.
        """
        for _ in range(3):
            try:
                with self._core_writing() as conn:
                    r = _RECEIPTS.c
                    found = conn.execute(
                        select(_RECEIPTS).where(
                            (r.decision_id == row.decision_id) | (r.idempotency_key == row.idempotency_key)
                        )
                    ).first()
                    if found is not None:
                        existing = ReceiptRow(**found._mapping)
                        return ReceiptWrite(_same_receipt(existing, row), created=False)
                    self._insert(conn, row)
                    return ReceiptWrite(row, created=True)
            except IntegrityError:
                continue  # another process won the race: read its row on the next pass
        raise ReceiptConflict(f"could not record the receipt of decision {row.decision_id}")

    def mark_delivery(
        self,
        receipt_id: str,
        *,
        state: str,
        error: str | None = None,
        policy_alignment: str | None = None,
        service_receipt_id: str | None = None,
    ) -> None:
        """Record one delivery attempt: ``state`` is pending (retry), delivered, conflict or rejected."""
        with Session(self.write_engine) as session:
            row = session.get(ReceiptRow, receipt_id)
            if row is None:
                return
            row.attempts += 1
            row.last_error = error
            row.delivery_state = state
            if state == "delivered":
                row.delivered_at = time.time()
                row.policy_alignment = policy_alignment
                row.service_receipt_id = service_receipt_id
            session.add(row)
            session.commit()

    def undelivered(self, limit: int = 500) -> list[ReceiptRow]:
        """Receipts still waiting for the decision service to acknowledge them, oldest first."""
        table = ReceiptRow.__table__  # type: ignore[attr-defined]
        with Session(self.engine) as session:
            query = (
                select(ReceiptRow)
                .where(table.c.delivery_state == "pending", table.c.service_decision_id.is_not(None))
                .order_by(table.c.created_at)
                .limit(limit)
            )
            return list(session.exec(query).all())

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
        with Session(self.engine) as session:
            return session.get(DecisionRow, decision_id)

    def receipt_for(self, decision_id: str) -> ReceiptRow | None:
        with Session(self.engine) as session:
            return session.exec(select(ReceiptRow).where(ReceiptRow.decision_id == decision_id)).first()

    def confirmation(self, confirmation_id: str) -> ConfirmationRow | None:
        with Session(self.engine) as session:
            return session.get(ConfirmationRow, confirmation_id)

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
        """Decisions in time order, optionally for one caller and/or tool."""
        with Session(self.engine) as session:
            query = select(DecisionRow)
            if caller_id is not None:
                query = query.where(DecisionRow.caller_id == caller_id)
            if tool is not None:
                query = query.where(DecisionRow.tool == tool)
            return list(session.exec(query.order_by(DecisionRow.created_at)).all())  # type: ignore[arg-type]

    def receipts(self) -> list[ReceiptRow]:
        with Session(self.engine) as session:
            return list(session.exec(select(ReceiptRow).order_by(ReceiptRow.created_at)).all())  # type: ignore[arg-type]

    def count_executed(self, caller_id: str, tool: str, since: float, until: float | None = None) -> int:
        """Actions of this caller and tool that ran (succeeded or failed) in ``[since, until)``."""
        with Session(self.engine) as session:
            query = (
                select(func.count())
                .select_from(ReceiptRow)
                .join(DecisionRow, DecisionRow.id == ReceiptRow.decision_id)  # type: ignore[arg-type]
                .where(
                    DecisionRow.caller_id == caller_id,
                    DecisionRow.tool == tool,
                    DecisionRow.created_at >= since,
                    ReceiptRow.status != "skipped",
                )
            )
            if until is not None:
                query = query.where(DecisionRow.created_at < until)
            return int(session.exec(query).one())

    # -- verification ----------------------------------------------------------

    def verify(self, *, parallel: bool | None = None) -> ChainReport:
        """Recompute the chain, and check every record against its latest entry.

        Finds edited, deleted, inserted and reordered entries, and records
        edited, deleted or added behind the chain's back; returns the earliest
        problem in chain order. It streams, so memory stays flat on large
        ledgers. ``parallel`` (default: automatic above 200,000 entries on a
        machine with more than one core) checks the chain and each record table
        in separate processes. A chain cut off at its tail cannot be told from a
        shorter one without keeping the last hash elsewhere.
        """
        started = time.perf_counter()
        parts = ["chain", *_PARTS]
        if parallel is None:
            with self.engine.connect() as conn:
                size = conn.execute(text("SELECT COALESCE(MAX(seq), 0) FROM gate_chain")).scalar_one()
            parallel = size > _PARALLEL_ABOVE and (os.cpu_count() or 1) > 1
        if parallel:
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(
                max_workers=min(len(parts), os.cpu_count() or 1), mp_context=ctx
            ) as pool:
                results = list(pool.map(_verify_part, [self.url] * len(parts), parts))
        else:
            with self.engine.connect() as conn:
                results = [_check_part(conn, part) for part in parts]
        checked = results[0][0]
        problems = [broken for _, broken in results if broken is not None]
        first = min(problems, key=lambda b: (b.seq is None, b.seq or 0), default=None)
        return ChainReport(checked, first, time.perf_counter() - started)


_PARTS = {"decision": DecisionRow, "confirmation": ConfirmationRow, "receipt": ReceiptRow}
_PARALLEL_ABOVE = 200_000


def _check_part(conn: Any, part: str) -> tuple[int, BrokenEntry | None]:
    if part == "chain":
        return _verify_chain(conn)
    return 0, _verify_records(conn, part, _PARTS[part].__table__)  # type: ignore[attr-defined]


def _verify_part(url: str, part: str) -> tuple[int, BrokenEntry | None]:
    """One part of :meth:`Ledger.verify`, in a worker process with its own connection."""
    ledger = Ledger(url, create=False)
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


def _verify_records(conn: Any, kind: str, table: Any) -> BrokenEntry | None:
    """The earliest record of one kind that disagrees with the chain."""
    name = table.name
    digester = _DIGEST[kind]
    cols = ", ".join(f"r.{c}" for c in digester.columns)
    sql = (
        f"SELECT r.id, r.chain_seq, c.kind, c.ref_id, c.digest, {cols} FROM {name} r "
        "LEFT JOIN gate_chain c ON c.seq = r.chain_seq ORDER BY r.chain_seq"
    )
    of_values = digester.of_values
    for row in _stream(conn, sql):
        rid, seq, ckind, cref, cdigest = row[:5]
        if seq is None or ckind != kind or cref != rid:
            return BrokenEntry(seq, rid, f"{kind} is not in the chain")
        if of_values(row[5:]) != cdigest:
            return BrokenEntry(seq, rid, f"{kind} was changed after it was recorded")
    # An entry whose record is gone. Every record matched its own entry above, so when
    # the counts agree nothing is missing and the slower search is skipped.
    if kind != "confirmation":
        count_entries = text("SELECT COUNT(*) FROM gate_chain WHERE kind = :k")
        entries = conn.execute(count_entries, {"k": kind}).scalar_one()
        records = conn.execute(text(f"SELECT COUNT(*) FROM {name}")).scalar_one()
        if entries == records:
            return None
    gone = conn.execute(
        text(
            f"SELECT c.seq, c.ref_id FROM gate_chain c LEFT JOIN {name} r ON r.id = c.ref_id "
            "WHERE c.kind = :k AND r.id IS NULL ORDER BY c.seq LIMIT 1"
        ),
        {"k": kind},
    ).first()
    if gone is not None:
        return BrokenEntry(gone[0], gone[1], f"{kind} was deleted")
    if kind != "confirmation":
        return None
    # Confirmations change (asked, then answered): each must point at its latest entry.
    rolled_back = conn.execute(
        text(
            f"SELECT x.latest, r.id FROM {name} r JOIN (SELECT ref_id, MAX(seq) AS latest FROM gate_chain "
            "WHERE kind = :k GROUP BY ref_id) x ON x.ref_id = r.id WHERE x.latest <> r.chain_seq "
            "ORDER BY x.latest LIMIT 1"
        ),
        {"k": kind},
    ).first()
    if rolled_back is not None:
        return BrokenEntry(rolled_back[0], rolled_back[1], f"{kind} was set back to an earlier version")
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
