"""Decision-time reads and the embedder's thread: not queued behind the background work of saving."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from test_memory_index import add, ask, engine

from gate.memory import embedder as minilm
from gate.memory.index import MemoryIndex
from gate.memory.reader import StoreReader


async def test_reads_go_on_while_the_engine_holds_its_write_lock(tmp_path: Path) -> None:
    db = engine(tmp_path / "memory.db")
    index = MemoryIndex(db)
    await add(db, "ana", "i keep my bike in the shed")
    assert await ask(index, db, "ana", "where is my bicycle") == ["i keep my bike in the shed"]
    await add(db, "ana", "my sister lives in leeds")
    writer = sqlite3.connect(tmp_path / "memory.db", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another writer holds the file's write lock, uncommitted
    writer.execute("UPDATE memories SET content = content")
    try:
        found = await asyncio.wait_for(ask(index, db, "ana", "who lives in leeds", k=1), timeout=5)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert found == ["my sister lives in leeds"]
    index.reader.close()
    await db.close()


async def test_an_in_memory_store_is_read_on_the_engines_own_connection() -> None:
    db = engine(Path(":memory:"))
    index = MemoryIndex(db)
    await add(db, "bo", "my dog is called pepper")
    assert str(db._require_store()._path) == ":memory:"
    assert await ask(index, db, "bo", "what is my dog's name", k=1) == ["my dog is called pepper"]
    assert index.reader._pool is None  # no second connection: it could not see this database
    await db.close()


async def test_a_closed_reader_refuses_instead_of_opening_the_engine_again(tmp_path: Path) -> None:
    db = engine(tmp_path / "memory.db")
    reader = StoreReader(db)
    assert await reader.run(lambda conn: conn.execute("SELECT 1").fetchone()[0]) == 1
    reader.close()
    await db.close()
    with pytest.raises(RuntimeError, match="closed"):
        await reader.run(lambda conn: 1)
    assert db._store is None  # not reopened


async def test_a_failing_read_is_raised_and_the_next_one_works(tmp_path: Path) -> None:
    db = engine(tmp_path / "memory.db")
    reader = StoreReader(db)
    with pytest.raises(sqlite3.OperationalError):
        await reader.run(lambda conn: conn.execute("SELECT * FROM no_such_table").fetchall())
    assert await reader.run(lambda conn: conn.execute("SELECT 2").fetchone()[0]) == 2
    reader.close()
    await db.close()


def test_urgent_vectors_go_before_background_saves_and_waiting_requests_share_a_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    batches: list[list[str]] = []
    release = threading.Event()

    def fake(texts: list[str]) -> dict[str, list[float]]:
        batches.append(list(texts))
        if len(batches) == 1:
            release.wait(10)  # the model is busy while the others queue up
        return {t: [float(len(t))] for t in texts}

    monkeypatch.setattr(minilm, "_embed_now", fake)
    monkeypatch.setattr(minilm, "_CACHE", minilm._Recent(16))
    lane = minilm._Lane()
    first = lane.submit(["busy"], urgent=False)
    while not batches:
        threading.Event().wait(0.001)
    saves = [lane.submit([f"saved words {i}"], urgent=False) for i in range(12)]
    urgent = [lane.submit(["what the caller asked"], urgent=True), lane.submit(["a query"], urgent=True)]
    release.set()
    for f in [first, *saves, *urgent]:
        f.result(10)
    assert batches[1] == sorted(["what the caller asked", "a query"], key=len)  # together, and first
    background = [t for b in batches[2:] for t in b]
    assert sorted(background) == sorted(f"saved words {i}" for i in range(12))
    assert all(len(b) <= minilm._BACKGROUND_BATCH for b in batches[2:])
    assert urgent[0].result() == {"what the caller asked": [21.0]}


def test_a_failing_model_fails_its_batch_and_the_lane_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []

    def fake(texts: list[str]) -> dict[str, list[float]]:
        calls.append(texts)
        if len(calls) == 1:
            raise RuntimeError("model file unreadable")
        return {t: [1.0] for t in texts}

    monkeypatch.setattr(minilm, "_embed_now", fake)
    # The process's cache may hold these words from another test's real embedding.
    monkeypatch.setattr(minilm, "_CACHE", minilm._Recent(16))
    lane = minilm._Lane()
    with pytest.raises(RuntimeError, match="unreadable"):
        lane.submit(["one"], urgent=True).result(10)
    assert lane.submit(["two"], urgent=True).result(10) == {"two": [1.0]}


async def test_a_confirmation_being_recorded_is_embedded_ahead_of_background_saves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gate.backends.local import LocalEngine
    from gate.ledger import Ledger

    asked: list[tuple[tuple[str, ...], bool]] = []
    submit = minilm._LANE.submit

    def recording(texts: list[str], *, urgent: bool, tag: str | None = None) -> Any:
        asked.append((tuple(texts), urgent))
        return submit(texts, urgent=urgent, tag=tag)

    monkeypatch.setattr(minilm._LANE, "submit", recording)
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    service = LocalEngine(
        f"sqlite:///{tmp_path / 'memory.db'}", ledger, embedding_provider=minilm.MiniLMEmbedder()
    )
    try:
        words = "I confirm: refund 20 on order A-17 at 14:05."
        await service.remember("alice", words, source="user_stated", confidence=1.0, action_relevant=True)
        assert [urgent for texts, urgent in asked if words in texts] == [True]
    finally:
        await service.aclose()
        ledger.close()


async def test_a_closed_engine_refuses_instead_of_reopening_its_store(tmp_path: Path) -> None:
    """A save still running when a call ends must not open a connection nobody closes."""
    from gate.backends.local import LocalEngine
    from gate.ledger import Ledger
    from gate.memory.local import LocalMemory

    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    service = LocalEngine(f"sqlite:///{tmp_path / 'memory.db'}", ledger)
    memory = LocalMemory(service)
    await memory.save_exchange("alice", "My dog is called Rex.", "")
    await service.aclose()
    before = {t.ident for t in threading.enumerate()}
    with pytest.raises(RuntimeError, match="closed"):
        await memory.save_exchange("alice", "I moved to Leeds last spring.", "")
    with pytest.raises(RuntimeError, match="closed"):
        await service.remember("alice", "I confirm: refund 20.", source="user_stated", confidence=1.0)
    assert [t.name for t in threading.enumerate() if t.ident not in before and not t.daemon] == []
    ledger.close()


def _blocked_model(monkeypatch: pytest.MonkeyPatch, busy: str) -> tuple[list[list[str]], threading.Event]:
    """A fake model that holds its thread on ``busy`` until released; records each run."""
    runs: list[list[str]] = []
    release = threading.Event()

    def fake(texts: list[str]) -> dict[str, list[float]]:
        runs.append(list(texts))
        if busy in texts:
            release.wait(10)
        return {t: [float(len(t))] for t in texts}

    monkeypatch.setattr(minilm, "_embed_now", fake)
    return runs, release


def _until(condition: Any) -> None:
    for _ in range(10_000):
        if condition():
            return
        threading.Event().wait(0.001)
    raise AssertionError("never happened")


def test_a_lane_gives_up_one_callers_queued_saves_and_keeps_the_others_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs, release = _blocked_model(monkeypatch, "busy")
    lane = minilm._Lane()
    first = lane.submit(["busy"], urgent=False)
    _until(lambda: runs)
    anns = [lane.submit([f"ann said {i}"], urgent=False, tag="ann") for i in range(3)]
    bobs = [lane.submit(["bob said yes"], urgent=False, tag="bob"), lane.submit(["x"], urgent=False)]
    moved = lane.withdraw("bob")
    assert [r.texts for r in moved] == [["bob said yes"]]
    other = minilm._Lane("other")
    other.adopt(moved)
    assert bobs[0].result(10) == {"bob said yes": [12.0]}  # done while the first lane is still held
    release.set()
    for f in [first, *anns, bobs[1]]:
        f.result(10)
    assert [t for run in runs if "busy" not in run and "bob said yes" not in run for t in run] == [
        "ann said 0",
        "ann said 1",
        "ann said 2",
        "x",
    ]


async def test_a_save_its_caller_waits_for_does_not_wait_behind_replies_or_other_saves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gate.memory.saves import SaveTracker

    runs, release = _blocked_model(monkeypatch, "busy")
    monkeypatch.setattr(minilm, "_LANE", minilm._Lane())
    monkeypatch.setattr(minilm, "_DECISIONS", minilm._Lane("gate-embedder-decisions"))
    model = minilm.MiniLMEmbedder()
    saves = SaveTracker()
    busy = asyncio.ensure_future(model.embed(["busy"], urgent=True))  # a reply's text holds the thread
    await asyncio.to_thread(_until, lambda: runs)
    anns = [saves.spawn("ann", model.embed([f"ann said {i} (lane test)"])) for i in range(4)]

    async def bobs_save() -> None:
        await model.embed(["bob said yes (lane test)"])
        await asyncio.sleep(0.05)  # the save goes on: its next texts are hurried too
        await model.embed(["bob said cancel it (lane test)"])

    bob = saves.spawn("bob", bobs_save())
    await asyncio.sleep(0)  # every save has queued its words
    try:
        assert await saves.settled("bob", 10)  # while the shared thread is still held
        assert not any(a.done() for a in anns)
    finally:
        release.set()
    await asyncio.gather(busy, *anns, bob)
    assert saves.pending("ann") == 0


async def test_a_decisions_texts_never_wait_behind_replies_or_saves(monkeypatch: pytest.MonkeyPatch) -> None:
    runs, release = _blocked_model(monkeypatch, "busy")
    monkeypatch.setattr(minilm, "_LANE", minilm._Lane())
    monkeypatch.setattr(minilm, "_DECISIONS", minilm._Lane("gate-embedder-decisions"))
    model = minilm.MiniLMEmbedder()
    busy = asyncio.ensure_future(model.embed(["busy"], urgent=True))
    await asyncio.to_thread(_until, lambda: runs)
    reply = asyncio.ensure_future(model.embed(["what did I order (lane test)"], urgent=True))
    query = "refund order A-17 (lane test)"
    try:
        (vector,) = await asyncio.wait_for(model.embed([query], decision=True), 10)
        assert vector == [float(len(query))] and not reply.done()  # the shared thread is still held
    finally:
        release.set()
    await asyncio.gather(busy, reply)
