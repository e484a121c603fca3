"""Spoken confirmation through real text-mode sessions: only the caller's yes to the question they heard.

Each test drives a real ``AgentSession`` with a scripted model; the caller's
words are the user turns, the agent's words are the scripted replies the
caller hears. The tools and policies here are this file's own (a money
transfer, a visit cancellation, a table booking with versioned state, a plan
change and an invoice payment), so the checks do not lean on the demo's.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from livekit.agents import Agent, AgentSession
from livekit.agents.voice.io import AudioOutput, AudioOutputCapabilities

import gate
from gate import Action, Caller, Executed, StaleState, State, gated_tool
from gate.confirm.transcript import plays_transcript
from gate.testing.contextdb import CloudDouble
from gate.testing.llm import ScriptedLLM, Step, call, say
from tests.conftest import cloud_engine, receipts_by_decision

POLICIES = Path(__file__).parent / "policies_confirm"
PAT = Caller("pat", verified=True, roles=frozenset({"customer"}))


@dataclass
class Bank:
    """The systems the tools change: transfers, visits, tables (versioned), plans, invoices."""

    transfers: list[tuple[float, str]] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    tables: dict[str, str] = field(default_factory=dict)  # "day time" -> caller
    tables_version: int = 1
    plans: list[str] = field(default_factory=list)
    paid: list[str] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    after_state_read: list[Any] = field(default_factory=list)  # callables run once after a read
    state_reads: int = 0

    def take_table(self, slot: str, who: str) -> None:
        self.tables[slot] = who
        self.tables_version += 1


def make_tools(bank: Bank) -> list[gate.GatedTool]:
    @gated_tool
    async def transfer_funds(amount: float, to_account: str, action: Action) -> str:
        """Transfer money to another account."""
        bank.actions.append(action)
        bank.transfers.append((amount, to_account))
        return f"Transferred {amount:g} to {to_account}."

    @gated_tool
    async def cancel_visit(day: str, action: Action) -> str:
        """Cancel the caller's home visit on a weekday."""
        bank.cancelled.append(day)
        return f"Cancelled {day}."

    async def read_tables(day: str, time: str) -> State:
        bank.state_reads += 1
        slot = f"{day} {time}"
        taken = bank.tables.get(slot)
        state = State(
            version=bank.tables_version,
            value=dict(bank.tables),
            unavailable=f"the table on {slot} is already booked" if taken else None,
        )
        while bank.after_state_read:
            bank.after_state_read.pop(0)()
        return state

    @gated_tool(state=read_tables)
    async def book_table(day: str, time: str, action: Action) -> Executed:
        """Book a restaurant table."""
        bank.actions.append(action)
        if str(bank.tables_version) != action.expected_version:
            raise StaleState("tables moved")
        slot = f"{day} {time}"
        if slot in bank.tables:
            raise StaleState(f"{slot} is taken")
        bank.take_table(slot, action.caller.id)
        return Executed(f"Booked {slot}.", external_ref=f"table-{bank.tables_version}")

    @gated_tool
    async def change_plan(plan: str, action: Action) -> str:
        """Move the caller to another plan."""
        bank.plans.append(plan)
        return f"You are now on {plan}."

    @gated_tool
    async def pay_invoice(invoice: str, action: Action) -> str:
        """Pay one of the caller's invoices."""
        bank.paid.append(invoice)
        return f"Paid {invoice}."

    @gated_tool
    async def order_part(part: str, express: bool, action: Action) -> str:
        """Order a spare part, by express delivery or not."""
        bank.plans.append(f"{part} express={express}")
        return f"Ordered {part}."

    return [transfer_funds, cancel_visit, book_table, change_plan, pay_invoice, order_part]


@pytest.fixture
def bank() -> Bank:
    return Bank()


@pytest.fixture(params=["local", "cloud"])
async def the_gate(
    request: pytest.FixtureRequest, home: Path, bank: Bank, double: CloudDouble
) -> AsyncIterator[gate.Gate]:
    backend = cloud_engine(double) if request.param == "cloud" else None
    g = gate.Gate(make_tools(bank), policies=POLICIES, backend=backend)
    await g.warm()
    yield g
    await g.aclose()


@pytest.fixture
async def local_gate(home: Path, bank: Bank) -> AsyncIterator[gate.Gate]:
    g = gate.Gate(make_tools(bank), policies=POLICIES)
    await g.warm()
    yield g
    await g.aclose()


