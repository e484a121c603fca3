"""Several worker processes on one GATE_HOME: the embedded engine's SQLite file has many writers.

A write that loses the race for the file's lock must not leave the process's
engine connection stuck in a stale transaction (every later write of that
process then failed at once with "database is locked"); it is tried again.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from pathlib import Path

import pytest

import gate


def _memory_file(home: Path) -> Path:
    settings = gate.GateSettings()
    return Path(settings.memory_url().removeprefix("sqlite:///"))


async def test_a_write_after_another_process_wrote_is_not_locked_out(home: Path) -> None:
    settings = gate.GateSettings()
    settings.ensure_home()
    engine = gate.LocalEngine(settings.memory_url(), gate.Ledger(settings.ledger_url()))
    try:
        await engine.remember("alice", "i prefer thursdays", source="user_stated", confidence=0.9)
        # The state a lost race leaves: this process's engine connection inside a
        # transaction whose snapshot predates another process's commit.
        conn = engine.db._require_store()._require_conn()
        await conn.execute("BEGIN")
        await (await conn.execute("SELECT count(*) FROM memories")).fetchall()
        other = sqlite3.connect(_memory_file(home), timeout=5)
        other.execute("CREATE TABLE IF NOT EXISTS other_process (x)")
        other.execute("INSERT INTO other_process VALUES (1)")
        other.commit()
        other.close()

        first = await engine.remember("alice", "my dog is rex", source="user_stated", confidence=0.9)
        second = await engine.remember("bob", "call me on mondays", source="user_stated", confidence=0.9)
        assert first and second and first != second
    finally:
        await engine.aclose()


def _writer(
    home: str, name: str, start_at: float, out: multiprocessing.Queue[tuple[str, int, list[str]]]
) -> None:
    import asyncio
    import os

    os.environ["GATE_HOME"] = home
    os.environ.pop("GATE_DATABASE_URL", None)

    async def run() -> tuple[int, list[str]]:
        settings = gate.GateSettings()
        engine = gate.LocalEngine(settings.memory_url(), gate.Ledger(settings.ledger_url()))
        ok, errors = 0, []
        try:
            while time.time() < start_at:
                await asyncio.sleep(0.005)
            for i in range(12):
                try:
                    await engine.remember(
                        f"caller-{name}", f"fact {i} of {name}", source="user_stated", confidence=0.9
                    )
                    ok += 1
                except Exception as exc:  # counted: the test asserts there are none
                    errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            await engine.aclose()
        return ok, errors

    ok, errors = asyncio.run(run())
    out.put((name, ok, errors))


def test_four_processes_write_to_one_home_without_losing_a_write(home: Path) -> None:
    gate.GateSettings().ensure_home()
    ctx = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue[tuple[str, int, list[str]]] = ctx.Queue()
    start_at = time.time() + 4.0  # every process has started its engine by then
    procs = [ctx.Process(target=_writer, args=(str(home), n, start_at, out)) for n in "abcd"]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    assert all(errors == [] for _, _, errors in results), results
    assert sorted(ok for _, ok, _ in results) == [12, 12, 12, 12]
    with sqlite3.connect(_memory_file(home)) as conn:
        (stored,) = conn.execute("SELECT count(*) FROM memories WHERE content LIKE 'fact %'").fetchone()
    assert stored == 48


async def test_an_engine_write_waits_for_another_process_without_holding_the_loop(home: Path) -> None:
    import asyncio
    import fcntl
    import os

    settings = gate.GateSettings()
    settings.ensure_home()
    engine = gate.LocalEngine(settings.memory_url(), gate.Ledger(settings.ledger_url()))
    try:
        await engine.remember("alice", "i prefer thursdays", source="user_stated", confidence=0.9)
        # Another process holds the file's write lock (an open file of its own).
        fd = os.open(f"{_memory_file(home)}-gate.lock", os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            write = asyncio.ensure_future(
                engine.remember("alice", "my dog is rex", source="user_stated", confidence=0.9)
            )
            for _ in range(20):
                await asyncio.sleep(0.01)  # the loop goes on meanwhile
            assert not write.done()
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        assert await asyncio.wait_for(write, 10)
        # A task cancelled while it waits leaves the lock free for the next write.
        fcntl.flock(fd := os.open(f"{_memory_file(home)}-gate.lock", os.O_RDWR), fcntl.LOCK_EX)
        waiting = asyncio.ensure_future(
            engine.remember("alice", "call me later", source="user_stated", confidence=0.9)
        )
        await asyncio.sleep(0.05)
        waiting.cancel()
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        assert await asyncio.wait_for(
            engine.remember("bob", "call me on mondays", source="user_stated", confidence=0.9), 10
        )
    finally:
        await engine.aclose()


async def test_a_fresh_engine_opens_its_store_under_the_files_write_lock(home: Path) -> None:
    # Worker processes starting together all open the store at once; the opening writes
    # (schema, migrations), so it queues behind another process's hold of the lock.
    import asyncio
    import fcntl
    import os

    settings = gate.GateSettings()
    settings.ensure_home()
    engine = gate.LocalEngine(settings.memory_url(), gate.Ledger(settings.ledger_url()))
    try:
        with sqlite3.connect(_memory_file(home)) as conn:
            # In write-ahead mode from its first touch: no opening switches it under another.
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        fd = os.open(f"{_memory_file(home)}-gate.lock", os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            first = asyncio.ensure_future(
                engine.remember("alice", "i prefer thursdays", source="user_stated", confidence=0.9)
            )
            for _ in range(20):
                await asyncio.sleep(0.01)  # the loop goes on meanwhile
            assert not first.done() and not engine.db._initialized
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        assert await asyncio.wait_for(first, 10)
    finally:
        await engine.aclose()


async def test_an_opening_that_loses_a_race_is_closed_and_tried_again(home: Path) -> None:
    settings = gate.GateSettings()
    settings.ensure_home()
    engine = gate.LocalEngine(settings.memory_url(), gate.Ledger(settings.ledger_url()))
    opening = engine._init.original
    tries = 0

    async def losing_once() -> None:
        # Another writer (one that does not take the lock) commits while this one opens.
        nonlocal tries
        tries += 1
        await opening()
        if tries == 1:
            raise sqlite3.OperationalError("database is locked")

    engine._init.original = losing_once
    try:
        assert await engine.remember("alice", "my dog is rex", source="user_stated", confidence=0.9)
        assert tries == 2 and engine.db._initialized
    finally:
        await engine.aclose()


async def test_an_opening_that_fails_otherwise_is_not_tried_again(home: Path) -> None:
    settings = gate.GateSettings()
    settings.ensure_home()
    engine = gate.LocalEngine(settings.memory_url(), gate.Ledger(settings.ledger_url()))
    tries = 0

    async def broken() -> None:
        nonlocal tries
        tries += 1
        raise sqlite3.OperationalError("disk I/O error")

    engine._init.original = broken
    try:
        with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
            await engine.remember("alice", "my dog is rex", source="user_stated", confidence=0.9)
        assert tries == 1 and engine.db._store is None
    finally:
        await engine.aclose()
