"""The trace's vectors: a text being embedded is embedded once, whoever asks for it meanwhile."""

from __future__ import annotations

import asyncio

import pytest

from gate.evidence import Meaning


class SlowEmbedder:
    """Counts what it is asked; answers after ``gate`` opens; fails while ``failing``."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []
        self.gate = asyncio.Event()
        self.failing = False

    async def embed(
        self, texts: list[str], *, urgent: bool = False, decision: bool = False
    ) -> list[list[float]]:
        self.asked.append(list(texts))
        await self.gate.wait()
        if self.failing:
            raise RuntimeError("encoder is down")
        return [[float(len(t)), 1.0] for t in texts]


async def test_a_text_asked_for_while_it_is_embedded_is_embedded_once() -> None:
    embedder = SlowEmbedder()
    meaning = Meaning(embedder)
    first = asyncio.create_task(meaning.prepare(["book it for friday"]))
    await asyncio.sleep(0)
    second = asyncio.create_task(meaning.prepare(["book it for friday", "book a table"]))
    await asyncio.sleep(0)
    embedder.gate.set()
    one, two = await asyncio.gather(first, second)
    assert embedder.asked == [["book it for friday"], ["book a table"]]
    assert one.sim("book it for friday", "book it for friday") == pytest.approx(1.0)
    assert two.sim("book it for friday", "book it for friday") == pytest.approx(1.0)


async def test_a_decision_never_waits_behind_background_reading() -> None:
    """A turn read ahead in the background may sit behind other background work: a decision that
    needs the same words embeds them on its own lane instead of waiting for it."""
    embedder = SlowEmbedder()
    meaning = Meaning(embedder)
    ahead = asyncio.create_task(meaning.prepare(["book it for friday"], decision=False))
    await asyncio.sleep(0)
    deciding = asyncio.create_task(meaning.prepare(["book it for friday", "book a table"]))
    await asyncio.sleep(0)
    assert embedder.asked == [["book it for friday"], ["book it for friday", "book a table"]]
    embedder.gate.set()
    _, ready = await asyncio.gather(ahead, deciding)
    assert ready.sim("book a table", "book a table") == pytest.approx(1.0)


async def test_a_fault_of_the_first_asker_is_met_again_by_the_second_not_hidden() -> None:
    embedder = SlowEmbedder()
    embedder.failing = True
    meaning = Meaning(embedder)
    ahead = asyncio.create_task(meaning.prepare(["ship order A-1001"]))
    await asyncio.sleep(0)
    deciding = asyncio.create_task(meaning.prepare(["ship order A-1001"]))
    await asyncio.sleep(0)
    embedder.gate.set()
    results = await asyncio.gather(ahead, deciding, return_exceptions=True)
    assert all(isinstance(r, RuntimeError) for r in results)
    assert embedder.asked == [["ship order A-1001"], ["ship order A-1001"]]
    embedder.failing = False
    ready = await meaning.prepare(["ship order A-1001"])
    assert ready.sim("ship order A-1001", "ship order A-1001") == pytest.approx(1.0)