class Call:
    """One phone call: the caller's turns in, the scripted agent's replies out."""

    def __init__(self, g: gate.Gate, caller: Caller = PAT, language: str = "en") -> None:
        self.gate = g
        self.llm = ScriptedLLM()
        self.session: AgentSession[Any] = AgentSession(
            llm=self.llm, vad=None, turn_handling={"turn_detection": None}
        )
        self.bound = g.bind(caller, self.session, language=language)

    async def __aenter__(self) -> Call:
        await self.session.start(Agent(instructions="You help callers.", tools=self.bound.tools))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.session.aclose()

    async def turn(self, words: str, *steps: Any) -> list[tuple[str, bool]]:
        self.llm.add(*steps)
        result = await self.session.run(user_input=words)
        await self.bound.flush()
        return [(e.item.output, e.item.is_error) for e in result.events if e.type == "function_call_output"]


def confirm() -> Step:
    return call(gate.CONFIRM_TOOL)


async def ask_transfer(c: Call) -> None:
    """The caller asks for a transfer; the gate asks; the agent puts its question word for word."""
    await c.turn(
        "Send 900 to X-77.",
        call("transfer_funds", amount=900, to_account="X-77"),
        say("Shall I transfer 900 dollars to account X-77?"),
    )


# -- the question the caller heard ------------------------------------------------------


async def test_a_yes_to_another_question_confirms_nothing(local_gate: gate.Gate, bank: Bank) -> None:
    async with Call(local_gate) as c:
        await c.turn(
            "Send 900 to account X-77.",
            call("transfer_funds", amount=900, to_account="X-77"),
            say("Shall I transfer 900 dollars to account X-77?"),
        )
        await c.turn("What else can you do for me?", say("Would you like our monthly newsletter?"))
        ((out, err),) = await c.turn("Yes.", confirm(), say("Sorry."))
        assert err and "not to the pending question" in out
        assert "Shall I transfer 900 dollars to account X-77?" in out
        assert bank.transfers == []
        # Still pending: the agent puts the gate's question, and a yes to it counts.
        await c.turn("Okay.", say("So, shall I transfer 900 dollars to account X-77?"))
        outs = await c.turn("Yes.", confirm(), say("Done."))
        assert outs == [("Transferred 900 to X-77.", False)]
    assert bank.transfers == [(900, "X-77")]


@pytest.mark.parametrize(
    "relayed",
    [
        "Shall I transfer 50 dollars to account Y-12?",  # other amount and other account
        "Shall I transfer 900 dollars to account Y-12?",  # other account
        "Shall I transfer 9000 dollars to account X-77?",  # another amount sharing digits
        "Shall I go ahead with the transfer?",  # no details at all
        "Shall I transfer 900 dollars?",  # the account left out
    ],
)
async def test_a_yes_to_other_values_confirms_nothing(
    local_gate: gate.Gate, bank: Bank, relayed: str
) -> None:
    async with Call(local_gate) as c:
        await c.turn("Move some money.", call("transfer_funds", amount=900, to_account="X-77"), say(relayed))
        ((out, err),) = await c.turn("Yes.", confirm(), say("ok"))
    assert err and "nothing was done" in out
    assert bank.transfers == []
    # No decision was made on that yes, and the question is still waiting for a real answer.
    assert [d.outcome for d in local_gate.ledger.decisions()] == ["ask"]
    assert local_gate.ledger.live_confirmation(c.bound.id) is not None


@pytest.mark.parametrize(
    "restated",
    [
        "Just so I have it right: nine hundred dollars going to account x-77, yes?",
        "To confirm, $900.00 to X-77. Should I send it?",
        "You'd like 900 sent over to account X-77, is that right?",
    ],
)
async def test_the_question_restated_in_other_words_counts(
    local_gate: gate.Gate, bank: Bank, restated: str
) -> None:
    async with Call(local_gate) as c:
        await c.turn(
            "Send 900 to X-77.", call("transfer_funds", amount=900, to_account="X-77"), say(restated)
        )
        outs = await c.turn("yes", confirm(), say("Done."))
    assert outs == [("Transferred 900 to X-77.", False)]


