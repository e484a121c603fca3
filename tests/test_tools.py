"""The example tools: versioned rows, compare-and-set, idempotency keys, reconcile hooks."""

from __future__ import annotations

from pathlib import Path

import pytest
from livekit.agents.llm import ToolError

import gate
from gate import Action, Caller
from tools import Business, book_visit, issue_refund, use_business
from tools.refunds import find_refund, order_state
from tools.visits import find_booking, slot_state

ALICE = Caller("alice", verified=True, roles=frozenset({"customer"}))


def action(key: str, version: object, caller: Caller = ALICE) -> Action:
    return Action(
        caller=caller,
        decision_id=key,
        idempotency_key=f"gate-{key}",
        expected_version=str(version),
        state=None,
        session_id="s",
        arguments={},
    )


@pytest.fixture
def business(tmp_path: Path) -> Business:
    store = Business(tmp_path)
    store.add_order("A-1", "alice", 100.0)
    use_business(store)
    return store


async def test_booking_is_a_compare_and_set_with_an_idempotency_key(business: Business) -> None:
    state = await slot_state(ALICE, "Thursday")
    assert state.unavailable is None
    first = await book_visit.fn(day="Thursday", action=action("k1", state.version))
    again = await book_visit.fn(day="Thursday", action=action("k1", state.version))
    assert first.external_ref == again.external_ref and again.output.startswith("Already done")
    assert business.slot("Thursday").booked_by == "alice"  # type: ignore[union-attr]
    assert await find_booking("gate-k1") == first.external_ref and await find_booking("gate-nope") is None
    with pytest.raises(gate.StaleState):  # taken: another booking under another key
        await book_visit.fn(day="Thursday", action=action("k2", state.version))
    # Held by alice: another caller is told it is taken, never asked to confirm it.
    taken = await slot_state(Caller("bob", verified=True), "Thursday")
    assert taken.unavailable == "Thursday is already booked by another customer"


async def test_a_moved_version_is_stale(business: Business) -> None:
    state = await slot_state(ALICE, "Friday")
    with pytest.raises(gate.StaleState):
        await book_visit.fn(day="Friday", action=action("k3", state.version + 1))
    assert business.slot("Friday").booked_by is None  # type: ignore[union-attr]


async def test_a_refund_is_never_larger_than_what_remains(business: Business) -> None:
    v = (await order_state("A-1")).version
    done = await issue_refund.fn(order_id="A-1", amount=70, action=action("r1", v))
    assert done.output == "Refunded 70 on A-1."
    with pytest.raises(ToolError, match="Only 30 remains refundable"):
        await issue_refund.fn(order_id="A-1", amount=40, action=action("r2", v + 1))
    again = await issue_refund.fn(order_id="A-1", amount=70, action=action("r1", v))
    assert again.external_ref == done.external_ref
    assert business.order("A-1").refunded == 70  # type: ignore[union-attr]
    assert await find_refund("gate-r1") == done.external_ref
    with pytest.raises(gate.StaleState):
        await issue_refund.fn(order_id="A-1", amount=10, action=action("r3", v))  # read before r1
    with pytest.raises(ToolError, match="no order A-1 on your account"):
        await issue_refund.fn(
            order_id="A-1", amount=1, action=action("r4", v + 1, Caller("bob", verified=True))
        )
