"""Group commit: many writes to a transaction, each with the result it would have had alone."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, text
from test_ledger import decision_row, pg_url, receipt_row

from gate.errors import ReceiptConflict
from gate.ledger import Ledger
from gate.ledger.writer import Writer


@pytest.fixture(params=["sqlite", "postgres"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ledger]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'ledger.db'}"
    else:
        if pg_url() is None:
            pytest.skip("GATE_TEST_PG_URL is not set")
        url = request.getfixturevalue("pg_database")
    opened = Ledger(url)
    yield opened
    opened.close()


def _transactions(ledger: Ledger) -> list[int]:
    """Count the writer's transactions by wrapping how it begins one."""
    began: list[int] = []
    inner = ledger._writer._begin

    @contextmanager
    def counting() -> Iterator[Connection]:
        began.append(1)
        with inner() as conn:
            yield conn

    ledger._writer._begin = counting
    return began


def test_writes_from_many_threads_share_transactions_and_all_commit(ledger: Ledger) -> None:
    began = _transactions(ledger)
    rows = [decision_row() for _ in range(200)]
    start = threading.Barrier(8)

    def write(part: list[Any]) -> None:
        start.wait()
        for row in part:
            assert ledger.record_decision(row)
            assert ledger.record_receipt(receipt_row(row.id)).created

    threads = [threading.Thread(target=write, args=(rows[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(ledger.decisions()) == 200
    assert len(ledger.receipts()) == 200
    report = ledger.verify()
    assert report.ok and report.checked == 400
    assert len(began) < 400  # writes waited together and shared commits


async def test_writes_from_an_event_loop_hold_no_thread_while_waiting(ledger: Ledger) -> None:
    rows = [decision_row() for _ in range(50)]
    before = threading.active_count()
    results = await asyncio.gather(*(ledger.arecord_decision(r) for r in rows))
    assert all(results)
    # The writer's own thread is the only one started for 50 concurrent writes.
    assert threading.active_count() <= before + 1
    written = await asyncio.gather(*(ledger.arecord_receipt(receipt_row(r.id)) for r in rows))
    assert all(w.created for w in written)
    assert ledger.verify().ok


def test_a_failing_write_fails_alone_and_leaves_nothing_behind(ledger: Ledger) -> None:
    first = decision_row()
    assert ledger.record_decision(first)
    assert ledger.record_receipt(receipt_row(first.id, key="key-one-0001")).created
    go = threading.Event()
    parked = threading.Event()

    def park(conn: Connection) -> None:
        parked.set()
        go.wait(10)

    blocker = ledger._writer.submit(park)  # holds the writer so the next writes share a batch
    assert parked.wait(10)
    good = [decision_row() for _ in range(3)]
    futures = [ledger._writer.submit(ledger._decision_job(good[0], None))]
    # A receipt that conflicts (another decision's key): raised after nothing was written.
    futures.append(ledger._writer.submit(ledger._receipt_job(receipt_row(good[0].id, key="key-one-0001"))))

    def half_then_fail(conn: Connection) -> None:
        ledger._insert(conn, decision_row(id="gd_half_written"))
        raise RuntimeError("failed after writing")

    futures.append(ledger._writer.submit(half_then_fail))
    futures += [ledger._writer.submit(ledger._decision_job(r, None)) for r in good[1:]]
    go.set()
    blocker.result(10)
    assert futures[0].result(10) is True
    with pytest.raises(ReceiptConflict):
        futures[1].result(10)
    with pytest.raises(RuntimeError, match="failed after writing"):
        futures[2].result(10)
    assert [f.result(10) for f in futures[3:]] == [True, True]
    ids = {d.id for d in ledger.decisions()}
    assert {r.id for r in good} <= ids and "gd_half_written" not in ids
    report = ledger.verify()
    assert report.ok and report.checked == 5  # 4 decisions and 1 receipt, chained in order


def test_a_transaction_that_cannot_begin_fails_every_write_of_it_and_the_next_batch_works(
    tmp_path: Path,
) -> None:
    broken = {"yes": True}
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    inner = ledger._writer._begin

    @contextmanager
    def flaky() -> Iterator[Connection]:
        if broken["yes"]:
            raise OSError("database unreachable")
        with inner() as conn:
            yield conn

    ledger._writer._begin = flaky
    with pytest.raises(OSError, match="unreachable"):
        ledger.record_decision(decision_row())
    broken["yes"] = False
    assert ledger.record_decision(decision_row())
    assert ledger.verify().ok
    ledger.close()


def test_close_applies_what_is_queued(tmp_path: Path) -> None:
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    go = threading.Event()
    ledger._writer.submit(lambda conn: go.wait(10))
    futures = [ledger._writer.submit(ledger._decision_job(decision_row(), None)) for _ in range(5)]
    go.set()
    ledger.close()
    assert all(f.result(0) for f in futures)
    again = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    assert len(again.decisions()) == 5 and again.verify().ok
    again.close()


def test_a_write_cannot_wait_for_another_write(tmp_path: Path) -> None:
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    with pytest.raises(RuntimeError, match="cannot wait for another ledger write"):
        ledger.write(lambda conn: ledger.record_decision(decision_row()))
    assert ledger.record_decision(decision_row())  # the writer goes on
    ledger.close()


def test_a_write_whose_caller_gave_up_before_it_began_is_not_applied(tmp_path: Path) -> None:
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    go = threading.Event()
    ledger._writer.submit(lambda conn: go.wait(10))
    dropped = decision_row()
    future = ledger._writer.submit(ledger._decision_job(dropped, None))
    assert future.cancel()
    go.set()
    assert ledger.record_decision(decision_row())
    assert dropped.id not in {d.id for d in ledger.decisions()}
    ledger.close()


def test_writer_on_its_own_reports_results_in_submission_order(tmp_path: Path) -> None:
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    ledger.write(lambda conn: conn.execute(text("CREATE TABLE t (n INTEGER)")))
    writer = Writer(ledger._begin_write)
    futures = [
        writer.submit(lambda conn, n=n: conn.execute(text("INSERT INTO t VALUES (:n)"), {"n": n}))
        for n in range(100)
    ]
    for f in futures:
        f.result(10)
    writer.close()
    with ledger.engine.connect() as conn:
        assert [r[0] for r in conn.execute(text("SELECT n FROM t ORDER BY rowid"))] == list(range(100))
    ledger.close()


def test_on_postgres_records_beside_the_chain_do_not_wait_for_the_chain_lock(ledger: Ledger) -> None:
    if ledger.is_sqlite:
        pytest.skip("one file lock covers every SQLite write")
    from gate.ledger.store import _PG_CHAIN_LOCK

    with ledger.engine.connect() as holder:
        # Another process is in the middle of a chain append.
        holder.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _PG_CHAIN_LOCK})
        try:
            side = ledger._side_writer
            assert side is not None
            done = side.submit(lambda conn: conn.execute(text("SELECT 1")).scalar_one())
            assert done.result(5) == 1  # not held up by the lock
            blocked = ledger._writer.submit(ledger._decision_job(decision_row(), None))
            with pytest.raises(TimeoutError):
                blocked.result(0.5)  # a chain append waits for it
        finally:
            holder.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _PG_CHAIN_LOCK})
            holder.commit()
        assert blocked.result(10) is True
    assert ledger.verify().ok