async def test_a_side_question_then_the_question_again(local_gate: gate.Gate, bank: Bank) -> None:
    async with Call(local_gate) as c:
        await ask_transfer(c)
        await c.turn("Is there a fee?", say("There is no fee. So: 900 dollars to account X-77, shall I?"))
        outs = await c.turn("Yes please.", confirm(), say("Done."))
    assert outs == [("Transferred 900 to X-77.", False)]


async def test_asking_twice_still_confirms(local_gate: gate.Gate, bank: Bank) -> None:
    async with Call(local_gate) as c:
        await c.turn(
            "Cancel Thursday.",
            call("cancel_visit", day="Thursday"),
            say("Do you want me to cancel your visit on Thursday?"),
        )
        await c.turn("Sorry, what?", say("I asked: shall I cancel the Thursday visit?"))
        outs = await c.turn("Yes, cancel it.", confirm(), say("Cancelled."))
    assert outs == [("Cancelled Thursday.", False)]


async def test_a_flag_argument_need_not_be_spoken_as_a_value(local_gate: gate.Gate, bank: Bank) -> None:
    async with Call(local_gate) as c:
        await c.turn(
            "I need a new filter, fast.",
            call("order_part", part="filter F-20", express=True),
            say("Shall I order the filter F-20 by express delivery?"),
        )
        outs = await c.turn("yes please", confirm(), say("Ordered."))
    assert outs == [("Ordered filter F-20.", False)]


async def test_confirm_in_the_asking_turn_is_refused(local_gate: gate.Gate, bank: Bank) -> None:
    async with Call(local_gate) as c:
        outs = await c.turn(
            "Send 900 to X-77.",
            call("transfer_funds", amount=900, to_account="X-77"),
            confirm(),
            say("Done, they agreed."),
        )
    assert outs[1][1] is True and bank.transfers == []


# -- understanding the answer -------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "question", "answer"),
    [
        ("en", "Do you want me to cancel your visit on Thursday?", "Yes, cancel it."),
        ("en", "Do you want me to cancel your visit on Thursday?", "yes please cancel the thursday one"),
        ("en", "Do you want me to cancel your visit on Thursday?", "mm-hmm"),
        ("en", "Do you want me to cancel your visit on Thursday?", "No problem, go ahead."),
        (
            "en",
            "Do you want me to cancel your visit on Thursday?",
            "Yes please, and thank you so much for sorting all of this out for me today.",
        ),
        ("es", "¿Quiere que cancele su visita del jueves?", "sí, cancélela por favor"),
        ("fr", "Voulez-vous que j'annule votre visite de jeudi ?", "oui, allez-y"),
        ("de", "Soll ich Ihren Besuch am Donnerstag absagen?", "ja, bitte"),
    ],
)
async def test_plain_consent_is_a_yes(
    local_gate: gate.Gate, bank: Bank, language: str, question: str, answer: str
) -> None:
    async with Call(local_gate, language=language) as c:
        await c.turn("Thursday is off.", call("cancel_visit", day="Thursday"), say(question))
        outs = await c.turn(answer, confirm(), say("ok"))
    assert outs == [("Cancelled Thursday.", False)]


async def test_restating_the_pending_values_is_a_yes(local_gate: gate.Gate, bank: Bank) -> None:
    async with Call(local_gate) as c:
        await ask_transfer(c)
        outs = await c.turn("yes send the 900 dollars to x-77", confirm(), say("ok"))
    assert outs == [("Transferred 900 to X-77.", False)]


@pytest.mark.parametrize(
    ("answer", "still_pending"),
    [
        ("Yes, but make it 60 instead.", False),  # a change
        ("yes but to account Z-9", False),  # a new value
        ("No, wait.", None),  # a refusal or a hold: either way not a yes
        ("nope", False),
        ("uh-uh", False),
        ("yes, does that include a fee?", True),  # a yes followed by a question
        ("sure, one moment while I find my reading glasses", True),  # defers
        ("yes sweetie, dinner's nearly ready", True),  # addressed to someone else
        ("yes... actually no", None),  # self-correction
        ("yes, as long as it arrives by Monday", None),  # a condition
        ("yeah right, as if", None),  # sarcasm
    ],
)
async def test_answers_that_are_not_a_yes_do_nothing(
    local_gate: gate.Gate, bank: Bank, answer: str, still_pending: bool | None
) -> None:
    async with Call(local_gate) as c:
        await ask_transfer(c)
        ((out, err),) = await c.turn(answer, confirm(), say("ok"))
        assert err and "nothing was done" in out
        assert bank.transfers == []
        live = local_gate.ledger.live_confirmation(c.bound.id)
        if still_pending is not None:
            assert (live is not None) == still_pending
        if live is not None:
            await c.turn("Sorry.", say("Shall I transfer 900 dollars to account X-77?"))
            outs = await c.turn("Yes.", confirm(), say("Done."))
            assert outs == [("Transferred 900 to X-77.", False)]


