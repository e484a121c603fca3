"""``gate demo``: the worker's own agent, memory and tools, offline, on the embedded defaults.

Two calls of one caller through real text-mode AgentSessions, the real gate,
engine, ledger and example tools, in ``GATE_HOME`` (default ``./.gate-demo``).
The caller is scripted, and so is the model: a deterministic stand-in,
labelled as such, that calls a tool as soon as the caller asks (so every
question about an action is the gate's). The story is told as it happens:
each decision numbered as it is made, what the agent remembers at the start
of call 2, another customer's booking at the moment it lands; then the
run's audit table with a legend for every value in it, and the commands to
review it. Run it from the project checkout (it imports ``worker.py`` and
``tools/``).

Every run is a new story in the same home: a fresh system of record
(``business.db``), a caller of its own (``demo-alice-<run>``, so no memory or
rate limit carries over) and sessions named ``demo-<run>-...``. The ledger
keeps every run, hash-chained. The demo writes only into a ledger that holds
nothing but demo runs, and only into a home that is empty or was made by it:
``GATE_DATABASE_URL`` is ignored unless ``--database-url`` is given.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import os
import shlex
import sys
import uuid
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from livekit.agents import AgentSession
from livekit.agents.llm import ChatContext, ChatMessage, FunctionCall, FunctionCallOutput
from livekit.agents.voice.run_result import RunResult
from rich.console import Console
from rich.table import Table
from rich.text import Text

from gate.caller import Caller
from gate.cli.common import DEMO_HOME
from gate.config import GateSettings
from gate.errors import ConfigError
from gate.gate import Gate
from gate.ledger import Ledger
from gate.session import CONFIRM_TOOL
from gate.testing.llm import ScriptedLLM, Step, call, say

DEMO_PREFIX = "demo-"
MARKER = "gate-demo.txt"
DEFAULT_HOME = DEMO_HOME


def _project(root: Path | None) -> tuple[Any, Any]:
    """The worker module and the tools package of the project checkout."""
    base = (root or Path(os.environ.get("GATE_PROJECT", Path.cwd()))).resolve()
    if not (base / "worker.py").exists() or not (base / "tools").is_dir():
        raise ConfigError(f"gate demo runs from the project checkout (no worker.py and tools/ in {base})")
    if str(base) not in sys.path:
        sys.path.insert(0, str(base))
    return importlib.import_module("worker"), importlib.import_module("tools")


def claim_home(home: Path) -> None:
    """Make ``home`` the demo's, or refuse: it must be empty, missing, or made by an earlier run.

    Raises:
        ConfigError: ``home`` holds files the demo did not make.
    """
    if home.exists() and not home.is_dir():
        raise ConfigError(f"{home} is a file, not a directory for the demo's state")
    if home.is_dir() and any(home.iterdir()) and not (home / MARKER).exists():
        raise ConfigError(
            f"{home} holds files the demo did not make: run the demo in its own home "
            f"(unset GATE_HOME for ./{DEFAULT_HOME}, or pass --home DIR)"
        )
    home.mkdir(parents=True, exist_ok=True)
    (home / MARKER).write_text(
        "This directory holds gate demo runs. `gate demo` resets business.db here on every run.\n"
    )


def demo_runs(ledger: Ledger) -> int:
    """How many demo runs ``ledger`` holds.

    Raises:
        ConfigError: it holds a decision that is not from a demo run (the demo never
            writes next to real decisions: a hash-chained ledger cannot drop them again).
    """
    from sqlalchemy import distinct, func, or_, select

    from gate.ledger.tables import DecisionRow

    table = DecisionRow.__table__  # type: ignore[attr-defined]
    c = table.c
    with ledger.engine.connect() as conn:
        foreign = conn.execute(
            select(c.caller_id)
            .where(or_(~c.session_id.startswith(DEMO_PREFIX), ~c.caller_id.startswith(DEMO_PREFIX)))
            .limit(1)
        ).first()
        if foreign is not None:
            raise ConfigError(
                f"the ledger at {ledger.url} holds decisions that are not the demo's "
                f"(caller {foreign[0]}): the demo writes only into a ledger of its own "
                f"(run it without --database-url, with a fresh GATE_HOME)"
            )
        return int(conn.execute(select(func.count(distinct(c.caller_id)))).scalar_one())


def _question(chat_ctx: ChatContext) -> Step:
    """The model reads the gate's question out as it was put (the first line of the tool's answer)."""
    for item in reversed(chat_ctx.items):
        if isinstance(item, FunctionCallOutput):
            return say(item.output.splitlines()[0] if item.output else "")
    return say("")


def _greeting(chat_ctx: ChatContext) -> Step:
    """The model greets the caller with what the memory in its instructions says about their visit."""
    known = "\n".join(
        item.text_content or ""
        for item in chat_ctx.items
        if isinstance(item, ChatMessage) and item.role == "system"
    )
    if "Thursday" in known:
        return say("Welcome back! I see your visit is on Thursday. How can I help?")
    return say("Welcome! How can I help?")


def _arguments(raw: str) -> str:
    """A tool call's JSON arguments as the caller would read them: ``day="Thursday"``."""
    try:
        values = json.loads(raw or "{}")
    except ValueError:
        return raw
    if not isinstance(values, dict):
        return raw
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in values.items())


