"""What the model hears, and what the ledger keeps, when something fails around a decision.

The ledger refusing a receipt after the tool ran, reconciliation closing a
decision while its tool still runs, a barge-in while the gate decides, slow
or hung readers and services against the policy's budget, arguments that
cannot be stored, the ledger down before the decision, internal error text,
and exception names that are no error code. Each test drives the public API:
a real text-mode ``AgentSession`` with a scripted model where the model's
view matters, :meth:`gate.GateSession.call` where only the decision does.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import pytest
from livekit.agents import Agent, AgentSession
from livekit.agents.llm import ToolError
from pydantic import Field
from sqlalchemy.exc import OperationalError
from structlog.testing import capture_logs

import gate
from gate import Action, Caller, Executed, State, gated_tool
from gate.evidence import EvidenceSlot, ServiceDecision
from gate.memory.local import LocalMemory
from gate.outbox import Outbox
from gate.testing.contextdb import CloudDouble
from gate.testing.llm import ScriptedLLM, Step, call, say
from tests.conftest import cloud_engine, receipts_by_decision

ALICE = Caller("alice", verified=True, roles=frozenset({"customer"}))

POLICIES = {
    "book_visit.yaml": """
tool: book_visit
action: booking.create
caller: {verified: true}
evidence:
  query: "book a home visit on {day}"
  slot: {entity: caller, attribute: preferred_visit_day, value: "{day}"}
  required: true
confirm: when_unsure
limits:
  day: {allowed: [Monday, Tuesday, Wednesday, Thursday, Friday]}
timeout_s: 1.0
messages:
  ask: "Just to confirm: book your visit on {day}?"
  abstain: "I can't book {day} on this call."
  failure: "The booking system had a problem; {day} was not booked."
""",
    "add_note.yaml": """
tool: add_note
action: account.note
caller: {verified: true}
confirm: never
timeout_s: 1.0
messages:
  abstain: "I can't add that note."
  failure: "The notes system had a problem with {text}."
""",
    "transfer.yaml": """
tool: transfer
action: payment.transfer
caller: {verified: true}
evidence:
  query: "transfer {amount} to account {to_account}"
  required: false
confirm: always
timeout_s: 1.0
messages:
  ask: "Shall I transfer {amount} dollars to account {to_account}?"
  abstain: "I can't make that transfer on this call."
""",
}


@dataclass
class Office:
    """The systems the tools change, with switches for what goes wrong inside them."""

    booked: dict[str, str] = field(default_factory=dict)
    version: int = 1
    notes: list[str] = field(default_factory=list)
    transfers: list[tuple[float, str]] = field(default_factory=list)
    # Run inside the note tool, after its effect (e.g. the disk fills up, a drain runs).
    after_note: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    note_fails_with: Exception | None = None
    state_entered: asyncio.Event = field(default_factory=asyncio.Event)
    state_release: asyncio.Event | None = None  # the state reader waits for it when set


def make_tools(office: Office) -> list[gate.GatedTool]:
    async def read_calendar() -> State:
        office.state_entered.set()
        if office.state_release is not None:
            await office.state_release.wait()
        return State(version=office.version, value=dict(office.booked))

    @gated_tool(state=read_calendar)
    async def book_visit(
        day: Annotated[str, Field(description="weekday of the visit")], action: Action
    ) -> Executed:
        """Book a home visit on a weekday."""
        office.booked[day] = action.caller.id
        office.version += 1
        return Executed(f"Booked {day}.", external_ref=f"visit-{office.version}")

    @gated_tool
    async def add_note(text: str, action: Action) -> str:
        """Add a note to the caller's account."""
        if office.note_fails_with is not None:
            raise office.note_fails_with
        office.notes.append(text)
        for then in office.after_note:
            await then()
        return "Noted."

    @gated_tool
    async def transfer(amount: float, to_account: str, action: Action) -> str:
        """Transfer money to another account."""
        office.transfers.append((amount, to_account))
        return f"Transferred {amount:g} to {to_account}."

    return [book_visit, add_note, transfer]


