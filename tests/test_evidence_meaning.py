"""The trace's vectors: a text being embedded is embedded once, whoever asks for it meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

from gate.evidence import Meaning, Statement, from_match, trace


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


class BeginningEmbedder(SlowEmbedder):
    """Also takes texts at once (``begin``), as the gate's encoders do; records when it got them."""

    def begin(
        self, texts: list[str], *, urgent: bool = False, decision: bool = False
    ) -> Coroutine[Any, Any, list[list[float]]]:
        self.asked.append(list(texts))  # handed over now, before anyone awaits

        async def collect() -> list[list[float]]:
            await self.gate.wait()
            if self.failing:
                raise RuntimeError("encoder is down")
            return [[float(len(t)), 1.0] for t in texts]

        return collect()


async def test_texts_started_ahead_reach_the_model_at_once_and_a_decision_waits_for_them() -> None:
    """A decision's texts are handed to the model as it begins; the trace that needs them a moment
    later waits for that work and asks the model only for what is new."""
    embedder = BeginningEmbedder()
    meaning = Meaning(embedder)
    work = meaning.start(["ship order A-1001", "please ship order A-1001"])
    assert work is not None and embedder.asked == [["ship order A-1001", "please ship order A-1001"]]
    deciding = asyncio.create_task(meaning.prepare(["please ship order A-1001", "ship order"]))
    await asyncio.sleep(0)
    assert embedder.asked[1:] == [["ship order"]]
    embedder.gate.set()
    ready = await deciding
    assert ready.sim("please ship order A-1001", "please ship order A-1001") == pytest.approx(1.0)
    await work
    assert meaning.start(["ship order A-1001"]) is None  # known now: nothing to start


async def test_a_fault_of_work_started_ahead_is_met_by_the_decision() -> None:
    embedder = BeginningEmbedder()
    embedder.failing = True
    meaning = Meaning(embedder)
    work = meaning.start(["ship order A-1001"])
    deciding = asyncio.create_task(meaning.prepare(["ship order A-1001"]))
    await asyncio.sleep(0)
    embedder.gate.set()
    results = await asyncio.gather(work, deciding, return_exceptions=True)
    assert all(isinstance(r, RuntimeError) for r in results)


async def test_an_embedder_that_cannot_begin_ahead_starts_nothing() -> None:
    assert Meaning(SlowEmbedder()).start(["ship order A-1001"]) is None


class RecordingEmbedder:
    """MiniLM, recording every text it is asked to embed."""

    def __init__(self) -> None:
        from gate.memory.embedder import MiniLMEmbedder

        self.inner = MiniLMEmbedder()
        self.asked: list[str] = []

    async def embed(
        self, texts: list[str], *, urgent: bool = False, decision: bool = False
    ) -> list[list[float]]:
        self.asked += texts
        return await self.inner.embed(texts, urgent=urgent, decision=decision)


@pytest.mark.parametrize("wanted", ["A-1001", "A-1002", "INV-2207"])
async def test_other_identifiers_in_the_call_are_other_things_without_the_encoder(wanted: str) -> None:
    """Each order or invoice the caller named is its own request, and the decision for one of them
    sends none of the others' identifiers to the encoder (an identifier names one thing, not a
    kind: its words say nothing an encoder can compare)."""
    from gate.evidence.reading import base_texts, texts_for

    turns = [
        ("please ship order A-1001", "caller"),
        ("Sure.", "agent"),
        ("and ship order A-1002 as well", "caller"),
        ("Noted.", "agent"),
        ("also pay invoice INV-2207 please", "caller"),
    ]
    call = [Statement(text, who, 1000.0 + 10 * i, "call", turn=i) for i, (text, who) in enumerate(turns)]
    if wanted.startswith("INV"):
        request = from_match(f"pay invoice {wanted}", {"invoice": wanted})
    else:
        request = from_match(f"ship order {wanted}", {"order": wanted})
    embedder = RecordingEmbedder()
    prepared = await Meaning(embedder).prepare([*base_texts(request, call), *texts_for(request, call)])
    assert trace(request, call, prepared).verdict == "supported"
    others = {"a-1001", "a-1002", "inv-2207"} - {wanted.casefold()}
    things = {t for o in others for t in (o, f"order {o}", f"invoice {o}")}
    assert not [t for t in embedder.asked if t.casefold() in things]
