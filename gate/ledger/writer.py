"""One writer per ledger: every write of a process, in order, many to a transaction.

Each chain entry needs the hash of the one before it, so a ledger's writes
are serialised (``BEGIN IMMEDIATE`` on SQLite, an advisory lock on
PostgreSQL). With one transaction per write, calls that write at the same
moment queue on that lock one by one, each paying its own BEGIN, tail read,
COMMIT and thread switch; under load the queue, not the writing, is most of
a decision's wait (and every waiting thread is one the event loop's default
pool no longer has for other work).

:class:`Writer` is the usual answer, group commit: one thread per ledger
takes every write that is waiting, applies them in arrival order inside one
transaction (each write sees the ones before it, exactly as if they had
committed one by one), commits once and only then answers each caller. A
write's result is never reported before it is durable, and a write that
fails fails alone: the batch is rolled back and applied again with a
savepoint around each write, so the others still commit.

Callers wait on a future: :meth:`Writer.call` from a thread, :meth:`Writer.acall`
from an event loop (no pool thread is held while waiting).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from sqlalchemy import Connection

log = logging.getLogger("gate.ledger")

T = TypeVar("T")
Job = Callable[[Connection], T]

# A batch holds the lock for its whole transaction; past this many writes the next
# ones wait for the next batch, so no single transaction grows without bound.
MAX_BATCH = 64


@dataclass
class _Queued(Generic[T]):
    job: Job[T]
    future: Future[T] = field(default_factory=Future)


class WriterClosed(RuntimeError):
    """A write was submitted after :meth:`Writer.close`."""


class Writer:
    """Applies submitted writes on its own thread, many per transaction.

    ``begin`` opens one write transaction (lock taken) and commits it on a
    clean exit; ``on_begin`` is called at the start of every transaction and
    after every rollback (the ledger forgets its cached chain tail there).

    Failure modes: a write that raises gets its own exception and the others
    of its batch commit; a transaction that cannot begin or commit (database
    unreachable, lock not granted within the busy timeout) fails every write
    of that batch with that error. Nothing is retried here: a caller that
    gets an exception knows its write is not in the ledger.
    """

    def __init__(
        self,
        begin: Callable[[], AbstractContextManager[Connection]],
        *,
        on_begin: Callable[[], None] = lambda: None,
        name: str = "gate-ledger-writer",
    ) -> None:
        self._begin = begin
        self._on_begin = on_begin
        self._name = name
        self._queue: collections.deque[_Queued[Any]] = collections.deque()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- submitting ------------------------------------------------------------

    def submit(self, job: Job[T]) -> Future[T]:
        """Queue ``job`` (called with the batch's connection); its future holds the result once committed.

        Raises:
            WriterClosed: after :meth:`close`.
            RuntimeError: when called from a write itself (it would wait for its own batch).
        """
        if threading.current_thread() is self._thread:
            raise RuntimeError("a ledger write cannot wait for another ledger write")
        queued: _Queued[T] = _Queued(job)
        with self._wake:
            if self._closed:
                raise WriterClosed("the ledger is closed")
            self._queue.append(queued)
            if self._thread is None:
                # Started on first use: a ledger opened only to read never starts one.
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._wake.notify()
        return queued.future

    def call(self, job: Job[T]) -> T:
        """Submit ``job`` and wait for its committed result (or its exception)."""
        return self.submit(job).result()

    async def acall(self, job: Job[T]) -> T:
        """:meth:`call` for an event loop: waits without holding a thread.

        Cancelling the awaiting task does not cancel the write: once submitted it
        is applied (a receipt must not be lost because a call was interrupted).
        """
        return await asyncio.shield(asyncio.wrap_future(self.submit(job)))

    def close(self) -> None:
        """Apply what is queued, then stop the thread (idempotent)."""
        with self._wake:
            self._closed = True
            self._wake.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    # -- the writer thread -------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._queue and not self._closed:
                    self._wake.wait()
                if not self._queue:
                    return  # closed and drained
                taken = [self._queue.popleft() for _ in range(min(len(self._queue), MAX_BATCH))]
            # A write whose caller gave up before it started is not applied; from here
            # on it can no longer be cancelled (it is applied, its result maybe unread).
            batch = [q for q in taken if q.future.set_running_or_notify_cancel()]
            if batch:
                self._apply(batch)

    def _apply(self, batch: list[_Queued[Any]]) -> None:
        try:
            results = self._transaction(batch, isolated=False)
        except _JobFailed:
            # One write failed: start again, each write in its own savepoint, so
            # only the failing ones are left out.
            try:
                results = self._transaction(batch, isolated=True)
            except BaseException as exc:  # the transaction itself failed: no write of it is durable
                self._fail(batch, exc)
                return
        except BaseException as exc:
            self._fail(batch, exc)
            return
        for queued, (ok, value) in zip(batch, results, strict=True):
            if ok:
                queued.future.set_result(value)
            else:
                queued.future.set_exception(value)

    def _transaction(self, batch: list[_Queued[Any]], *, isolated: bool) -> list[tuple[bool, Any]]:
        results: list[tuple[bool, Any]] = []
        self._on_begin()
        try:
            with self._begin() as conn:
                for queued in batch:
                    if not isolated:
                        try:
                            results.append((True, queued.job(conn)))
                        except Exception as exc:
                            raise _JobFailed from exc
                        continue
                    nested = conn.begin_nested()
                    try:
                        value = queued.job(conn)
                    except Exception as exc:
                        nested.rollback()
                        self._on_begin()  # what the rolled-back write cached is gone
                        results.append((False, exc))
                    else:
                        nested.commit()
                        results.append((True, value))
        except BaseException:
            self._on_begin()
            raise
        return results

    @staticmethod
    def _fail(batch: list[_Queued[Any]], exc: BaseException) -> None:
        log.debug("ledger write transaction failed: %s", exc)
        for queued in batch:
            queued.future.set_exception(exc)


class _JobFailed(Exception):
    """A write raised in a batch applied without savepoints."""
