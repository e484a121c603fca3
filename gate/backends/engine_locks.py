"""Writes to the embedded engine's SQLite file when several worker processes share it.

LiveKit runs each call in a job process of its own, and on one machine they
all share ``GATE_HOME``, so the embedded engine's SQLite file has several
writers. The engine opens one connection per process and begins its
transactions lazily: a write that loses the race for the file's lock
("database is locked") leaves that connection inside a transaction whose
snapshot is now stale, and every later write on it fails at once the same
way. Measured with 3 processes x 9 calls on one home: one process in four
runs lost every call after its first lost race.

:func:`retrying` first takes the file's cross-process write lock
(:class:`gate.ledger.writer.FileLock`, the one the gate's own short writes
to that file take), so the engine's writes of all processes queue in the
kernel instead of racing: a write no longer loses its snapshot to another
process's commit in the middle of it, and no waiter polls. A write that
still meets a lock (a writer that does not take it) ends the stale
transaction (under the engine's own write and audit locks, so no write of
this process is cut in half) and tries again a few times with a short,
jittered pause. The caller's own budget bounds the whole (the gate wraps
service calls in the policy's ``timeout_s``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from gate.ledger.writer import FileLock

log = logging.getLogger("gate.engine")

T = TypeVar("T")

ATTEMPTS = 4
_PAUSE_S = (0.02, 0.08)  # first pause; doubled after each lost race


def lost_race(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite's "database is locked" or "busy": another process held the file."""
    text = str(exc).casefold()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


async def unstick(db: Any) -> None:
    """End the engine connection's open transaction, if a lost race left one (SQLite only).

    Taken under the store's write and audit locks: every write of this process
    holds one of them from its first statement to its commit, so none is
    rolled back half done. A store without them (not SQLite) is left alone.
    """
    try:
        store = db._require_store()
    except Exception:  # not initialised: nothing of it can be in a transaction
        return
    write_lock = getattr(store, "_write_lock", None)
    audit_lock = getattr(store, "audit_lock", None)
    conn = getattr(store, "_conn", None)
    if store is None or write_lock is None or audit_lock is None or conn is None:
        return
    async with write_lock, audit_lock():
        if getattr(conn, "in_transaction", False):
            await conn.rollback()


def file_lock(db: Any) -> FileLock | None:
    """The cross-process write lock of the engine's SQLite file (None for other stores)."""
    try:
        store = db._require_store()
    except Exception:  # not initialised yet: its first write initialises it, unlocked
        return None
    path = str(getattr(store, "_path", "") or "")
    if not path or ":memory:" in path or path.startswith("file:"):
        return None
    return FileLock.beside(path)


@contextlib.asynccontextmanager
async def holding(lock: FileLock | None) -> AsyncIterator[None]:
    """Hold ``lock`` (None: nothing) for the block; the wait for it happens on a thread, never the loop.

    A task cancelled while it waits never leaves the lock taken: the lock is let
    go as soon as the thread gets it.
    """
    if lock is None:
        yield
        return
    if not lock.try_acquire():
        waiting = asyncio.get_running_loop().run_in_executor(None, lock.acquire)
        try:
            await asyncio.shield(waiting)
        except asyncio.CancelledError:
            waiting.add_done_callback(lambda f: None if f.cancelled() or f.exception() else lock.release())
            raise
    try:
        yield
    finally:
        lock.release()


async def retrying(db: Any, op: Callable[[], Awaitable[T]], *, what: str = "write") -> T:
    """Run ``op`` (an engine write) under the file's write lock, trying again after a lost race.

    Raises:
        sqlite3.OperationalError: the last lost race, after :data:`ATTEMPTS` tries.
        Exception: whatever else ``op`` raises, at once.
    """
    return await retrying_under(lambda: file_lock(db), op, after_loss=lambda: unstick(db), what=what)


async def retrying_under(
    lock: Callable[[], FileLock | None],
    op: Callable[[], Awaitable[T]],
    *,
    after_loss: Callable[[], Awaitable[None]] | None = None,
    what: str = "write",
) -> T:
    """Run ``op`` holding ``lock()`` (asked anew each try), trying again after a lost race.

    ``after_loss`` runs after each lost race, before the pause: it puts right
    what the lost race left behind (a stale transaction, a half-opened store).

    Raises:
        sqlite3.OperationalError: the last lost race, after :data:`ATTEMPTS` tries.
        Exception: whatever else ``op`` raises, at once.
    """
    pause = random.uniform(*_PAUSE_S)
    for attempt in range(1, ATTEMPTS + 1):
        try:
            async with holding(lock()):
                return await op()
        except sqlite3.OperationalError as exc:
            if not lost_race(exc):
                raise
            if after_loss is not None:
                await after_loss()
            if attempt == ATTEMPTS:
                log.warning("engine %s lost the race for its file %d times: %s", what, attempt, exc)
                raise
            await asyncio.sleep(pause)
            pause *= 2
    raise AssertionError("unreachable")  # pragma: no cover
