"""The same memory tests on every store (embedded engine, Cloud, Geniffy), and the Cloud contract."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import gate
from gate.cloud.backend import CloudEngine
from gate.memory.base import MemoryStore
from gate.memory.cloud import CloudMemory, split_content
from gate.memory.geniffy import GeniffyMemory
from gate.testing.contextdb import CloudDouble
from gate.testing.geniffy import GeniffyDouble
from tests.conftest import POLICIES, Calendar, cloud_engine, make_tools

KEY = re.compile(r"^[A-Za-z0-9._:\-]{8,128}$")


@pytest.fixture(params=["local", "cloud", "geniffy"])
async def store(request: pytest.FixtureRequest, home: Path, calendar: Calendar) -> AsyncIterator[MemoryStore]:
    if request.param == "local":
        the_gate = gate.Gate(make_tools(calendar), policies=POLICIES)
        yield the_gate.memory
        await the_gate.aclose()
    elif request.param == "cloud":
        engine = cloud_engine(CloudDouble())
        yield CloudMemory(engine)
        await engine.aclose()
    else:
        memory = GeniffyMemory(GeniffyDouble().client())
        yield memory
        await memory.aclose()


async def test_callers_never_see_each_other(store: MemoryStore) -> None:
    for i in range(8):
        await store.save_exchange(f"caller-{i}", f"My locker number is {1000 + i}.", "Noted.")
    for i in range(8):
        found = await store.recall(f"caller-{i}", "what is my locker number", top_k=10)
        numbers = {n for n in (str(1000 + j) for j in range(8)) if any(n in x.text for x in found.items)}
        assert numbers == {str(1000 + i)}, (store.name, i, numbers)
    erased = await store.forget("caller-3")
    assert erased.verified and erased.deleted >= 1
    assert (await store.recall("caller-3", "what is my locker number", top_k=10)).empty
    still = await store.recall("caller-4", "what is my locker number", top_k=10)
    assert any("1004" in x.text for x in still.items)


async def test_questions_greetings_and_filler_are_not_kept(store: MemoryStore) -> None:
    await store.save_exchange("kai", "hello there", "Hi! How can I help?")
    await store.save_exchange("kai", "which locker number did i give you", "Let me see.")
    await store.save_exchange("kai", "okay thanks", "You're welcome.")
    assert (await store.recall("kai", "locker number", top_k=10)).empty
    await store.save_exchange("kai", "um so my locker number is 3312", "Okay.")
    found = await store.recall("kai", "locker number", top_k=10)
    assert [(i.said_by, i.text) for i in found.items] == [("caller", "my locker number is 3312")]


async def test_the_agent_s_words_are_never_the_caller_s(store: MemoryStore) -> None:
    await store.save_exchange("lea", "", "Your locker booking is confirmed for locker 58.")
    await store.save_exchange("lea", "my locker code is 9021", "")
    found = await store.recall("lea", "locker booking code", top_k=10)
    by = {i.text: i.said_by for i in found.items}
    assert by.get("my locker code is 9021") == "caller"
    assert by.get("Your locker booking is confirmed for locker 58.", "agent") == "agent"


async def test_long_content_is_kept_whole(store: MemoryStore) -> None:
    sentences = [f"Locker note {i} says shelf {i} holds spare parts for the boiler." for i in range(160)]
    content = " ".join(sentences)
    assert len(content) > 9000
    await store.remember("mo", content, source="user_stated", confidence=0.9)
    found = await store.recall("mo", "locker note shelf spare parts boiler", top_k=10)
    kept = " ".join(i.text for i in found.items)
    assert all(s in kept for s in sentences), store.name
    assert all(len(i.text) <= 4000 for i in found.items) or store.name != "cloud"


async def test_forget_then_remember_again(store: MemoryStore) -> None:
    await store.save_exchange("pat+ops@example.com", "my locker number is 77", "Noted.")
    assert (await store.forget("pat+ops@example.com")).verified
    assert (await store.recall("pat+ops@example.com", "locker number", top_k=5)).empty
    await store.save_exchange("pat+ops@example.com", "my locker number is 78", "Noted.")
    found = await store.recall("pat+ops@example.com", "locker number", top_k=5)
    assert [i.text for i in found.items] == ["my locker number is 78"]


# -- the Cloud contract -------------------------------------------------------------------


class Recording:
    """The double's ASGI app, recording every Idempotency-Key it is sent."""

    def __init__(self, app: Any) -> None:
        self.app, self.keys = app, list[str]()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.keys += [v.decode() for k, v in scope["headers"] if k == b"idempotency-key"]
        await self.app(scope, receive, send)


@pytest.fixture
async def http(double: CloudDouble) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=double.app),
        base_url="http://contextdb.test",
        headers={"Authorization": "Bearer cdb_test_key"},
    ) as client:
        yield client


