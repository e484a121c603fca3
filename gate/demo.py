"""``gate demo``: one scripted call through the gate, offline, on the embedded defaults.

The caller and the model are both scripted (the model is a deterministic
stand-in, labelled as such); the session, the gate, the decision engine and
the ledger are the real ones, in a fresh ``GATE_HOME``.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
from livekit.agents import Agent, AgentSession
from livekit.agents.llm import ChatMessage, FunctionCall, FunctionCallOutput
from livekit.agents.voice.run_result import RunResult
from rich.console import Console
from rich.table import Table

from gate.caller import Caller
from gate.config import GateSettings
from gate.decorator import Action, Executed, State, gated_tool
from gate.errors import StaleState
from gate.gate import Gate
from gate.session import CONFIRM_TOOL
from gate.testing import ScriptedLLM, call, say

POLICIES = Path(__file__).parent / "demo_policies"


@dataclass
class Books:
    """The demo's calendar and orders, versioned, honouring idempotency keys."""

    visits: dict[str, str] = field(default_factory=dict)
    version: int = 1
    refunded: dict[str, float] = field(default_factory=dict)
    done: dict[str, str] = field(default_factory=dict)

    def book(self, day: str, who: str, expected: str | None, key: str) -> str:
        if key in self.done:
            return self.done[key]
        if expected is not None and str(self.version) != expected:
            raise StaleState("calendar changed")
        self.visits[day] = who
        self.version += 1
        self.done[key] = f"visit-{len(self.visits)}"
        return self.done[key]


def build_tools(books: Books) -> list[Any]:
    async def calendar_state() -> State:
        return State(version=books.version)

    @gated_tool(state=calendar_state)
    async def book_visit(day: str, action: Action) -> Executed:
        """Book a home visit on a weekday."""
        ref = books.book(day, action.caller.id, action.expected_version, action.idempotency_key)
        return Executed(f"Booked {day}.", external_ref=ref)

    @gated_tool
    async def issue_refund(order_id: str, amount: float, action: Action) -> Executed:
        """Refund part of an order."""
        books.refunded[order_id] = books.refunded.get(order_id, 0.0) + amount
        return Executed(f"Refunded {amount:g} on {order_id}.", external_ref=f"refund-{order_id}")

    return [book_visit, issue_refund]


async def _run(console: Console, home: Path) -> int:
    settings = GateSettings(home=home, policies=POLICIES)
    books = Books()
    g = Gate(build_tools(books), settings=settings, policies=POLICIES)
    alice = Caller("alice", verified=True, roles=frozenset({"customer"}))
    model = ScriptedLLM()
    session: AgentSession[Any] = AgentSession(llm=model, vad=None, turn_handling={"turn_detection": None})
    bound = g.bind(alice, session)
    await session.start(Agent(instructions="You are a home-services agent.", tools=bound.tools))
    console.print("[bold]gate demo[/bold]: the model is a deterministic script (no LLM), all else is real.\n")

    async def turn(words: str, *steps: Any, before: Any = None) -> None:
        console.print(f"[cyan]caller[/cyan]  {words}")
        if before is not None:
            await before
        model.add(*steps)
        result: RunResult[Any] = await session.run(user_input=words)
        for ev in result.events:
            item = ev.item
            if isinstance(item, FunctionCall):
                console.print(f"[dim]  tool   {item.name}({item.arguments})[/dim]")
            elif isinstance(item, FunctionCallOutput):
                first = item.output.splitlines()[0] if item.output else ""
                console.print(f"[dim]  gate   {'ERROR ' if item.is_error else ''}{first}[/dim]")
            elif isinstance(item, ChatMessage):
                console.print(f"[green]agent[/green]   {item.text_content}")

    # What the caller said is kept as their own, unconfirmed wish.
    await g.backend.remember("alice", "I'd like my visit on Thursday", source="user_stated", confidence=0.5)
    await turn(
        "I'd like my visit on Thursday, please book it.",
        call("book_visit", day="Thursday"),
        say("Just to confirm: book your visit on Thursday?"),
    )
    await turn("Yes please.", call(CONFIRM_TOOL), say("Done, you're booked for Thursday."))
    await turn(
        "Also refund 500 on order A-1001.",
        call("issue_refund", order_id="A-1001", amount=500),
        say("I can't refund that much on this call; the most is 200."),
    )
    await g.backend.remember("alice", "I'd like my visit on Friday", source="user_stated", confidence=0.5)
    await turn(
        "Actually, move it to Friday.",
        call("book_visit", day="Friday"),
        say("Just to confirm: book your visit on Friday?"),
    )
    books.visits["Friday"] = "bob"
    books.version += 1  # another caller books between the question and the yes
    await turn("Yes.", call(CONFIRM_TOOL), say("Friday was just taken, so I did not book it."))
    await g.backend.remember(
        "alice",
        "Please refund 40 on order A-1001",
        source="user_stated",
        confidence=0.5,
        action_relevant=True,
    )
    await turn(
        "Then refund 40 on A-1001.",
        call("issue_refund", order_id="A-1001", amount=40),
        say("Please confirm: refund 40 on order A-1001?"),
    )
    await turn("Yes, go ahead.", call(CONFIRM_TOOL), say("Refunded 40 on A-1001."))
    await session.aclose()

    table = Table(title="audit")
    for col in ("tool", "outcome", "rule", "receipt", "delivered"):
        table.add_column(col)
    receipts = {r.decision_id: r for r in g.ledger.receipts()}
    for d in g.ledger.decisions():
        r = receipts.get(d.id)
        delivered = "n/a" if r is None or r.service_decision_id is None else "yes" if r.delivered_at else "no"
        table.add_row(d.tool, d.outcome, d.rule, r.status if r else "-", delivered)
    console.print(table)
    report = g.verify()
    console.print(
        f"chain: {'verified' if report.ok else 'BROKEN'} ({report.checked} entries); ledger in {home}"
    )
    await g.aclose()
    ok = (
        report.ok
        and books.visits == {"Thursday": "alice", "Friday": "bob"}
        and books.refunded == {"A-1001": 40}
    )
    return 0 if ok else 1


def run_demo(home: Path | None = None) -> int:
    """Run the demo; returns the exit code (0 when every step came out as designed)."""
    logging.getLogger("livekit.agents").setLevel(logging.ERROR)
    saved = structlog.get_config()
    # The conversation is the output; per-decision log lines would drown it.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    target = home or Path(tempfile.mkdtemp(prefix="gate-demo-"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return asyncio.run(_run(Console(), target))
    finally:
        structlog.configure(**saved)
