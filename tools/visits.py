"""Booking a home visit: one versioned slot per weekday."""

from __future__ import annotations

import asyncio
from typing import Annotated

from livekit.agents.llm import ToolError
from pydantic import Field
from sqlalchemy import update
from sqlmodel import Session

from gate import Action, Caller, Executed, StaleState, State, gated_tool
from tools.store import WEEKDAYS, Booking, Business, VisitSlot

_SLOTS = VisitSlot.__table__  # type: ignore[attr-defined]
Day = Annotated[str, Field(description="weekday of the visit, e.g. Thursday")]


def _business() -> Business:
    from tools.runtime import business

    return business()


async def slot_state(caller: Caller, day: str) -> State:
    """The slot's version, which the booking must still find when it writes.

    A slot someone else holds cannot be booked: the gate says so instead of
    offering it again.
    """
    slot = _business().slot(day.capitalize())
    holder = slot.booked_by if slot else None
    taken = holder is not None and holder != caller.id
    return State(
        version=slot.version if slot else 0,
        value={"booked_by": holder},
        unavailable=f"{day.capitalize()} is already booked by another customer" if taken else None,
    )


async def find_booking(idempotency_key: str) -> str | None:
    """Reconcile hook: the booking made under this key, if any."""
    with Session(_business().engine) as session:
        found = session.get(Booking, idempotency_key)
        return found.ref if found else None


@gated_tool(state=slot_state, reconcile=find_booking)
async def book_visit(day: Day, action: Action) -> Executed:
    """Book a home visit for the caller on a weekday."""
    # A SQLite commit waits for the disk: off the event loop, so the other calls go on meanwhile.
    return await asyncio.to_thread(_change, day, action, booking=True)


async def _cancel_state(caller: Caller, day: str) -> State:
    """The slot's version; only the caller's own visit can be cancelled."""
    slot = _business().slot(day.capitalize())
    holder = slot.booked_by if slot else None
    return State(
        version=slot.version if slot else 0,
        value={"booked_by": holder},
        unavailable=None if holder == caller.id else f"there is no visit of yours on {day.capitalize()}",
    )


@gated_tool(name="cancel_visit", policy="cancel_visit", state=_cancel_state, reconcile=find_booking)
async def cancel_visit(day: Day, action: Action) -> Executed:
    """Cancel the caller's home visit on a weekday."""
    return await asyncio.to_thread(_change, day, action, booking=False)


def _change(day: str, action: Action, *, booking: bool) -> Executed:
    day = day.capitalize()
    if day not in WEEKDAYS:
        raise ToolError(f"Visits are only on weekdays ({', '.join(WEEKDAYS)}).")
    caller: Caller = action.caller
    with Session(_business().engine) as session:
        done = session.get(Booking, action.idempotency_key)
        if done is not None:  # the same key never books twice
            return Executed(f"Already done: {done.kind} on {done.day}.", external_ref=done.ref)
        slot = session.get(VisitSlot, day)
        if slot is None:
            raise ToolError(f"No slot on {day}.")
        if booking and slot.booked_by is not None:
            raise StaleState(f"{day} is taken", current_version=slot.version)
        if not booking and slot.booked_by != caller.id:
            raise ToolError(f"You have no visit on {day}.")
        ref = f"visit-{day.lower()}-{slot.version + 1}"
        c = _SLOTS.c
        moved = session.connection().execute(
            update(_SLOTS)
            .where(c.day == day, c.version == int(action.expected_version or slot.version))
            .values(
                booked_by=caller.id if booking else None,
                booking_ref=ref if booking else None,
                version=c.version + 1,
            )
        )
        if moved.rowcount != 1:
            raise StaleState(f"{day} changed", current_version=slot.version)
        session.add(
            Booking(
                idempotency_key=action.idempotency_key,
                ref=ref,
                day=day,
                caller_id=caller.id,
                kind="book" if booking else "cancel",
            )
        )
        session.commit()
    verb = "Booked" if booking else "Cancelled"
    return Executed(f"{verb} your visit on {day}.", external_ref=ref)