@pytest.fixture
def policies(tmp_path: Path) -> Path:
    directory = tmp_path / "policies"
    directory.mkdir()
    for name, text in POLICIES.items():
        (directory / name).write_text(text.lstrip())
    return directory


@pytest.fixture
def office() -> Office:
    return Office()


@pytest.fixture
async def local_gate(home: Path, policies: Path, office: Office) -> AsyncIterator[gate.Gate]:
    g = gate.Gate(make_tools(office), policies=policies)
    await g.warm()
    yield g
    await g.aclose()


class Call:
    """One phone call: the caller's turns in, the scripted agent's replies out."""

    def __init__(self, g: gate.Gate, caller: Caller = ALICE) -> None:
        self.gate = g
        self.llm = ScriptedLLM()
        self.session: AgentSession[Any] = AgentSession(
            llm=self.llm, vad=None, turn_handling={"turn_detection": None}
        )
        self.bound = g.bind(caller, self.session)

    async def __aenter__(self) -> Call:
        await self.session.start(Agent(instructions="You help callers.", tools=self.bound.tools))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.session.aclose()

    async def turn(self, words: str, *steps: Step) -> list[tuple[str, bool]]:
        self.llm.add(*steps)
        result = await self.session.run(user_input=words)
        await self.bound.flush()
        return [(e.item.output, e.item.is_error) for e in result.events if e.type == "function_call_output"]


def disk_full() -> OperationalError:
    return OperationalError("COMMIT", {}, sqlite3.OperationalError("database or disk is full"))


