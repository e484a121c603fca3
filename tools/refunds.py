"""Refunding part of an order: never more than what remains on it."""

from __future__ import annotations

import asyncio
from typing import Annotated

from livekit.agents.llm import ToolError
from pydantic import Field
from sqlalchemy import update
from sqlmodel import Session

from gate import Action, Executed, StaleState, State, gated_tool
from tools.store import Order, Refund
from tools.visits import _business

_ORDERS = Order.__table__  # type: ignore[attr-defined]
OrderId = Annotated[str, Field(description="the order number, e.g. A-1001")]
Amount = Annotated[float, Field(description="amount to refund, in the order's currency")]


async def order_state(order_id: str) -> State:
    order = _business().order(order_id)
    return State(
        version=order.version if order else 0,
        value={"remaining": order.total - order.refunded} if order else None,
    )


async def find_refund(idempotency_key: str) -> str | None:
    """Reconcile hook: the refund made under this key, if any."""
    with Session(_business().engine) as session:
        found = session.get(Refund, idempotency_key)
        return found.ref if found else None


@gated_tool(state=order_state, reconcile=find_refund)
async def issue_refund(order_id: OrderId, amount: Amount, action: Action) -> Executed:
    """Refund part of one of the caller's orders."""
    # A SQLite commit waits for the disk: off the event loop, so the other calls go on meanwhile.
    return await asyncio.to_thread(_refund, order_id, amount, action)


def _refund(order_id: str, amount: float, action: Action) -> Executed:
    with Session(_business().engine) as session:
        done = session.get(Refund, action.idempotency_key)
        if done is not None:  # the same key never refunds twice
            return Executed(f"Already refunded {done.amount:g} on {done.order_id}.", external_ref=done.ref)
        order = session.get(Order, order_id)
        if order is None or order.caller_id != action.caller.id:
            raise ToolError(f"There is no order {order_id} on your account.")
        remaining = round(order.total - order.refunded, 2)
        if amount > remaining:
            raise ToolError(f"Only {remaining:g} remains refundable on {order_id}.")
        c = _ORDERS.c
        moved = session.connection().execute(
            update(_ORDERS)
            .where(
                c.id == order_id,
                c.version == int(action.expected_version or order.version),
                c.refunded + amount <= c.total,  # never more than what remains, even under a race
            )
            .values(refunded=c.refunded + amount, version=c.version + 1)
        )
        if moved.rowcount != 1:
            raise StaleState(f"order {order_id} changed", current_version=order.version)
        ref = f"refund-{order_id}-{order.version + 1}"
        session.add(Refund(idempotency_key=action.idempotency_key, ref=ref, order_id=order_id, amount=amount))
        session.commit()
    return Executed(f"Refunded {amount:g} on {order_id}.", external_ref=ref)
