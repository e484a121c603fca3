"""Testing the agent the way gate's own tests do: a real text-mode session, a scripted model, the real gate.

Needs pytest and pytest-asyncio. The tests carry their own ``@pytest.mark.asyncio``
markers, so no configuration is needed; with ``asyncio_mode = "auto"`` in your
pytest settings the markers may be left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent import INSTRUCTIONS, ORDERS, build_gate, read_the_question
from livekit.agents import Agent, AgentSession

import gate
from gate.testing.llm import ScriptedLLM, call, say

ALICE = gate.Caller("alice", verified=True, roles=frozenset({"customer"}))


async def start(g: gate.Gate, model: ScriptedLLM) -> AgentSession[Any]:
    session: AgentSession[Any] = AgentSession(llm=model, vad=None, turn_handling={"turn_detection": None})
    await session.start(Agent(instructions=INSTRUCTIONS, tools=g.bind(ALICE, session).tools))
    return session


@pytest.mark.asyncio
async def test_a_refund_runs_only_after_the_callers_yes(tmp_path: Path) -> None:
    g = build_gate(tmp_path)
    model = ScriptedLLM([call("refund_order", order_id="A-1001", amount=40), read_the_question])
    session = await start(g, model)
    before = ORDERS.remaining["A-1001"]
    try:
        result = await session.run(user_input="Please refund 40 on order A-1001.")
        result.expect.contains_function_call(name="refund_order")
        assert ORDERS.remaining["A-1001"] == before  # asked, not done
        model.add(call(gate.CONFIRM_TOOL), say("Done."))
        await session.run(user_input="Yes, go ahead.")
        assert [d.outcome for d in g.ledger.decisions()] == ["ask", "act"]
        assert ORDERS.remaining["A-1001"] == before - 40
    finally:
        await session.aclose()
        await g.aclose()


@pytest.mark.asyncio
async def test_a_refund_above_the_limit_is_refused_without_asking(tmp_path: Path) -> None:
    g = build_gate(tmp_path)
    model = ScriptedLLM([call("refund_order", order_id="A-1001", amount=500), say("I can't do that.")])
    session = await start(g, model)
    try:
        await session.run(user_input="Refund 500 on order A-1001.")
        (decision,) = g.ledger.decisions()
        assert (decision.outcome, decision.rule) == ("abstain", "limits.amount.max")
    finally:
        await session.aclose()
        await g.aclose()