class _Call:
    """One call of the story: a real text-mode session through the worker's own agent."""

    def __init__(self, story: _Story, caller: Caller, session_id: str, title: str) -> None:
        self.story, self.title = story, title
        self.caller = caller
        self.model = ScriptedLLM()
        self.session: AgentSession[Any] = AgentSession(
            llm=self.model, vad=None, turn_handling={"turn_detection": None}
        )
        self.agent, self.bound = story.worker.build_call(story.g, caller, self.session, session_id=session_id)

    async def __aenter__(self) -> _Call:
        self.story.console.rule(self.title)
        await self.session.start(self.agent)
        await asyncio.wait_for(self.agent._ready.wait(), 5)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.session.aclose()

    def memory(self) -> list[str]:
        """What the agent's instructions hold about the caller at the start of this call."""
        instructions = self.agent.instructions or ""
        return [line[2:] for line in instructions.splitlines() if line.startswith("- (")]

    async def turn(self, words: str, *steps: Any) -> RunResult[Any]:
        say_ = self.story.say
        say_("caller", words, "cyan")
        self.model.add(*steps)
        result: RunResult[Any] = await self.session.run(user_input=words)
        decided = iter(self.story.new_decisions(self.caller.id))
        for ev in result.events:
            item = ev.item
            if isinstance(item, FunctionCall):
                say_("model", f"calls {item.name}({_arguments(item.arguments)})", "dim")
            elif isinstance(item, FunctionCallOutput):
                answer = item.output.splitlines()[0] if item.output else ""
                number = next(decided, None)
                tag = f"[{number[0]}] {number[1].outcome} ({number[1].rule}): " if number else ""
                say_("gate", f"{tag}{answer}", "yellow")
            elif isinstance(item, ChatMessage):
                say_("agent", item.text_content or "", "green")
        return result


class _Story:
    """The two calls, told as they happen, with each decision numbered as it is made."""

    def __init__(self, console: Console, worker: Any, g: Gate, business: Any) -> None:
        self.console, self.worker, self.g, self.business = console, worker, g, business
        self.numbered: list[Any] = []

    def say(self, who: str, text: str, style: str) -> None:
        """One line of the story: who, then what, wrapped under itself."""
        grid = Table.grid(padding=(0, 1))
        grid.add_column(width=9, no_wrap=True, style=f"bold {style}" if style != "dim" else "dim")
        grid.add_column(ratio=1, style="dim" if style == "dim" else "")
        grid.add_row(who, Text(text))
        self.console.print(grid)

    def new_decisions(self, caller_id: str) -> list[tuple[int, Any]]:
        """The decisions made since the last look, numbered in the order they were made."""
        known = {d.id for d in self.numbered}
        fresh = [d for d in self.g.ledger.decisions(caller_id=caller_id) if d.id not in known]
        fresh.sort(key=lambda d: d.created_at)
        out = []
        for d in fresh:
            self.numbered.append(d)
            out.append((len(self.numbered), d))
        return out


@dataclass(frozen=True)
class Outcome:
    """What one run did: what did not come out as designed, and a decision worth opening."""

    problems: list[str]
    showcase: str | None


