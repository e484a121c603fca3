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

On SQLite every process's writers of one file also take a :class:`FileLock`
first: waiting writers sleep in the kernel and are woken when the lock is let
go, instead of polling in SQLite's busy handler (which lets long waiters
starve behind newcomers). When that lock is free at the moment of a write
and nothing is queued, the write is applied at once on the caller's own
thread (a transaction of a few inserts takes a fraction of a millisecond;
the trip to the writer thread and back cost several under load); when it
is taken, the write queues for the writer thread as before, so an event
loop never waits for another writer. Such a writer never checkpoints the
write-ahead log as part of a commit (SQLite's automatic checkpoint copies
a thousand pages back into the database inside the unlucky commit: a
write of tens or hundreds of milliseconds on the caller's thread); its own
thread checkpoints instead, every :data:`CHECKPOINT_EVERY` commits.

A write that only has to be durable together with a later one of the same
call can ride with it (:func:`carrying`, :func:`carry`): the embedded
decision service's record of an evaluation is committed in the same
transaction as the gate's decision that cites it, so a call pays for one
commit where it paid for two, and neither can be durable without the other.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import AbstractContextManager, ExitStack, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from sqlalchemy import Connection
from sqlalchemy.exc import OperationalError

try:
    import fcntl
except ImportError:  # pragma: no cover - not a POSIX system: SQLite's own busy handler only
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("gate.ledger")

T = TypeVar("T")
Job = Callable[[Connection], T]

# A batch holds the lock for its whole transaction; past this many writes the next
# ones wait for the next batch, so no single transaction grows without bound.
MAX_BATCH = 64
# Commits between two checkpoints of a SQLite write-ahead log (a gated call makes about
# ten pages; SQLite's own default is one checkpoint per thousand pages).
CHECKPOINT_EVERY = 64


@dataclass
class _Queued(Generic[T]):
    job: Job[T]
    future: Future[T] = field(default_factory=Future)


class WriterClosed(RuntimeError):
    """A write was submitted after :meth:`Writer.close`."""


class FileLock:
    """One writer at a time on a SQLite file, across processes, queued in the kernel.

    SQLite's busy handler polls: a writer that finds the file locked sleeps
    1, 2, 5, 10 ... then 100 ms between tries, so under many processes the
    ones that have waited longest try least often and lose to newcomers
    (measured: 32 processes of short write transactions on one file, p99
    764 ms and worst 2.4 s; 168 ms and 236 ms when each first takes this
    lock). Here a waiter sleeps on ``flock`` and is woken when the holder
    lets go; SQLite's busy timeout still bounds waits for writers that do not
    take it (the engine's own connection).

    The lock is a file beside the database (``<file>-gate.lock``), never the
    database itself. Where it cannot be created (a read-only directory) or
    ``flock`` does not exist, :meth:`held` only serialises the threads of this
    process. Not re-entrant: hold it around one transaction, nothing longer.
    """

    _registry: ClassVar[dict[str, FileLock]] = {}
    _registry_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, path: str) -> None:
        self.path = path
        self._thread_lock = threading.Lock()  # flock is per open file: threads of one process queue here
        self._fd: int | None = None
        self._pid = os.getpid()
        self._unusable = fcntl is None

    @classmethod
    def beside(cls, database: str) -> FileLock:
        """The lock of the database file ``database`` (one object per file in a process)."""
        path = os.path.abspath(database) + "-gate.lock"
        with cls._registry_lock:
            found = cls._registry.get(path)
            if found is None:
                found = cls._registry[path] = cls(path)
            return found

    def _open(self) -> int | None:
        if self._fd is None and not self._unusable:
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                log.debug("no cross-process write lock at %s: %s", self.path, exc)
                self._unusable = True
        return self._fd

    def acquire(self) -> None:
        """Wait (blocking the calling thread) until this process holds the lock."""
        if self._pid != os.getpid():
            # A forked child shares the parent's open file, and with it the parent's hold.
            self._thread_lock, self._fd, self._pid = threading.Lock(), None, os.getpid()
        self._thread_lock.acquire()
        try:
            fd = self._open()
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            self._thread_lock.release()
            raise

    def try_acquire(self) -> bool:
        """Take the lock if nobody (no thread here, no other process) holds it; never waits."""
        if self._pid != os.getpid():
            self._thread_lock, self._fd, self._pid = threading.Lock(), None, os.getpid()
        if not self._thread_lock.acquire(blocking=False):
            return False
        fd = self._open()
        if fd is None:
            return True
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held by another process (EWOULDBLOCK)
            self._thread_lock.release()
            return False
        return True

    def release(self) -> None:
        try:
            if self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._thread_lock.release()

    def close(self) -> None:
        """Close the lock's file: for a database this process is done with (a ledger or a memory
        store that closes). The lock stays usable, its file opened again on the next use by
        whoever else in the process still writes there. Waits for a thread here that holds it."""
        if self._pid != os.getpid():
            return  # a forked child's copy: the parent's to close
        with self._thread_lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock for the block (one write transaction)."""
        self.acquire()
        try:
            yield
        finally:
            self.release()


@dataclass
class Carried:
    """Writes held back (:func:`carry`) to go in the transaction of the next write of one task."""

    owner: asyncio.Task[Any] | None
    held: list[tuple[Writer, Job[None]]] = field(default_factory=list)

    def take(self, writer: Writer) -> list[Job[None]]:
        """The held writes for ``writer``, now leaving the holding (a write of the owner took them)."""
        mine = [job for w, job in self.held if w is writer]
        if mine:
            self.held = [(w, job) for w, job in self.held if w is not writer]
        return mine

    async def release(self) -> None:
        """Write what is still held, each with its own writer (no later write came to carry it).

        Raises what the first failing write raised; the others are written anyway.
        """
        held, self.held = self.held, []
        failed: BaseException | None = None
        for writer, job in held:
            try:
                await writer.acall(job)
            except Exception as exc:  # the rest still go; the caller hears of the first failure
                failed = failed or exc
        if failed is not None:
            raise failed


_CARRIED: ContextVar[Carried | None] = ContextVar("gate_ledger_carried", default=None)


@contextmanager
def carrying() -> Iterator[Carried]:
    """Inside: a write held with :func:`carry` rides with the next write this task submits.

    Only the task that entered (not tasks it starts, which may write for
    other reasons) hands the held writes on, and only to the writer they
    were held for. Await :meth:`Carried.release` before leaving, so what no
    write carried is still written.
    """
    carried = Carried(_current_task())
    token = _CARRIED.set(carried)
    try:
        yield carried
    finally:
        _CARRIED.reset(token)


def carry(writer: Writer, job: Job[None]) -> bool:
    """Hold ``job`` for the next write of the task inside :func:`carrying`, if there is one.

    Returns False outside :func:`carrying` (then the caller writes it itself).
    A held write is durable exactly when the write that carries it is: a
    failure of either fails both.
    """
    carried = _CARRIED.get()
    if carried is None:
        return False
    carried.held.append((writer, job))
    return True


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no running loop: a thread
        return None


def _together(first: list[Job[None]], job: Job[T]) -> Job[T]:
    def both(conn: Connection) -> T:
        for held in first:
            held(conn)
        return job(conn)

    return both


class Writer:
    """Applies submitted writes on its own thread, many per transaction.

    ``begin`` opens one write transaction (lock taken) and commits it on a
    clean exit; ``on_begin`` is called at the start of every transaction and
    after every rollback (the ledger forgets its cached chain tail there).
    ``lock`` (a :class:`FileLock` of the database file) is held around every
    transaction; with it, a write finding the lock free and nothing queued is
    applied on the caller's thread, in a transaction opened by
    ``inline_begin`` (default ``begin``), which should fail at once rather
    than wait when SQLite finds the file busy: the write then queues.

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
        lock: FileLock | None = None,
        inline_begin: Callable[[], AbstractContextManager[Connection]] | None = None,
    ) -> None:
        self._begin = begin
        self._on_begin = on_begin
        self._name = name
        self._lock = lock
        self._inline_begin = inline_begin
        self._queue: collections.deque[_Queued[Any]] = collections.deque()
        # Writes submitted and not yet answered (queued or being applied): while there are
        # any, a new write queues behind them, so writes are applied in submission order.
        self._unanswered = 0
        self._applying_here: int | None = None  # the thread applying a write inline
        # SQLite with a file lock: commits since the writer thread last checkpointed the log.
        self._commits = 0
        self._checkpoint_due = False
        self._log_engine: Any = None  # where the checkpoint runs (learnt from the first write)
        self._quiet: set[int] = set()  # connections told not to checkpoint on commit
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False

    def share_file(self, lock: FileLock) -> None:
        """Take ``lock`` around every transaction from now on (see the class's note)."""
        self._lock = lock

    # -- submitting ------------------------------------------------------------

    def submit(self, job: Job[T]) -> Future[T]:
        """Queue ``job`` (called with the batch's connection); its future holds the result once committed.

        Raises:
            WriterClosed: after :meth:`close`.
            RuntimeError: when called from a write itself (it would wait for its own batch).
        """
        self._not_from_a_write()
        return self._queued(self._with_carried(job))

    def _not_from_a_write(self) -> None:
        if threading.current_thread() is self._thread or self._applying_here == threading.get_ident():
            raise RuntimeError("a ledger write cannot wait for another ledger write")

    def _with_carried(self, job: Job[T]) -> Job[T]:
        carried = _CARRIED.get()
        if carried is not None and carried.held and carried.owner is _current_task():
            first = carried.take(self)
            if first:
                return _together(first, job)
        return job

    def _queued(self, job: Job[T]) -> Future[T]:
        queued: _Queued[T] = _Queued(job)
        with self._wake:
            if self._closed:
                raise WriterClosed("the ledger is closed")
            self._queue.append(queued)
            self._unanswered += 1
            if self._thread is None:
                # Started on first use: a ledger opened only to read never starts one.
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._wake.notify()
        return queued.future

    def call(self, job: Job[T]) -> T:
        """Submit ``job`` and wait for its committed result (or its exception)."""
        self._not_from_a_write()
        job = self._with_carried(job)
        done = self._inline(job)
        if done is not None:
            value: T = _result(done)
            return value
        return self._queued(job).result()

    async def acall(self, job: Job[T]) -> T:
        """:meth:`call` for an event loop: waits without holding a thread.

        Cancelling the awaiting task does not cancel the write: once submitted it
        is applied (a receipt must not be lost because a call was interrupted).
        """
        self._not_from_a_write()
        job = self._with_carried(job)
        done = self._inline(job)
        if done is not None:
            value: T = _result(done)
            return value
        return await asyncio.shield(asyncio.wrap_future(self._queued(job)))

    def _inline(self, job: Job[T]) -> tuple[bool, Any] | None:
        """Apply ``job`` here and now if the file's lock is free and nothing waits; None otherwise."""
        lock = self._lock
        if lock is None or self._unanswered or self._closed or not lock.try_acquire():
            return None
        try:
            with self._wake:
                if self._unanswered or self._closed:
                    return None  # submitted meanwhile: after them, in order
            self._applying_here = threading.get_ident()
            done = self._transaction([_Queued(job)], isolated=False, inline=True)[0]
            self._committed()
            return done
        except _JobFailed as failed:
            return False, failed.__cause__
        except _Busy:
            return None  # nothing was applied: the writer thread waits for the file
        finally:
            self._applying_here = None
            lock.release()

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
                while not self._queue and not self._closed and not self._checkpoint_due:
                    self._wake.wait()
                due, self._checkpoint_due = self._checkpoint_due, False
                if not self._queue and not due:
                    return  # closed and drained
                taken = [self._queue.popleft() for _ in range(min(len(self._queue), MAX_BATCH))]
            if due:
                self._checkpoint()
            # A write whose caller gave up before it started is not applied; from here
            # on it can no longer be cancelled (it is applied, its result maybe unread).
            batch = [q for q in taken if q.future.set_running_or_notify_cancel()]
            try:
                if batch:
                    with self._lock.held() if self._lock is not None else _nothing():
                        self._apply(batch)
            finally:
                with self._wake:
                    self._unanswered -= len(taken)

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
        self._committed()
        for queued, (ok, value) in zip(batch, results, strict=True):
            if ok:
                queued.future.set_result(value)
            else:
                queued.future.set_exception(value)

    def _transaction(
        self, batch: list[_Queued[Any]], *, isolated: bool, inline: bool = False
    ) -> list[tuple[bool, Any]]:
        results: list[tuple[bool, Any]] = []
        self._on_begin()
        try:
            with ExitStack() as stack:
                try:
                    begin = (self._inline_begin or self._begin) if inline else self._begin
                    conn = stack.enter_context(begin())
                    self._no_checkpoint_on_commit(conn)
                except OperationalError as exc:
                    if inline and _busy(exc):
                        raise _Busy from exc
                    raise
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

    def _no_checkpoint_on_commit(self, conn: Connection) -> None:
        """With a file lock (SQLite): this connection's commits leave checkpoints to the writer thread."""
        if self._lock is None:
            return
        raw = conn.connection.dbapi_connection
        if id(raw) not in self._quiet:
            conn.exec_driver_sql("PRAGMA wal_autocheckpoint=0")
            self._quiet.add(id(raw))
            self._log_engine = conn.engine

    def _committed(self) -> None:
        """Count a commit; every :data:`CHECKPOINT_EVERY`, wake the writer thread to checkpoint."""
        if self._lock is None:
            return
        self._commits += 1
        if self._commits < CHECKPOINT_EVERY:
            return
        self._commits = 0
        with self._wake:
            if self._closed:
                return
            self._checkpoint_due = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._wake.notify()

    def _checkpoint(self) -> None:
        """Copy the write-ahead log back into the database, waiting for no reader or writer."""
        engine = self._log_engine
        if engine is None:
            return
        try:
            raw = engine.raw_connection()
            try:
                raw.execute("PRAGMA wal_checkpoint(PASSIVE)")
            finally:
                raw.close()
        except Exception as exc:  # the next one tries again; SQLite's file is never at risk
            log.debug("write-ahead log checkpoint failed: %s", exc)

    @staticmethod
    def _fail(batch: list[_Queued[Any]], exc: BaseException) -> None:
        log.debug("ledger write transaction failed: %s", exc)
        for queued in batch:
            queued.future.set_exception(exc)


def _result(done: tuple[bool, Any]) -> Any:
    ok, value = done
    if not ok:
        raise value
    return value


def _busy(exc: OperationalError) -> bool:
    inner = getattr(exc, "orig", None)
    text = str(inner).casefold()
    return isinstance(inner, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


@contextmanager
def _nothing() -> Iterator[None]:
    yield


class _Busy(Exception):
    """An inline transaction found the file busy before writing anything."""


class _JobFailed(Exception):
    """A write raised in a batch applied without savepoints."""