# -- bound to the confirmed version -------------------------------------------------------------


async def test_a_writer_landing_after_the_recheck_fails_the_tools_compare_and_set(
    local_gate: gate.Gate, bank: Bank
) -> None:
    async with Call(local_gate) as c:
        await c.turn(
            "A table Friday at 7pm.",
            call("book_table", day="Friday", time="19:00"),
            say("Shall I book a table for Friday at 7 pm?"),
        )
        confirmed_version = str(bank.tables_version)
        # Another writer lands right after the state is read again on the caller's yes.
        bank.after_state_read.append(lambda: bank.take_table("Monday 12:00", "sam"))
        ((out, err),) = await c.turn("Yes.", confirm(), say("Sorry."))
    assert err and out == "That table was taken while we spoke, so I did not book it."
    assert "Friday 19:00" not in bank.tables
    (action,) = bank.actions
    assert action.expected_version == confirmed_version
    decision = local_gate.ledger.decision(action.decision_id)
    assert decision is not None and decision.confirmation_id is not None
    confirmation = local_gate.ledger.confirmation(decision.confirmation_id)
    assert confirmation is not None and confirmation.action_digest == decision.action_digest
    receipt = receipts_by_decision(local_gate)[decision.id]
    assert (receipt.status, receipt.error_code) == ("failed", "current_state_changed")


async def test_a_slot_taken_meanwhile_is_not_offered_again(local_gate: gate.Gate, bank: Bank) -> None:
    async with Call(local_gate) as c:
        await c.turn(
            "A table Friday at 7pm.",
            call("book_table", day="Friday", time="19:00"),
            say("Shall I book a table for Friday at 7 pm?"),
        )
        bank.take_table("Friday 19:00", "sam")
        ((out, err),) = await c.turn("Yes.", confirm(), say("Sorry, it's gone."))
    assert not err and "already booked" in out and "Shall I book" not in out
    assert bank.tables == {"Friday 19:00": "sam"}
    last = local_gate.ledger.decisions()[-1]
    assert (last.outcome, last.rule) == ("abstain", "state.conflict")
    assert local_gate.ledger.live_confirmation(c.bound.id) is None


async def test_the_state_moving_elsewhere_asks_again_with_the_new_version(
    local_gate: gate.Gate, bank: Bank
) -> None:
    async with Call(local_gate) as c:
        await c.turn(
            "A table Friday at 7pm.",
            call("book_table", day="Friday", time="19:00"),
            say("Shall I book a table for Friday at 7 pm?"),
        )
        bank.take_table("Monday 12:00", "sam")
        ((out, err),) = await c.turn("Yes.", confirm(), say("Shall I book a table for Friday at 7 pm?"))
        assert not err and "Shall I book a table for Friday at 19:00?" in out
        outs = await c.turn("Yes.", confirm(), say("Done."))
    assert outs == [("Booked Friday 19:00.", False)]
    assert bank.actions[-1].expected_version == "2"


# -- overlapping identical calls and the rate limit -------------------------------------------


async def test_identical_calls_in_one_step_execute_once(local_gate: gate.Gate, bank: Bank) -> None:
    twice = Step(calls=(("change_plan", {"plan": "Gold"}), ("change_plan", {"plan": "Gold"})))
    async with Call(local_gate) as c:
        outs = await c.turn("Gold plan please.", twice, say("Done."))
    assert outs == [("You are now on Gold.", False), ("You are now on Gold.", False)]
    assert bank.plans == ["Gold"]
    assert len(local_gate.ledger.decisions()) == 1


