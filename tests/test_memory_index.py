"""The per-caller vector index in front of the engine: ranking by meaning, freshness, bounds."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import contextdb
import pytest

from gate.memory.embedder import MiniLMEmbedder
from gate.memory.index import MemoryIndex


def engine(path: Path) -> Any:
    return contextdb.init(
        storage_url=f"sqlite:///{path}",
        embedding_provider=MiniLMEmbedder(),
        embedding_model="mock",
        embedding_dim=384,
        llm_model="mock",
        llm_api_key="mock",
        enable_salience=False,
        enable_read_audit=False,
        enable_auto_link=False,
    )


@pytest.fixture
async def two(tmp_path: Path) -> AsyncIterator[tuple[Any, Any]]:
    """Two clients over one database file, as two worker processes would hold."""
    a, b = engine(tmp_path / "memory.db"), engine(tmp_path / "memory.db")
    yield a, b
    await a.close()
    await b.close()


async def add(db: Any, who: str, text: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        item = await db.factual.add(text, source="user_stated", confidence=0.5, user_id=who)
    return str(item.id)


async def ask(index: MemoryIndex, db: Any, who: str, question: str, k: int = 3) -> list[str]:
    vector = await db._embedder.embed_query(question)
    hits = await index.search(who, vector, k)
    return [r.content for r in await index.get(who, [h.memory_id for h in hits])]


async def test_meaning_not_shared_words(two: tuple[Any, Any]) -> None:
    db, _ = two
    for text in [
        "the living room ceiling has a damp patch",
        "i like the kitchen painted white",
        "i like long walks",
        "i work as an electrician for the council",
    ]:
        await add(db, "ann", text)
    index = MemoryIndex(db)
    assert (await ask(index, db, "ann", "what do i do for a living", 1)) == [
        "i work as an electrician for the council"
    ]


async def test_writes_by_another_process_are_seen(two: tuple[Any, Any]) -> None:
    a, b = two
    await add(a, "ben", "my van is a blue ford transit")
    index = MemoryIndex(a)
    assert await ask(index, a, "ben", "what vehicle do i drive") == ["my van is a blue ford transit"]
    await add(b, "ben", "my daughter plays the violin")
    assert "my daughter plays the violin" in await ask(index, a, "ben", "does my child play music")
    await b.forget_user("ben")
    assert await ask(index, a, "ben", "what vehicle do i drive") == []


async def test_superseded_and_other_callers_memories_are_never_found(two: tuple[Any, Any]) -> None:
    db, _ = two
    old = await add(db, "cat", "my phone number is 0113 496 0000")
    new = await add(db, "cat", "my phone number is 0113 496 0999")
    await add(db, "dan", "my phone number is 0113 496 0555")
    store = db._require_store()
    async with store.mutation():
        await store.update(old, superseded_by=new, valid_until=contextdb.utc_now())
    index = MemoryIndex(db)
    assert await ask(index, db, "cat", "how can you ring me", 5) == ["my phone number is 0113 496 0999"]


async def test_the_loaded_rows_are_bounded(two: tuple[Any, Any]) -> None:
    db, _ = two
    for who in ("eve", "fay", "gus"):
        for i in range(3):
            await add(db, who, f"{who} keeps spare key number {i} in the shed")
    index = MemoryIndex(db, max_rows=4)
    for who in ("eve", "fay", "gus"):
        assert len(await ask(index, db, who, "where is a spare key", 5)) == 3
    assert index.loaded() == ["gus"]
    index.invalidate()
    assert len(await ask(index, db, "eve", "where is a spare key", 5)) == 3