async def test_a_write_from_a_task_that_is_cancelled_is_still_applied(tmp_path: Path) -> None:
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    go = threading.Event()
    ledger._writer.submit(lambda conn: go.wait(10))
    row = decision_row()
    task = asyncio.ensure_future(ledger.arecord_decision(row))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    go.set()
    assert ledger.record_decision(decision_row())  # queued after it, so it is applied by now
    assert row.id in {d.id for d in ledger.decisions()}
    ledger.close()


def _hold_file(ledger: Ledger) -> int:
    """Take the ledger file's writer lock as another process would (an open file of its own)."""
    import fcntl
    import os

    path = os.path.abspath(ledger.engine.url.database or "") + "-gate.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


async def test_a_write_waits_for_another_process_on_the_writer_thread_not_the_loop(tmp_path: Path) -> None:
    import fcntl
    import os

    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    fd = _hold_file(ledger)
    try:
        write = asyncio.ensure_future(ledger.arecord_decision(decision_row()))
        ticks = 0
        for _ in range(20):  # the loop goes on while the write waits for the other process
            await asyncio.sleep(0.01)
            ticks += 1
        assert not write.done() and ticks == 20
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    assert await asyncio.wait_for(write, 10) is True
    assert ledger.verify().ok
    ledger.close()


def test_a_write_when_nobody_writes_is_applied_on_the_callers_thread(tmp_path: Path) -> None:
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    seen: list[str] = []
    assert ledger.write(lambda conn: seen.append(threading.current_thread().name)) is None
    assert seen == [threading.current_thread().name]
    ledger.close()


