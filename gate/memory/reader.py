"""Reads of the embedded engine's SQLite file, on connections of their own.

The engine (pycontextdb) talks to its file through one aiosqlite connection:
one thread that runs every statement of every caller in arrival order, each
statement a round trip through the event loop. While many calls save what
their callers said, a decision's reads (the index's freshness check, the
rows it loads, what was said after) would wait behind those writes one
statement at a time.

:class:`StoreReader` runs a whole read (any number of statements) as one
job on a read-only connection of its own, inside one read transaction, so
it sees one consistent snapshot. SQLite's WAL lets it read while the engine
writes.

Small reads run on the event loop's own thread. A decision's reads are
bounded (a few rows by id, the caller's newest 32, a revision number) and
take about 0.2 ms (p95 under 3 ms with 50 calls in the process); a trip to a
thread and back costs 4-17 ms there, because the loop has to win the GIL
back from every other busy thread. Such a read is tried with no busy wait at
all: if the file is locked (a WAL recovery or a checkpoint that blocks
readers) it is run again on the reader's thread, which waits, so the loop
itself never waits for a lock. Reads of unbounded size (a caller's whole
history) always go to the thread.

A store that is not a file (an in-memory database) is read on the engine's
own connection instead, still one job.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from contextdb.store.sqlite_store import SQLiteStore

T = TypeVar("T")
Read = Callable[[sqlite3.Connection], T]

_BUSY_TIMEOUT_MS = 10_000
_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}


class StoreReader:
    """Runs read jobs against the store of a pycontextdb client.

    Raises (from :meth:`run`) what the job raises, or ``sqlite3.Error`` when
    the file cannot be opened or read.
    """

    def __init__(self, db: Any) -> None:
        self.db = db
        self._pool: ThreadPoolExecutor | None = None
        self._conn: sqlite3.Connection | None = None  # the reader thread's
        self._inline: sqlite3.Connection | None = None  # the event loop thread's
        self._inline_thread: int | None = None
        self._lock = threading.Lock()
        self._closed = False

    async def store(self) -> SQLiteStore | None:
        """The engine's SQLite store (initialised), or None for another kind of store."""
        await self.db._ensure_init()
        store = self.db._require_store()
        return store if isinstance(store, SQLiteStore) else None

    async def run(self, read: Read[T], *, small: bool = False) -> T:
        """``read(conn)`` in one read transaction; its result.

        ``small``: the read is bounded and quick (see the module's note); it
        runs on the event loop's thread unless the file is locked.

        Raises:
            TypeError: the engine's store is not SQLite (callers check :meth:`store`).
            RuntimeError: after :meth:`close` (reading would open the closed engine again).
        """
        if self._closed:
            raise RuntimeError("the memory store is closed")
        store = await self.store()
        if store is None:
            raise TypeError("the engine's store is not SQLite")
        path = str(getattr(store, "_path", ""))
        if not path or path == ":memory:" or path.startswith("file::memory:"):
            # No second connection can see this database: one job on the engine's own.
            engine_conn: Any = store._require_conn()
            result: T = await engine_conn._execute(_in_snapshot, engine_conn._connection, read)
            return result
        if small:
            try:
                return _in_snapshot(self._inline_conn(path), read)
            except sqlite3.OperationalError as exc:
                if getattr(exc, "sqlite_errorcode", None) not in _BUSY:
                    raise
                # Locked: the reader's thread waits for it, the loop does not.
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gate-memory-reader")
            pool = self._pool
        return await asyncio.get_running_loop().run_in_executor(pool, self._call, path, read)

    def _inline_conn(self, path: str) -> sqlite3.Connection:
        me = threading.get_ident()
        if self._inline is None or self._inline_thread != me:
            if self._inline is not None:
                self._inline.close()
            self._inline = _connect(path, busy_timeout_ms=0)
            self._inline_thread = me
        return self._inline

    def _call(self, path: str, read: Read[T]) -> T:
        if self._conn is None:
            self._conn = _connect(path, busy_timeout_ms=_BUSY_TIMEOUT_MS)
        try:
            return _in_snapshot(self._conn, read)
        except sqlite3.Error:
            # Start over on a fresh connection next time (the file may have been replaced).
            self._conn.close()
            self._conn = None
            raise

    def close(self) -> None:
        """Close the connections and stop the thread (idempotent).

        Call it from the thread that ran the small reads (the event loop's) or
        after that loop has stopped.
        """
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.submit(self._close_conn).result()
            pool.shutdown(wait=True)
        inline, self._inline = self._inline, None
        if inline is not None:
            inline.close()

    def _close_conn(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _connect(path: str, *, busy_timeout_ms: int) -> sqlite3.Connection:
    # Each connection is used by one thread at a time; close() may run on another.
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
    return conn


def _in_snapshot(conn: sqlite3.Connection, read: Read[T]) -> T:
    """``read`` inside one deferred read transaction: every statement sees the same snapshot."""
    if conn.in_transaction:
        return read(conn)  # the engine's own connection, inside one of its transactions
    conn.execute("BEGIN")
    try:
        return read(conn)
    finally:
        conn.execute("COMMIT")
