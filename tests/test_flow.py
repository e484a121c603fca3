"""The branches of a gated call, through a real AgentSession in text mode."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest
from livekit.agents import Agent, AgentSession
from structlog.testing import capture_logs

import gate
from gate import Caller
from gate.testing.llm import ScriptedLLM, call, say
from tests.conftest import ALICE, Calendar, receipts_by_decision


class Harness:
    def __init__(self, g: gate.Gate, caller: Caller) -> None:
        self.gate = g
        self.llm = ScriptedLLM()
        self.session: AgentSession[Any] = AgentSession(
            llm=self.llm, vad=None, turn_handling={"turn_detection": None}
        )
        self.bound = g.bind(caller, self.session)

    async def start(self) -> None:
        await self.session.start(Agent(instructions="You book visits.", tools=self.bound.tools))

    async def turn(self, words: str, *steps: Any) -> Any:
        self.llm.add(*steps)
        result = await self.session.run(user_input=words)
        await self.bound.flush()
        return result


@pytest.fixture
async def alice(the_gate: gate.Gate) -> AsyncIterator[Harness]:
    h = Harness(the_gate, ALICE)
    await h.start()
    yield h
    await h.session.aclose()


def outputs(result: Any) -> list[tuple[str, bool]]:
    return [(e.item.output, e.item.is_error) for e in result.events if e.type == "function_call_output"]


async def remember_wish(g: gate.Gate, who: str, text: str, confidence: float = 0.5) -> str:
    return await g.backend.remember(who, text, source="user_stated", confidence=confidence)


async def test_trusted_evidence_acts_with_receipt(alice: Harness, calendar: Calendar) -> None:
    await remember_wish(alice.gate, "alice", "I'd like my visit on Thursday", confidence=0.9)
    r = await alice.turn("Book me Thursday.", call("book_visit", day="Thursday"), say("Booked."))
    assert outputs(r) == [("Booked Thursday.", False)]
    assert calendar.booked == {"Thursday": "alice"}
    action = calendar.seen_actions[0]
    assert action.caller == ALICE
    assert action.expected_version == "1"
    assert action.idempotency_key == f"gate-{action.decision_id}"
    decision = alice.gate.ledger.decision(action.decision_id)
    assert decision is not None and decision.outcome == "act" and decision.state_version == "1"
    receipt = receipts_by_decision(alice.gate)[action.decision_id]
    assert (receipt.status, receipt.external_ref) == ("succeeded", "visit-1")
    assert receipt.delivered_at is not None and receipt.policy_alignment == "aligned"


async def test_ask_then_yes_books(alice: Harness, calendar: Calendar) -> None:
    await remember_wish(alice.gate, "alice", "I'd like my visit on Thursday")
    r = await alice.turn(
        "Can you book my visit?", call("book_visit", day="Thursday"), say("Confirm Thursday?")
    )
    ((out, err),) = outputs(r)
    assert not err and out.startswith("Just to confirm: book your visit on Thursday?")
    assert calendar.booked == {}
    r = await alice.turn("Yes please.", call(gate.CONFIRM_TOOL), say("Done."))
    assert outputs(r) == [("Booked Thursday.", False)]
    assert calendar.booked == {"Thursday": "alice"}
    decisions = alice.gate.ledger.decisions(caller_id="alice")
    assert [d.outcome for d in decisions] == ["ask", "act"]
    receipts = receipts_by_decision(alice.gate)
    assert [receipts[d.id].status for d in decisions] == ["skipped", "succeeded"]
    assert decisions[1].confirmation_id is not None
    confirmation = alice.gate.ledger.confirmation(decisions[1].confirmation_id)
    assert confirmation is not None
    assert (confirmation.status, confirmation.words) == ("confirmed", "Yes please.")
    assert confirmation.session_id == alice.bound.id


async def test_claimed_confirmation_without_a_yes_executes_nothing(
    alice: Harness, calendar: Calendar
) -> None:
    await remember_wish(alice.gate, "alice", "I'd like my visit on Thursday")
    await alice.turn("Can you book my visit?", call("book_visit", day="Thursday"), say("Confirm?"))
    # The model claims the caller agreed in the same turn: the caller has not answered.
    r = await alice.turn("Hmm, let me think.", call(gate.CONFIRM_TOOL), say("ok"))
    ((out, err),) = outputs(r)
    assert err and "nothing was done" in out.lower()
    assert calendar.booked == {}
    assert [d.outcome for d in alice.gate.ledger.decisions()] == ["ask"]


async def test_confirm_in_the_asking_turn_is_refused(alice: Harness, calendar: Calendar) -> None:
    await remember_wish(alice.gate, "alice", "I'd like my visit on Thursday")
    r = await alice.turn(
        "Can you book my visit?",
        call("book_visit", day="Thursday"),
        call(gate.CONFIRM_TOOL),
        say("Booked, the caller agreed."),
    )
    assert outputs(r)[1][1] is True
    assert calendar.booked == {}


async def test_yes_but_friday_is_not_a_yes(alice: Harness, calendar: Calendar) -> None:
    await remember_wish(alice.gate, "alice", "I'd like my visit on Thursday")
    await alice.turn("Can you book my visit?", call("book_visit", day="Thursday"), say("Confirm Thursday?"))
    r = await alice.turn("Yes, but make it Friday.", call(gate.CONFIRM_TOOL), say("ok"))
    ((out, err),) = outputs(r)
    assert err and "wants something different" in out and "nothing was done" in out
    assert calendar.booked == {}
    # The confirmation is used up: a later yes does not revive it.
    r = await alice.turn("Yes.", call(gate.CONFIRM_TOOL), say("ok"))
    assert outputs(r)[0][1] is True and calendar.booked == {}


async def test_state_moved_between_question_and_yes_asks_again(alice: Harness, calendar: Calendar) -> None:
    await remember_wish(alice.gate, "alice", "I'd like my visit on Thursday")
    await alice.turn("Can you book my visit?", call("book_visit", day="Thursday"), say("Confirm Thursday?"))
    calendar.take("Monday", "bob")  # someone else changes the calendar meanwhile
    r = await alice.turn("Yes.", call(gate.CONFIRM_TOOL), say("It changed; shall I still book Thursday?"))
    ((out, err),) = outputs(r)
    assert not err and out.startswith("Thursday changed while we were talking")
    assert "Just to confirm" in out
    assert calendar.booked == {"Monday": "bob"}
    decisions = alice.gate.ledger.decisions(caller_id="alice")
    assert [(d.outcome, d.rule) for d in decisions] == [
        ("ask", "evidence.untrusted"),
        ("ask", "state.changed"),
    ]
    assert decisions[1].state_version == "2"
    r = await alice.turn("Yes.", call(gate.CONFIRM_TOOL), say("Done."))
    assert outputs(r) == [("Booked Thursday.", False)]
    assert calendar.booked["Thursday"] == "alice"


async def test_stale_state_at_execution_is_a_conflict(alice: Harness, calendar: Calendar) -> None:
    await remember_wish(alice.gate, "alice", "I'd like my visit on Thursday", confidence=0.9)
    calendar.fail_with = gate.StaleState("moved")
    r = await alice.turn("Book Thursday.", call("book_visit", day="Thursday"), say("Sorry."))
    assert outputs(r) == [("Thursday changed while we were talking, so I did not book it.", True)]
    (receipt,) = alice.gate.ledger.receipts()
    assert (receipt.status, receipt.error_code) == ("failed", "current_state_changed")


async def test_tool_error_gives_safe_message_and_failed_receipt(alice: Harness, calendar: Calendar) -> None:
    await remember_wish(alice.gate, "alice", "I'd like my visit on Thursday", confidence=0.9)
    calendar.fail_with = KeyError("secret internal detail")
    r = await alice.turn("Book Thursday.", call("book_visit", day="Thursday"), say("Sorry."))
    ((out, err),) = outputs(r)
    assert err and out == "The booking system had a problem; Thursday was not booked."
    assert "secret" not in out and "Traceback" not in out
    (receipt,) = alice.gate.ledger.receipts()
    assert (receipt.status, receipt.error_code) == ("failed", "tool_error.KeyError")


async def test_no_evidence_asks_and_books_only_on_the_yes(alice: Harness, calendar: Calendar) -> None:
    # The caller never said a day: the gate asks the question carrying it instead of refusing.
    r = await alice.turn("Can you book my visit?", call("book_visit", day="Thursday"), say("Thursday?"))
    ((out, err),) = outputs(r)
    assert not err and out.startswith("Just to confirm: book your visit on Thursday?")
    assert calendar.booked == {}
    (d,) = alice.gate.ledger.decisions()
    assert (d.outcome, d.rule) == ("ask", "evidence.missing")
    assert receipts_by_decision(alice.gate)[d.id].status == "skipped"
    r = await alice.turn("Yes please.", call(gate.CONFIRM_TOOL), say("Booked."))
    assert outputs(r) == [("Booked Thursday.", False)] and calendar.booked == {"Thursday": "alice"}


async def test_duplicate_call_returns_first_result(alice: Harness, calendar: Calendar) -> None:
    await remember_wish(alice.gate, "alice", "I'd like my visit on Thursday", confidence=0.9)
    await alice.turn("Book Thursday.", call("book_visit", day="Thursday"), say("Booked."))
    r = await alice.turn("Did it work?", call("book_visit", day="Thursday"), say("Yes."))
    assert outputs(r) == [("Booked Thursday.", False)]
    assert len(calendar.effects) == 1
    assert len(alice.gate.ledger.decisions()) == 1


async def test_identity_cannot_be_overridden(alice: Harness, calendar: Calendar) -> None:
    await remember_wish(alice.gate, "alice", "I'd like my visit on Thursday", confidence=0.9)
    await alice.turn(
        "Book Thursday for account mallory.",
        call("book_visit", day="Thursday", caller_id="mallory", user_id="mallory"),
        say("Booked."),
    )
    assert calendar.booked == {"Thursday": "alice"}
    assert calendar.seen_actions[0].caller.id == "alice"
    assert {d.caller_id for d in alice.gate.ledger.decisions()} == {"alice"}


async def test_limit_violation_is_a_recorded_tool_error(alice: Harness, calendar: Calendar) -> None:
    r = await alice.turn(
        "Refund 500 on A-1.", call("issue_refund", order_id="A-1", amount=500), say("Too much.")
    )
    ((out, err),) = outputs(r)
    assert err and "amount 500 is above the limit of 200" in out
    (d,) = alice.gate.ledger.decisions()
    assert (d.outcome, d.rule) == ("abstain", "limits.amount.max")
    assert receipts_by_decision(alice.gate)[d.id].status == "skipped"
    assert calendar.effects == []


async def test_wrong_argument_types_reach_the_model_and_are_recorded(
    alice: Harness, calendar: Calendar
) -> None:
    r = await alice.turn("Refund lots.", call("issue_refund", order_id="A-1", amount="lots"), say("Sorry."))
    ((out, err),) = outputs(r)
    assert err and "amount" in out
    (d,) = alice.gate.ledger.decisions()
    assert (d.outcome, d.rule) == ("abstain", "arguments.invalid")
    assert "A-1" not in d.args_json  # order_id is masked even here
    assert receipts_by_decision(alice.gate)[d.id].status == "skipped"


async def test_refund_always_asks_and_masks(alice: Harness, calendar: Calendar) -> None:
    r = await alice.turn(
        "Refund 20 on A-1.", call("issue_refund", order_id="A-1", amount=20), say("Refund 20 on order A-1?")
    )
    assert outputs(r)[0][0].startswith("Please confirm: refund 20 on order A-1?")
    r = await alice.turn("Yes, go ahead.", call(gate.CONFIRM_TOOL), say("Done."))
    assert outputs(r) == [("Refunded 20.00 on A-1.", False)]
    decisions = alice.gate.ledger.decisions()
    assert [d.rule for d in decisions] == ["confirm.always", "evidence.recorded"]
    for d in decisions:
        assert "A-1" not in d.args_json and json.loads(d.args_json)["amount"] == 20


async def test_unverified_caller_abstains(the_gate: gate.Gate, calendar: Calendar) -> None:
    h = Harness(the_gate, Caller("mallory", verified=False))
    await h.start()
    r = await h.turn("Refund 20 on A-1.", call("issue_refund", order_id="A-1", amount=20), say("No."))
    assert "caller is not verified" in outputs(r)[0][0]
    (d,) = the_gate.ledger.decisions()
    assert d.rule == "caller.verified"
    await h.session.aclose()


async def test_structlog_events_per_decision_and_receipt(alice: Harness) -> None:
    with capture_logs() as logs:
        await alice.turn("Can you book my visit?", call("book_visit", day="Thursday"), say("Sorry."))
    names = [e["event"] for e in logs if e["event"].startswith("gate.")]
    assert names == ["gate.decision", "gate.receipt"]
    decision, receipt = (e for e in logs if e["event"] in ("gate.decision", "gate.receipt"))
    assert decision["decision_id"] == receipt["decision_id"]
    assert decision["caller"] == "alice" and decision["tool"] == "book_visit"
    assert decision["outcome"] == "ask" and receipt["status"] == "skipped"


async def test_rate_limit_counts_executed_actions(the_gate: gate.Gate, calendar: Calendar) -> None:
    h = Harness(the_gate, ALICE)
    await h.start()
    for i in range(3):
        await h.turn(
            f"Refund 10 on A-{i}.",
            call("issue_refund", order_id=f"A-{i}", amount=10),
            say(f"Refund 10 on order A-{i}?"),
        )
        await h.turn("Yes.", call(gate.CONFIRM_TOOL), say("ok"))
    r = await h.turn("Refund 10 on A-9.", call("issue_refund", order_id="A-9", amount=10), say("No."))
    ((out, _err),) = outputs(r)
    assert "3 of 3 per 1d used" in out
    assert len([e for e in calendar.effects if e[1].startswith("refund")]) == 3
    assert the_gate.ledger.decisions()[-1].rule == "rate"
    await h.session.aclose()


async def test_shadow_mode_records_and_runs(home: Any, calendar: Calendar, tmp_path: Any) -> None:
    from tests.conftest import POLICIES, make_tools

    shadow = tmp_path / "shadow"
    shadow.mkdir()
    for name in ("book_visit", "issue_refund"):
        text = (POLICIES / f"{name}.yaml").read_text()
        (shadow / f"{name}.yaml").write_text(text.replace("mode: enforce", "mode: shadow"))
    g = gate.Gate(make_tools(calendar), policies=shadow)
    h = Harness(g, ALICE)
    await h.start()
    r = await h.turn("Can you book my visit?", call("book_visit", day="Thursday"), say("Booked."))
    assert outputs(r) == [("Booked Thursday.", False)]
    (d,) = g.ledger.decisions()
    assert (d.mode, d.outcome, d.enforced_outcome) == ("shadow", "ask", "act")
    receipt = receipts_by_decision(g)[d.id]
    assert (receipt.status, receipt.policy_alignment) == ("succeeded", "violated")
    await h.session.aclose()
    await g.aclose()


def test_public_api_is_small_and_listed() -> None:
    public = {n for n in dir(gate) if not n.startswith("_") and not isinstance(getattr(gate, n), ModuleType)}
    assert public == set(gate.__all__)
    assert all(getattr(gate, name) is not None for name in gate.__all__)
    assert len(gate.__all__) < 40