async def _run(console: Console, home: Path, database_url: str | None, root: Path | None) -> Outcome:
    from gate.backends.local import LocalEngine
    from gate.memory.embedder import MiniLMEmbedder
    from gate.memory.local import LocalMemory

    worker, tools = _project(root)
    claim_home(home)
    settings = GateSettings(
        home=home,
        database_url=database_url,
        policies=Path(worker.ROOT) / "policies",
        memory="local",
        embedder="minilm",
    )
    ledger = Ledger(settings.ledger_url())
    try:
        run = demo_runs(ledger) + 1
    except ConfigError:
        ledger.close()
        raise
    alice = Caller(f"{DEMO_PREFIX}alice-{run}", verified=True, roles=frozenset({"customer"}))
    tag = f"{DEMO_PREFIX}{run}-{uuid.uuid4().hex[:6]}"

    for stale in home.glob("business.db*"):  # a fresh system of record: every run is a new story
        stale.unlink()
    business = tools.Business(home)
    tools.use_business(business)
    business.add_order("A-1001", alice.id, 300.0)
    # The demo is offline whatever the environment says: embedded engine and memory, no Cloud key.
    backend = LocalEngine(settings.memory_url(), ledger, embedding_provider=MiniLMEmbedder())
    g = Gate(
        tools.TOOLS,
        settings=settings,
        policies=settings.policies,
        ledger=ledger,
        backend=backend,
        memory=LocalMemory(backend),
    )
    try:
        return await _tell(_Story(console, worker, g, business), alice, run, tag)
    finally:
        await g.aclose()


async def _tell(story: _Story, alice: Caller, run: int, tag: str) -> Outcome:
    """The two calls, the audit of this run and whether everything came out as designed."""
    console, g, business = story.console, story.g, story.business
    await g.warm()
    console.print(
        Text.assemble(
            ("gate demo", "bold"),
            f", run {run}: two calls of one caller through the example worker's own agent, with the "
            "real gate, memory engine, audit ledger and example tools (a visits calendar, an order "
            "book). The caller and the model are deterministic scripts (no LLM, no network); the "
            "model calls a tool as soon as the caller asks, as a well-behaved agent does, so every "
            "question about an action is the gate's.",
        )
    )
    console.print(
        Text(
            f"{alice.id} is a verified customer with order A-1001 (300). The policies: book_visit acts "
            "when the caller asked for the visit and said its day, and asks otherwise; issue_refund "
            "always asks, and refuses more than 200.",
            style="dim",
        )
    )

    async with _Call(story, alice, f"{tag}-call-1", f"call 1: {alice.id}") as c1:
        await c1.turn(
            "Hi, I'd like my visit on Thursday please.", call("book_visit", day="Thursday"), _question
        )
        await c1.turn(
            "Also refund 500 on order A-1001.",
            call("issue_refund", order_id="A-1001", amount=500),
            say("I can't refund that much on this call; the most I can do is 200."),
        )

    async with _Call(story, alice, f"{tag}-call-2", "call 2: the next day, the same caller") as c2:
        remembered = c2.memory()
        story.say(
            "memory", "the agent starts this call knowing:" if remembered else "nothing known", "magenta"
        )
        for line in remembered[:4]:
            story.say("", line, "dim")
        knows = await c2.turn("Hello again.", _greeting)
        greeted = any(
            isinstance(e.item, ChatMessage) and "Thursday" in (e.item.text_content or "")
            for e in knows.events
        )
        # The caller names no day; the model picks one, so the gate asks before booking it.
        await c2.turn(
            "Could I have a second visit this week? Any day you have free.",
            call("book_visit", day="Friday"),
            _question,
        )
        version = business.slot("Friday").version
        business_take(business, "Friday", "bob")
        story.say(
            "meanwhile",
            f"another customer, bob, books Friday in the calendar directly (the slot's version "
            f"{version} -> {version + 1}), before {alice.id} answers",
            "red",
        )
        await c2.turn(
            "Yes.",
            call(CONFIRM_TOOL),
            say("Sorry, Friday was just taken by someone else, so I did not book it."),
        )
        await c2.turn(
            "Then please refund 40 on order A-1001.",
            call("issue_refund", order_id="A-1001", amount=40),
            _question,
        )
        await c2.turn("Yes, go ahead.", call(CONFIRM_TOOL), say("Refunded 40 on A-1001."))

    await g.outbox.drain(reconcile_grace_s=None)
    mine = list(story.numbered)
    from gate.cli.demo_audit import audit_rows, print_audit

    print_audit(console, audit_rows(mine, {r.decision_id: r for r in g.ledger.receipts()}))
    report = g.verify()
    console.print(
        f"chain: {'verified' if report.ok else 'BROKEN'} ({report.checked} entries, every run in this home)",
        markup=False,
    )
    order = business.order("A-1001")
    visits = {d: business.slot(d).booked_by for d in ("Thursday", "Friday")}
    problems = [
        *([] if report.ok else [f"the chain does not verify ({report.first_broken})"]),
        *([] if remembered and greeted else ["call 2 did not start knowing call 1"]),
        *(
            []
            if visits == {"Thursday": alice.id, "Friday": "bob"}
            else [f"visits booked by {visits}, not Thursday by {alice.id} and Friday by bob"]
        ),
        *(
            []
            if order is not None and order.refunded == 40
            else [f"order A-1001 refunded {order.refunded if order else None}, not 40"]
        ),
    ]
    refunds = [d.id for d in mine if d.tool == "issue_refund" and d.outcome == "act"]
    return Outcome(problems, refunds[-1] if refunds else (mine[-1].id if mine else None))


