"""The caller's own request, recorded with the embedded decision service in one short transaction.

``LocalEngine.attest`` leaves what ``remember`` + ``confirm`` would leave (a
confirmed first-person memory, the pending memories confirmed, the engine's
audit entries) and the next evaluation of that very query answers ``act`` on
it; the memory's vector follows in the background.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import gate
import gate.backends.local as local
from gate.errors import ServiceError
from gate.evidence import EvidenceSlot
from gate.memory.embedder import MiniLMEmbedder

QUERY = "orders.place order A-17"
REQUEST = f"I request: {QUERY}."


@pytest.fixture(params=["minilm", "mock"])
async def engine(request: pytest.FixtureRequest, home: Path) -> AsyncIterator[gate.LocalEngine]:
    settings = gate.GateSettings()
    settings.ensure_home()
    ledger = gate.Ledger(settings.ledger_url())
    embedder = MiniLMEmbedder() if request.param == "minilm" else None
    opened = gate.LocalEngine(settings.memory_url(), ledger, embedding_provider=embedder)
    yield opened
    await opened.aclose()
    ledger.close()


def _rows(home: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(home / "memory.db") as conn:
        return conn.execute(sql).fetchall()


async def _settled(engine: gate.LocalEngine) -> None:
    while engine._filling:  # the attestations' vectors, made a moment later
        await asyncio.wait(set(engine._filling))


async def test_a_request_is_one_confirmed_memory_and_the_service_acts_on_it(
    engine: gate.LocalEngine, home: Path
) -> None:
    confirmed = await engine.attest("alice", REQUEST, query=QUERY)
    ((memory_id, confirmed_flag, confidence, source),) = _rows(
        home, "SELECT id, confirmed, confidence, epistemic_source FROM memories"
    )
    assert confirmed == [memory_id] and confirmed_flag == 1 and confidence >= 0.95
    assert source == "user_stated"
    decision = await engine.evaluate_action("alice", QUERY)
    assert decision.outcome == "act" and [m.id for m in decision.memories] == [memory_id]
    assert decision.decision_id.startswith("dec_")
    # Another caller's evaluation of the same words finds nothing of alice's.
    assert (await engine.evaluate_action("bob", QUERY)).outcome == "abstain"
    await _settled(engine)
    ((vector,),) = _rows(home, "SELECT embedding FROM memories")
    assert vector is not None
    ops = [op for (op,) in _rows(home, "SELECT operation FROM audit_log ORDER BY sequence")]
    assert ops == ["CREATE", "CONFIRM"]
    audit = engine.db.audit
    assert audit is not None and await audit.verify_chain()


async def test_something_said_after_the_request_is_judged_with_it(
    engine: gate.LocalEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local, "_FILL_AFTER_S", 30.0)
    monkeypatch.setattr(local, "_FILL_WAIT_S", 0.01)
    await engine.attest("alice", REQUEST, query=QUERY)
    # The caller speaks again before the vector of the request is made: the judgement
    # still sees the request.
    await engine.remember("alice", "my dog is called rex", source="user_stated", confidence=0.5)
    decision = await engine.evaluate_action("alice", QUERY)
    assert decision.outcome == "act"
    assert any(m.content == REQUEST for m in decision.memories)


async def test_pending_memories_are_confirmed_with_it_and_a_foreign_one_writes_nothing(
    engine: gate.LocalEngine, home: Path
) -> None:
    wish = await engine.remember(
        "alice", "please place order A-17", source="user_stated", confidence=0.5, action_relevant=True
    )
    bobs = await engine.remember("bob", "please place order B-2", source="user_stated", confidence=0.5)
    with pytest.raises(ServiceError) as refused:
        await engine.attest("alice", REQUEST, query=QUERY, pending=[bobs])
    assert refused.value.status == 404
    assert _rows(home, "SELECT count(*) FROM memories") == [(2,)]
    confirmed = await engine.attest("alice", REQUEST, query=QUERY, pending=[wish])
    assert confirmed[0] == wish and len(confirmed) == 2
    assert _rows(home, f"SELECT confirmed FROM memories WHERE id = '{wish}'") == [(1,)]


async def test_a_request_in_a_slot_keeps_the_slots_rules(engine: gate.LocalEngine, home: Path) -> None:
    await engine.remember("alice", "I'd like my visit on Monday", source="user_stated", confidence=0.9)
    query = "book a home visit on Thursday"
    await engine.attest(
        "alice", f"I confirm: {query}.", query=query, entity="caller", attribute="preferred_visit_day"
    )
    current = _rows(
        home,
        "SELECT content FROM memories WHERE attribute_key = 'preferred_visit_day' AND superseded_by IS NULL",
    )
    assert current == [(f"I confirm: {query}.",)]  # Monday was replaced, as the engine replaces it
    slot = EvidenceSlot("caller", "preferred_visit_day")
    decision = await engine.evaluate_action("alice", query, slot=slot, match={"day": "Thursday"})
    assert decision.outcome == "act"


async def test_a_gated_call_records_one_request_and_its_decision_with_the_service(home: Path) -> None:
    policies = home.parent / "policies"
    policies.mkdir()
    (policies / "place_order.yaml").write_text(
        "tool: place_order\naction: orders.place\ncaller: {verified: true}\nconfirm: never\n"
    )

    @gate.gated_tool
    async def place_order(order: str) -> str:
        """Place an order."""
        return f"placed {order}"

    g = gate.Gate([place_order], policies=policies)
    try:
        bound = g.bind(gate.Caller("alice", verified=True))
        assert await bound.call(place_order, {"order": "A-17"}, None) == "placed A-17"
        await bound.flush()
        (decision,) = g.ledger.decisions()
        (receipt,) = g.ledger.receipts()
        assert decision.service_decision_id is not None
        assert (receipt.status, receipt.policy_alignment) == ("succeeded", "aligned")
    finally:
        await g.aclose()
    assert _rows(home, "SELECT content, confirmed FROM memories") == [(REQUEST, 1)]
