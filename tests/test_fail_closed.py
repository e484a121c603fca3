"""A decision service that is down or slow fails closed within the budget, with a receipt."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from livekit.agents import Agent, AgentSession

import gate
from gate.evidence import EvidenceSlot, ServiceDecision
from gate.memory.local import LocalMemory
from gate.testing.llm import ScriptedLLM, call, say
from tests.conftest import ALICE, POLICIES, Calendar, make_tools, receipts_by_decision


class Faulty:
    """Wraps the embedded engine and makes evaluations hang or fail on demand."""

    def __init__(self, inner: gate.LocalEngine, fault: str) -> None:
        self.inner, self.fault, self.name = inner, fault, "faulty"

    async def evaluate_action(
        self,
        partition: str,
        query: str,
        *,
        top_k: int = 5,
        slot: EvidenceSlot | None = None,
        match: Sequence[str] = (),
    ) -> ServiceDecision:
        if self.fault == "slow":
            await asyncio.sleep(30)
        if self.fault == "down":
            raise ConnectionError("decision service unreachable")
        return await self.inner.evaluate_action(partition, query, top_k=top_k, slot=slot, match=match)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.parametrize(("fault", "rule"), [("slow", "evidence.timeout"), ("down", "evidence.unavailable")])
async def test_service_fault_abstains_with_receipt(
    home: Path, calendar: Calendar, fault: str, rule: str
) -> None:
    gate.GateSettings().ensure_home()
    ledger = gate.Ledger(gate.GateSettings().ledger_url())
    engine = gate.LocalEngine(gate.GateSettings().memory_url(), ledger)
    await engine.remember("alice", "I'd like my visit on Thursday", source="user_stated", confidence=0.9)
    g = gate.Gate(
        make_tools(calendar),
        policies=POLICIES,
        ledger=ledger,
        backend=Faulty(engine, fault),
        memory=LocalMemory(engine),
    )
    llm = ScriptedLLM([call("book_visit", day="Thursday"), say("Sorry.")])
    session: AgentSession[Any] = AgentSession(llm=llm, vad=None, turn_handling={"turn_detection": None})
    await session.start(Agent(instructions="x", tools=g.tools_for(ALICE, session)))
    result = await session.run(user_input="Book Thursday.")
    (out,) = [e.item.output for e in result.events if e.type == "function_call_output"]
    assert out.startswith("I can't book Thursday on this call.")
    assert calendar.booked == {}
    (d,) = g.ledger.decisions()
    assert (d.outcome, d.rule, d.service_decision_id) == ("abstain", rule, None)
    receipt = receipts_by_decision(g)[d.id]
    assert receipt.status == "skipped"
    await session.aclose()
    await g.aclose()