class LedgerSwitch:
    """Makes one of the ledger's writes fail while ``failing`` (and counts the refusals)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, ledger: gate.Ledger, method: str) -> None:
        self.failing = True
        self.refused = 0
        real = getattr(ledger, method)

        async def switched(*args: Any, **kwargs: Any) -> Any:
            if self.failing:
                self.refused += 1
                raise disk_full()
            return await real(*args, **kwargs)

        monkeypatch.setattr(ledger, method, switched)


def warnings_in(logs: list[dict[str, Any]]) -> list[str]:
    return [e["event"] for e in logs if e["log_level"] == "warning"]


# -- 1. the tool ran, the ledger refused its receipt ------------------------------------------


async def test_a_receipt_refused_for_a_moment_is_retried_and_the_model_gets_the_result(
    local_gate: gate.Gate, office: Office, monkeypatch: pytest.MonkeyPatch
) -> None:
    switch = LedgerSwitch(monkeypatch, local_gate.ledger, "arecord_receipt")

    async def room_again() -> None:
        async def soon() -> None:
            await asyncio.sleep(0.2)  # a log rotated: the next try finds room
            switch.failing = False

        asyncio.get_running_loop().create_task(soon())

    office.after_note.append(room_again)
    async with Call(local_gate) as c:
        with capture_logs() as logs:
            outs = await c.turn(
                "Add a note: gate code 4411.", call("add_note", text="gate code 4411"), say("Done.")
            )
    assert outs == [("Noted.", False)]
    assert switch.refused >= 1
    (d,) = local_gate.ledger.decisions()
    assert receipts_by_decision(local_gate)[d.id].status == "succeeded"
    assert warnings_in(logs) == []  # written within the retries: nothing to warn about
    assert local_gate.pipeline.unwritten == 0


async def test_a_receipt_the_ledger_keeps_refusing_is_kept_and_the_action_never_runs_twice(
    local_gate: gate.Gate, office: Office, monkeypatch: pytest.MonkeyPatch
) -> None:
    local_gate.pipeline.receipt_retry_s = 0.3
    switch = LedgerSwitch(monkeypatch, local_gate.ledger, "arecord_receipt")
    switch.failing = False

    async def fill_the_disk() -> None:
        switch.failing = True

    office.after_note.append(fill_the_disk)
    async with Call(local_gate) as c:
        with capture_logs() as logs:
            # The model calls again, as it would after an error: the action must not run twice.
            outs = await c.turn(
                "Add a note: gate code 4411.",
                call("add_note", text="gate code 4411"),
                call("add_note", text="gate code 4411"),
                say("Done."),
            )
        assert outs == [("Noted.", False), ("Noted.", False)]
        assert office.notes == ["gate code 4411"]
        assert warnings_in(logs) == ["gate.receipt.deferred"]
        (deferred,) = [e for e in logs if e["event"] == "gate.receipt.deferred"]
        assert deferred["error"] == "OperationalError" and "disk is full" in deferred["detail"]
        (d,) = local_gate.ledger.decisions()
        assert d.id not in receipts_by_decision(local_gate)
        assert local_gate.pipeline.unwritten == 1

        # The disk has room again: the gate's next ledger write writes the kept receipt first.
        switch.failing = False
        office.after_note.clear()
        outs = await c.turn("And another: dog in the garden.", call("add_note", text="dog"), say("Done."))
    assert outs == [("Noted.", False)]
    receipts = receipts_by_decision(local_gate)
    assert {receipts[d.id].status for d in local_gate.ledger.decisions()} == {"succeeded"}
    assert len(receipts) == 2 and local_gate.pipeline.unwritten == 0
    assert local_gate.verify().ok


async def test_a_kept_receipt_is_written_by_aclose(
    home: Path, policies: Path, office: Office, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = gate.Gate(make_tools(office), policies=policies)
    await g.warm()
    g.pipeline.receipt_retry_s = 0.2
    switch = LedgerSwitch(monkeypatch, g.ledger, "arecord_receipt")
    switch.failing = False

    async def fill_the_disk() -> None:
        switch.failing = True

    office.after_note.append(fill_the_disk)
    session = g.bind(ALICE)
    tool = next(t for t in g.tools if t.name == "add_note")
    assert await session.call(tool, {"text": "gate code 4411"}, None) == "Noted."
    assert g.pipeline.unwritten == 1
    switch.failing = False
    url = g.ledger.url
    await g.aclose()
    ledger = gate.Ledger(url, create=False)
    try:
        (d,) = ledger.decisions()
        receipt = ledger.receipt_for(d.id)
        assert receipt is not None and receipt.status == "succeeded"
        assert ledger.verify().ok
    finally:
        ledger.close()


# -- 2. reconciliation closed the decision while its tool was running ---------------------------


async def test_a_decision_reconciled_while_its_tool_ran_gives_the_real_result_and_a_warning(
    local_gate: gate.Gate, office: Office
) -> None:
    # `gate receipts drain --grace 0` in another process, while this call's tool runs.
    other = gate.Ledger(local_gate.ledger.url, create=False)
    drain = Outbox(other, local_gate.backend)

    async def drain_runs() -> None:
        await drain.reconcile(grace_s=0)

    office.after_note.append(drain_runs)
    try:
        async with Call(local_gate) as c:
            with capture_logs() as logs:
                outs = await c.turn("Add a note: gate code 4411.", call("add_note", text="x"), say("Done."))
    finally:
        other.close()
    assert outs == [("Noted.", False)]
    (closed,) = [e for e in logs if e["event"] == "gate.receipt.closed_by_reconciliation"]
    assert (closed["recorded"], closed["recorded_error_code"], closed["status"]) == (
        "failed",
        "outcome_unknown",
        "succeeded",
    )
    assert warnings_in(logs) == ["gate.receipt.closed_by_reconciliation"]
    (d,) = local_gate.ledger.decisions()
    assert receipts_by_decision(local_gate)[d.id].error_code == "outcome_unknown"
    assert local_gate.verify().ok


# -- 3. a barge-in while the gate decides -------------------------------------------------------


async def test_a_call_interrupted_while_deciding_does_not_run_and_is_closed_skipped(
    local_gate: gate.Gate, office: Office
) -> None:
    await local_gate.backend.remember(
        "alice", "I'd like my visit on Thursday", source="user_stated", confidence=0.9
    )
    office.state_release = asyncio.Event()
    async with Call(local_gate) as c:
        c.llm.add(call("book_visit", day="Thursday"), say("Okay."), say("Sure."))

        async def turn() -> Any:
            return await c.session.run(user_input="Book Thursday.")

        running = asyncio.create_task(turn())
        await asyncio.wait_for(office.state_entered.wait(), 5)
        interrupted = c.session.interrupt()  # the caller talks over the agent
        office.state_release.set()
        result = await asyncio.wait_for(running, 10)
        await asyncio.wait_for(interrupted, 5)
        outs = [(e.item.output, e.item.is_error) for e in result.events if e.type == "function_call_output"]
    assert outs and "interrupted" in outs[0][0] and not outs[0][1]
    assert office.booked == {}
    (d,) = local_gate.ledger.decisions()
    assert d.outcome == "act"
    assert receipts_by_decision(local_gate)[d.id].status == "skipped"


# -- 4. the policy's budget bounds the whole call ----------------------------------------------


async def test_a_hung_state_reader_abstains_within_the_budget(local_gate: gate.Gate, office: Office) -> None:
    office.state_release = asyncio.Event()  # never set: the reader hangs
    session = local_gate.bind(ALICE)
    tool = next(t for t in local_gate.tools if t.name == "book_visit")
    # The reader never returns: the call returning at all is the budget at work (the guard
    # only keeps a regression from hanging the suite).
    out = await asyncio.wait_for(session.call(tool, {"day": "Thursday"}, None), 30)
    assert "could not be read within 1s" in out
    (d,) = local_gate.ledger.decisions()
    assert (d.outcome, d.rule) == ("abstain", "state.unavailable")
    assert receipts_by_decision(local_gate)[d.id].status == "skipped"


async def test_after_the_yes_one_budget_covers_save_confirms_and_decision(
    home: Path, policies: Path, office: Office, double: CloudDouble
) -> None:
    g = gate.Gate(make_tools(office), policies=policies, backend=cloud_engine(double))
    await g.warm()
    try:
        async with Call(g) as c:
            (ask,) = await c.turn(
                "Send 40 to X-77.",
                call("transfer", amount=40, to_account="X-77"),
                say("Shall I transfer 40 dollars to account X-77?"),
            )
            assert "Shall I transfer 40" in ask[0]
            # Each answer well inside the 1 s budget; the save, its confirm and the decision are not.
            double.faults.delay_s = 0.45
            outs = await c.turn("Yes.", call(gate.CONFIRM_TOOL), say("Sorry."))
        double.faults.delay_s = 0.0
        assert office.transfers == []
        ((out, _),) = outs
        # With a budget per step each 0.45 s answer fits and the transfer ran; one budget for
        # the save, its confirm and the decision (1.35 s of answers) does not.
        assert "not done" in out.lower() or "nothing was done" in out
        last = g.ledger.decisions()[-1]
        assert (last.outcome, last.rule) in {
            ("abstain", "confirmation.unrecorded"),
            ("abstain", "evidence.timeout"),
        }
        assert receipts_by_decision(g)[last.id].status == "skipped"
    finally:
        await g.aclose()


async def test_a_slow_receipt_delivery_does_not_hold_the_reply(
    home: Path, policies: Path, office: Office, double: CloudDouble
) -> None:
    g = gate.Gate(make_tools(office), policies=policies, backend=cloud_engine(double))
    await g.warm()
    try:
        session = g.bind(ALICE)
        tool = next(t for t in g.tools if t.name == "add_note")
        double.faults.delay_s = 0.2  # the decision is quick enough ...
        double.faults.lose = 1  # ... but the receipt's answer never comes back in time
        double.faults.lost_for_s = 10
        double.faults.paths = ("/v1/receipts",)
        assert await session.call(tool, {"text": "gate code"}, None) == "Noted."
        # The reply came back while the delivery attempt was still out: none is recorded yet
        # (a reply that waited for it would find the failed attempt in the ledger).
        (d,) = g.ledger.decisions()
        written = g.ledger.receipt_for(d.id)
        assert written is not None and g.ledger.deliveries(written.id) == []
    finally:
        double.faults.delay_s = 0.0
        await g.aclose(flush_timeout_s=1)
    ledger = gate.Ledger(g.ledger.url, create=False)
    try:
        (d,) = ledger.decisions()
        receipt = ledger.receipt_for(d.id)
        assert receipt is not None and receipt.status == "succeeded"
        assert receipt.delivery_state == "pending"  # left for the drain, not dropped
    finally:
        ledger.close()


# -- 5. arguments that cannot be stored ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem", "stored"),
    [
        ("A\ud800-1", "an unpaired surrogate", "A\\ud800-1"),
        ("A\x00-1", "a NUL character", "A\\x00-1"),
    ],
)
async def test_arguments_that_cannot_be_stored_are_refused_and_recorded(
    local_gate: gate.Gate, office: Office, text: str, problem: str, stored: str
) -> None:
    session = local_gate.bind(ALICE)
    tool = next(t for t in local_gate.tools if t.name == "add_note")
    with pytest.raises(ToolError) as refused:
        await session.call(tool, {"text": text}, None)
    message = refused.value.message
    assert message.startswith(f"I can't add that note. (text contains {problem}")
    assert message.endswith("which cannot be stored; nothing was done)")
    assert office.notes == []
    (d,) = local_gate.ledger.decisions()
    assert (d.outcome, d.rule) == ("abstain", "arguments.invalid")
    assert json.loads(d.args_json) == {"text": stored}
    assert receipts_by_decision(local_gate)[d.id].status == "skipped"
    assert local_gate.verify().ok


# -- 6. the ledger cannot record the decision ------------------------------------------------------


async def test_a_ledger_that_cannot_record_the_decision_gives_a_plain_tool_error(
    local_gate: gate.Gate, office: Office, monkeypatch: pytest.MonkeyPatch
) -> None:
    LedgerSwitch(monkeypatch, local_gate.ledger, "arecord_decision")
    async with Call(local_gate) as c:
        with capture_logs() as logs:
            outs = await c.turn("Add a note: dog.", call("add_note", text="dog"), say("Sorry."))
    assert outs == [("The notes system had a problem with dog. (Nothing was done.)", True)]
    assert office.notes == []
    (failed,) = [e for e in logs if e["log_level"] == "warning"]
    assert failed["event"] == "gate.call.failed"
    assert failed["error"] == "OperationalError" and "disk is full" in failed["detail"]


@pytest.mark.parametrize("how", ["deleted", "replaced"])
async def test_a_ledger_file_deleted_or_replaced_under_the_process_refuses_every_write(
    home: Path, policies: Path, office: Office, how: str
) -> None:
    from gate.errors import LedgerGone

    g = gate.Gate(make_tools(office), policies=policies)
    path = Path(g.ledger.engine.url.database or "")
    async with Call(g) as c:
        assert await c.turn("Add a note: cat.", call("add_note", text="cat"), say("Done.")) == [
            ("Noted.", False)
        ]
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        if how == "replaced":
            path.write_bytes(b"")  # another file now at that path
        with capture_logs() as logs:
            outs = await c.turn("Add a note: dog.", call("add_note", text="dog"), say("Sorry."))
    assert outs == [("The notes system had a problem with dog. (Nothing was done.)", True)]
    assert office.notes == ["cat"]  # the second note never ran
    (failed,) = [e for e in logs if e["event"] == "gate.call.failed"]
    assert failed["error"] == "LedgerGone" and f"{path} was {how}" in failed["detail"]
    with pytest.raises(LedgerGone):  # closing says so too, after closing everything
        await g.aclose()
    if how == "deleted":
        assert not path.exists()  # no empty ledger made in its place


# -- 7. internal error text never reaches the model -------------------------------------------


class Broken:
    """The embedded engine, with evaluations that fail with an internal error's text."""

    def __init__(self, inner: gate.LocalEngine, error: Exception) -> None:
        self.inner, self.error, self.name = inner, error, "broken"

    async def evaluate_action(
        self,
        partition: str,
        query: str,
        *,
        top_k: int = 5,
        slot: EvidenceSlot | None = None,
        match: Sequence[str] = (),
    ) -> ServiceDecision:
        raise self.error

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.parametrize(
    "error",
    [
        TypeError("string indices must be integers"),
        OperationalError(
            "SELECT * FROM service_decisions", {}, sqlite3.OperationalError("database is locked")
        ),
    ],
)
async def test_internal_error_text_never_reaches_the_model(
    home: Path, policies: Path, office: Office, error: Exception
) -> None:
    gate.GateSettings().ensure_home()
    ledger = gate.Ledger(gate.GateSettings().ledger_url())
    engine = gate.LocalEngine(gate.GateSettings().memory_url(), ledger)
    g = gate.Gate(
        make_tools(office),
        policies=policies,
        ledger=ledger,
        backend=Broken(engine, error),
        memory=LocalMemory(engine),
    )
    try:
        async with Call(g) as c:
            ((out, _),) = await c.turn("Book Thursday.", call("book_visit", day="Thursday"), say("Sorry."))
        (d,) = g.ledger.decisions()
        assert (d.outcome, d.rule) == ("abstain", "evidence.unavailable")
        assert str(error).splitlines()[0][:20] in d.trace_json  # the ledger keeps what happened
    finally:
        await g.aclose()
    assert out == "I can't book Thursday on this call. (Not done: the decision service could not answer.)"


