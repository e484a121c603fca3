"""Reads of the embedded engine's SQLite file, on a connection and a thread of their own.

The engine (pycontextdb) talks to its file through one aiosqlite connection:
one thread that runs every statement of every caller in arrival order, each
statement a round trip through the event loop. While many calls save what
their callers said, a decision's reads (the index's freshness check, the
rows it loads, what was said after) wait behind those writes one statement
at a time, and a look-up of four statements waits four times.

:class:`StoreReader` runs a whole read (any number of statements) as one
job on its own read-only connection and thread, inside one read transaction,
so it sees one consistent snapshot and costs one round trip. SQLite's WAL
lets it read while the engine writes. A store that is not a file (an
in-memory database) is read on the engine's own connection instead, still
one job.
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


class StoreReader:
    """Runs read jobs against the store of a pycontextdb client.

    Raises (from :meth:`run`) what the job raises, or ``sqlite3.Error`` when
    the file cannot be opened or read.
    """

    def __init__(self, db: Any) -> None:
        self.db = db
        self._pool: ThreadPoolExecutor | None = None
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._closed = False

    async def store(self) -> SQLiteStore | None:
        """The engine's SQLite store (initialised), or None for another kind of store."""
        await self.db._ensure_init()
        store = self.db._require_store()
        return store if isinstance(store, SQLiteStore) else None

    async def run(self, read: Read[T]) -> T:
        """``read(conn)`` in one read transaction; its result.

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
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gate-memory-reader")
            pool = self._pool
        return await asyncio.get_running_loop().run_in_executor(pool, self._call, path, read)

    def _call(self, path: str, read: Read[T]) -> T:
        if self._conn is None:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")
            self._conn = conn
        try:
            return _in_snapshot(self._conn, read)
        except sqlite3.Error:
            # Start over on a fresh connection next time (the file may have been replaced).
            self._conn.close()
            self._conn = None
            raise

    def close(self) -> None:
        """Close the connection and stop the thread (idempotent)."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.submit(self._close_conn).result()
            pool.shutdown(wait=True)

    def _close_conn(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _in_snapshot(conn: sqlite3.Connection, read: Read[T]) -> T:
    """``read`` inside one deferred read transaction: every statement sees the same snapshot."""
    if conn.in_transaction:
        return read(conn)  # the engine's own connection, inside one of its transactions
    conn.execute("BEGIN")
    try:
        return read(conn)
    finally:
        conn.execute("COMMIT")
