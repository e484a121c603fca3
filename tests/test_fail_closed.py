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


_LOCKED_STORE = """
import asyncio, sqlite3, sys, threading, time
import gate

@gate.gated_tool
async def place_order(order: str) -> str:
    \"\"\"Place the caller's order.\"\"\"
    return f"placed {order}"

def hold(path: str) -> None:  # another process's long write on the memory file
    conn = sqlite3.connect(path, timeout=5)
    conn.execute("BEGIN EXCLUSIVE")
    time.sleep(1.5)
    conn.rollback()
    conn.close()

async def main() -> None:
    g = gate.Gate([place_order], policies=sys.argv[1])
    if sys.argv[3] == "held":
        threading.Thread(target=hold, args=(sys.argv[2],), daemon=True).start()
        time.sleep(0.2)
    bound = g.bind(gate.Caller("alice", verified=True), session_id="s")
    try:
        for order in ("A-1", "A-2"):  # the second arrives while the first's opening is cut off
            print(await bound.call(place_order, {"order": order}, None))
    finally:
        await g.aclose()

asyncio.run(main())
print(sorted(t.name for t in threading.enumerate() if not t.daemon))
"""


def test_a_decision_cut_off_while_the_store_opens_leaves_the_process_free_to_exit(tmp_path: Path) -> None:
    """The memory file is held by another writer when the calls arrive: each decision runs out of
    its budget while the engine opens its store, and abstains. The process still exits by itself:
    the opening goes on past the callers' budgets (the second call waits for the same opening
    instead of starting another over it) and is closed with the gate, so no connection thread is
    left behind to keep the process alive."""
    import os
    import subprocess
    import sys

    home, policies = tmp_path / "home", tmp_path / "policies"
    policies.mkdir()
    (policies / "place_order.yaml").write_text(
        "tool: place_order\n"
        "action: orders.place\n"
        "caller: {verified: true}\n"
        "confirm: never\n"
        "timeout_s: 0.05\n"
        'messages: {abstain: "I can\'t place order {order} on this call."}\n'
    )
    home.mkdir()
    env = {**os.environ, "GATE_HOME": str(home), "GATE_EMBEDDER": "mock"}
    env.pop("GATE_DATABASE_URL", None)

    def run(how: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", _LOCKED_STORE, str(policies), str(home / "memory.db"), how],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    # A call before, so the memory file and its tables exist (whether its decisions meet the 50 ms
    # budget depends on how busy the machine is; only the file matters here).
    first = run("free")
    assert first.returncode == 0 and (home / "memory.db").exists(), first.stderr
    done = run("held")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "I can't place order A-1 on this call. (Not done: no answer within 0.05s.)"
    assert lines[1] == "I can't place order A-2 on this call. (Not done: no answer within 0.05s.)"
    assert lines[-1] == "['MainThread']"