async def test_a_huge_argument_is_echoed_cut_short(local_gate: gate.Gate) -> None:
    async with Call(local_gate) as c:
        ((out, err),) = await c.turn("Book it.", call("book_visit", day="Monday" * 200_000), say("Sorry."))
    assert err and len(out) < 400
    assert f"I can't book {('Monday' * 14)[:79]}\u2026 on this call." in out


# -- 8. error codes the service and the ledger accept -------------------------------------------


class ZahlungsFehlerÄ(Exception):
    pass


LongName = type("E" + "x" * 150, (Exception,), {})


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (ZahlungsFehlerÄ("x"), "tool_error.ZahlungsFehlerA"),
        (LongName("x"), ("tool_error.E" + "x" * 150)[:64]),
    ],
)
async def test_an_exception_name_becomes_a_safe_error_code(
    home: Path, policies: Path, office: Office, double: CloudDouble, error: Exception, code: str
) -> None:
    g = gate.Gate(make_tools(office), policies=policies, backend=cloud_engine(double))
    await g.warm()
    office.note_fails_with = error
    try:
        session = g.bind(ALICE)
        tool = next(t for t in g.tools if t.name == "add_note")
        with pytest.raises(ToolError, match=r"The notes system had a problem with dog\."):
            await session.call(tool, {"text": "dog"}, None)
        await session.flush()  # the delivery goes on after the reply
        (d,) = g.ledger.decisions()
        receipt = receipts_by_decision(g)[d.id]
        assert receipt.error_code == code and len(code) <= 64
        assert receipt.delivery_state == "delivered"
        assert double.receipts[d.service_decision_id]["receipt"]["error_code"] == code
    finally:
        await g.aclose()


# -- a process that never closes its gate ---------------------------------------------------

_NEVER_CLOSED = """
import asyncio, logging, sys
import gate
from gate.config import GateSettings

logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

async def main() -> None:
    g = gate.Gate([], settings=GateSettings(home=sys.argv[1], embedder="mock"))
    await g.memory.remember("alice", "my cat is called miso", source="user_stated", confidence=0.9)
    print("remembered", flush=True)  # and no await g.aclose()

asyncio.run(main())
"""


def test_a_process_that_never_closes_its_gate_still_exits_and_keeps_what_it_wrote(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = tmp_path / "never_closed.py"
    script.write_text(_NEVER_CLOSED)
    home = tmp_path / "home"
    # The timeout only guards against a hang (which is what this used to do, for good).
    done = subprocess.run(
        [sys.executable, str(script), str(home)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "remembered", done.stderr
    assert "await Gate.aclose() before exit" in done.stderr

    async def read_back() -> list[str]:
        g = gate.Gate([], settings=gate.GateSettings(home=home, embedder="mock"))
        try:
            return [item.text for item in (await g.memory.snapshot("alice")).items]
        finally:
            await g.aclose()

    assert asyncio.run(read_back()) == ["my cat is called miso"]