async def test_the_double_refuses_content_outside_1_to_4000(http: httpx.AsyncClient) -> None:
    body = {"user_id": "ann", "source": "user_stated"}
    for content in ("", "x" * 4001):
        r = await http.post("/v1/remember", json={**body, "content": content})
        assert r.status_code == 400 and r.json()["code"] == "invalid_request"
    assert (await http.post("/v1/remember", json={**body, "content": "x" * 4000})).status_code == 200


async def test_the_double_refuses_keys_outside_the_pattern(http: httpx.AsyncClient) -> None:
    raw = "forget-pat+ops@example.com"
    body = {"user_id": "pat+ops@example.com", "content": "my locker is 9", "source": "user_stated"}
    r = await http.post("/v1/remember", json=body, headers={"Idempotency-Key": raw})
    assert r.status_code == 400
    erase = {"user_id": "pat+ops@example.com", "erase_partition": True, "confirmation": "pat+ops@example.com"}
    assert (await http.post("/v1/forget", json=erase, headers={"Idempotency-Key": raw})).status_code == 400
    short = await http.post("/v1/forget", json=erase, headers={"Idempotency-Key": "short"})
    assert short.status_code == 400
    ok = await http.post("/v1/forget", json=erase, headers={"Idempotency-Key": "forget-0123456789abcdef"})
    assert ok.status_code == 200 and ok.json()["verified"] is True


async def test_the_double_recalls_one_partition_and_forgets_from_it(http: httpx.AsyncClient) -> None:
    async def remember(user: str, content: str) -> str:
        r = await http.post(
            "/v1/remember", json={"user_id": user, "content": content, "source": "user_stated"}
        )
        return str(r.json()["memory"]["id"])

    async def recalled(user: str, query: str) -> list[str]:
        r = await http.post("/v1/recall", json={"user_id": user, "query": query, "top_k": 10})
        return [m["content"] for m in r.json()["memories"]]

    gate_code = await remember("ann", "my gate code is 4471")
    await remember("ann", "my parcel goes to the side gate")
    await remember("bob", "my gate code is 9902")
    assert sorted(await recalled("ann", "gate code")) == [
        "my gate code is 4471",
        "my parcel goes to the side gate",
    ]
    one = {"user_id": "ann", "memory_id": gate_code}
    assert (await http.post("/v1/forget", json=one)).status_code == 200
    assert await recalled("ann", "gate code") == ["my parcel goes to the side gate"]
    assert (await http.post("/v1/forget", json={"user_id": "bob", "memory_id": gate_code})).status_code == 404
    erase = {"user_id": "ann", "erase_partition": True, "confirmation": "ann"}
    done = await http.post("/v1/forget", json=erase, headers={"Idempotency-Key": "erase-ann-0123456789"})
    assert done.json()["deleted"] == 1 and done.json()["verified"] is True
    assert await recalled("ann", "gate code") == []
    assert await recalled("bob", "gate code") == ["my gate code is 9902"]


async def test_cloud_memory_splits_long_content_and_never_puts_the_caller_id_in_a_key(
    double: CloudDouble,
) -> None:
    recording = Recording(double.app)
    transport = httpx.ASGITransport(app=recording)
    engine = CloudEngine("http://contextdb.test", "cdb_test_key", transport=transport)
    memory = CloudMemory(engine)
    who = "pat+ops@example.com"
    said = "of what the caller dictated about the extension plans."
    content = " ".join(f"Sentence {i} {said}" for i in range(150))
    assert len(content) > 9000
    await memory.remember(who, content, source="user_stated", confidence=0.5)
    await memory.save_exchange(who, "my side gate code is 4471", "Noted, the side gate code is on file.")
    stored = [m.content for m in double.memories.values() if m.user_id == who]
    assert len(stored) >= 5 and all(1 <= len(c) <= 4000 for c in stored)
    assert " ".join(stored[: len(stored) - 2]) == content  # the parts, in order, are the whole
    erased = await memory.forget(who)
    assert erased.verified and erased.deleted == len(stored)
    assert recording.keys and all(KEY.match(k) for k in recording.keys)
    assert not any(part in k for k in recording.keys for part in ("pat", "example", "ops"))
    await engine.aclose()


def test_split_content_keeps_every_character_in_order() -> None:
    words = ["word"] * 1500 + ["y" * 9000] + ["end."]
    content = " ".join(words)
    parts = split_content(content)
    assert all(1 <= len(p) <= 4000 for p in parts)
    assert "".join(parts).replace(" ", "") == content.replace(" ", "")
    assert split_content("short one.") == ["short one."]
    with pytest.raises(ValueError):
        split_content("   ")