async def test_a_carried_write_commits_with_the_next_write_of_its_task(tmp_path: Path) -> None:
    from gate.ledger.writer import carry, carrying

    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    await ledger.awrite(lambda conn: conn.execute(text("CREATE TABLE t (n INTEGER)")))
    began = _transactions(ledger)

    def insert(n: int) -> Any:
        return lambda conn: conn.execute(text("INSERT INTO t VALUES (:n)"), {"n": n})

    with carrying() as carried:
        assert carry(ledger._writer, insert(1))

        async def elsewhere() -> None:  # a task started inside writes for reasons of its own
            await ledger.awrite(insert(2))

        await asyncio.ensure_future(elsewhere())
        assert await ledger.arecord_decision(decision_row())
        await carried.release()
    assert len(began) == 2  # the other task's write, then the decision carrying the held one
    with carrying() as carried:
        assert carry(ledger._writer, insert(3))
        await carried.release()  # nothing came to carry it: written on its own
    assert not carry(ledger._writer, insert(4))  # outside: the caller writes it itself
    with ledger.engine.connect() as conn:
        assert sorted(r[0] for r in conn.execute(text("SELECT n FROM t"))) == [1, 2, 3]
    ledger.close()


async def test_a_carried_write_is_not_durable_without_the_write_that_carries_it(tmp_path: Path) -> None:
    from gate.ledger.writer import carry, carrying

    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    await ledger.awrite(lambda conn: conn.execute(text("CREATE TABLE t (n INTEGER)")))

    def fails(conn: Connection) -> None:
        raise RuntimeError("the decision could not be written")

    with carrying() as carried:
        carry(ledger._writer, lambda conn: conn.execute(text("INSERT INTO t VALUES (1)")))
        with pytest.raises(RuntimeError, match="could not be written"):
            await ledger.awrite(fails)
        await carried.release()
    with ledger.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM t")).scalar_one() == 0
    ledger.close()


def _open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc")
async def test_a_process_that_opens_and_closes_many_gates_keeps_none_of_their_files_open(
    tmp_path: Path,
) -> None:
    """Each ledger and memory store takes a write-lock file beside its database; closing them
    closes it, so a process that opens many (a worker over many calls, a test suite) does not run
    out of file descriptors. The lock still works for whoever opens the same file again."""
    import gate
    from gate.memory.embedder import MiniLMEmbedder

    def one(n: int) -> tuple[Ledger, gate.LocalEngine]:
        home = tmp_path / f"home{n}"
        home.mkdir()
        ledger = Ledger(f"sqlite:///{home / 'ledger.db'}")
        engine = gate.LocalEngine(
            f"sqlite:///{home / 'memory.db'}", ledger, embedding_provider=MiniLMEmbedder()
        )
        return ledger, engine

    ledger, engine = one(0)
    ledger.record_decision(decision_row())
    # the sentence encoder opens its own files once, on its first use
    await engine.db.factual.add(
        "I'd like a table on Friday.", user_id="alice", confidence=0.9, source="user_stated"
    )
    await engine.aclose()
    ledger.close()
    before = _open_files()
    for n in range(1, 21):
        ledger, engine = one(n)
        ledger.record_decision(decision_row())
        await engine.db.factual.add(
            "I'd like a table on Friday.", user_id="alice", confidence=0.9, source="user_stated"
        )
        await engine.aclose()
        ledger.close()
    assert _open_files() <= before, os.listdir("/proc/self/fd")
    again = Ledger(f"sqlite:///{tmp_path / 'home20' / 'ledger.db'}")
    row = decision_row()
    again.record_decision(row)
    assert again.decision(row.id) is not None and again.verify().ok
    again.close()
