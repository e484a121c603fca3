"""``gate demo``: the worker's own agent, memory and tools, offline, on the embedded defaults.

Two calls of the same caller through real text-mode AgentSessions, the real
gate, engine, ledger and example tools (their own SQLite files in a fresh
``GATE_HOME``). The caller is scripted, and so is the model: a deterministic
stand-in, labelled as such. Run it from the project checkout (it imports
``worker.py`` and ``tools/``).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import structlog
from livekit.agents import AgentSession
from livekit.agents.llm import ChatMessage, FunctionCall, FunctionCallOutput
from livekit.agents.voice.run_result import RunResult
from rich.console import Console
from rich.table import Table

from gate.caller import Caller
from gate.config import GateSettings
from gate.errors import ConfigError
from gate.gate import Gate
from gate.session import CONFIRM_TOOL
from gate.testing.llm import ScriptedLLM, call, say

ALICE = Caller("alice", verified=True, roles=frozenset({"customer"}))


def _project(root: Path | None) -> tuple[Any, Any]:
    """The worker module and the tools package of the project checkout."""
    base = (root or Path(os.environ.get("GATE_PROJECT", Path.cwd()))).resolve()
    if not (base / "worker.py").exists() or not (base / "tools").is_dir():
        raise ConfigError(f"gate demo runs from the project checkout (no worker.py and tools/ in {base})")
    if str(base) not in sys.path:
        sys.path.insert(0, str(base))
    return importlib.import_module("worker"), importlib.import_module("tools")


class _Call:
    def __init__(self, console: Console, worker: Any, g: Gate, caller: Caller, title: str) -> None:
        self.console, self.title = console, title
        self.model = ScriptedLLM()
        self.session: AgentSession[Any] = AgentSession(
            llm=self.model, vad=None, turn_handling={"turn_detection": None}
        )
        self.agent, self.bound = worker.build_call(g, caller, self.session)

    async def __aenter__(self) -> _Call:
        self.console.rule(self.title)
        await self.session.start(self.agent)
        await asyncio.wait_for(self.agent._ready.wait(), 5)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.session.aclose()

    async def turn(self, words: str, *steps: Any, between: Any = None) -> RunResult[Any]:
        self.console.print(f"[cyan]caller[/cyan]  {words}")
        if between is not None:
            between()
        self.model.add(*steps)
        result: RunResult[Any] = await self.session.run(user_input=words)
        for ev in result.events:
            item = ev.item
            if isinstance(item, FunctionCall):
                self.console.print(f"[dim]  tool   {item.name}({item.arguments})[/dim]", markup=True)
            elif isinstance(item, FunctionCallOutput):
                first = item.output.splitlines()[0] if item.output else ""
                self.console.print(
                    f"  gate   {'REFUSED ' if item.is_error else ''}{first}", style="dim", markup=False
                )
            elif isinstance(item, ChatMessage):
                self.console.print(f"[green]agent[/green]   {item.text_content}")
        return result


async def _run(console: Console, home: Path, root: Path | None) -> int:
    worker, tools = _project(root)
    business = tools.Business(home)
    tools.use_business(business)
    business.add_order("A-1001", "alice", 300.0)
    settings = GateSettings(home=home, policies=Path(worker.ROOT) / "policies")
    g = Gate(tools.TOOLS, settings=settings, policies=settings.policies)
    await g.warm()
    console.print(
        "[bold]gate demo[/bold]: real sessions, gate, memory engine, ledger and tools; "
        "the caller and the model are deterministic scripts (no LLM, no network)."
    )

    async with _Call(console, worker, g, ALICE, "call 1") as c1:
        await c1.turn("Hi, I'd like my visit on Thursday please.", say("Thursday works. Shall I book it?"))
        await c1.turn("Yes, book it.", call("book_visit", day="Thursday"), say("Just to confirm: Thursday?"))
        await c1.turn("Yes.", call(CONFIRM_TOOL), say("Done: your visit is booked for Thursday."))
        await c1.turn(
            "Also refund 500 on order A-1001.",
            call("issue_refund", order_id="A-1001", amount=500),
            say("I can't refund that much on this call; the most I can do is 200."),
        )

    async with _Call(console, worker, g, ALICE, "call 2, the next day") as c2:
        knows = "Thursday" in (c2.agent.instructions or "")
        console.print(f"[dim]  memory at the start of call 2 mentions Thursday: {knows}[/dim]")
        await c2.turn("Hello again.", say("Welcome back! Your visit is booked for Thursday. How can I help?"))
        await c2.turn("I'd like a second visit, on Friday.", say("Friday is possible. Shall I book it?"))
        await c2.turn("Yes please.", call("book_visit", day="Friday"), say("Just to confirm: Friday?"))

        def bob_takes_friday() -> None:
            business_take(business, "Friday", "bob")

        await c2.turn(
            "Yes.",
            call(CONFIRM_TOOL),
            say("Sorry, Friday was just taken by someone else, so I did not book it."),
            between=bob_takes_friday,
        )
        await c2.turn(
            "Then please refund 40 on order A-1001.",
            call("issue_refund", order_id="A-1001", amount=40),
            say("Please confirm: refund 40 on order A-1001?"),
        )
        await c2.turn("Yes, go ahead.", call(CONFIRM_TOOL), say("Refunded 40 on A-1001."))

    await g.outbox.drain(reconcile_grace_s=None)
    _audit(console, g)
    report = g.verify()
    console.print(
        f"chain: {'verified' if report.ok else 'BROKEN'} ({report.checked} entries); state in {home}"
    )
    order = business.order("A-1001")
    visits = {d: business.slot(d).booked_by for d in ("Thursday", "Friday")}
    await g.aclose()
    ok = (
        report.ok
        and knows
        and visits == {"Thursday": "alice", "Friday": "bob"}
        and order is not None
        and order.refunded == 40
    )
    return 0 if ok else 1


def business_take(business: Any, day: str, who: str) -> None:
    """Another caller books ``day`` directly in the system of record."""
    from sqlmodel import Session

    from tools.store import VisitSlot

    with Session(business.engine) as session:
        slot = session.get(VisitSlot, day)
        assert slot is not None
        slot.booked_by, slot.version = who, slot.version + 1
        session.add(slot)
        session.commit()


def _audit(console: Console, g: Gate) -> None:
    table = Table(title="audit")
    for col in ("tool", "outcome", "rule", "receipt", "reference", "alignment"):
        table.add_column(col)
    receipts = {r.decision_id: r for r in g.ledger.receipts()}
    for d in g.ledger.decisions():
        r = receipts.get(d.id)
        table.add_row(
            d.tool,
            d.outcome,
            d.rule,
            r.status if r else "-",
            (r.external_ref or "") if r else "",
            (r.policy_alignment or "local") if r else "-",
        )
    console.print(table)


def run_demo(home: Path | None = None, root: Path | None = None) -> int:
    """Run the demo; returns the exit code (0 when every step came out as designed)."""
    logging.getLogger("livekit.agents").setLevel(logging.ERROR)
    saved = structlog.get_config()
    # The conversation is the output; per-decision log lines would drown it.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING + 10))
    target = home or Path(tempfile.mkdtemp(prefix="gate-demo-"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return asyncio.run(_run(Console(), target, root))
    finally:
        structlog.configure(**saved)