async def test_a_rate_of_one_holds_for_calls_deciding_at_once(local_gate: gate.Gate, bank: Bank) -> None:
    both = Step(calls=(("pay_invoice", {"invoice": "INV-1"}), ("pay_invoice", {"invoice": "INV-2"})))
    async with Call(local_gate) as c:
        outs = await c.turn("Pay both invoices.", both, say("ok"))
    assert len(bank.paid) == 1
    rules = sorted(d.rule for d in local_gate.ledger.decisions())
    assert rules[-1] == "rate" and len(rules) == 2
    assert any("Paid" in out for out, _ in outs)


async def test_a_count_taken_early_never_lets_an_action_past_its_rate(
    local_gate: gate.Gate, bank: Bank, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gate.pipeline import Prepared

    async def nothing_yet() -> int:
        return 0  # counted before the first payment landed

    def stale(*args: Any) -> Prepared:
        return Prepared(executed=asyncio.ensure_future(nothing_yet()))

    monkeypatch.setattr(local_gate.pipeline, "prepare", stale)
    async with Call(local_gate) as c:
        first = await c.turn("Pay invoice INV-1.", call("pay_invoice", invoice="INV-1"), say("ok"))
        second = await c.turn("And INV-2.", call("pay_invoice", invoice="INV-2"), say("ok"))
    assert bank.paid == ["INV-1"] and "Paid" in first[0][0] and "Paid" not in second[0][0]
    assert [d.rule for d in local_gate.ledger.decisions()][-1] == "rate"


# -- alignment that means something ----------------------------------------------------------


async def test_a_confirmed_action_closes_a_decision_the_service_answered_act(
    the_gate: gate.Gate, bank: Bank
) -> None:
    async with Call(the_gate) as c:
        await ask_transfer(c)
        outs = await c.turn("Yes, go ahead.", confirm(), say("Done."))
    assert outs == [("Transferred 900 to X-77.", False)]
    asked, acted = the_gate.ledger.decisions()
    receipts = receipts_by_decision(the_gate)
    assert receipts[asked.id].status == "skipped"
    assert receipts[acted.id].status == "succeeded"
    assert '"outcome":"act"' in acted.evidence_json
    assert {r.policy_alignment for r in receipts.values()} == {"aligned"}


async def test_policy_without_evidence_acts_despite_chit_chat(the_gate: gate.Gate, bank: Bank) -> None:
    await the_gate.backend.remember("pat", "My dog is called Rex", source="user_stated", confidence=0.5)
    async with Call(the_gate) as c:
        outs = await c.turn("Put me on the Gold plan.", call("change_plan", plan="Gold"), say("Done."))
    assert outs == [("You are now on Gold.", False)]
    (d,) = the_gate.ledger.decisions()
    assert d.outcome == "act"
    assert receipts_by_decision(the_gate)[d.id].policy_alignment == "aligned"


async def test_a_confirmation_the_service_cannot_record_runs_nothing(
    home: Path, bank: Bank, double: CloudDouble
) -> None:
    g = gate.Gate(make_tools(bank), policies=POLICIES, backend=cloud_engine(double))
    try:
        async with Call(g) as c:
            await c.turn(
                "Send 900 to X-77.",
                call("transfer_funds", amount=900, to_account="X-77"),
                say("Shall I transfer 900 dollars to account X-77?"),
            )
            double.faults.unavailable = 5
            double.faults.paths = ("/v1/remember",)
            ((out, err),) = await c.turn("Yes.", confirm(), say("Sorry."))
        assert err and "could not be recorded" in out
        assert bank.transfers == []
        last = g.ledger.decisions()[-1]
        assert (last.outcome, last.rule) == ("abstain", "confirmation.unrecorded")
        assert receipts_by_decision(g)[last.id].status == "skipped"
    finally:
        await g.aclose()


# -- arguments no limit can hold ----------------------------------------------------------------


@pytest.mark.parametrize("amount", [math.nan, math.inf, -math.inf])
async def test_non_finite_amounts_are_refused_and_recorded(
    local_gate: gate.Gate, bank: Bank, amount: float
) -> None:
    session = local_gate.bind(PAT)
    tool = next(t for t in local_gate.tools if t.name == "transfer_funds")
    with pytest.raises(Exception, match="finite number"):
        await session.call(tool, {"amount": amount, "to_account": "X-77"}, None)
    (d,) = local_gate.ledger.decisions()
    assert (d.outcome, d.rule) == ("abstain", "arguments.non_finite")
    assert receipts_by_decision(local_gate)[d.id].status == "skipped"
    assert bank.transfers == []


async def test_an_overlong_evidence_query_is_never_sent(local_gate: gate.Gate, bank: Bank) -> None:
    session = local_gate.bind(PAT)
    tool = next(t for t in local_gate.tools if t.name == "transfer_funds")
    await session.call(tool, {"amount": 10, "to_account": "X" * 2100}, None)
    (d,) = local_gate.ledger.decisions()
    assert (d.outcome, d.rule) == ("abstain", "evidence.query_too_long")
    assert "2000" in d.trace_json and d.service_decision_id is None


# -- a yes with a side question -------------------------------------------------------------------


async def test_a_yes_with_a_question_for_information_runs_and_hands_the_question_on(
    local_gate: gate.Gate, bank: Bank
) -> None:
    async with Call(local_gate) as c:
        await c.turn(
            "A table Friday at 7pm.",
            call("book_table", day="Friday", time="19:00"),
            say("Shall I book a table for Friday at 7 pm?"),
        )
        ((out, err),) = await c.turn(
            "Yes that's right. Is there parking close by?", confirm(), say("Booked.")
        )
    assert not err
    assert out.startswith("Booked Friday 19:00.")
    assert "The caller also asked: 'Is there parking close by?'. Answer their question." in out
    assert bank.tables == {"Friday 19:00": "pat"}
    # The model that answers next is given both: what was done, and the caller's question.
    shown = c.llm.seen[-1].items[-1]
    assert "Is there parking close by?" in str(getattr(shown, "output", ""))


@pytest.mark.parametrize(
    "answer",
    [
        "yes, is that refundable if I change my mind?",
        "ok but is there a fee for the transfer?",
        "yes, does it include the bank charges?",
    ],
)
async def test_a_yes_with_a_question_about_the_terms_holds_until_answered(
    local_gate: gate.Gate, bank: Bank, answer: str
) -> None:
    async with Call(local_gate) as c:
        await ask_transfer(c)
        ((out, err),) = await c.turn(answer, confirm(), say("Let me check."))
        assert err and "nothing was done" in out
        assert "Answer their question, then ask again: 'Shall I transfer 900 dollars to account X-77?'" in out
        assert bank.transfers == []
        assert local_gate.ledger.live_confirmation(c.bound.id) is not None
        await c.turn("Sure.", say("There is no fee. Shall I transfer 900 dollars to account X-77?"))
        outs = await c.turn("Yes please.", confirm(), say("Done."))
    assert outs == [("Transferred 900 to X-77.", False)]


async def test_a_restated_detail_said_the_other_way_round_declines(local_gate: gate.Gate, bank: Bank) -> None:
    async with Call(local_gate) as c:
        await c.turn(
            "A new filter please.",
            call("order_part", part="filter F-20", express=False),
            say("I'll order the filter F-20 without express delivery. Shall I?"),
        )
        ((out, err),) = await c.turn("I do want express delivery", confirm(), say("Sorry."))
    assert err and "wants something different" in out
    assert bank.plans == []
    assert local_gate.ledger.live_confirmation(c.bound.id) is None


async def test_a_pending_flag_said_the_other_way_round_declines(local_gate: gate.Gate, bank: Bank) -> None:
    # The question never says "express": the flag's own name is what the caller says back.
    async with Call(local_gate) as c:
        await c.turn(
            "A new filter please.",
            call("order_part", part="filter F-20", express=False),
            say("Shall I order the filter F-20?"),
        )
        ((out, err),) = await c.turn("yes by express please", confirm(), say("Sorry."))
    assert err and "wants something different" in out
    assert bank.plans == []


async def test_the_trace_keeps_the_answer_and_the_question_apart_from_the_rule(
    local_gate: gate.Gate, bank: Bank
) -> None:
    async with Call(local_gate) as c:
        await ask_transfer(c)
        await c.turn("Yep, go for it.", confirm(), say("Done."))
    acted = local_gate.ledger.decisions()[-1]
    notes = {n["rule"]: n for n in json.loads(acted.trace_json)}
    assert notes["confirmation.answer"] == {
        "rule": "confirmation.answer",
        "outcome": "act",
        "detail": "yes (answer.yes)",
        "words": "Yep, go for it.",
    }
    assert notes["confirmation.heard"]["words"] == "Shall I transfer 900 dollars to account X-77?"
    assert "900" not in notes["confirmation.heard"]["detail"]


# -- the call's clock ----------------------------------------------------------------------------


async def test_a_question_that_says_tomorrow_is_heard_for_tomorrow_s_date(home: Path, bank: Bank) -> None:
    now = datetime(2026, 5, 13, 9, 30, tzinfo=UTC)  # a Wednesday
    g = gate.Gate(make_tools(bank), policies=POLICIES, clock=lambda: now)
    await g.warm()
    try:
        async with Call(g) as c:
            await c.turn(
                "Cancel tomorrow's visit.",
                call("cancel_visit", day="2026-05-14"),
                say("Shall I cancel your visit tomorrow?"),
            )
            outs = await c.turn("yes please", confirm(), say("Done."))
            assert outs == [("Cancelled 2026-05-14.", False)]
            await c.turn(
                "And the one after.",
                call("cancel_visit", day="2026-05-20"),
                say("Shall I cancel your visit on Thursday?"),  # the 14th, not the 20th
            )
            ((out, err),) = await c.turn("yes", confirm(), say("Sorry."))
            assert err and "not to the pending question" in out
    finally:
        await g.aclose()
    assert bank.cancelled == ["2026-05-14"]


# -- barge-in --------------------------------------------------------------------------------


async def _spoken(text: str, delay: float) -> AsyncIterator[str]:
    for word in text.split(" "):
        yield word + " "
        await asyncio.sleep(delay)


async def _put_and_cut(c: Call, question: str, *, after_words: int) -> None:
    """The agent speaks ``question`` word by word; the caller cuts in after ``after_words`` words."""
    handle = c.session.say(_spoken(question, 0.05))
    await asyncio.sleep(0.05 * after_words - 0.02)
    handle.interrupt()
    await handle


async def test_a_yes_that_cut_the_question_off_before_its_values_confirms_nothing(
    local_gate: gate.Gate, bank: Bank
) -> None:
    async with Call(local_gate) as c:
        await c.turn(
            "Send 900 to X-77.", call("transfer_funds", amount=900, to_account="X-77"), say("One moment.")
        )
        await _put_and_cut(c, "Shall I transfer 900 dollars to account X-77?", after_words=4)
        heard = [m for m in c.session.history.items if getattr(m, "role", "") == "assistant"][-1]
        assert heard.interrupted and "X-77" not in (heard.text_content or "")  # what LiveKit kept
        ((out, err),) = await c.turn("yes", confirm(), say("Sorry."))
        # where the cut lands depends on the machine's pace (a busy one cuts before "900" too);
        # the account, said last, is never heard
        assert err and "interrupted it before hearing:" in out
        assert "to_account" in out.split("interrupted it before hearing:")[1].split(")")[0]
        assert bank.transfers == []
        assert local_gate.ledger.live_confirmation(c.bound.id) is not None
        # Cut off after every value was played, the question was heard.
        await _put_and_cut(
            c, "So: 900 dollars to account X-77, shall I go ahead and send it now?", after_words=6
        )
        outs = await c.turn("yes", confirm(), say("Done."))
    assert outs == [("Transferred 900 to X-77.", False)]


class _PlainAudio(AudioOutput):
    """An audio output with no transcript synchronizer (a host's own): it keeps no played text."""

    def __init__(self) -> None:
        super().__init__(label="plain", capabilities=AudioOutputCapabilities(pause=False))

    async def capture_frame(self, frame: Any) -> None:
        return None

    def flush(self) -> None:
        return None

    def clear_buffer(self) -> None:
        return None


async def test_without_a_transcript_synchronizer_an_interrupted_question_counts_for_nothing(
    local_gate: gate.Gate, bank: Bank
) -> None:
    async with Call(local_gate) as c:
        await c.turn(
            "Send 900 to X-77.", call("transfer_funds", amount=900, to_account="X-77"), say("One moment.")
        )
        await _put_and_cut(c, "Shall I transfer 900 dollars to account X-77? Go ahead?", after_words=9)
        c.session.output.audio = _PlainAudio()
        assert not plays_transcript(c.session)
        ((out, err),) = await c.turn("yes", confirm(), say("Sorry."))
        c.session.output.audio = None
        assert err and "what they heard of it is unknown" in out
    assert bank.transfers == []
    assert plays_transcript(c.session)