def business_take(business: Any, day: str, who: str) -> None:
    """Another caller books ``day`` directly in the system of record."""
    from sqlmodel import Session

    from tools.store import VisitSlot

    with Session(business.engine) as session:
        slot = session.get(VisitSlot, day)
        if slot is None:
            raise LookupError(f"no visit slot on {day}")
        slot.booked_by, slot.version = who, slot.version + 1
        session.add(slot)
        session.commit()


def review_commands(home: Path, database_url: str | None, decision_id: str | None) -> list[str]:
    """The commands that show what the demo did, ready to paste.

    They name the demo's ledger explicitly whenever the environment would
    point ``gate audit`` somewhere else (``GATE_DATABASE_URL`` set, or
    ``GATE_HOME`` naming another directory).
    """
    if database_url or os.environ.get("GATE_DATABASE_URL"):
        url = database_url or f"sqlite:///{(home / 'ledger.db').resolve()}"
        prefix, suffix = "", f" --database-url {shlex.quote(url)}"
    else:
        env_home = os.environ.get("GATE_HOME")
        same = env_home is not None and Path(env_home).resolve() == home.resolve()
        prefix, suffix = ("" if same else f"GATE_HOME={shlex.quote(str(home))} "), ""
    show = decision_id or "<decision id>"
    return [
        f"{prefix}gate audit list{suffix}",
        f"{prefix}gate audit show {show}{suffix}",
        f"{prefix}gate audit verify{suffix}",
        f"{prefix}gate audit serve{suffix}",
    ]


def home_for(home: Path | None) -> Path:
    """``--home``, else ``GATE_HOME``, else ``./.gate-demo``."""
    if home is not None:
        return home
    env = os.environ.get("GATE_HOME")
    return Path(env) if env else DEFAULT_HOME


def run_demo(home: Path | None = None, database_url: str | None = None, root: Path | None = None) -> int:
    """Run the demo; returns the exit code (0 when every step came out as designed).

    Raises:
        ConfigError: the home or the ledger holds something that is not the demo's,
            or it is not run from the project checkout.
    """
    target = home_for(home)
    console = Console(emoji=False, highlight=False)
    quiet = logging.getLogger("livekit")
    level = quiet.level
    # The conversation is the output: the framework's own warnings about a scripted model are noise.
    quiet.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcome = asyncio.run(_run(console, target, database_url, root))
    finally:
        quiet.setLevel(level)
    console.print("\nReview what the gate did (the list, one decision's whole story, the chain, a browser):")
    for line in review_commands(target, database_url, outcome.showcase):
        console.print(f"  {line}", markup=False, soft_wrap=True)  # never folded: it is pasted
    if outcome.problems:
        from gate.cli.common import err

        err.print(f"gate: the demo did not come out as designed: {'; '.join(outcome.problems)}")
        return 1
    return 0
