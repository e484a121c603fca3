"""Every bound argument traced to the caller's own words, across the whole call, through live sessions.

Each test drives a real text-mode AgentSession through the gate with a scripted
model: the caller's turns are typed, the agent's words are the script's, and
the model calls the tool with the values a real model would. What is checked
is what the tool did and what the decision's trace says of each argument.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import httpx
import pytest
from livekit.agents import Agent, AgentSession
from pydantic import Field
from typer.testing import CliRunner

import gate
from gate.cli import app
from gate.cloud.backend import CloudEngine
from gate.memory.embedder import warm
from gate.testing.contextdb import CloudDouble
from gate.testing.llm import ScriptedLLM, call, say

# Friday 6 March 2026: "next Tuesday" is the 10th, "the 13th" a week today.
TODAY = datetime(2026, 3, 6, 12, 0, tzinfo=UTC)

POLICIES = {
    "reserve_table": """
tool: reserve_table
action: booking.table
caller: {verified: true}
evidence:
  query: "reserve a table at {restaurant} in {city} for {party} people on {date} at {time}"
confirm: when_unsure
timeout_s: 10
messages:
  ask: "A table at {restaurant} in {city} for {party} on {date} at {time}, shall I book it?"
  abstain: "I can't book that table on this call."
""",
    "transfer_money": """
tool: transfer_money
action: payment.transfer
caller: {verified: true}
evidence: {query: "transfer {amount} dollars to account {to_account}"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "Send {amount} dollars to {to_account}?", abstain: "I can't send that on this call."}
""",
    "ship_order": """
tool: ship_order
action: order.ship
caller: {verified: true}
evidence: {query: "ship order {order_id}"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "Ship order {order_id}?", abstain: "I can't ship {order_id} on this call."}
""",
    "pay_person": """
tool: pay_person
action: payment.person
caller: {verified: true}
evidence: {query: "send {amount} dollars to {payee}'s {payee_account} account from my {from_account} account"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "Send {amount} dollars to {payee}?", abstain: "I can't send that on this call."}
""",
    "pay_utility": """
tool: pay_utility
action: payment.bill
caller: {verified: true}
evidence: {query: "pay my {utility} bill of {amount} dollars"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "Pay the {utility} bill of {amount} dollars?", abstain: "I can't pay that on this call."}
""",
    "turn_on_roaming": """
tool: turn_on_roaming
action: mobile.roaming
caller: {verified: true}
evidence: {query: "turn on roaming for {country}"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "Turn on roaming for {country}?", abstain: "I can't change roaming on this call."}
""",
    "play_song": """
tool: play_song
action: media.play
caller: {verified: true}
evidence: {query: "play the song {song}"}
confirm: always
timeout_s: 10
messages: {ask: "Play the song {song} on the {device}?", abstain: "I can't play that now."}
""",
    "rent_car": """
tool: rent_car
action: booking.car
caller: {verified: true}
evidence:
  query: "rent a {car_class} car in {city} from {pickup_date} to {return_date}"
  missing: abstain
confirm: when_unsure
timeout_s: 10
messages:
  ask: "A {car_class} in {city} from {pickup_date} to {return_date}?"
  abstain: "I can't book that car."
""",
    "buy_bus_tickets": """
tool: buy_bus_tickets
action: booking.bus
caller: {verified: true}
evidence: {query: "buy bus tickets from {origin} to {destination} on {date} for {travelers} people"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "{travelers} tickets from {origin} to {destination} on {date}?", abstain: "Not bought."}
""",
    "hire_car": """
tool: hire_car
action: booking.hire
caller: {verified: true}
evidence: {query: "hire a car: pickup location {pickup_location}, pickup date {pickup_date}"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "A car at {pickup_location} on {pickup_date}?", abstain: "Not hired."}
""",
    # A town named without a preposition, as a service schema names it.
    "buy_event_tickets": """
tool: buy_event_tickets
action: booking.event
caller: {verified: true}
evidence: {query: "buy tickets for an event: event name {event}, city {city}, date {date}"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "Tickets for {event} in {city} on {date}?", abstain: "Not bought."}
""",
    # A name the caller gives the thing, as a calendar's schema asks for it.
    "add_event": """
tool: add_event
action: calendar.add
caller: {verified: true}
evidence: {query: "add an event to the calendar: event name {event_name}, event date {date}"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "Add {event_name} on {date}?", abstain: "Not added."}
""",
    # An airline among a schema's known few: a word only one of them has names it.
    "book_flight": """
tool: book_flight
action: booking.flight
caller: {verified: true}
evidence: {query: "book a flight: airline {airline}, destination {destination}, date {date}"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "{airline} to {destination} on {date}?", abstain: "Not booked."}
""",
    # A service whose words ("rooms at a selected place") never say "hotel".
    "reserve_rooms": """
tool: reserve_rooms
action: booking.rooms
caller: {verified: true}
evidence: {query: "reserve rooms at a selected place: place name {place_name}, check in date {check_in_date}"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "Rooms at {place_name} from {check_in_date}?", abstain: "Not reserved."}
""",
    # A query whose thing ("a reservation") is not the word callers use ("an appointment").
    "book_therapist": """
tool: book_therapist
action: booking.therapist
caller: {verified: true}
evidence:
  query: >-
    make a reservation with the therapist: therapist name {therapist},
    appointment date {date}, appointment time {time}
confirm: when_unsure
timeout_s: 10
messages: {ask: "{therapist} on {date} at {time}?", abstain: "Not booked."}
""",
    # A query that ties the action to its thing with "on" ("on order ...").
    "refund_order": """
tool: refund_order
action: payment.refund
caller: {verified: true}
evidence: {query: "refund {amount} dollars on order {order_id}"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "Refund {amount} on {order_id}?", abstain: "Not refunded."}
""",
    # A meeting named by whom it is with.
    "book_dentist": """
tool: book_dentist
action: booking.dentist
caller: {verified: true}
evidence: {query: "book a dentist appointment on {date} at {time}"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "The dentist on {date} at {time}?", abstain: "Not booked."}
""",
    "block_card": """
tool: block_card
action: card.block
caller: {verified: true}
evidence: {query: "block the card ending {last4}"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "Block the card ending {last4}?", abstain: "Not blocked."}
""",
    # A query that names each part without a preposition, as a service schema does.
    "book_coach": """
tool: book_coach
action: booking.coach
caller: {verified: true}
evidence: {query: "book coach seats: origin {origin}, destination {destination}, date {date}"}
confirm: when_unsure
timeout_s: 10
messages: {ask: "A coach from {origin} to {destination} on {date}?", abstain: "Not booked."}
""",
}


def make_tools(done: list[str]) -> list[gate.GatedTool]:
    @gate.gated_tool
    async def reserve_table(
        restaurant: Annotated[str, Field(description="the restaurant's name")],
        city: Annotated[str, Field(description="the city the restaurant is in")],
        date: Annotated[str, Field(description="the day of the reservation, YYYY-MM-DD")],
        time: Annotated[str, Field(description="the time of the reservation, HH:MM")],
        party: Annotated[int, Field(description="number of people")] = 2,
    ) -> str:
        """Reserve a table at a restaurant."""
        done.append(f"table {restaurant} {city} {party} {date} {time}")
        return "Booked."

    @gate.gated_tool
    async def transfer_money(amount: float, to_account: str) -> str:
        """Send money from the caller's account to another account."""
        done.append(f"sent {amount:g} to {to_account}")
        return "Sent."

    @gate.gated_tool
    async def ship_order(order_id: str) -> str:
        """Release one of the caller's held orders for shipping."""
        done.append(f"shipped {order_id}")
        return f"Shipped {order_id}."

    @gate.gated_tool
    async def pay_person(
        amount: float,
        payee: str,
        from_account: Literal["checking", "savings"],
        payee_account: Literal["checking", "savings"] = "checking",
    ) -> str:
        """Send money from one of the caller's accounts to a person's account."""
        done.append(f"paid {amount:g} to {payee} ({payee_account}) from {from_account}")
        return "Sent."

    @gate.gated_tool
    async def pay_utility(utility: Literal["water", "electricity", "gas", "broadband"], amount: float) -> str:
        """Pay one of the caller's utility bills."""
        done.append(f"paid the {utility} bill of {amount:g}")
        return "Paid."

    @gate.gated_tool
    async def turn_on_roaming(country: str) -> str:
        """Turn on roaming on the caller's phone for a country."""
        done.append(f"roaming on for {country}")
        return "Done."

    @gate.gated_tool
    async def play_song(song: str, device: Literal["TV", "speaker"] = "TV") -> str:
        """Play a song on one of the caller's devices."""
        done.append(f"playing {song} on {device}")
        return f"Playing {song}."

    @gate.gated_tool
    async def rent_car(
        city: str,
        pickup_date: Annotated[str, Field(description="the day the car is picked up")],
        return_date: Annotated[str, Field(description="the day the car is brought back")],
        car_class: Literal["compact", "standard", "suv"] = "standard",
    ) -> str:
        """Reserve a hire car."""
        done.append(f"car {car_class} {city} {pickup_date}-{return_date}")
        return "Reserved."

    @gate.gated_tool
    async def buy_bus_tickets(
        origin: Annotated[str, Field(description="the city the bus leaves from")],
        destination: Annotated[str, Field(description="the city the bus goes to")],
        date: Annotated[str, Field(description="the day of travel, YYYY-MM-DD")],
        travelers: Annotated[int, Field(description="number of people travelling")] = 1,
    ) -> str:
        """Buy tickets for a bus journey."""
        done.append(f"bus {origin}-{destination} {date} x{travelers}")
        return "Bought."

    @gate.gated_tool
    async def book_coach(
        origin: Annotated[str, Field(description="the city the coach leaves from")],
        destination: Annotated[str, Field(description="the city the coach goes to")],
        date: Annotated[str, Field(description="the day of travel, YYYY-MM-DD")],
    ) -> str:
        """Book seats on a coach."""
        done.append(f"coach {origin}-{destination} {date}")
        return "Booked."

    @gate.gated_tool
    async def hire_car(
        pickup_location: Annotated[str, Field(description="where the car is picked up")],
        pickup_date: Annotated[str, Field(description="the day the car is picked up, YYYY-MM-DD")],
    ) -> str:
        """Hire a car."""
        done.append(f"hire {pickup_location} {pickup_date}")
        return "Hired."

    @gate.gated_tool
    async def buy_event_tickets(
        event: Annotated[str, Field(description="the event's name")],
        city: Annotated[str, Field(description="the city the event takes place in")],
        date: Annotated[str, Field(description="the day of the event, YYYY-MM-DD")],
    ) -> str:
        """Buy tickets for an event."""
        done.append(f"event {event} {city} {date}")
        return "Tickets bought."

    @gate.gated_tool
    async def add_event(
        event_name: Annotated[str, Field(description="what the event is called")],
        date: Annotated[str, Field(description="the day of the event, YYYY-MM-DD")],
    ) -> str:
        """Add an event to the caller's calendar."""
        done.append(f"added {event_name} {date}")
        return "Added."

    @gate.gated_tool
    async def book_therapist(
        therapist: Annotated[str, Field(description="the therapist's name")],
        date: Annotated[str, Field(description="the day of the appointment, YYYY-MM-DD")],
        time: Annotated[str, Field(description="the time of the appointment, HH:MM")],
    ) -> str:
        """Book an appointment with a therapist."""
        done.append(f"therapist {therapist} {date} {time}")
        return "Booked."

    @gate.gated_tool
    async def book_flight(
        airline: Literal["Air Canada", "American Airlines", "Delta Airlines"],
        destination: Annotated[str, Field(description="the city the flight goes to")],
        date: Annotated[str, Field(description="the day of the flight, YYYY-MM-DD")],
    ) -> str:
        """Book a flight."""
        done.append(f"flight {airline} {destination} {date}")
        return "Booked."

    @gate.gated_tool
    async def reserve_rooms(
        place_name: Annotated[str, Field(description="Name of the accommodation")],
        check_in_date: Annotated[str, Field(description="Check in date for reservation, YYYY-MM-DD")],
    ) -> str:
        """Reserve rooms at a selected place for given dates."""
        done.append(f"rooms {place_name} {check_in_date}")
        return "Reserved."

    @gate.gated_tool
    async def refund_order(
        amount: Annotated[float, Field(description="dollars to refund")],
        order_id: Annotated[str, Field(description="the order's id")],
    ) -> str:
        """Refund part of an order."""
        done.append(f"refund {amount:g} {order_id}")
        return "Refunded."

    @gate.gated_tool
    async def block_card(last4: Annotated[str, Field(description="the card's last four digits")]) -> str:
        """Block one of the caller's cards."""
        done.append(f"blocked {last4}")
        return "Blocked."

    @gate.gated_tool
    async def book_dentist(
        date: Annotated[str, Field(description="the day of the appointment, YYYY-MM-DD")],
        time: Annotated[str, Field(description="the time of the appointment, HH:MM")],
    ) -> str:
        """Book a dentist appointment."""
        done.append(f"dentist {date} {time}")
        return "Booked."

    return [
        book_dentist,
        refund_order,
        add_event,
        book_flight,
        reserve_rooms,
        book_therapist,
        buy_event_tickets,
        hire_car,
        reserve_table,
        transfer_money,
        ship_order,
        pay_person,
        pay_utility,
        turn_on_roaming,
        play_song,
        rent_car,
        buy_bus_tickets,
        book_coach,
        block_card,
    ]


class Call:
    """One caller's text-mode session on the gate."""

    def __init__(self, g: gate.Gate, caller: gate.Caller, language: str = "en") -> None:
        self.gate = g
        self.llm = ScriptedLLM()
        self.session: AgentSession[Any] = AgentSession(
            llm=self.llm, vad=None, turn_handling={"turn_detection": None}
        )
        self.bound = g.bind(caller, self.session, language=language)

    async def start(self) -> None:
        await self.session.start(
            Agent(instructions="You help with bookings and payments.", tools=self.bound.tools)
        )

    async def turn(self, words: str, *steps: Any) -> list[str]:
        """The caller says ``words``; the model answers with ``steps``; the tool outputs come back."""
        self.llm.add(*steps)
        result: Any = await self.session.run(user_input=words)
        await self.bound.flush()
        return [e.item.output for e in result.events if e.type == "function_call_output"]

    async def says(self, words: str, reply: str) -> None:
        """A turn with no tool call: the caller says ``words`` and the agent answers ``reply``."""
        await self.turn(words, say(reply))

    def last(self) -> Any:
        return self.gate.ledger.decisions(caller_id="alice")[-1]

    def arguments(self) -> dict[str, dict[str, Any]]:
        record = json.loads(self.last().evidence_json)
        return {a["name"]: a for a in record.get("arguments", [])}


@pytest.fixture(params=["local", "cloud"])
async def alice(
    request: pytest.FixtureRequest, home: Path, tmp_path: Path
) -> AsyncIterator[tuple[Call, list[str]]]:
    folder = tmp_path / "policies"
    folder.mkdir()
    for name, text in POLICIES.items():
        (folder / f"{name}.yaml").write_text(text)
    warm()
    done: list[str] = []
    backend = None
    if request.param == "cloud":
        double = CloudDouble()
        backend = CloudEngine(
            "http://contextdb.test", "cdb_test_key", transport=httpx.ASGITransport(app=double.app)
        )
    g = gate.Gate(make_tools(done), policies=folder, backend=backend, clock=lambda: TODAY)
    c = Call(g, gate.Caller("alice", verified=True))
    await c.start()
    yield c, done
    await c.session.aclose()
    await g.aclose()


async def test_a_request_assembled_over_turns_is_traced_value_by_value(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    await c.says(
        "hi, I'd like to book a table for dinner in Leeds", "Sure. I have Bella Roma or Ortega Tapas."
    )
    await c.says("ortega sounds good", "For how many people?")
    await c.says("just me and my wife", "What day and time?")
    out = await c.turn(
        "next tuesday, half past seven in the evening",
        call(
            "reserve_table", restaurant="Ortega Tapas", city="Leeds", party=2, date="2026-03-10", time="19:30"
        ),
        say("Booked."),
    )
    assert out == ["Booked."] and done == ["table Ortega Tapas Leeds 2 2026-03-10 19:30"]
    traced = c.arguments()
    assert {n: a["status"] for n, a in traced.items()} == dict.fromkeys(
        ("restaurant", "city", "date", "time", "party"), "traced"
    )
    assert traced["restaurant"]["rule"] == "trace.offer" and traced["restaurant"]["speaker"] == "agent"
    assert traced["restaurant"]["accepted"]["words"] == "ortega sounds good"
    assert traced["party"]["words"] == "just me and my wife"
    assert (
        traced["date"]["words"] == traced["time"]["words"] == "next tuesday, half past seven in the evening"
    )
    assert traced["city"]["turn"] == 0 and traced["city"]["span"] is not None


async def test_a_value_the_caller_never_said_is_not_traced_and_never_acts(
    alice: tuple[Call, list[str]],
) -> None:
    c, done = alice
    await c.says("a table at Ortega Tapas in Leeds for four on the 13th please", "What time?")
    out = await c.turn(
        "about 8 in the evening",
        call(
            "reserve_table", restaurant="Ortega Tapas", city="Leeds", party=4, date="2026-03-13", time="19:00"
        ),
        say("Shall I?"),
    )
    assert done == [] and "Nothing has been done yet" in out[0]
    traced = c.arguments()
    assert traced["time"]["status"] == "conflict" and traced["time"]["rule"] == "trace.changed"
    assert c.last().outcome == "ask" and c.last().rule == "evidence.missing"
    assert all(a["status"] == "traced" for n, a in traced.items() if n != "time")


async def test_the_latest_value_wins_and_a_closing_line_voids_nothing(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    await c.says(
        "book ortega tapas in leeds for three on friday the 13th at 8pm",
        "Three at Ortega Tapas, Friday at 8.",
    )
    await c.says("oh hang on, my brother's coming too, so make it four", "Four then.")
    out = await c.turn(
        "great, that works for me, thanks",
        call(
            "reserve_table", restaurant="Ortega Tapas", city="Leeds", party=3, date="2026-03-13", time="20:00"
        ),
        say("Shall I?"),
    )
    assert done == [] and c.arguments()["party"]["status"] == "conflict"
    out = await c.turn(
        "yes four",
        call(
            "reserve_table", restaurant="Ortega Tapas", city="Leeds", party=4, date="2026-03-13", time="20:00"
        ),
        say("Booked."),
    )
    assert out == ["Booked."] and done == ["table Ortega Tapas Leeds 4 2026-03-13 20:00"]
    assert c.arguments()["party"]["words"] == "yes four"  # the caller's latest word on it


async def test_a_withdrawal_after_the_request_voids_it(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    await c.says("please send 200 dollars to ACC-1234", "Okay.")
    out = await c.turn(
        "actually no, forget it, he paid me back",
        call("transfer_money", amount=200, to_account="ACC-1234"),
        say("Shall I?"),
    )
    assert done == [] and "Nothing has been done yet" in out[0]
    record = json.loads(c.last().evidence_json)
    assert record["action"]["status"] in ("withdrawn", "denied")


async def test_a_request_in_other_words_acts_and_independent_requests_do_not_cancel(
    alice: tuple[Call, list[str]],
) -> None:
    c, done = alice
    await c.says("Send 200 dollars to ACC-1234.", "Okay.")
    out = await c.turn(
        "and please ship order A-1001",
        call("transfer_money", amount=200, to_account="ACC-1234"),
        say("Sent."),
    )
    assert out == ["Sent."]
    await c.says("please ship order A-1002 as well", "Both then.")
    for order in ("A-1001", "A-1002"):
        out = await c.turn("thanks", call("ship_order", order_id=order), say("Shipped."))
        assert out == [f"Shipped {order}."]
    assert done == ["sent 200 to ACC-1234", "shipped A-1001", "shipped A-1002"]


async def test_the_earliest_day_is_not_a_no_to_it(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    await c.says("i need a car in cork", "When do you pick it up and bring it back?")
    out = await c.turn(
        "i can't get there until the 10th, and back on the 13th",
        call("rent_car", city="Cork", pickup_date="2026-03-10", return_date="2026-03-13"),
        say("Reserved."),
    )
    assert out == ["Reserved."] and done == ["car standard Cork 2026-03-10-2026-03-13"]
    traced = c.arguments()
    assert traced["car_class"]["status"] == "default" and traced["pickup_date"]["status"] == "traced"


async def test_another_choice_the_agent_offered_is_a_change(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    await c.says("hire car in cork from the 10th to the 13th please", "We have compact or an SUV.")
    out = await c.turn(
        "the suv, there are five of us",
        call(
            "rent_car", city="Cork", pickup_date="2026-03-10", return_date="2026-03-13", car_class="compact"
        ),
        say("Sorry."),
    )
    # The policy says missing evidence abstains: the compact was never the caller's.
    assert done == [] and out[0].startswith("I can't book that car.")
    assert c.last().rule == "evidence.missing" and c.arguments()["car_class"]["status"] == "conflict"


async def test_missing_evidence_asks_and_the_yes_is_the_evidence(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    out = await c.turn(
        "what about my money?",
        call("transfer_money", amount=50, to_account="ACC-77"),
        say("Send 50 dollars to ACC-77?"),
    )
    assert done == [] and out[0].startswith("Send 50 dollars to ACC-77?")
    assert (c.last().outcome, c.last().rule) == ("ask", "evidence.missing")
    out = await c.turn("yes please", call(gate.CONFIRM_TOOL), say("Sent."))
    assert out == ["Sent."] and done == ["sent 50 to ACC-77"]
    traced = c.arguments()
    # The yes to the question carrying the values traces them: as the agent's offer taken up, or
    # as the confirmation itself.
    assert traced["amount"]["rule"] in ("trace.offer", "trace.confirmed")
    assert "yes please" in (traced["amount"]["words"], (traced["amount"].get("accepted") or {}).get("words"))


async def test_a_value_with_a_negative_word_is_not_read_as_a_no(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    out = await c.turn(
        "play no more by the tide please",
        call("play_song", song="No More"),
        say("Play the song No More on the TV?"),
    )
    assert out[0].startswith("Play the song No More on the TV?")
    assert c.arguments()["song"]["status"] == "traced" and c.arguments()["device"]["status"] == "unchecked"
    out = await c.turn("Yes, that's correct.", call(gate.CONFIRM_TOOL), say("Playing."))
    assert out == ["Playing No More."] and done == ["playing No More on TV"]


async def test_the_audit_shows_where_each_value_came_from(alice: tuple[Call, list[str]]) -> None:
    c, _ = alice
    await c.says("please send 200 dollars to ACC-1234", "Okay.")
    await c.turn("thanks", call("transfer_money", amount=200, to_account="ACC-1234"), say("Sent."))
    result: Any = CliRunner().invoke(
        app, ["audit", "show", c.last().id, "--database-url", c.gate.settings.ledger_url(), "--json"]
    )
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    text = json.dumps(shown)
    assert "please send 200 dollars to ACC-1234" in text and "trace.value" in text


@pytest.mark.parametrize(
    "words",
    [
        "um yeah chuck seventy five bucks over to acc-3099 would you",  # a verb no list names, STT case
        "Mándale 75 dólares a la cuenta ACC-3099, por favor.",  # a Spanish command with its pronoun
        "Virez 75 dollars sur le compte ACC-3099.",  # a French command to "vous"
    ],
)
async def test_a_command_in_any_words_that_carries_every_value_acts(
    alice: tuple[Call, list[str]], words: str
) -> None:
    c, done = alice
    out = await c.turn(words, call("transfer_money", amount=75, to_account="ACC-3099"), say("Sent."))
    assert out == ["Sent."] and done == ["sent 75 to ACC-3099"]
    assert c.last().rule == "evidence.trace"


async def test_a_command_that_asks_to_know_is_not_the_action(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    out = await c.turn(
        "tell me the last 75 dollars that went to ACC-3099",
        call("transfer_money", amount=75, to_account="ACC-3099"),
        say("Shall I?"),
    )
    assert done == [] and "Nothing has been done yet" in out[0]


async def test_a_later_bare_value_or_a_take_back_that_names_nothing_leaves_it_unsure(
    alice: tuple[Call, list[str]],
) -> None:
    c, done = alice
    await c.says(
        "book ortega tapas in leeds for four on friday the 13th at 8pm", "Four at Ortega Tapas, Friday at 8."
    )
    out = await c.turn(
        "no, three will do, my son can't come",
        call(
            "reserve_table", restaurant="Ortega Tapas", city="Leeds", party=4, date="2026-03-13", time="20:00"
        ),
        say("Shall I?"),
    )
    assert done == [] and c.arguments()["party"]["status"] == "conflict"
    await c.says("please send 200 dollars to ACC-1234", "200 dollars to ACC-1234.")
    out = await c.turn(
        "hmm, actually, I'd rather sort it out myself",
        call("transfer_money", amount=200, to_account="ACC-1234"),
        say("Shall I?"),
    )
    assert done == [] and "Nothing has been done yet" in out[0]


@pytest.mark.parametrize(
    ("words", "acts"),
    [
        ("Quiero transferir 75 dólares a la cuenta ACC-3099.", True),
        ("Je voudrais envoyer 75 dollars sur le compte ACC-3099, s'il vous plaît.", True),
        ("ich möchte 75 dollar auf das konto acc-3099 überweisen", True),
        ("Quiero anular los 75 dólares que mandé a la cuenta ACC-3099.", False),  # another family
        ("Je voudrais annuler le virement de 75 dollars vers ACC-3099.", False),
    ],
)
async def test_the_action_said_in_the_callers_language(
    alice: tuple[Call, list[str]], words: str, acts: bool
) -> None:
    c, done = alice
    out = await c.turn(words, call("transfer_money", amount=75, to_account="ACC-3099"), say("Sent."))
    if acts:
        assert out == ["Sent."] and done == ["sent 75 to ACC-3099"]
    else:
        assert done == [] and "Nothing has been done yet" in out[0]


@pytest.mark.parametrize(
    "answer", ["That is correct, proceed.", "I'm good with that", "yes that's right go on"]
)
async def test_a_yes_that_refers_back_to_the_question_is_not_a_put_off(
    alice: tuple[Call, list[str]], answer: str
) -> None:
    c, done = alice
    # The caller never names the account: the gate asks, and the caller's answer decides.
    out = await c.turn(
        "i need to send fifty dollars to my landlord",
        call("transfer_money", amount=50, to_account="ACC-77"),
        say("Send 50 dollars to ACC-77?"),
    )
    assert done == [] and out[0].startswith("Send 50 dollars to ACC-77?")
    out = await c.turn(answer, call(gate.CONFIRM_TOOL), say("Sent."))
    assert out == ["Sent."] and done == ["sent 50 to ACC-77"]
    assert (c.last().outcome, c.last().rule) == ("act", "evidence.confirmed")


TABLE_13TH = {
    "restaurant": "Ortega Tapas",
    "city": "Leeds",
    "party": 4,
    "date": "2026-03-13",
    "time": "20:00",
}


@pytest.mark.parametrize(
    "turn",
    [
        "What kind of food do they do? We'd come on the 13th at 8pm, four of us.",
        "is it any good? four of us on the 13th at 8pm. book it",
        "Sounds nice. How far is it from the station? We want it for four on the 13th at 8 pm.",
    ],
)
async def test_each_sentence_of_a_turn_gives_its_values(alice: tuple[Call, list[str]], turn: str) -> None:
    """A turn that asks something in one sentence still says its values in the next."""
    c, done = alice
    await c.says("could you find me somewhere to eat in leeds", "Ortega Tapas is a nice place in Leeds.")
    await c.says(turn, "They do Spanish tapas, ten minutes from the station. Shall I book it?")
    out = await c.turn("yes please book it", call("reserve_table", **TABLE_13TH), say("Booked."))
    assert out == ["Booked."] and done == ["table Ortega Tapas Leeds 4 2026-03-13 20:00"]
    assert {a["status"] for a in c.arguments().values()} == {"traced"}


@pytest.mark.parametrize(
    "question",
    [
        "what's the weather going to be like in leeds on the 13th?",
        "Is anything on in Leeds on Friday the 13th? Any concerts?",
    ],
)
async def test_a_value_said_about_another_matter_is_asked_about_never_acted_on(
    alice: tuple[Call, list[str]], question: str
) -> None:
    """The 13th comes from the caller's question about something else: the gate says it out and
    acts only on the caller's yes (a value only asked about is never trusted on its own)."""
    c, done = alice
    await c.says(question, "It should be dry, around 15 degrees, with a few concerts on.")
    out = await c.turn(
        "lovely. then book me a table at ortega tapas in leeds for four at 8pm",
        call("reserve_table", **TABLE_13TH),
        say("A table at Ortega Tapas in Leeds for 4 on 2026-03-13 at 20:00, shall I book it?"),
    )
    assert done == [] and out[0].startswith("A table at Ortega Tapas in Leeds for 4 on 2026-03-13")
    date = c.arguments()["date"]
    assert (date["status"], date["trusted"]) == ("traced", False)
    assert date["rule"] in ("trace.value", "trace.value.context")  # read in the question, or carried
    # The embedded engine says why (untrusted support); the hosted service, which never heard
    # the call, asks for want of support.
    assert c.last().outcome == "ask" and c.last().rule in ("evidence.untrusted", "evidence.missing")
    out = await c.turn("yes that's right", call(gate.CONFIRM_TOOL), say("Booked."))
    assert out == ["Booked."] and done == ["table Ortega Tapas Leeds 4 2026-03-13 20:00"]


async def test_a_value_said_about_another_matter_is_not_carried_when_two_were_said(
    alice: tuple[Call, list[str]],
) -> None:
    c, done = alice
    await c.says("what's the weather in leeds on the 13th? and on the 14th?", "Dry on both days.")
    await c.turn(
        "ok, book me a table at ortega tapas in leeds for four at 8pm",
        call("reserve_table", **TABLE_13TH),
        say("Shall I?"),
    )
    assert done == [] and c.arguments()["date"]["status"] != "traced"


@pytest.mark.parametrize(
    ("words", "date"),
    [
        ("book a table at ortega tapas in leeds for four later today at 8pm", "2026-03-06"),
        ("I'd like a table for four at ortega tapas in leeds later on today at 8pm please", "2026-03-06"),
    ],
)
async def test_a_later_time_that_is_the_value_puts_nothing_off(
    alice: tuple[Call, list[str]], words: str, date: str
) -> None:
    c, done = alice
    out = await c.turn(words, call("reserve_table", **{**TABLE_13TH, "date": date}), say("Booked."))
    assert out == ["Booked."] and done == [f"table Ortega Tapas Leeds 4 {date} 20:00"]


@pytest.mark.parametrize(
    "booking",
    [
        "great, I'd like to make a booking for four on the 13th at 8pm",
        "perfect, can you make a reservation for four people on the 13th at 8 pm",
    ],
)
async def test_what_a_search_asked_for_is_what_the_booking_books(
    alice: tuple[Call, list[str]], booking: str
) -> None:
    """ "Find me a restaurant in Leeds" gives the city; "make a booking for ..." is the action."""
    c, done = alice
    await c.says("find me a restaurant in Leeds please", "Ortega Tapas is a popular place there.")
    out = await c.turn(booking, call("reserve_table", **TABLE_13TH), say("Booked."))
    assert out == ["Booked."] and done == ["table Ortega Tapas Leeds 4 2026-03-13 20:00"]
    assert c.arguments()["city"]["words"] == "find me a restaurant in Leeds please"


@pytest.mark.parametrize(
    "change",
    [
        "four of us actually, and make it 8pm instead",
        "Sorry, it's four people and 8 pm rather",
    ],
)
async def test_a_change_that_says_its_values_makes_them_current(
    alice: tuple[Call, list[str]], change: str
) -> None:
    c, done = alice
    await c.says("book ortega tapas in leeds for three on the 13th at 7pm", "Three at 7 on the 13th.")
    out = await c.turn(change, call("reserve_table", **TABLE_13TH), say("Booked."))
    assert out == ["Booked."] and done == ["table Ortega Tapas Leeds 4 2026-03-13 20:00"]
    assert {c.arguments()[n]["words"] for n in ("party", "time")} == {change}


async def test_a_trip_said_in_a_phrase_of_arriving_is_where_it_goes(alice: tuple[Call, list[str]]) -> None:
    """ "I want to end up in Leeds" says where, it asks for no other action."""
    c, done = alice
    await c.says("I need a hire car on the 9th, and I'll bring it back on the 12th", "Where will you drive?")
    out = await c.turn(
        "I'll end up in Leeds, so pick it up there",
        call("rent_car", city="Leeds", pickup_date="2026-03-09", return_date="2026-03-12"),
        say("Reserved."),
    )
    assert out == ["Reserved."] and done == ["car standard Leeds 2026-03-09-2026-03-12"]


def test_a_memory_that_repeats_part_of_a_turn_of_this_call_is_that_turn() -> None:
    """A caller's turn saved to memory a sentence at a time, and read again out of its place, would
    seem to say its words anew after what followed them; a memory from an earlier call stays."""
    from gate.evidence import EvidenceMemory, Statement, combined, from_memories

    turn = Statement("I'd rather have two baths, can you find me something else?", "caller", 100.0, "call", 0)
    offer = Statement("Carriage House has two baths.", "agent", 101.0, "call", 1)
    saved = [
        EvidenceMemory("m1", "I'd rather have two baths", trusted=True, created_at=105.0),
        EvidenceMemory("m2", "i'd rather have TWO baths", trusted=True, created_at=40.0),  # last week
        EvidenceMemory("m3", "I'd rather have three baths", trusted=True, created_at=106.0),
    ]
    read = combined(from_memories(saved), [turn, offer])
    assert [(s.text, s.origin) for s in read] == [
        ("i'd rather have TWO baths", "memory"),
        (turn.text, "call"),
        (offer.text, "call"),
        ("I'd rather have three baths", "memory"),
    ]


@pytest.mark.parametrize("agree", ["Yeah, that one.", "that would work", "sounds good to me"])
async def test_an_offer_taken_up_after_questions_about_it(alice: tuple[Call, list[str]], agree: str) -> None:
    """The agent offered one song; the caller asked about it, then agreed: the song is the offer."""
    c, done = alice
    await c.says("can you find me some songs by sigrid?", "Would you like Business Dinners by Sigrid?")
    await c.says("what year did it come out?", "It is a pop song from 2019.")
    out = await c.turn(agree, call("play_song", song="Business Dinners"), say("Play it?"))
    assert done == [] and out[0].startswith("Play the song Business Dinners on the TV?")
    song = c.arguments()["song"]
    assert (song["status"], song["rule"]) == ("traced", "trace.offer")
    assert song["accepted"]["words"] == agree


async def test_agreeing_after_two_offers_picks_neither(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    await c.says(
        "can you find me some songs by sigrid?", "I have Business Dinners, or Sucker Punch, by Sigrid."
    )
    await c.says("what year are they from?", "Both are from 2019.")
    await c.turn("that would work", call("play_song", song="Business Dinners"), say("Play it?"))
    assert done == [] and c.arguments()["song"]["status"] != "traced"


async def test_the_callers_words_are_read_between_turns_not_when_the_tool_is_called(
    alice: tuple[Call, list[str]],
) -> None:
    """The embedded engine embeds each exchange in the background once the agent has replied; the
    decision of a later turn finds those vectors ready and embeds only what is new to it."""
    c, done = alice
    hear = getattr(c.gate.backend, "hear", None)
    if hear is None:
        pytest.skip("the hosted service reads the call itself")
    embedder = c.gate.backend._tracer_meaning.embedder  # type: ignore[attr-defined]
    asked: list[list[str]] = []
    real = embedder.embed

    async def recording(texts: list[str], **kw: Any) -> list[list[float]]:
        asked.append(list(texts))
        return await real(texts, **kw)

    embedder.embed = recording
    try:
        words = "hi, could you ship my order A-1001 today"
        await c.says(words, "Order A-1001 is ready to go out.")
        said = [t for batch in asked for t in batch]
        assert words in said and "Order A-1001 is ready to go out." in said
        asked.clear()
        out = await c.turn("great, go ahead", call("ship_order", order_id="A-1001"), say("Shipped."))
        during = [t for batch in asked for t in batch]
        assert words not in during  # read when it was said, not again for the decision
        assert during.count("great, go ahead") <= 1  # read once: as said, or by the decision
        assert done == ["shipped A-1001"] and out == ["Shipped A-1001."]
    finally:
        embedder.embed = real


CAR_10_14 = {
    "city": "Leeds",
    "pickup_date": "2026-03-10",
    "return_date": "2026-03-14",
    "car_class": "standard",
}


@pytest.mark.parametrize(
    "other_task",
    [
        # a flat to view, its day said while the caller is on it
        [
            ("great, now can you help me find a flat to rent there?", "Flat 4 on Park Road is free."),
            ("nice, i'd like to see it", "Shall I book the viewing for the 11th?"),
            ("no, on the 12th", "Your viewing is booked for the 12th."),
        ],
        # a hotel, its nights and first night said there
        [
            ("perfect. i also need a hotel in leeds", "The Grand has rooms. From which night?"),
            ("from the 9th until the 15th please", "The Grand is booked from the 9th to the 15th."),
        ],
        # speech to text: no capitals, no punctuation
        [
            ("ok and could you look for a dentist near there", "Dr Shah in Leeds has slots."),
            ("book me in with dr shah on the 11th", "Booked with Dr Shah on the 11th."),
        ],
    ],
)
async def test_a_value_said_on_another_task_does_not_change_this_one(
    alice: tuple[Call, list[str]], other_task: list[tuple[str, str]]
) -> None:
    """Dates said for a viewing, a hotel or a dentist while the caller is on that task are that
    task's: back on the car, the car's own dates are still the ones the caller gave it."""
    c, done = alice
    await c.says("i need a hire car in leeds from the 10th to the 14th", "A standard car is free in Leeds.")
    for words, reply in other_task:
        await c.says(words, reply)
    out = await c.turn(
        "thanks. now please book the car we talked about", call("rent_car", **CAR_10_14), say("Done.")
    )
    assert out == ["Reserved."] and done == ["car standard Leeds 2026-03-10-2026-03-14"]
    assert {a["status"] for a in c.arguments().values()} == {"traced"}


async def test_a_value_said_for_this_task_on_return_still_changes_it(alice: tuple[Call, list[str]]) -> None:
    """Back on the car, the caller's new day for it is current: the model's old day is not acted on."""
    c, done = alice
    await c.says("i need a hire car in leeds from the 10th to the 14th", "A standard car is free in Leeds.")
    await c.says("now can you help me find a flat to rent there?", "Flat 4 on Park Road is free.")
    await c.says("no, on the 12th", "Your viewing is booked for the 12th.")
    await c.says("thanks. and make the car from the 11th actually", "From the 11th to the 14th, then.")
    out = await c.turn("yes book it", call("rent_car", **CAR_10_14), say("Done."))
    assert done == [] and out != ["Reserved."]
    assert c.arguments()["pickup_date"]["status"] == "conflict"


@pytest.mark.parametrize(
    "ask",
    [
        "lovely, can you see if they have a table for four on the 13th at 8pm",
        "yes, i'd like to see if there is anything for four of us on the 13th at 8 pm",
        "see if you can get four of us in on the 13th at 8pm",
    ],
)
async def test_asking_the_agent_to_try_is_the_request(alice: tuple[Call, list[str]], ask: str) -> None:
    """ "See if you can ...", "see if there is ...": the caller asks the agent to try, with the values."""
    c, done = alice
    await c.says("could you find me somewhere to eat in leeds", "Ortega Tapas is a nice place in Leeds.")
    await c.says(ask, "They have a table then. Shall I book it?")
    out = await c.turn("yes please", call("reserve_table", **TABLE_13TH), say("Booked."))
    assert out == ["Booked."] and done == ["table Ortega Tapas Leeds 4 2026-03-13 20:00"]
    assert {a["status"] for a in c.arguments().values()} == {"traced"}


@pytest.mark.parametrize(
    "answer",
    [
        "we'll probably come on the 13th at 8pm, four of us",
        "four of us, on the 13th at 8pm if that's still free",
    ],
)
async def test_a_hedged_answer_to_the_agents_question_is_traced_and_confirmed(
    alice: tuple[Call, list[str]], answer: str
) -> None:
    """A value given with a hedge or a condition in answer to the agent's question is the caller's,
    but not trusted on its own: the gate asks with every value, and the yes runs it."""
    c, done = alice
    await c.says("could you book me a table at ortega tapas in leeds", "Sure. For how many, and when?")
    await c.says(answer, "Noted.")
    out = await c.turn(
        "go ahead",
        call("reserve_table", **TABLE_13TH),
        say("A table at Ortega Tapas in Leeds for 4 on 2026-03-13 at 20:00, shall I book it?"),
    )
    assert done == [] and out[0].startswith("A table at Ortega Tapas in Leeds for 4")
    first = c.arguments()
    assert first["date"]["status"] == "traced" and first["date"]["trusted"] is False
    assert first["date"]["rule"] == "trace.value.hedged"
    out = await c.turn("yes, book it", call(gate.CONFIRM_TOOL), say("Booked."))
    assert done == ["table Ortega Tapas Leeds 4 2026-03-13 20:00"]


@pytest.mark.parametrize(
    "ask",
    [
        "could you book ortega tapas in leeds for four on the 13th at 8pm if there's room",
        "a table at ortega tapas in leeds, four of us on the 13th at 8pm, if they've still got space",
        "yeah if theres a table free put four of us down at ortega tapas in leeds on the 13th at 8pm",
        "Reserva Ortega Tapas en Leeds para cuatro el 13 a las 8 de la tarde, si hay sitio.",
    ],
)
async def test_a_request_hedged_only_on_room_is_asked_once_and_the_yes_runs_it(
    alice: tuple[Call, list[str]], ask: str
) -> None:
    """Whether there is room is the action's to find out: the caller asked for it, with a hedge.
    The gate asks once with every value (``trace.action.hedged``, ``trace.value.hedged``); their
    yes runs it."""
    c, done = alice
    await c.says("i'm after somewhere to eat in leeds", "Ortega Tapas is a nice place in Leeds.")
    out = await c.turn(
        ask,
        call("reserve_table", **TABLE_13TH),
        say("A table at Ortega Tapas in Leeds for 4 on 2026-03-13 at 20:00, shall I book it?"),
    )
    assert done == [] and out[0].startswith("A table at Ortega Tapas in Leeds for 4"), out
    record = json.loads(c.last().evidence_json)
    rules = {record["action"]["rule"], *(a["rule"] for a in record["arguments"])}
    assert rules & {"trace.action.hedged", "trace.value.hedged"}, record
    assert all(a["trusted"] is False for a in record["arguments"] if a["status"] == "traced")
    await c.turn("yes please", call(gate.CONFIRM_TOOL), say("Booked."))
    assert done == ["table Ortega Tapas Leeds 4 2026-03-13 20:00"]


@pytest.mark.parametrize(
    "words",
    [
        "book ortega tapas in leeds for four on the 13th at 8pm if it's cheaper than the 14th",
        "if there's room on the 13th at 8pm i'll ring back to book ortega tapas in leeds for four",
        "is there room at ortega tapas in leeds for four on the 13th at 8pm?",
    ],
)
async def test_a_condition_on_anything_but_room_asks_for_nothing(
    alice: tuple[Call, list[str]], words: str
) -> None:
    """A price, a plan to call back, a question about room: nothing asked for with a hedge, and
    none of its values trusted."""
    c, done = alice
    await c.says("i'm after somewhere to eat in leeds", "Ortega Tapas is a nice place in Leeds.")
    await c.turn(words, call("reserve_table", **TABLE_13TH), say("Shall I book it?"))
    assert done == []
    record = json.loads(c.last().evidence_json)
    rules = {record["action"]["rule"], *(a["rule"] for a in record["arguments"])}
    assert not rules & {"trace.action.hedged", "trace.value.hedged"}, record
    assert not [
        a for a in record["arguments"] if a["name"] == "party" and a["trusted"] and a["status"] == "traced"
    ]


@pytest.mark.parametrize(
    "words",
    ["play the one called business dinners", "put on the track named Business Dinners for me"],
)
async def test_a_name_given_after_called_is_the_name(alice: tuple[Call, list[str]], words: str) -> None:
    """ "The one called Business Dinners" names the song: no call was made."""
    c, _ = alice
    await c.turn(words, call("play_song", song="Business Dinners"), say("Play it?"))
    assert c.arguments()["song"]["status"] == "traced"


@pytest.mark.parametrize(
    "words",
    [
        "i need a compact model in leeds from the 10th to the 14th",
        "can i get a compact motor in leeds from the 10th until the 14th",
        "compact car in leeds please from the 10th to the 14th",
    ],
)
async def test_one_of_a_few_values_said_with_a_noun_after_it_is_that_value(
    alice: tuple[Call, list[str]], words: str
) -> None:
    """ "A compact model" is the compact class: the class takes one of three values, and a noun
    after it cannot make it another."""
    c, done = alice
    car = {**CAR_10_14, "car_class": "compact"}
    out = await c.turn(words, call("rent_car", **car), say("Done."))
    assert out == ["Reserved."] and done == ["car compact Leeds 2026-03-10-2026-03-14"]
    assert {a["status"] for a in c.arguments().values()} == {"traced"}


async def test_two_values_of_a_kind_offered_for_two_arguments_are_both_taken_up(
    alice: tuple[Call, list[str]],
) -> None:
    """The agent offers a pick-up day and a return day in one breath: each is its argument's, not a
    choice between them, and the caller's yes takes up both."""
    c, done = alice
    await c.says(
        "i need a standard car in leeds",
        "There is a standard car in Leeds, picked up on the 10th and brought back on the 14th.",
    )
    out = await c.turn("great, book that", call("rent_car", **CAR_10_14), say("Done."))
    assert out == ["Reserved."] and done == ["car standard Leeds 2026-03-10-2026-03-14"]
    assert {a["status"] for a in c.arguments().values()} == {"traced"}


@pytest.mark.parametrize(
    ("said", "name", "taken"),
    [
        # a common word in the agent's written words speaks of a thing, it names none
        ("Your appointment has been made. Anything else?", "Appointment", False),
        ("The visit is booked for the 12th. Shall I add it to your calendar?", "Visit", False),
        ("I can add the meeting on the 12th to your calendar.", "Meeting", False),
        # the name written as one, or the caller's own lower-case words
        ("Shall I add Appointment on the 12th to your calendar?", "Appointment", True),
        ("I can add an event called Team Visit on the 12th.", "Team Visit", True),
    ],
)
async def test_a_word_in_lower_case_in_the_agents_words_offers_no_name(
    alice: tuple[Call, list[str]], said: str, name: str, taken: bool
) -> None:
    """ "Your appointment has been made." offers no event called "Appointment": in written words a
    name keeps its capital. The name written as one is offered and taken up."""
    c, _ = alice
    await c.says("i'd like to put something in my calendar for the 12th", said)
    await c.turn("Sure, thank you.", call("add_event", event_name=name, date="2026-03-12"), say("Shall I?"))
    status = c.arguments()["event_name"]["status"]
    assert (status == "traced") is taken, c.arguments()["event_name"]


@pytest.mark.parametrize(
    "words",
    [
        "I need a standard car in New York City from the 10th to the 14th.",
        "Could I get a standard car around New York City, from the 10th to the 14th?",
        # a place takes no title words: a preposition written with a capital is only that
        "I need a standard car In New York from the 10th to the 14th.",
    ],
)
async def test_a_kind_word_in_capitals_after_a_place_keeps_the_place(
    alice: tuple[Call, list[str]], words: str
) -> None:
    """ "New York City" is New York: a capitalised word of a kind after a place ("City") is read as
    before; only a function word in capitals ("Night Of The Hunter") carries a title on, and
    never a place's ("what's going on In NYC?")."""
    c, done = alice
    car = {**CAR_10_14, "city": "New York"}
    out = await c.turn(words, call("rent_car", **car), say("Done."))
    assert c.arguments()["city"]["status"] == "traced", c.arguments()["city"]
    assert out == ["Reserved."] and done == ["car standard New York 2026-03-10-2026-03-14"]


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        # a thing proposed with no value of the request's in it, then a recommendation
        ("How about an automatic?", "I would suggest a standard Cooper in York, it is automatic."),
        ("what about one with gps", "i'd recommend a standard car in york it has gps"),
        ("Do you have an electric one?", "You might like a standard Tesla in York."),
        ("How about a hybrid?", "My suggestion is a standard Prius in York."),
        ("And what about a convertible then?", "We can suggest a standard Mustang in York."),
    ],
)
async def test_a_recommendation_after_the_caller_proposes_another_replaces_the_offer(
    alice: tuple[Call, list[str]], asked: str, answer: str
) -> None:
    """After "How about an automatic?", the agent's "I would suggest a standard Cooper in York"
    puts another forward (it is no fact of the Leeds car): "book it" takes up York, not the Leeds
    car offered before."""
    c, done = alice
    await c.says(
        "i need a standard car from the 10th to the 14th",
        "There is a standard car in Leeds from the 10th to the 14th.",
    )
    await c.says(asked, answer)
    out = await c.turn("Ok great. Book it.", call("rent_car", **CAR_10_14), say("Done."))
    assert done == [] and out != ["Reserved."]
    assert c.arguments()["city"]["status"] != "traced", c.arguments()["city"]
    await c.turn("Ok great. Book it.", call("rent_car", **{**CAR_10_14, "city": "York"}), say("Done."))
    assert c.arguments()["city"]["status"] == "traced", c.arguments()["city"]


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("What about the price?", "It is 40 pounds a day, picked up in Leeds."),
        ("how about it is it an automatic", "Yes, the car in Leeds is an automatic."),
    ],
)
async def test_a_question_about_the_offer_keeps_it_on_offer(
    alice: tuple[Call, list[str]], asked: str, answer: str
) -> None:
    """ "What about the price?" asks about the car on offer: the answer's values are its facts,
    and "book it" takes the Leeds car up."""
    c, done = alice
    await c.says(
        "i need a standard car from the 10th to the 14th",
        "There is a standard car in Leeds from the 10th to the 14th.",
    )
    await c.says(asked, answer)
    out = await c.turn("Ok great. Book it.", call("rent_car", **CAR_10_14), say("Done."))
    assert c.arguments()["city"]["status"] == "traced", c.arguments()["city"]
    assert out == ["Reserved."] and done == ["car standard Leeds 2026-03-10-2026-03-14"]


@pytest.mark.parametrize(
    "change",
    [
        "i'd rather go to bella roma in leeds",
        "actually, bella roma in leeds instead please",
        "hmm i think i prefer bella roma in leeds",
    ],
)
async def test_picking_something_else_sets_aside_what_the_agent_offered_with_the_first(
    alice: tuple[Call, list[str]], change: str
) -> None:
    """The 13th at 8pm came with Ortega Tapas; the caller picked Bella Roma: the day and time are
    not theirs for Bella Roma, so a call with them is asked about, not acted on."""
    c, done = alice
    await c.says("find me somewhere to eat", "Ortega Tapas has a table on the 13th at 8pm.")
    await c.says(change, "Bella Roma is lovely.")
    table = {**TABLE_13TH, "restaurant": "Bella Roma"}
    out = await c.turn("book it for four please", call("reserve_table", **table), say("Shall I?"))
    assert done == [] and out != ["Booked."]
    assert c.arguments()["date"]["status"] != "traced" and c.arguments()["time"]["status"] != "traced"


@pytest.mark.parametrize(
    "no",
    ["no, can you look for something cheaper?", "no thanks, another one please", "nah, not that one"],
)
async def test_an_offer_turned_down_is_not_taken_up_by_a_later_yes(
    alice: tuple[Call, list[str]], no: str
) -> None:
    """The caller said no to Ortega Tapas; their later yes is to what the agent offered next."""
    c, done = alice
    await c.says("i'd like a table in leeds for four on the 13th at 8pm", "I found Ortega Tapas in Leeds.")
    await c.says(no, "Bella Roma has a table then.")
    out = await c.turn("yes, book it", call("reserve_table", **TABLE_13TH), say("Shall I?"))
    assert done == [] and out != ["Booked."]
    assert c.arguments()["restaurant"]["status"] != "traced"


async def test_a_list_of_names_is_a_choice_the_caller_did_not_make(alice: tuple[Call, list[str]]) -> None:
    """ "Ortega Tapas, Bella Roma and Sapori": a yes to the list picks none of them."""
    c, done = alice
    await c.says(
        "what restaurants are there in leeds?", "I have Ortega Tapas, Bella Roma and Sapori in Leeds."
    )
    out = await c.turn(
        "great, book me a table for four on the 13th at 8pm",
        call("reserve_table", **TABLE_13TH),
        say("Shall I?"),
    )
    assert done == [] and out != ["Booked."]
    assert c.arguments()["restaurant"]["status"] != "traced"


@pytest.mark.parametrize("answer", ["no the 10th", "no, next tuesday", "nope on the 10th please"])
async def test_a_no_to_the_agents_day_followed_by_the_callers_own_is_a_correction(
    alice: tuple[Call, list[str]], answer: str
) -> None:
    """ "Shall I start it on the 9th?" - "no the 10th": the no is to the 9th, the 10th is asked for."""
    c, _ = alice
    await c.says("i need a standard car in leeds until the 14th", "Shall I start it on the 9th?")
    out = await c.turn(answer, call("rent_car", **CAR_10_14), say("Done."))
    assert out == ["Reserved."] and c.arguments()["pickup_date"]["status"] == "traced"


async def test_a_no_to_the_callers_own_day_stays_a_no(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    await c.says("i need a standard car in leeds until the 14th", "Shall I start it on the 9th?")
    out = await c.turn("no, not the 10th either", call("rent_car", **CAR_10_14), say("Done."))
    assert done == [] and out != ["Reserved."]


@pytest.mark.parametrize(
    "words",
    [
        "i'd like a not very costly place to eat in leeds, for four on the 13th at 8pm",
        "somewhere not too pricey in leeds for four on the 13th at 8pm please",
    ],
)
async def test_a_no_inside_a_description_denies_nothing(alice: tuple[Call, list[str]], words: str) -> None:
    """ "A not very costly place in Leeds" describes the place; Leeds is asked for, not refused."""
    c, _ = alice
    await c.says(words, "Ortega Tapas fits. Shall I book it?")
    await c.turn("yes please", call("reserve_table", **TABLE_13TH), say("Booked."))
    assert c.arguments()["city"]["status"] == "traced"


async def test_changing_the_search_says_values_for_what_it_finds(alice: tuple[Call, list[str]]) -> None:
    """ "Change the search to a table for four on the 13th at 8pm": what the search is changed to
    find counts for the booking asked for on what it found."""
    c, _ = alice
    await c.says("find me somewhere to eat in leeds", "Sapori has a table for two tonight.")
    await c.says(
        "can you change the search to places with a table for four on the 13th at 8pm",
        "Ortega Tapas has a table then. Shall I book it?",
    )
    out = await c.turn("yes please", call("reserve_table", **TABLE_13TH), say("Booked."))
    assert out == ["Booked."] and {a["status"] for a in c.arguments().values()} == {"traced"}


@pytest.mark.parametrize(
    "change",
    [
        "actually, i'd rather go somewhere with 5 stars",
        "actually, somewhere under 40 pounds a head instead",
    ],
)
async def test_a_change_that_says_what_it_changes_takes_nothing_else_back(
    alice: tuple[Call, list[str]], change: str
) -> None:
    """The caller changes the kind of place, saying how; the table's own values still stand."""
    c, _ = alice
    await c.says("i want a table in leeds for four on the 13th at 8pm", "Sapori has a table then.")
    await c.says(change, "Ortega Tapas has that, with a table then. Shall I book it?")
    out = await c.turn("yes please", call("reserve_table", **TABLE_13TH), say("Booked."))
    assert out == ["Booked."] and {a["status"] for a in c.arguments().values()} == {"traced"}


@pytest.mark.parametrize(
    ("words", "amount", "account"),
    [
        ("send nine fifty over to acc seven seven please", 9.5, "ACC-77"),  # pounds and pence, spoken
        ("um yeah transfer four fifty to a c c three double oh nine", 450, "ACC-3009"),  # hundreds
        ("put nineteen ninety nine into acc oh four one two for me", 19.99, "ACC-0412"),  # digits one by one
    ],
)
async def test_amounts_and_accounts_said_in_parts_are_the_values(
    alice: tuple[Call, list[str]], words: str, amount: float, account: str
) -> None:
    """Speech-to-text writes amounts and identifiers as words said in parts; each is the value."""
    c, _done = alice
    out = await c.turn(words, call("transfer_money", amount=amount, to_account=account), say("Sent."))
    assert out == ["Sent."]
    assert {a["status"] for a in c.arguments().values()} == {"traced"}


async def test_an_amount_in_parts_is_not_another_amount_said_whole(alice: tuple[Call, list[str]]) -> None:
    """ "Nine fifty" is 9.50 or 950, never 9 or 50: the parts are not the value."""
    c, done = alice
    await c.turn(
        "send nine fifty over to acc seven seven please",
        call("transfer_money", amount=50, to_account="ACC-77"),
        say("Shall I?"),
    )
    assert done == [] and c.arguments()["amount"]["status"] != "traced"


@pytest.mark.parametrize(
    "change",
    [
        "can we do it at 9pm instead",
        "could you make it for 9pm instead",
        "i'd rather have it at 9pm",
    ],
)
async def test_a_value_said_instead_changes_it_and_takes_nothing_back(
    alice: tuple[Call, list[str]], change: str
) -> None:
    """ "Can we do 9pm instead": the caller puts a new value in the old one's place."""
    c, _done = alice
    await c.says("book a table at ortega tapas in leeds for four on the 13th at 8pm", "Shall I?")
    out = await c.turn(change, call("reserve_table", **{**TABLE_13TH, "time": "21:00"}), say("Booked."))
    assert c.arguments()["time"]["status"] == "traced"
    assert c.arguments()["time"]["words"] == change
    assert json.loads(c.last().evidence_json)["action"]["status"] == "requested", out


@pytest.mark.parametrize(
    "yes",
    ["that works for me", "great, i'll take that one", "ok sounds good"],
)
async def test_the_agents_offer_taken_after_a_question_is_the_callers_latest_word(
    alice: tuple[Call, list[str]], yes: str
) -> None:
    """The caller asked for an SUV; the agent offers a compact; a question about it; then a yes:
    the compact is what the caller took, over the SUV they first said."""
    c, _ = alice
    await c.says(
        "i need an suv in leeds from the 10th to the 14th", "I found a compact Fiesta in Leeds then."
    )
    await c.says("how much is it in total?", "It comes to 180 dollars.")
    out = await c.turn(yes, call("rent_car", **{**CAR_10_14, "car_class": "compact"}), say("Done."))
    assert out == ["Reserved."] and c.arguments()["car_class"]["status"] == "traced"
    assert c.arguments()["car_class"]["rule"] == "trace.offer"


async def test_a_new_request_after_the_agents_offer_does_not_take_it(alice: tuple[Call, list[str]]) -> None:
    """After "an SUV", the agent's compact, then "i'd like a bigger car from the 11th": the caller
    asked for something again, not for the compact."""
    c, done = alice
    await c.says(
        "i need an suv in leeds from the 10th to the 14th", "I found a compact Fiesta in Leeds then."
    )
    await c.turn(
        "i'd like a bigger car from the 11th",
        call("rent_car", **{**CAR_10_14, "pickup_date": "2026-03-11", "car_class": "compact"}),
        say("Shall I?"),
    )
    assert done == [] and c.arguments()["car_class"]["status"] != "traced"


async def test_a_yes_to_the_agents_other_question_does_not_take_an_older_offer(
    alice: tuple[Call, list[str]],
) -> None:
    """The agent offered a compact, then asked something else: the caller's yes answers that."""
    c, done = alice
    await c.says(
        "i need an suv in leeds from the 10th to the 14th", "I found a compact Fiesta in Leeds then."
    )
    await c.says("how much is it in total?", "It comes to 180 dollars. Do you want insurance with it?")
    await c.turn(
        "that's fine with me",
        call("rent_car", **{**CAR_10_14, "car_class": "compact"}),
        say("Shall I?"),
    )
    assert done == [] and c.arguments()["car_class"]["status"] != "traced"


async def test_a_house_number_counts_nobody(alice: tuple[Call, list[str]]) -> None:
    """ "They are at 4 Park Row": the 4 of an address is no party of four."""
    c, done = alice
    await c.says("i want a table at ortega tapas in leeds on the 13th at 8pm", "They are at 4 Park Row.")
    await c.turn("great, that's the one", call("reserve_table", **TABLE_13TH), say("Booked."))
    assert done == [] and c.arguments()["party"]["status"] != "traced"


@pytest.mark.parametrize(
    ("name", "traced"),
    [
        ("Ortega Tapas Restaurant", True),  # the name and the word for its kind of place
        ("Ortega Tapas Cafe", True),
        ("Ortega Tapas Norte", False),  # another word of the name: another place
    ],
)
async def test_a_name_said_without_its_kind_of_place_is_the_name(
    alice: tuple[Call, list[str]], name: str, traced: bool
) -> None:
    c, done = alice
    await c.turn(
        "book a table at ortega tapas in leeds for four on the 13th at 8pm",
        call("reserve_table", **{**TABLE_13TH, "restaurant": name}),
        say("Booked."),
    )
    assert (c.arguments()["restaurant"]["status"] == "traced") is traced
    assert bool(done) is traced


@pytest.mark.parametrize(
    "words",
    ["the number of bedrooms must be four", "nights: four", "the stay is four nights long"],
)
async def test_a_number_whose_words_before_say_what_it_counts_is_that_count(
    alice: tuple[Call, list[str]], words: str
) -> None:
    """ "The number of bedrooms must be four" counts bedrooms, not people at a table."""
    c, done = alice
    await c.says(words, "Noted.")
    await c.turn(
        "now book a table at ortega tapas in leeds on the 13th at 8pm",
        call("reserve_table", **TABLE_13TH),
        say("Booked?"),
    )
    assert done == [] and c.arguments()["party"]["status"] != "traced"


@pytest.mark.parametrize(
    "words",
    ["i want something i can keep until this saturday", "i need one i can keep till this coming saturday"],
)
async def test_until_a_day_says_when_it_ends_not_a_condition(
    alice: tuple[Call, list[str]], words: str
) -> None:
    """ "Something I can keep until this Saturday" gives the return day; "until this is sorted" would
    be a condition."""
    c, _ = alice
    await c.says("i need a car in leeds from the 10th", "What kind of car?")
    await c.says(words, "A compact Fiesta fits.")
    out = await c.turn(
        "book it",
        call(
            "rent_car", city="Leeds", pickup_date="2026-03-10", return_date="2026-03-07", car_class="compact"
        ),
        say("Done."),
    )
    assert c.arguments()["return_date"]["status"] == "traced", out
    assert c.arguments()["return_date"]["rule"] == "trace.value"  # not a hedge: nothing to confirm


async def test_a_count_before_an_address_still_counts(alice: tuple[Call, list[str]]) -> None:
    """ "A table for 4 at 7 Park Row": the 7 opens the address; the 4 is the party."""
    c, _ = alice
    await c.turn(
        "book ortega tapas in leeds on the 13th at 8pm, a table for 4 at 7 park row",
        call("reserve_table", **TABLE_13TH),
        say("Booked."),
    )
    assert c.arguments()["party"]["status"] == "traced"


@pytest.mark.parametrize(
    "agree",
    [
        *("No problem.", "Yeah, I'm fine with that.", "not a problem", "we're happy with that", "Ideal."),
        # as speech-to-text writes it, joined with "and", or said as interest
        *("thats great", "I like the sound of that.", "Of course.", "im happy with that"),
        *("Ok, that's great and sounds good to me.", "I'm interested in that one."),
    ],
)
async def test_an_offer_taken_up_in_other_words_of_agreement(
    alice: tuple[Call, list[str]], agree: str
) -> None:
    """'No problem' and 'I'm fine with that' take up what the agent offered; a no does not."""
    c, _ = alice
    await c.says("can you find me some songs by sigrid?", "Would you like Business Dinners by Sigrid?")
    await c.turn(agree, call("play_song", song="Business Dinners"), say("Play it?"))
    song = c.arguments()["song"]
    assert (song["status"], song["rule"]) == ("traced", "trace.offer"), song


@pytest.mark.parametrize(
    "refuse", ["No, something else please.", "nah, not that one", "No. Problem is I hate it."]
)
async def test_a_no_to_the_offer_is_not_a_no_problem(alice: tuple[Call, list[str]], refuse: str) -> None:
    c, _ = alice
    await c.says("can you find me some songs by sigrid?", "Would you like Business Dinners by Sigrid?")
    await c.turn(refuse, call("play_song", song="Business Dinners"), say("Play it?"))
    assert c.arguments()["song"]["status"] != "traced"


async def test_agreement_then_the_details_takes_up_the_offer_and_gives_them(
    alice: tuple[Call, list[str]],
) -> None:
    """'Sure, on the 14th' to the agent's offer of a table takes the offered restaurant and
    gives the day; the action offered by its thing ('do you want a table there?') is asked for."""
    c, done = alice
    await c.says("find me somewhere to eat in Leeds for two", "Sakura is a Japanese place in Leeds.")
    await c.says("is it expensive?", "It is moderately priced. Do you want a table there?")
    out = await c.turn(
        "Sure, on the 14th at 7pm.",
        call("reserve_table", restaurant="Sakura", city="Leeds", party=2, date="2026-03-14", time="19:00"),
        say("Booked."),
    )
    args = c.arguments()
    assert {n: a["status"] for n, a in args.items()} == dict.fromkeys(args, "traced"), args
    assert args["restaurant"]["rule"] == "trace.offer" and done and out == ["Booked."]


async def test_a_listed_name_said_in_another_arguments_part_is_no_choice_for_this_one(
    alice: tuple[Call, list[str]],
) -> None:
    """ "Checking or savings?" asked about the caller's own account: "from my savings account"
    answers that, and says nothing about the payee's account, which stays at its default."""
    c, _ = alice
    await c.says("I'd like to make a transfer.", "To whom, and from which account, checking or savings?")
    await c.turn(
        "I want to send 740 dollars to Pranav from my savings account.",
        call("pay_person", amount=740, payee="Pranav", from_account="savings"),
        say("Sent."),
    )
    args = c.arguments()
    assert args["from_account"]["status"] == "traced", args
    assert args["payee_account"]["status"] == "default", args


SAKURA_14TH = {"restaurant": "Sakura", "city": "Leeds", "party": 2, "date": "2026-03-14", "time": "19:00"}


@pytest.mark.parametrize(
    ("question", "answer", "takes"),
    [
        # A question about what is on offer, and its answer: the offer stands.
        ("when does the kitchen close?", "The kitchen closes at 10pm.", True),
        ("how late is it open", "It is open until 11pm.", True),
        # Asked in so many words, or asked about a thing of another kind; another sentence of
        # the answer ("There are 20 spaces.") puts nothing forward.
        ("i need to know when the kitchen closes", "The kitchen closes at 10pm.", True),
        ("are there any parking spaces? when does it close?", "There are 20. It closes at 10pm.", True),
        ("i'd like to know if there's a later one", "There's one at 9pm.", False),
        # A question for another option, or an answer that puts one forward: a new offer.
        ("is there a later one?", "It has one at 9pm.", False),
        ("when does the kitchen close?", "It closes at 10pm, and there's also a table at 9pm.", False),
    ],
)
async def test_an_offer_stands_through_a_question_about_it(
    alice: tuple[Call, list[str]], question: str, answer: str, takes: bool
) -> None:
    """The agent offers a table at 7pm; the caller asks about it; then takes it. The answer's
    times are facts of that table, not other tables, unless it puts another forward."""
    c, _ = alice
    await c.says("find me a table for two in leeds on the 14th", "Sakura has a table for you at 7pm.")
    await c.says(question, answer)
    await c.turn("that works for me, can you book it", call("reserve_table", **SAKURA_14TH), say("Booked."))
    time = c.arguments()["time"]
    assert (time["status"] == "traced" and time["rule"] == "trace.offer") is takes, time


async def test_a_preference_for_what_the_offer_left_open_keeps_the_offer(
    alice: tuple[Call, list[str]],
) -> None:
    """ "I would prefer it for three" after the agent offered a table's time sets aside nothing
    the offer said; "I'd rather go to Nopi" sets aside the restaurant it offered."""
    c, _ = alice
    await c.says("find me a table in leeds on the 14th", "Sakura has a table at 7pm.")
    await c.turn(
        "that works for me, but i would prefer it for three",
        call("reserve_table", **{**SAKURA_14TH, "party": 3}),
        say("Booked."),
    )
    args = c.arguments()
    assert args["time"]["status"] == "traced" and args["restaurant"]["status"] == "traced", args
    await c.says("and another on the 15th", "Sakura has a table at 8pm on the 15th.")
    await c.turn(
        "i'd rather go to nopi, book that",
        call("reserve_table", **{**SAKURA_14TH, "date": "2026-03-15", "time": "20:00"}),
        say("Shall I?"),
    )
    assert c.arguments()["time"]["status"] != "traced"


@pytest.mark.parametrize(
    ("offer", "takes"),
    [
        # A description's list is no choice of names, nor is a choice put in a second question.
        ("I also found Sakura, on Park Row, with a terrace and a bar.", True),
        ("Is Sakura the place you want and would you like it at 7pm or 8pm?", True),
        # A list of names, or a choice around the name itself, is a choice.
        ("I found Sakura, Nopi and Ottolenghi.", False),
        ("Would you like Sakura or Nopi?", False),
        ("There's 2 you may like - Sakura and Nopi.", False),
    ],
)
async def test_a_choice_is_one_among_names_not_a_description_or_another_question(
    alice: tuple[Call, list[str]], offer: str, takes: bool
) -> None:
    c, _ = alice
    await c.says("find me somewhere to eat in leeds for two", offer)
    await c.turn("great, book it for the 14th at 7pm", call("reserve_table", **SAKURA_14TH), say("Booked."))
    restaurant = c.arguments()["restaurant"]
    assert (restaurant["status"] == "traced") is takes, restaurant


@pytest.mark.parametrize(
    ("correction", "traced"),
    [
        # A no, the argument's own label, then its value: a correction.
        ("No, the date is the 13th.", True),
        ("no the reservation date should be the 13th", True),
        # A no with other words before the value still says no to what follows.
        ("No, I never said anything about the 13th.", False),
    ],
)
async def test_no_then_the_label_and_the_value_corrects_the_agent(
    alice: tuple[Call, list[str]], correction: str, traced: bool
) -> None:
    c, _ = alice
    await c.says("a table at ortega tapas in leeds for 4 at 8pm please", "So that is on the 12th?")
    await c.turn(correction, call("reserve_table", **TABLE_13TH), say("Booked."))
    date = c.arguments()["date"]
    assert (date["status"] == "traced") is traced, date


async def test_money_from_ones_own_account_to_anothers_is_no_change_of_account(
    alice: tuple[Call, list[str]],
) -> None:
    """ "From my savings account to hers": savings is where the money comes from."""
    c, _ = alice
    await c.says("I need to make a transfer.", "From which account, and to whom?")
    await c.turn(
        "Send 300 dollars to Maria from my savings account to hers.",
        call("pay_person", amount=300, payee="Maria", from_account="savings"),
        say("Sent."),
    )
    assert c.arguments()["from_account"]["status"] == "traced", c.arguments()


async def test_a_short_form_inside_a_longer_name_offers_nothing(alice: tuple[Call, list[str]]) -> None:
    """ "Seattle Vs LA Angels" names a game, not a table in Los Angeles."""
    c, _ = alice
    await c.says("find me a game to watch", "Seattle Vs LA Angels is on the 13th at 8pm at Ortega Tapas.")
    await c.turn(
        "that's the one, book me a table there for 4",
        call("reserve_table", **{**TABLE_13TH, "city": "Los Angeles"}),
        say("Shall I?"),
    )
    assert c.arguments()["city"]["status"] != "traced", c.arguments()


async def test_asking_for_other_options_drops_the_older_offer(alice: tuple[Call, list[str]]) -> None:
    """The 8pm came with Sakura; the caller asked for other restaurants; the agent named Nopi on
    the 14th without a time: the yes that follows does not take the old 8pm."""
    c, _ = alice
    await c.says("find me a table in leeds for two", "Sakura has a table on the 13th at 8pm.")
    await c.says("are there any other restaurants on other days?", "Nopi has tables on the 14th.")
    await c.turn(
        "great, book me a table there",
        call("reserve_table", restaurant="Nopi", city="Leeds", party=2, date="2026-03-14", time="20:00"),
        say("Shall I?"),
    )
    args = c.arguments()
    assert args["time"]["status"] != "traced" and args["restaurant"]["status"] == "traced", args


@pytest.mark.parametrize(
    ("change", "traced"),
    [
        # The request in hand given a new value with a pointer to it.
        ("actually, can you change it to the 14th?", True),
        ("let's change that to the 14th please", True),
        # Another thing moved is another action.
        ("and move my other booking to the 14th", False),
    ],
)
async def test_changing_it_to_a_value_changes_the_request_in_hand(
    alice: tuple[Call, list[str]], change: str, traced: bool
) -> None:
    c, _ = alice
    await c.says("book ortega tapas in leeds for 4 on the 13th at 8pm", "Shall I book that?")
    await c.turn(change, call("reserve_table", **{**TABLE_13TH, "date": "2026-03-14"}), say("Booked."))
    date = c.arguments()["date"]
    assert (date["status"] == "traced") is traced, date


async def test_asking_whether_there_are_others_drops_the_offer_listed_before(
    alice: tuple[Call, list[str]],
) -> None:
    """Sakura was listed; the caller asked for other places and took Nopi: a call for Sakura
    is not what the caller took up."""
    c, _ = alice
    await c.says("find me somewhere to eat in leeds", "I can think of two. Tamarind is good and also Sakura.")
    await c.says("are there any italian places?", "I can think of one called Nopi.")
    await c.says("Nopi is a good one.", "Would you like a table there?")
    await c.turn(
        "Yes, for two on the 14th at 7pm.",
        call("reserve_table", **SAKURA_14TH),
        say("Shall I?"),
    )
    assert c.arguments()["restaurant"]["status"] != "traced", c.arguments()


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # About what is on offer, or about things of another kind: the offer stands.
        ("is there any parking nearby?", "Yes, there is a car park next door."),
        ("is there any other hotel near it?", "The Queens Hotel is next door."),
    ],
)
async def test_a_question_for_things_of_another_kind_keeps_the_offer(
    alice: tuple[Call, list[str]], question: str, answer: str
) -> None:
    c, _ = alice
    await c.says("find me a table for two in leeds on the 14th", "Sakura has a table for you at 7pm.")
    await c.says(question, answer)
    await c.turn("great, book it", call("reserve_table", **SAKURA_14TH), say("Booked."))
    args = c.arguments()
    assert args["restaurant"]["status"] == "traced" and args["time"]["status"] == "traced", args


@pytest.mark.parametrize("between", [None, "I prefer a small car, please"])
async def test_a_request_for_another_place_drops_the_offer_made_before(
    alice: tuple[Call, list[str]], between: str | None
) -> None:
    """The agent offered a car in Leeds; the caller then asked for one in York: a call for the
    Leeds car is not what the caller asked for, whatever they say to the next offer, and even
    when a request between took the Leeds offer up ("I prefer a small car, please")."""
    c, done = alice
    await c.says("i need a compact car from the 10th to the 14th", "I found a compact Fiesta in Leeds.")
    if between is not None:
        await c.says(between, "There is a compact Fiesta in Leeds.")
    await c.says("I need a car in York, please.", "I found a compact Polo at York Station.")
    await c.turn(
        "I want to book this car", call("rent_car", **{**CAR_10_14, "car_class": "compact"}), say("Shall I?")
    )
    assert done == [] and c.arguments()["city"]["status"] != "traced", c.arguments()


@pytest.mark.parametrize(
    "aside",
    ["what will the weather be like on the 12th?", "Could you tell me the weather forecast for the 12th?"],
)
async def test_a_day_asked_about_the_weather_is_the_weathers(
    alice: tuple[Call, list[str]], aside: str
) -> None:
    """The 12th of a question about the weather is no change to the car's days."""
    c, _ = alice
    await c.says("i need a compact car in leeds from the 10th", "Until when do you need it?")
    await c.says(aside, "Sunny, 18 degrees.")
    await c.turn(
        "until the 14th then", call("rent_car", **{**CAR_10_14, "car_class": "compact"}), say("Done.")
    )
    args = c.arguments()
    assert {n: a["status"] for n, a in args.items()} == dict.fromkeys(args, "traced"), args


@pytest.mark.parametrize("picked", ["I think Nopi is awesome.", "nopi sounds better"])
async def test_the_other_of_two_names_listed_is_a_choice_and_a_yes_after_it_is_no_yes_to_the_first(
    alice: tuple[Call, list[str]], picked: str
) -> None:
    """The agent lists two names; the caller picks the second; "shall I book it?" "yes" is a yes
    to the second. A call with the first is never traced, and never acts."""
    c, done = alice
    await c.says("find me somewhere to eat in leeds for two on the 14th at 7pm", "There's Sakura and Nopi.")
    await c.says(picked, "Shall I book it?")
    await c.turn("Yes, please do.", call("reserve_table", **SAKURA_14TH), say("Shall I?"))
    assert c.arguments()["restaurant"]["status"] != "traced"
    assert not done


@pytest.mark.parametrize(
    "proposal",
    [
        "How about a table for 4 at 8pm.",
        "how about 8pm for 4 people?",
    ],
)
async def test_a_proposal_puts_its_values_forward(alice: tuple[Call, list[str]], proposal: str) -> None:
    """ "How about ..." and "what about if ..." from the caller propose their values (no condition,
    no mere question): they replace what was said before."""
    c, _ = alice
    await c.says("a table at sakura in leeds on the 14th for two at 7pm", "Sakura has a table at 7pm.")
    await c.says(proposal, "I have found one for you.")
    await c.turn(
        "great, book it",
        call("reserve_table", **{**SAKURA_14TH, "party": 4, "time": "20:00"}),
        say("Booked."),
    )
    args = c.arguments()
    assert args["time"]["status"] == "traced" and args["party"]["status"] == "traced", args


@pytest.mark.parametrize("kind", ["small", "compact", "big"])
async def test_a_kind_of_the_thing_before_its_name_is_no_other_thing(
    alice: tuple[Call, list[str]], kind: str
) -> None:
    """ "a small car" for "a hire car": a size or class picks a kind of the thing, not another,
    so "how about a small car from the 11th?" changes the day of this hire."""
    c, _ = alice
    await c.says("i need a hire car in cork from the 10th to the 13th", "A standard car is ready for you.")
    await c.says(f"How about a {kind} car picked up on the 11th.", "I have one for you.")
    await c.turn(
        "I would like the car hire.",
        call("rent_car", city="Cork", pickup_date="2026-03-11", return_date="2026-03-13"),
        say("Reserved."),
    )
    pickup = c.arguments()["pickup_date"]
    assert pickup["status"] == "traced", pickup


@pytest.mark.parametrize(
    ("words", "condition", "proposal"),
    [
        ("What about if we leave from Anaheim, CA, I need 4 tickets", False, True),
        ("how about a small car picked up at 4:30 pm.", False, True),
        ("if we leave from Anaheim, I need 4 tickets", True, False),
        ("book it when the price drops", True, False),
    ],
)
def test_what_about_if_proposes_and_is_no_condition(words: str, condition: bool, proposal: bool) -> None:
    from gate import utterance

    assert utterance.conditional(words) is condition
    assert utterance.proposes(words) is proposal


@pytest.mark.parametrize(
    "answer",
    [
        "four of us and yes, that's perfect",
        "just 4 people, and yes please",
        "4 people and the table at 8pm is fine",
        "we're four and yeah that works",
    ],
)
async def test_an_answer_to_two_questions_takes_up_the_offer_it_says_yes_to(
    alice: tuple[Call, list[str]], answer: str
) -> None:
    """ "How many of you, and is Ortega Tapas at 8pm on the 13th all right?" - "four of us and yes":
    one phrase answers each question; the yes takes up the offer, and a value said in the other
    phrase ("4 people and the table at 8pm is fine") is not what "is fine" speaks of."""
    c, done = alice
    await c.says(
        "i'd like a table in leeds", "How many of you, and is Ortega Tapas at 8pm on the 13th all right?"
    )
    out = await c.turn(answer, call("reserve_table", **TABLE_13TH), say("Booked."))
    assert out == ["Booked."], {
        k: (v["status"], v["rule"]) for k, v in c.arguments().items() if v["status"] != "traced"
    }
    assert out == ["Booked."] and done == ["table Ortega Tapas Leeds 4 2026-03-13 20:00"]
    assert {a["status"] for a in c.arguments().values()} == {"traced"}


@pytest.mark.parametrize(
    "answer",
    [
        "four of us and no, somewhere else",
        "4 people, and i'm not sure about that one",
        "four of us but is it loud?",
    ],
)
async def test_an_answer_to_two_questions_without_a_yes_takes_nothing_up(
    alice: tuple[Call, list[str]], answer: str
) -> None:
    """The count answered, the offer turned down, left open or asked about: not taken up."""
    c, done = alice
    await c.says(
        "i'd like a table in leeds", "How many of you, and is Ortega Tapas at 8pm on the 13th all right?"
    )
    out = await c.turn(answer, call("reserve_table", **TABLE_13TH), say("Shall I?"))
    assert done == [] and out != ["Booked."]
    assert c.arguments()["restaurant"]["status"] != "traced"


@pytest.mark.parametrize(
    "none",
    ["No, sorry, that's the only one.", "There is nothing else on the 13th.", "I couldn't find any other."],
)
async def test_an_offer_stands_when_the_search_for_another_finds_none(
    alice: tuple[Call, list[str]], none: str
) -> None:
    """Asking for other options sets the offer aside only until the agent finds none: the caller's
    yes after "that's the only one" takes up the one offered."""
    c, done = alice
    await c.says("a table in leeds for four please", "Ortega Tapas has a table on the 13th at 8pm.")
    await c.says("is there anything cheaper?", none)
    out = await c.turn("ok then, that's fine", call("reserve_table", **TABLE_13TH), say("Booked."))
    assert out == ["Booked."], {
        k: (v["status"], v["rule"]) for k, v in c.arguments().items() if v["status"] != "traced"
    }
    assert out == ["Booked."] and done == ["table Ortega Tapas Leeds 4 2026-03-13 20:00"]
    assert c.arguments()["restaurant"]["rule"] == "trace.offer"


@pytest.mark.parametrize(
    ("between", "agent", "yes"),
    [
        # another found: the first is not the caller's, whatever they agree to next
        (
            "is there anything cheaper?",
            "Bella Roma has a table at 8pm, there is no other.",
            "ok then, that's fine",
        ),
        # a search for something: not the table just offered
        ("I would like something italian around york", "Let me look.", "ok"),
    ],
)
async def test_an_offer_set_aside_is_not_taken_up_by_a_later_yes(
    alice: tuple[Call, list[str]], between: str, agent: str, yes: str
) -> None:
    c, done = alice
    await c.says("a table in leeds for four please", "Ortega Tapas has a table on the 13th at 8pm.")
    await c.says(between, agent)
    out = await c.turn(yes, call("reserve_table", **TABLE_13TH), say("Shall I?"))
    assert done == [] and out != ["Booked."]
    assert c.arguments()["restaurant"]["status"] != "traced"


@pytest.mark.parametrize(
    "seats",
    ["reserve a seat for 3 people please", "i need seats for three of us", "yes, 3 seats on that bus"],
)
async def test_seats_on_the_bus_are_its_tickets(alice: tuple[Call, list[str]], seats: str) -> None:
    """A seat is had on a bus as at a table: asking for seats is asking for the bus tickets."""
    c, done = alice
    await c.says("i need a bus from leeds to york on the 13th", "There is one at 9am.")
    tickets = {"origin": "Leeds", "destination": "York", "date": "2026-03-13", "travelers": 3}
    out = await c.turn(seats, call("buy_bus_tickets", **tickets), say("Bought."))
    assert out == ["Bought."] and done == ["bus Leeds-York 2026-03-13 x3"]
    assert c.arguments()["travelers"]["status"] == "traced"


async def test_a_table_in_a_bus_call_is_still_another_thing(alice: tuple[Call, list[str]]) -> None:
    """A seat joins the families of the things it is had on; a table stays a restaurant's."""
    c, done = alice
    await c.says("i need a bus from leeds to york on the 13th", "There is one at 9am.")
    tickets = {"origin": "Leeds", "destination": "York", "date": "2026-03-13", "travelers": 3}
    out = await c.turn("book a table for 3 people", call("buy_bus_tickets", **tickets), say("Shall I?"))
    assert done == [] and out != ["Bought."]


@pytest.mark.parametrize(
    ("reply", "taken"),
    [
        ("Yea, that's fine", True),
        ("Yes, that is the one I wanted to hear", True),
        ("perfect, what's the address?", True),
        ("I'd rather not", False),
        ("please tell me the address of the place", False),
        ("hmm, i'm not sure", False),
        ("that's way too late for me", False),
    ],
)
async def test_a_reply_read_as_a_yes_takes_the_offer_up(
    alice: tuple[Call, list[str]], reply: str, taken: bool
) -> None:
    """Agreement in words no list holds is read as the confirmation reader reads a yes to the
    gate's own question, with the same vetoes: its no, change or unclear takes nothing up."""
    c, done = alice
    await c.says("a table in leeds for four please", "Ortega Tapas has a table on the 13th at 8pm.")
    out = await c.turn(reply, call("reserve_table", **TABLE_13TH), say("Done."))
    restaurant = c.arguments()["restaurant"]
    if taken:
        assert out == ["Booked."] and restaurant["rule"] == "trace.offer", restaurant
    else:
        assert done == [] and restaurant["status"] != "traced", restaurant


@pytest.mark.parametrize("place", ["the district of columbia", "DC", "washington"])
async def test_a_city_said_by_another_of_its_names_is_the_city(
    alice: tuple[Call, list[str]], place: str
) -> None:
    c, _ = alice
    car = {**CAR_10_14, "city": "Washington D.C."}
    out = await c.turn(
        f"i need a standard car in {place} from the 10th to the 14th", call("rent_car", **car), say("Done.")
    )
    assert out == ["Reserved."], c.arguments()
    assert c.arguments()["city"]["status"] == "traced"


async def test_a_title_inside_a_longer_name_is_not_offered(alice: tuple[Call, list[str]]) -> None:
    """ "from the album After Laughter" offers no song called "After"; a yes after it takes none."""
    c, _ = alice
    await c.says("play me something by paramore", "Hard Times is from the album After Laughter.")
    await c.turn("sure", call("play_song", song="After"), say("Shall I?"))
    assert c.arguments()["song"]["status"] != "traced"


async def test_a_title_said_whole_is_offered(alice: tuple[Call, list[str]]) -> None:
    c, _ = alice
    await c.says("play me something by paramore", "How about Paramore's Hard Times?")
    await c.turn("sure", call("play_song", song="Hard Times"), say("Playing."))
    assert c.arguments()["song"]["rule"] == "trace.offer"


async def test_a_yes_said_after_turning_to_another_task_is_that_tasks(alice: tuple[Call, list[str]]) -> None:
    """The agent offered a song; the caller turned to a cancellation, and their "sure" answers its
    question: it takes up no song."""
    c, _ = alice
    await c.says("find me a song by adele", "How about Hello by Adele?")
    await c.says("thanks. can you cancel my gym membership?", "Shall I cancel your gym membership?")
    await c.turn("Sure.", call("play_song", song="Hello"), say("Shall I?"))
    assert c.arguments()["song"]["status"] != "traced", c.arguments()["song"]


@pytest.mark.parametrize(
    "weather",
    [
        "Winds of 4 miles per hour, and Ortega Tapas has a table on the 13th at 8pm.",
        "It will be 4 degrees then. Ortega Tapas has a table on the 13th at 8pm.",
        "There is a 4 percent chance of rain. Ortega Tapas has a table on the 13th at 8pm.",
    ],
)
async def test_a_measure_the_agent_reads_out_counts_nobody(
    alice: tuple[Call, list[str]], weather: str
) -> None:
    """Miles, degrees and percent count nothing a table is booked for: a yes takes no party size."""
    c, done = alice
    await c.says("what's the weather in leeds on the 13th? i want to eat out", weather)
    out = await c.turn("great, book it", call("reserve_table", **TABLE_13TH), say("Shall I?"))
    assert done == [] and out != ["Booked."]
    assert c.arguments()["party"]["status"] != "traced"


async def test_a_day_offered_for_the_pick_up_is_not_offered_for_the_return(
    alice: tuple[Call, list[str]],
) -> None:
    """ "available for pick-up on the 14th": the pick-up day, not the day the car comes back."""
    c, done = alice
    await c.says(
        "i need a standard car in leeds from the 10th", "A standard car is available for pick-up on the 14th."
    )
    out = await c.turn("great, book it", call("rent_car", **CAR_10_14), say("Shall I?"))
    assert done == [] and out != ["Reserved."]
    assert c.arguments()["return_date"]["status"] != "traced"


@pytest.mark.parametrize("name", ["1760", "Bistro 10un"])
async def test_a_name_with_digits_is_a_name(alice: tuple[Call, list[str]], name: str) -> None:
    """A restaurant called "1760" is named, not counted: the agent's offer of it is taken up."""
    c, _ = alice
    await c.says("a table in leeds for four on the 13th at 8pm please", f"How about {name} in Leeds?")
    out = await c.turn(
        "perfect, book it", call("reserve_table", **{**TABLE_13TH, "restaurant": name}), say("Done.")
    )
    assert out == ["Booked."], c.arguments()
    assert c.arguments()["restaurant"]["rule"] == "trace.offer"


@pytest.mark.parametrize(
    "reply",
    ["That's the one I was thinking of. Play it please.", "that is the one i was looking for, play it"],
)
async def test_saying_which_one_was_meant_puts_nothing_off(alice: tuple[Call, list[str]], reply: str) -> None:
    """ "the one I was thinking of" says which song, not a doubt; "is that the 2015 one?" asks
    about the offer and takes nothing back."""
    c, _ = alice
    await c.says("play something by adele", "Would you like Hello by Adele?")
    await c.says("is that the 2015 one?", "Yes, it is from the album 25.")
    await c.turn(reply, call("play_song", song="Hello"), say("Playing."))
    assert c.arguments()["song"]["rule"] == "trace.offer", c.arguments()["song"]


async def test_asking_for_other_things_of_the_kind_turns_the_offer_down(
    alice: tuple[Call, list[str]],
) -> None:
    """ "any other spacious cars?": other cars, whatever words sit between; the SUV offered before
    is not taken up by a later yes."""
    c, done = alice
    await c.says("i need a car in leeds from the 10th to the 14th", "There is a nice suv car in Leeds.")
    await c.says("do you have any other spacious cars?", "There is a compact car in Leeds.")
    out = await c.turn("ok, book it", call("rent_car", **{**CAR_10_14, "car_class": "suv"}), say("Shall I?"))
    assert done == [] and out != ["Reserved."]
    assert c.arguments()["car_class"]["status"] != "traced"


@pytest.mark.parametrize(
    "listed",
    [
        "Here are 3 films you might enjoy: Dumbo, Hellboy, Hard Times",
        "you might like dumbo, hellboy or hard times",
    ],
)
async def test_names_read_out_in_a_list_are_a_choice_a_yes_does_not_make(
    alice: tuple[Call, list[str]], listed: str
) -> None:
    """A list said with commas alone, or in words written without capitals, offers no one of its
    names to a plain yes."""
    c, _ = alice
    await c.says("find me something to listen to", listed)
    await c.turn("yes please", call("play_song", song="Hard Times"), say("Shall I?"))
    assert c.arguments()["song"]["status"] != "traced"


async def test_a_title_inside_a_longer_one_in_words_without_capitals_is_not_offered(
    alice: tuple[Call, list[str]],
) -> None:
    c, _ = alice
    await c.says("something funny please", "there's a madea family funeral")
    await c.turn("yes", call("play_song", song="Family"), say("Shall I?"))
    assert c.arguments()["song"]["status"] != "traced"


async def test_a_count_of_another_thing_is_no_party_size(alice: tuple[Call, list[str]]) -> None:
    """ "There's 4 restaurants meeting your criteria": four restaurants, nobody's party."""
    c, done = alice
    await c.says(
        "a table at ortega tapas in leeds on the 13th at 8pm", "There's 4 restaurants meeting your criteria."
    )
    out = await c.turn("great, book it", call("reserve_table", **TABLE_13TH), say("Shall I?"))
    assert done == [] and out != ["Booked."]
    assert c.arguments()["party"]["status"] != "traced"


async def test_the_word_before_a_place_says_which_end_of_the_journey_it_is(
    alice: tuple[Call, list[str]],
) -> None:
    """ "leaving York for Leeds": Leeds is where the bus goes, not where it leaves from."""
    c, done = alice
    await c.says(
        "i need a bus on the 13th for three of us", "So that's a bus leaving York for Leeds on the 13th?"
    )
    tickets = {"origin": "Leeds", "destination": "Leeds", "date": "2026-03-13", "travelers": 3}
    out = await c.turn("yes", call("buy_bus_tickets", **tickets), say("Shall I?"))
    assert done == [] and out != ["Bought."]
    assert c.arguments()["origin"]["status"] != "traced"


COACH = {"origin": "Philadelphia", "destination": "New York", "date": "2026-03-13"}


async def test_a_later_start_of_the_journey_said_by_its_preposition_replaces_the_first(
    alice: tuple[Call, list[str]],
) -> None:
    """ "I'd like to leave from Washington" after "from Philly", where the query says "origin
    {origin}" with no preposition: the journey starts in Washington now; one journey has one
    start, so the second is a change, not another request."""
    c, done = alice
    await c.says("I need a coach to New York on the 13th.", "Where are you leaving from?")
    await c.says("I'd like to leave from Philadelphia.", "There is one at 8:10 am.")
    await c.says("Any other coaches? I'd like to leave from Washington.", "There is one at 9:50 am.")
    out = await c.turn("That works, book it.", call("book_coach", **COACH), say("Shall I?"))
    assert done == [] and out != ["Booked."]
    assert c.arguments()["origin"]["rule"] == "trace.changed", c.arguments()["origin"]
    await c.turn("No thanks.", say("Fine."))
    out = await c.turn(
        "Book the coach from Washington then.",
        call("book_coach", **{**COACH, "origin": "Washington"}),
        say("Booked."),
    )
    assert c.arguments()["origin"]["status"] == "traced", c.arguments()["origin"]


async def test_a_lower_case_phrase_after_to_is_no_destination(alice: tuple[Call, list[str]]) -> None:
    """ "is admission to this attraction free?": no place, so the destination said before stands."""
    c, done = alice
    await c.says("I'd like a coach from Philadelphia to New York on the 13th.", "Sure.")
    await c.says("Is admission to this attraction free?", "No, it is not.")
    out = await c.turn("OK, book the coach.", call("book_coach", **COACH), say("Booked."))
    assert out == ["Booked."] and done == ["coach Philadelphia-New York 2026-03-13"]


@pytest.mark.parametrize(
    "ask", ["Can you find any others?", "any others?", "are there any others you can find?"]
)
async def test_asking_for_others_without_naming_a_kind_turns_the_offer_down(
    alice: tuple[Call, list[str]], ask: str
) -> None:
    """ "Can you find any others?" asks for other things of the request's own kind: the offer
    before it is turned down, and a yes to what the agent finds next is not a yes to it."""
    c, done = alice
    await c.says("play something by adele", "How about Hello by Adele?")
    await c.says(ask, "Skyfall by Adele is another one.")
    out = await c.turn("That sounds nice, play it.", call("play_song", song="Hello"), say("Shall I?"))
    assert done == [] and out != ["Playing Hello."]
    assert c.arguments()["song"]["status"] != "traced"


@pytest.mark.parametrize("seats", ["one seat", "just one ticket", "1 seat"])
async def test_one_with_what_it_counts_is_a_count(alice: tuple[Call, list[str]], seats: str) -> None:
    """ "one seat" counts seats ("this one" is a pronoun): another count than the tool's two."""
    c, done = alice
    tickets = {"origin": "Leeds", "destination": "York", "date": "2026-03-13", "travelers": 2}
    out = await c.turn(
        f"bus tickets from leeds to york on the 13th, {seats}",
        call("buy_bus_tickets", **tickets),
        say("Shall I?"),
    )
    assert done == [] and out != ["Bought."]
    assert c.arguments()["travelers"]["rule"] == "trace.changed", c.arguments()["travelers"]


@pytest.mark.parametrize("question", ["Is there any gps available?", "is there any child seat available"])
async def test_asking_whether_the_offer_has_a_feature_leaves_it_standing(
    alice: tuple[Call, list[str]], question: str
) -> None:
    """ "Is there any gps available?" asks about the car offered, not for other cars."""
    c, done = alice
    await c.says("i need a car in leeds from the 10th to the 14th", "There is a nice suv car in Leeds.")
    await c.says(question, "Yes, it has one.")
    out = await c.turn("ok, book it", call("rent_car", **{**CAR_10_14, "car_class": "suv"}), say("Booked."))
    assert out == ["Reserved."] and done == ["car suv Leeds 2026-03-10-2026-03-14"]
    assert c.arguments()["car_class"]["rule"] == "trace.offer"


@pytest.mark.parametrize(
    ("listed", "asked"),
    [
        ("There's Dumbo, Hard Times, any film that you want.", "I'd like to play the song please."),
        ("We have Dumbo, Hard Times, whichever you like.", "play it please"),
    ],
)
async def test_two_names_listed_after_words_that_put_options_forward_are_a_choice(
    alice: tuple[Call, list[str]], listed: str, asked: str
) -> None:
    """ "There's Luxury, Regular, any type that you want": two names and a comma are a choice;
    asking for the action does not take either of them."""
    c, _ = alice
    await c.says("find me something to listen to", listed)
    await c.turn(asked, call("play_song", song="Hard Times"), say("Shall I?"))
    assert c.arguments()["song"]["status"] != "traced"


async def test_a_place_searched_in_is_no_start_of_a_journey(alice: tuple[Call, list[str]]) -> None:
    """ "Find me events in York": York is where the races are, so a bus there may end at it; it
    starts there only when the caller says so ("from York")."""
    c, done = alice
    await c.says(
        "Find me events in York, I'd like to see the races.", "The races are at York Racecourse on the 13th."
    )
    tickets = {"origin": "York", "destination": "Leeds", "date": "2026-03-13", "travelers": 2}
    out = await c.turn(
        "That sounds good. I'd like bus tickets to Leeds for 2 people on the 13th.",
        call("buy_bus_tickets", **tickets),
        say("Where from?"),
    )
    assert done == [] and out != ["Bought."]
    assert c.arguments()["origin"]["status"] != "traced", c.arguments()["origin"]


@pytest.mark.parametrize("start", ["LA", "NYC"])
async def test_a_place_said_in_capital_letters_is_a_place(alice: tuple[Call, list[str]], start: str) -> None:
    """ "I'm leaving from LA and ...": "LA" is a place, not the Spanish article; it replaces nothing
    silently, and a ticket from elsewhere is not traced to the caller's words."""
    c, done = alice
    await c.says("I need bus tickets to York on the 13th for 2 of us.", "Where are you leaving from?")
    tickets = {"origin": "Leeds", "destination": "York", "date": "2026-03-13", "travelers": 2}
    out = await c.turn(
        f"I'm leaving from {start} and I'd like to go in the evening.",
        call("buy_bus_tickets", **tickets),
        say("Shall I?"),
    )
    assert done == [] and out != ["Bought."]
    assert c.arguments()["origin"]["rule"] == "trace.changed", c.arguments()["origin"]


async def test_places_found_count_nobody(alice: tuple[Call, list[str]]) -> None:
    """ "donato enoteca redwood city 3 places": three places found, not three travellers."""
    c, done = alice
    await c.says("find somewhere to eat in leeds", "bella roma leeds 3 places")
    await c.says("yes that works", "wanna get there?")
    tickets = {"origin": "York", "destination": "Leeds", "date": "2026-03-13", "travelers": 3}
    out = await c.turn(
        "yes, bus tickets from york to leeds on the 13th please",
        call("buy_bus_tickets", **tickets),
        say("Shall I?"),
    )
    assert done == [] and out != ["Bought."]
    assert c.arguments()["travelers"]["status"] != "traced", (
        c.arguments()["travelers"]["note"],
        c.arguments()["travelers"]["words"],
    )


async def test_an_agent_question_naming_another_town_for_the_pick_up_turns_the_spot_down(
    alice: tuple[Call, list[str]],
) -> None:
    """ "Would you like to pick it up from York?": the agent puts another place forward, and the
    caller's yes is to it, not to the station offered before."""
    c, done = alice
    await c.says("i need a hire car on the 13th", "A compact car is ready at Union Station on the 13th.")
    await c.says("What does it cost?", "It is $40. Would you like to pick it up from York?")
    out = await c.turn(
        "Yes, that is good.",
        call("hire_car", pickup_location="Union Station", pickup_date="2026-03-13"),
        say("Shall I?"),
    )
    assert done == [] and out != ["Hired."]
    assert c.arguments()["pickup_location"]["status"] != "traced", c.arguments()["pickup_location"]


async def test_a_town_said_for_the_pick_up_leaves_the_spot_offered_in_it(
    alice: tuple[Call, list[str]],
) -> None:
    """ "I want it from Leeds", then the agent offers Leeds Station: the town says where the spot
    is, and the caller may take the spot up."""
    c, done = alice
    await c.says("I need a hire car on the 13th. I want it from Leeds.", "One is ready at Leeds Station.")
    out = await c.turn(
        "That's great, I'd like to hire it.",
        call("hire_car", pickup_location="Leeds Station", pickup_date="2026-03-13"),
        say("Hired."),
    )
    assert out == ["Hired."] and done == ["hire Leeds Station 2026-03-13"]


async def test_new_search_results_replace_the_offer_before_them(alice: tuple[Call, list[str]]) -> None:
    """ "Search revealed 4 results. Ortega Tapas is ...": the agent puts another forward, and a
    later request does not take up Bella Roma, offered before the search."""
    c, done = alice
    await c.says("find me a restaurant in leeds", "I found 10 restaurants. Bella Roma is rated 3 stars.")
    await c.says(
        "Try to find a cheaper one for me.",
        "Search revealed 4 more restaurants. Ortega Tapas is rated 4 stars.",
    )
    await c.says("What is their address?", "It is 1 Boar Lane.")
    out = await c.turn(
        "That works. Book a table for 4 on the 13th at 8pm.",
        call("reserve_table", **{**TABLE_13TH, "restaurant": "Bella Roma"}),
        say("Shall I?"),
    )
    assert done == [] and out != ["Booked."]
    assert c.arguments()["restaurant"]["status"] != "traced", c.arguments()["restaurant"]


async def test_a_name_said_after_in_names_the_area_not_the_place_called_after_it(
    alice: tuple[Call, list[str]],
) -> None:
    """ "a table in Belmont" names the town: it is no short form of "Belmont Bistro"."""
    c, done = alice
    out = await c.turn(
        "I'd like a table in Belmont for 4 on the 13th at 8pm.",
        call("reserve_table", **{**TABLE_13TH, "restaurant": "Belmont Bistro", "city": "Belmont"}),
        say("Shall I?"),
    )
    assert done == [] and out != ["Booked."]
    assert c.arguments()["restaurant"]["status"] != "traced", c.arguments()["restaurant"]


async def test_a_new_search_for_the_thing_turns_the_offer_down(alice: tuple[Call, list[str]]) -> None:
    """ "Can you change the search to look for tapas restaurants?": what was offered before is not
    what the caller wants now, and a yes to the next suggestion is not a yes to it."""
    c, done = alice
    await c.says("find me a restaurant in leeds", "I found 10 restaurants. Bella Roma is rated 3 stars.")
    await c.says("Can you change the search to look for tapas restaurants?", "Ortega Tapas is a nice place.")
    out = await c.turn(
        "Sounds good. Book a table for 4 on the 13th at 8pm.",
        call("reserve_table", **{**TABLE_13TH, "restaurant": "Bella Roma"}),
        say("Shall I?"),
    )
    assert done == [] and out != ["Booked."]
    assert c.arguments()["restaurant"]["status"] != "traced", c.arguments()["restaurant"]


async def test_results_of_a_search_for_another_kind_leave_the_offer_standing(
    alice: tuple[Call, list[str]],
) -> None:
    """ "I found 10 restaurants" while a song stands offered: another kind of thing was searched,
    and the caller may come back to the song."""
    c, _ = alice
    await c.says("play something by adele", "How about Hello by Adele?")
    await c.says(
        "Maybe later. What about restaurants around here?", "I found 10 restaurants. Bella Roma is nice."
    )
    await c.turn(
        "No thanks. Play the song you found please.", call("play_song", song="Hello"), say("Shall I?")
    )
    assert c.arguments()["song"]["rule"] == "trace.offer", c.arguments()["song"]


async def test_a_name_without_its_kind_word_before_another_word_is_another_thing(
    alice: tuple[Call, list[str]],
) -> None:
    """ "the hair stylist" offers no "Hair salon", nor "the lotus garden" a "Lotus Cafe": without
    the word for its kind the name goes on into another."""
    c, done = alice
    await c.says("a table in leeds for 4 on the 13th at 8pm", "The lotus garden is lovely. Shall I book it?")
    out = await c.turn(
        "yes", call("reserve_table", **{**TABLE_13TH, "restaurant": "Lotus Cafe"}), say("Shall I?")
    )
    assert done == [] and out != ["Booked."]
    assert c.arguments()["restaurant"]["status"] != "traced", c.arguments()["restaurant"]


async def test_the_first_search_for_the_thing_keeps_what_another_task_offered(
    alice: tuple[Call, list[str]],
) -> None:
    """The restaurant's town, offered on another task, then "help me find a bus going there": the
    caller's first search for a bus points back at it, and turns nothing down."""
    c, _ = alice
    await c.says("find me a restaurant for lunch", "Bella Roma in York is nice. Your table is booked.")
    await c.says(
        "Please help me find a bus going there on the 13th for 2 from Leeds.", "There is one at 9am."
    )
    await c.turn(
        "Great, buy the tickets.",
        call("buy_bus_tickets", origin="Leeds", destination="York", date="2026-03-13", travelers=2),
        say("Shall I?"),
    )
    assert c.arguments()["destination"]["status"] == "traced", c.arguments()["destination"]


@pytest.mark.parametrize(
    "ask", ["Are there other available small cars?", "do you have any other cheap compact cars?"]
)
async def test_asking_for_other_things_described_before_their_name_turns_the_offer_down(
    alice: tuple[Call, list[str]], ask: str
) -> None:
    """ "other available small cars": words that describe the thing may stand between "other" and
    it; the car offered before is turned down, and a later request does not take it up."""
    c, done = alice
    await c.says("i need a car in leeds from the 10th to the 14th", "There is a nice suv car in Leeds.")
    await c.says(ask, "There is one at Leeds Station.")
    out = await c.turn(
        "That sounds great. Please reserve that car for me.",
        call("rent_car", **{**CAR_10_14, "car_class": "suv"}),
        say("Shall I?"),
    )
    assert done == [] and out != ["Reserved."]
    assert c.arguments()["car_class"]["status"] != "traced", c.arguments()["car_class"]


@pytest.mark.parametrize(
    "listed",
    [
        "Dumbo? Hard Times? Perhaps Hellboy?",
        "How about Hellboy? Or Hard Times? Maybe Dumbo?",
        "There are a few. Hard Times? Dumbo?",
    ],
)
async def test_names_put_forward_one_question_each_are_a_choice(
    alice: tuple[Call, list[str]], listed: str
) -> None:
    """Names the agent puts forward as questions of their own are a list: a yes, or asking for
    the action, takes none of them."""
    c, _ = alice
    await c.says("anything good to listen to?", listed)
    await c.turn("yeah, put it on please", call("play_song", song="Hard Times"), say("Shall I?"))
    assert c.arguments()["song"]["status"] != "traced", c.arguments()["song"]


async def test_a_single_name_asked_about_is_still_an_offer(alice: tuple[Call, list[str]]) -> None:
    """One name put forward, then something said about it, is one offer a yes takes up."""
    c, _ = alice
    await c.says("anything good to listen to?", "How about Hard Times? It came out last year.")
    await c.turn("yes, play it", call("play_song", song="Hard Times"), say("Shall I?"))
    assert c.arguments()["song"]["status"] == "traced", c.arguments()["song"]


@pytest.mark.parametrize(
    ("no", "rule"),
    [
        ("Nope, yet again you fail.", "the caller said no to it (trace.offer.refused)"),
        ("no, not for me", "the caller said no to it (trace.offer.refused)"),
        ("nah, something else", "the caller asked for other options (trace.offer.others)"),
    ],
)
async def test_a_no_once_the_questions_about_an_offer_are_answered_turns_it_down(
    alice: tuple[Call, list[str]], no: str, rule: str
) -> None:
    """The caller asks about the song offered, the agent answers, and the caller says no (or asks
    for something else): the offer is turned down, and a later yes to doing it does not take it up."""
    c, _ = alice
    await c.says("find me a song", "Try out Hard Times.")
    await c.says("how long is it? is it upbeat?", "It is. It runs 3 minutes.")
    await c.says(no, "Give Dumbo a try then.")
    await c.says("finally one i like", "Shall I play it?")
    out = await c.turn("sure, let's do it", call("play_song", song="Hard Times"), say("Shall I?"))
    assert out != ["Playing Hard Times."]
    song = c.arguments()["song"]
    assert song["status"] == "missing", song
    assert song["note"].endswith(rule), song


async def test_a_yes_once_the_questions_about_an_offer_are_answered_takes_it_up(
    alice: tuple[Call, list[str]],
) -> None:
    c, _ = alice
    await c.says("find me a song", "Try out Hard Times.")
    await c.says("how long is it? is it upbeat?", "It is. It runs 3 minutes.")
    await c.turn("that works, play it", call("play_song", song="Hard Times"), say("Shall I?"))
    assert c.arguments()["song"]["status"] == "traced", c.arguments()["song"]


@pytest.mark.parametrize(
    ("turns", "rule"),
    [
        (
            [("find me a song", "How about Hard Times?"), ("anything else?", "Let me look.")],
            "trace.offer.others",
        ),
        ([("find me a song", "How about Hard Times or Dumbo?")], "trace.offer.choice"),
        ([("find me a song", "How about Hard Times?"), ("no", "OK.")], "trace.offer.refused"),
    ],
)
async def test_an_offer_set_aside_names_the_rule_that_set_it_aside(
    alice: tuple[Call, list[str]], turns: list[tuple[str, str]], rule: str
) -> None:
    """Nothing traces the value, and its note says which rule set the agent's offer of it aside."""
    c, done = alice
    for words, reply in turns:
        await c.says(words, reply)
    await c.turn("yes please", call("play_song", song="Hard Times"), say("Shall I?"))
    song = c.arguments()["song"]
    assert done == [] and song["status"] == "missing", song
    assert song["note"].startswith("nothing the caller said gives it; the agent offered it (turn"), song
    assert song["note"].endswith(f"({rule})"), song["note"]


async def test_an_offer_the_agent_puts_another_beside_names_that_rule(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    await c.says("i need a standard car from the 10th to the 14th", "There is one in Leeds.")
    await c.says("hmm", "There is one in York too.")
    await c.turn("yes please", call("rent_car", **CAR_10_14), say("Shall I?"))
    city = c.arguments()["city"]
    assert done == [] and city["status"] == "missing", city
    assert city["note"].endswith("the agent put another forward (trace.offer.replaced)"), city


@pytest.mark.parametrize(
    "question",
    [
        "What time is best, and how many tickets would you like to get?",
        "Are you going on the 15th? Where are you coming from and how many tickets would you like?",
    ],
)
async def test_a_question_for_a_value_on_another_task_does_not_bring_the_caller_back(
    alice: tuple[Call, list[str]], question: str
) -> None:
    """The caller turned to another task; the agent's question there for a value ("how many
    tickets would you like?") offers nothing, so the answer to it is that task's, whatever word
    it shares with this action."""
    c, done = alice
    await c.says("find me a bus from Leeds to York on the 13th for 2 people", "There is one at 9am.")
    await c.says("ok. can you also make me a reservation for the jazz concert in York?", question)
    await c.says("the 15th at 8, there will be 4 of us", "Your concert is reserved.")
    await c.turn(
        "great, now buy the bus tickets",
        call("buy_bus_tickets", origin="Leeds", destination="York", date="2026-03-13", travelers=4),
        say("Shall I?"),
    )
    travelers = c.arguments()["travelers"]
    assert done == []
    assert travelers["status"] != "traced", (travelers["note"], travelers["words"])


@pytest.mark.parametrize(
    ("first", "question", "answer"),
    [
        (
            "i need a coach on the 13th",
            "Where are you leaving from, and where to?",
            "York from Leeds please.",
        ),
        (
            "i need a coach on the 13th",
            "From which city, and where are you heading?",
            "york out of leeds please",
        ),
        ("a coach on the 13th please", "Leaving from where, going where?", "going york, leaving leeds"),
    ],
)
async def test_a_place_said_without_a_direction_beside_a_start_is_where_the_journey_ends(
    alice: tuple[Call, list[str]], first: str, question: str, answer: str
) -> None:
    """ "go York from Leeds": York, said with no "to", is not where the coach leaves from, since
    the same sentence names the start; an agent's question that asks for both ends decides
    neither."""
    c, done = alice
    await c.says(first, question)
    await c.says(answer, "Shall I book it?")
    wrong = {"origin": "York", "destination": "York", "date": "2026-03-13"}
    out = await c.turn("yes", call("book_coach", **wrong), say("Shall I?"))
    assert done == [] and out != ["Booked."]
    assert c.arguments()["origin"]["status"] != "traced", c.arguments()["origin"]
    out = await c.turn(
        "yes", call("book_coach", origin="Leeds", destination="York", date="2026-03-13"), say("Booked.")
    )
    arguments = c.arguments()
    assert arguments["origin"]["status"] == arguments["destination"]["status"] == "traced", arguments


@pytest.mark.parametrize(
    "later",
    [
        "Later today please.",
        "could you get me one later today",
        "no, for later on today",
        "later this evening",
    ],
)
async def test_a_later_time_that_is_another_day_is_the_callers_word_on_the_day(
    alice: tuple[Call, list[str]], later: str
) -> None:
    """ "Later today" to the agent's "On the 13th?" gives the day (today), it does not put the
    request off: the 13th, which the agent put forward, is not the caller's."""
    c, done = alice
    await c.says("i need bus tickets to york", "On the 13th?")
    await c.says(later, "Where from, and for how many?")
    await c.says("i want the bus to leave from leeds, for 2 please", "Shall I book it?")
    tickets = {"origin": "Leeds", "destination": "York", "date": "2026-03-13", "travelers": 2}
    out = await c.turn("yes", call("buy_bus_tickets", **tickets), say("Shall I?"))
    assert done == [] and out != ["Bought."]
    assert c.arguments()["date"]["status"] != "traced", c.arguments()["date"]
    out = await c.turn("yes", call("buy_bus_tickets", **{**tickets, "date": "2026-03-06"}), say("Bought."))
    assert c.arguments()["date"]["status"] == "traced", c.arguments()["date"]


@pytest.mark.parametrize(
    "ask",
    ["Could you show me more results?", "any more options?", "got more suggestions", "more choices please"],
)
async def test_asking_for_more_results_turns_the_offer_down(alice: tuple[Call, list[str]], ask: str) -> None:
    c, done = alice
    await c.says("find me a song", "How about Hard Times?")
    await c.says(ask, "Let me look.")
    await c.turn("it's perfect, play it", call("play_song", song="Hard Times"), say("Shall I?"))
    song = c.arguments()["song"]
    assert done == [] and song["status"] == "missing", song
    assert song["note"].endswith("(trace.offer.others)"), song["note"]


async def test_a_town_named_for_the_event_settles_it_before_another_task(
    alice: tuple[Call, list[str]],
) -> None:
    """ "do they play in NYC?" names the event's town where the query names the part without a
    preposition ("city {city}"); a place is one per request, so it is the caller's word on the
    town, and the town they then give for a bus on another task is the bus's, not the event's."""
    c, done = alice
    await c.says("I want to see Low. Do they play in NYC?", "Low plays in New York on the 13th.")
    await c.says("Great, but I need a bus to take me there.", "Where are you leaving from, and when?")
    await c.says("I'm in Washington and want to leave on the 12th.", "Your bus is booked.")
    wrong = {"event": "Low", "city": "Washington", "date": "2026-03-13"}
    out = await c.turn(
        "Now can you get the Low tickets?", call("buy_event_tickets", **wrong), say("Shall I?")
    )
    assert done == [] and out != ["Tickets bought."]
    city = c.arguments()["city"]
    assert city["status"] == "conflict" and city["rule"] == "trace.changed", city
    assert "'NYC'" in city["note"], city["note"]
    await c.turn(
        "Yes, New York.",
        call("buy_event_tickets", **{**wrong, "city": "New York"}),
        say("Shall I?"),
    )
    assert c.arguments()["city"]["status"] == "traced", c.arguments()["city"]


@pytest.mark.parametrize(
    "ask",
    [
        "Can you check if there are some other cars available?",
        "could you see whether there are any other cars",
        "I want to know if you have other cars.",
    ],
)
async def test_asking_whether_there_are_others_turns_the_offer_down(
    alice: tuple[Call, list[str]], ask: str
) -> None:
    """Asking whether there are other options is no request to act, and it turns the offer down as
    asking for them does: a later yes does not take up the station offered first."""
    c, done = alice
    await c.says("I need a car on the 10th.", "There is a good car to pick up at York Station on the 10th.")
    await c.says(ask, "There is also a good car at the airport on the 10th. Do you like it?")
    await c.says("That seems nice.", "Shall I book this car?")
    out = await c.turn(
        "Yes, book it.",
        call("hire_car", pickup_location="York Station", pickup_date="2026-03-10"),
        say("Shall I?"),
    )
    assert done == [] and out != ["Hired."]
    place = c.arguments()["pickup_location"]
    assert place["status"] != "traced", place


async def test_a_question_that_puts_something_new_forward_gets_a_new_offer_for_an_answer(
    alice: tuple[Call, list[str]],
) -> None:
    """ "What about Low in York?" after an offer of another band names what the agent did not: the
    answer ("Low plays in York today") is a new offer, not a fact of the one before, so the 13th
    offered for the other band is not the day of Low's tickets."""
    c, done = alice
    await c.says("I would like to find some events.", "The Buttertones play in Leeds on the 11th.")
    await c.says("Are there other dates?", "The Buttertones also play in Leeds on the 13th.")
    await c.says("What about Low in York?", "Low plays in York today.")
    await c.says("When does it start?", "It starts at 5 pm.")
    await c.says("This is a good one for me.", "Would you like tickets?")
    wrong = {"event": "Low", "city": "York", "date": "2026-03-13"}
    out = await c.turn("I want two tickets to this.", call("buy_event_tickets", **wrong), say("Shall I?"))
    assert done == [] and out != ["Tickets bought."]
    date = c.arguments()["date"]
    assert date["status"] != "traced", date
    await c.turn("Yes.", call("buy_event_tickets", **{**wrong, "date": "2026-03-06"}), say("Shall I?"))
    assert c.arguments()["date"]["status"] == "traced", c.arguments()["date"]


async def test_a_town_said_in_a_search_for_other_things_leaves_the_town_asked_for_later(
    alice: tuple[Call, list[str]],
) -> None:
    """ "a concert to see in York" is the concert's town: the table asked for later "around
    Leeds" is in Leeds, and the caller's yes to the restaurant offered there takes it."""
    c, done = alice
    await c.says(
        "Can you help me find a concert to see in York on Tuesday?", "Low plays at the Arena on Tuesday."
    )
    await c.says("Find me somewhere to eat around Leeds instead.", "Ortega Tapas in Leeds is a good one.")
    out = await c.turn(
        "Sounds good, book a table there for 2 on Tuesday at 7pm.",
        call(
            "reserve_table", restaurant="Ortega Tapas", city="Leeds", party=2, date="2026-03-10", time="19:00"
        ),
        say("Booked."),
    )
    assert out == ["Booked."] and done == ["table Ortega Tapas Leeds 2 2026-03-10 19:00"], c.arguments()
    assert c.arguments()["city"]["status"] == "traced", c.arguments()["city"]


@pytest.mark.parametrize(
    "listed",
    [
        "there's dogman, hackers, and high life.",
        "i found dogman, hackers and high life",
        "you could have high life, hackers or dogman",
    ],
)
async def test_names_listed_in_lower_case_are_a_choice(alice: tuple[Call, list[str]], listed: str) -> None:
    """Speech-to-text writes no capitals: "dogman, hackers, and high life" is a list by its commas,
    and "hackers works for me" picks Hackers, not the last name read out."""
    c, done = alice
    await c.says("what about some drama songs?", listed)
    await c.says("hackers works for me", "do you want to play it?")
    out = await c.turn("yes please", call("play_song", song="High Life"), say("Shall I?"))
    assert done == [] and out != ["Playing High Life."]
    assert c.arguments()["song"]["status"] != "traced", c.arguments()["song"]
    await c.turn("yes, hackers", call("play_song", song="Hackers"), say("Shall I?"))
    assert c.arguments()["song"]["status"] == "traced", c.arguments()["song"]


@pytest.mark.parametrize("later", ["another time, thanks", "Maybe another day.", "let's leave it for now"])
async def test_another_time_puts_the_request_off(alice: tuple[Call, list[str]], later: str) -> None:
    """ "another time" asks for no other option: said right after the request, it puts it off."""
    c, done = alice
    await c.says("please send 200 dollars to ACC-1234", "200 dollars to ACC-1234?")
    out = await c.turn(later, call("transfer_money", amount=200, to_account="ACC-1234"), say("Shall I?"))
    assert done == [] and out != ["Sent."]
    assert json.loads(c.last().evidence_json)["action"]["status"] == "withdrawn", c.last().evidence_json


async def test_a_description_with_commas_in_lower_case_is_no_list(alice: tuple[Call, list[str]]) -> None:
    """ "how about hackers, it's by the clash, it came out in 1979 and it's punk": commas that
    describe the one song offered make no choice, so a yes takes it up."""
    c, _ = alice
    await c.says("find me a song", "how about hackers, it's by the clash, it came out in 1979 and it's punk")
    await c.turn("sure, play it", call("play_song", song="Hackers"), say("Shall I?"))
    assert c.arguments()["song"]["status"] == "traced", c.arguments()["song"]


@pytest.mark.parametrize("one", ["Just a ticket for one please.", "for one, thanks", "only for one person"])
async def test_for_one_counts_one_traveller(alice: tuple[Call, list[str]], one: str) -> None:
    """ "a ticket for one": one person, not a pronoun; the agent's "for 2 people?" is not taken up."""
    c, done = alice
    await c.says("I need a bus from Leeds to York on the 13th.", "For 2 people?")
    await c.says(one, "Shall I book it?")
    tickets = {"origin": "Leeds", "destination": "York", "date": "2026-03-13", "travelers": 2}
    out = await c.turn("yes", call("buy_bus_tickets", **tickets), say("Shall I?"))
    assert done == [] and out != ["Bought."]
    assert c.arguments()["travelers"]["status"] != "traced", c.arguments()["travelers"]
    await c.turn("yes", call("buy_bus_tickets", **{**tickets, "travelers": 1}), say("Shall I?"))
    assert c.arguments()["travelers"]["status"] == "traced", c.arguments()["travelers"]


async def test_a_word_of_a_known_set_opening_a_longer_name_offers_nothing(
    alice: tuple[Call, list[str]],
) -> None:
    """ "the album Night Visions" offers no song called "Night" (a part of the day on its own)."""
    c, done = alice
    await c.says("find me a song", "How about Radioactive by Imagine Dragons from the album Night Visions?")
    out = await c.turn("Sounds great. Please play it.", call("play_song", song="Night"), say("Shall I?"))
    assert done == [] and out != ["Playing Night."]
    assert c.arguments()["song"]["status"] != "traced", c.arguments()["song"]
    await c.turn("Yes, Radioactive.", call("play_song", song="Radioactive"), say("Shall I?"))
    assert c.arguments()["song"]["status"] == "traced", c.arguments()["song"]


@pytest.mark.parametrize("more", ["Give me more.", "show me some more", "What else do you have?"])
async def test_asking_for_more_of_a_list_turns_it_down(alice: tuple[Call, list[str]], more: str) -> None:
    """ "Captain Marvel, Shazam! or The Poseidon Adventure?" is one choice (the "!" is the title's),
    "give me more" asks past it, and the caller then takes the title offered after: not one of
    the list."""
    c, done = alice
    await c.says(
        "I want to find some adventure songs.", "How about Captain Marvel, Shazam! or The Poseidon Adventure?"
    )
    await c.says(more, "What about True Grit?")
    out = await c.turn(
        "I like True Grit. I want to play that now.",
        call("play_song", song="Captain Marvel"),
        say("Shall I?"),
    )
    assert done == [] and out != ["Playing Captain Marvel."]
    assert c.arguments()["song"]["status"] != "traced", c.arguments()["song"]
    await c.turn("Yes, True Grit.", call("play_song", song="True Grit"), say("Shall I?"))
    assert c.arguments()["song"]["status"] == "traced", c.arguments()["song"]


@pytest.mark.parametrize("group", ["I'm in a group of one", "we're a party of three"])
async def test_a_group_of_n_counts_its_people(alice: tuple[Call, list[str]], group: str) -> None:
    """ "a group of one" says how many travel: the 2 the agent read out for another matter is not
    taken up by the request that follows."""
    c, done = alice
    await c.says(
        "What's in my calendar on the 11th?", "You have a reservation for 2 people at Hot Crab at 7 pm."
    )
    words = f"Sounds good. Can you get me bus tickets from Leeds to York on the 13th? {group}."
    tickets = {"origin": "Leeds", "destination": "York", "date": "2026-03-13", "travelers": 2}
    out = await c.turn(words, call("buy_bus_tickets", **tickets), say("Shall I?"))
    assert done == [] and out != ["Bought."]
    assert c.arguments()["travelers"]["status"] != "traced", c.arguments()["travelers"]
    n = 1 if "one" in group else 3
    await c.turn("yes", call("buy_bus_tickets", **{**tickets, "travelers": n}), say("Shall I?"))
    assert c.arguments()["travelers"]["status"] == "traced", c.arguments()["travelers"]


@pytest.mark.parametrize(
    ("listed", "word", "picked", "whole"),
    [
        (
            "I found these for you. A madea Family funeral, Auntie mame, and dr. strangelove",
            "Family",
            "ok let's go with auntie mame",
            "Auntie Mame",
        ),
        ("There are three: the lonely Road home, Blue, or Fire and rain.", "Road", "blue please", "Blue"),
        ("How about big Yellow Taxi, Heroes, and Starman?", "Yellow Taxi", "heroes", "Heroes"),
    ],
)
async def test_a_word_inside_a_longer_item_of_a_list_is_not_offered(
    alice: tuple[Call, list[str]], listed: str, word: str, picked: str, whole: str
) -> None:
    """A list read out with stray capitals: a capitalised word inside a longer item ("A madea
    Family funeral") is that item's, not a title of its own the caller's yes or "that one" takes
    up; the item the caller picked is traced."""
    c, done = alice
    await c.says("find me some funny songs", listed)
    await c.says(picked, "Anything else?")
    out = await c.turn("I would like to play that one now", call("play_song", song=word), say("Shall I?"))
    assert done == [] and out != [f"Playing {word}."]
    assert c.arguments()["song"]["status"] != "traced", c.arguments()["song"]
    await c.turn("yes", call("play_song", song=whole), say("Shall I?"))
    assert c.arguments()["song"]["status"] == "traced", c.arguments()["song"]


@pytest.mark.parametrize(
    "named",
    ["Just title it House and set it for the 10th.", "call it house please", "let's name that one House"],
)
async def test_the_name_the_caller_gives_the_thing_replaces_the_one_offered(
    alice: tuple[Call, list[str]], named: str
) -> None:
    """The agent's "an apartment viewing" is set aside by the caller's "title it House": a name
    given with a naming verb is this argument's latest value (not another request's), wherever
    the query puts it."""
    c, done = alice
    await c.says(
        "Could I see the flat on the 10th?", "Confirming an apartment viewing at Sharon Green on March 10th."
    )
    await c.says("That works. Add it to my calendar please.", "What would you like to call it?")
    event = {"event_name": "Apartment viewing", "date": "2026-03-10"}
    out = await c.turn(named, call("add_event", **event), say("Shall I?"))
    assert done == [] and out != ["Added."]
    assert c.arguments()["event_name"]["status"] != "traced", c.arguments()["event_name"]
    await c.turn("yes", call("add_event", **{**event, "event_name": "House"}), say("Shall I?"))
    assert c.arguments()["event_name"]["status"] == "traced", c.arguments()["event_name"]


@pytest.mark.parametrize("says", ["call it off", "let's call it a day", "Call it quits on the viewing."])
def test_naming_idioms_give_no_name(says: str) -> None:
    """ "call it off", "call it a day": idioms of the naming verb name nothing."""
    request = gate.evidence.request_of(
        "add an event to the calendar: event name Viewing", {"event_name": "Viewing"}
    )
    spec = request.spec("event_name")
    assert spec is not None
    assert gate.evidence.forms.other_value_spans(says, spec, request) == []


@pytest.mark.parametrize(
    "offer",
    [
        "Baywoods Apartment Homes is at 2005 San Jose Drive, and Sakura is a good restaurant near it.",
        "I found Sakura, a good restaurant at 410 Palo Alto Avenue.",
    ],
)
async def test_a_town_inside_a_street_address_is_not_offered(
    alice: tuple[Call, list[str]], offer: str
) -> None:
    """ "2005 San Jose Drive" is a street: the agent offers no table in San Jose by saying it."""
    c, done = alice
    await c.says("I want to find a restaurant serving sushi.", offer)
    for town in ("San Jose", "Palo Alto"):
        table = {"restaurant": "Sakura", "city": town, "party": 2, "date": "2026-03-07", "time": "19:00"}
        if town.replace(" ", "") not in offer.replace(" ", ""):
            continue
        out = await c.turn(
            "Great, book it for 2 people tomorrow at 7pm.", call("reserve_table", **table), say("Shall I?")
        )
        assert done == [] and out != ["Booked."]
        assert c.arguments()["city"]["status"] != "traced", c.arguments()["city"]


async def test_a_place_inside_another_values_name_is_that_values(alice: tuple[Call, list[str]]) -> None:
    """ "Bottega Napa Valley is a restaurant in Yountville" offers the restaurant Bottega Napa
    Valley in Yountville, not a table in Napa."""
    c, done = alice
    await c.says(
        "I'd like an Italian restaurant.", "Bottega Napa Valley is a well reviewed restaurant in Yountville."
    )
    table = {
        "restaurant": "Bottega Napa Valley",
        "city": "Napa",
        "party": 2,
        "date": "2026-03-07",
        "time": "11:30",
    }
    out = await c.turn(
        "That sounds good. Book it for 2 tomorrow at 11:30 am.",
        call("reserve_table", **table),
        say("Shall I?"),
    )
    assert done == [] and out != ["Booked."]
    assert c.arguments()["city"]["status"] != "traced", c.arguments()["city"]
    await c.turn("yes", call("reserve_table", **{**table, "city": "Yountville"}), say("Shall I?"))
    assert c.arguments()["city"]["status"] == "traced", c.arguments()["city"]


@pytest.mark.parametrize(
    "found",
    [
        "I did find 1 event on March 14th. It's the Nattali Rize at Cornerstone.",
        "We were able to find 2 events. Nattali Rize plays on March 14th at Cornerstone.",
    ],
)
async def test_a_new_search_result_replaces_the_event_offered_before(
    alice: tuple[Call, list[str]], found: str
) -> None:
    """A second search's result ("I did find 1 event ...") replaces the event offered before it:
    the caller's yes after it is not to the first."""
    c, done = alice
    await c.says(
        "I'd like to go to a concert in Berkeley.", "I have the Berkeley World Music Festival on March 5th."
    )
    await c.says("That's good but do you have something next Saturday, like a blues concert?", found)
    tickets = {"event": "Berkeley World Music Festival", "city": "Berkeley", "date": "2026-03-14"}
    out = await c.turn(
        "That sounds just fine, get me tickets.", call("buy_event_tickets", **tickets), say("Shall I?")
    )
    assert done == [] and out != ["Tickets bought."]
    assert c.arguments()["event"]["status"] != "traced", c.arguments()["event"]


async def test_a_place_inside_another_values_name_stands_when_nothing_else_says_where(
    alice: tuple[Call, list[str]],
) -> None:
    """ "There's Bottega Napa Valley", with no other town said, offers Napa with it (as "AC Hotel
    Chicago Downtown" offers Chicago)."""
    c, _ = alice
    await c.says("I'd like an Italian restaurant.", "There's Bottega Napa Valley. It is well reviewed.")
    table = {
        "restaurant": "Bottega Napa Valley",
        "city": "Napa",
        "party": 2,
        "date": "2026-03-07",
        "time": "11:30",
    }
    await c.turn(
        "That sounds good. Book it for 2 tomorrow at 11:30 am.",
        call("reserve_table", **table),
        say("Shall I?"),
    )
    assert c.arguments()["city"]["status"] == "traced", c.arguments()["city"]


async def test_a_title_ending_a_longer_title_is_not_offered(alice: tuple[Call, list[str]]) -> None:
    """ "off of his Barefoot Blue Jean Night" offers no song "Night" (a capitalised word before it
    makes it the end of a longer title); the song the agent put forward is taken up."""
    c, done = alice
    await c.says(
        "Could you find me some songs? I like Jake Owen.",
        "What do you think about Alone With You by Jake Owen off of his Barefoot Blue Jean Night?",
    )
    out = await c.turn("Great. Play the song.", call("play_song", song="Night"), say("Shall I?"))
    assert done == [] and out != ["Playing Night."]
    assert c.arguments()["song"]["status"] != "traced", c.arguments()["song"]
    await c.turn("yes", call("play_song", song="Alone With You"), say("Shall I?"))
    assert c.arguments()["song"]["status"] == "traced", c.arguments()["song"]


@pytest.mark.parametrize(
    ("offer", "song", "taken"),
    [
        # a title word in capitals, a function word or not, before or after the value
        ("Would you like All Night by Parov Stelar from The Princess?", "Night", False),
        ("I found Dancing In The Dark by Bruce Springsteen. Want it?", "Dark", False),
        ("How about Night Of The Hunter by Thirty Seconds to Mars?", "Night", False),
        ("There's Only Love by Ben Howard, would you like that?", "Love", False),
        ("I can suggest Love Me Do by The Beatles. Sound good?", "Love", False),
        # the title whole, with an article before it, or a message all in capitals
        ("Would you like All Night by Parov Stelar from The Princess?", "All Night", True),
        ("Would you like The Night by Morphine?", "Night", True),
        ("I found Night by Zedd. Want it?", "Night", True),
        ("Would You Like Night By Zedd", "Night", True),
        ("there's night by zedd on the album, want that one?", "Night", True),
    ],
)
async def test_a_title_word_in_capitals_makes_the_value_part_of_a_longer_title(
    alice: tuple[Call, list[str]], offer: str, song: str, taken: bool
) -> None:
    """A word written with a capital in the middle of the agent's sentence beside the value, even
    "All", "In" or "Of", belongs to the title the agent offered: a yes to "All Night" takes up no
    song called "Night". An article, a message with every word in capitals or one with none
    leaves the value whole."""
    c, _ = alice
    await c.says("I want to hear some songs.", offer)
    await c.turn("Yes, that one.", call("play_song", song=song), say("Shall I?"))
    status = c.arguments()["song"]["status"]
    assert (status == "traced") is taken, c.arguments()["song"]


@pytest.mark.parametrize(
    "put", ["There is Missing Link on March 14th.", "OK. How about Missing Link on March 14th?"]
)
async def test_a_name_the_agent_puts_forward_replaces_the_one_before(
    alice: tuple[Call, list[str]], put: str
) -> None:
    """For a name the query puts after no preposition ("event name {event}"), the agent's "There is
    Missing Link" puts another forward: the caller's "get me tickets to it" is for that one."""
    c, done = alice
    await c.says("I want to see something in Berkeley.", "There's the Jazz Fest on March 14th.")
    await c.says("How about something by Chris Butler?", put)
    tickets = {"event": "Jazz Fest", "city": "Berkeley", "date": "2026-03-14"}
    out = await c.turn("Great, get me tickets to it.", call("buy_event_tickets", **tickets), say("Shall I?"))
    assert done == [] and out != ["Tickets bought."]
    assert c.arguments()["event"]["status"] != "traced", c.arguments()["event"]
    await c.turn("yes", call("buy_event_tickets", **{**tickets, "event": "Missing Link"}), say("Shall I?"))
    assert c.arguments()["event"]["status"] == "traced", c.arguments()["event"]


@pytest.mark.parametrize(
    "search", ["Find me please any type of car from the 14th of this month", "I want anything from the 14th"]
)
async def test_a_search_for_any_kind_does_not_take_the_offer_up(
    alice: tuple[Call, list[str]], search: str
) -> None:
    """ "find me please any type of car from the 14th of this month" is a new search in the
    action's own words: it takes up no spot offered before it ("this month" points at nothing)."""
    c, done = alice
    await c.says(
        "I need a rental car from San Diego.", "A nice Standard Accord is available at Santa Fe Depot."
    )
    await c.says(search, "Shall I look further?")
    hire = {"pickup_location": "Santa Fe Depot", "pickup_date": "2026-03-14"}
    out = await c.turn("Yes I would like to rent.", call("hire_car", **hire), say("Shall I?"))
    assert done == [] and out != ["Hired."]
    assert c.arguments()["pickup_location"]["status"] != "traced", c.arguments()["pickup_location"]


async def test_a_spot_the_agent_puts_forward_at_a_place_replaces_the_one_before(
    alice: tuple[Call, list[str]],
) -> None:
    """ "A Camry available on the 14th at SAN International Airport" puts another pick-up spot
    forward than the Santa Fe Depot offered before: "sounds perfect" takes the airport."""
    c, done = alice
    await c.says("I need a rental car on the 14th.", "A nice Standard Accord is available at Santa Fe Depot.")
    await c.says("Anything else available?", "A Camry available on the 14th at SAN International Airport.")
    hire = {"pickup_location": "Santa Fe Depot", "pickup_date": "2026-03-14"}
    out = await c.turn("Sounds perfect, I'd like to rent it.", call("hire_car", **hire), say("Shall I?"))
    assert done == [] and out != ["Hired."]
    assert c.arguments()["pickup_location"]["status"] != "traced", c.arguments()["pickup_location"]
    await c.turn(
        "yes", call("hire_car", **{**hire, "pickup_location": "SAN International Airport"}), say("OK?")
    )
    assert c.arguments()["pickup_location"]["status"] == "traced", c.arguments()["pickup_location"]


async def test_a_name_of_several_words_keeps_the_title_before_it(alice: tuple[Call, list[str]]) -> None:
    """ "How about the Family Counselor Leininger Anne?": words of a kind before a name of several
    words are no part of it; the name stays offered."""
    c, _ = alice
    await c.says("find me a country song", "How about the Country Classic Alone With You?")
    await c.turn("That sounds good, play it.", call("play_song", song="Alone With You"), say("Shall I?"))
    assert c.arguments()["song"]["status"] == "traced", c.arguments()["song"]


@pytest.mark.parametrize(
    "aside", ["Can I help with anything else?", "Is there anything else you would like to hear?"]
)
async def test_a_common_word_where_a_verb_goes_offers_no_title(
    alice: tuple[Call, list[str]], aside: str
) -> None:
    """ "Can I help with anything else?" offers no song called "Help": a word in lower case right
    after a modal or a subject is a verb, whatever title shares it."""
    c, done = alice
    await c.says("I'd like to hear a pop song by Sigrid.", "I found 1 song, Strangers by Sigrid.")
    await c.says("That's the one I wanted.", aside)
    out = await c.turn("I'd like to listen to the song now.", call("play_song", song="Help"), say("Shall I?"))
    assert done == [] and out != ["Playing Help."]
    assert c.arguments()["song"]["status"] != "traced", c.arguments()["song"]
    await c.turn("yes", call("play_song", song="Strangers"), say("Shall I?"))
    assert c.arguments()["song"]["status"] == "traced", c.arguments()["song"]


@pytest.mark.parametrize(
    ("says", "names"), [("A small size car is enough.", False), ("a full size car", True)]
)
def test_a_word_the_value_shares_with_its_alternatives_does_not_name_it(says: str, names: bool) -> None:
    """Of "Full-size" among Compact, Standard and Full-size, "size" is also "mid-size"'s: "a small
    size car" names no full-size car; "full size" does."""
    request = gate.evidence.request_of("reserve a car: type Full-size", {"type": "Full-size"})
    spec = request.spec("type")
    assert spec is not None
    spec = dataclasses.replace(spec, choices=("Compact", "Standard", "Full-size"))
    request = dataclasses.replace(request, arguments=(spec,))
    assert bool(gate.evidence.forms.value_spans(says, spec, request)) is names


@pytest.mark.parametrize(
    "details",
    [
        "Whats the address for it, can i have more details of it?",
        "could you send me their phone number",
        "can i get the reviews for that one?",
        "give me a bit more information on it",
        "I'd like to know the address please",
    ],
)
async def test_asking_about_an_offer_does_not_take_it_up(alice: tuple[Call, list[str]], details: str) -> None:
    """Asking for the details of what the agent offered (its address, phone number, reviews) asks to
    know about it; the caller who then asks for others and says yes to tickets has not taken the
    first offer's date."""
    c, done = alice
    await c.says("Can you find me some sports events in Leeds?", "The Rhinos play next Tuesday at 7 pm.")
    await c.says(details, "It's at Headingley Stadium, St Michael's Lane.")
    await c.says("ok, are there any other events?", "One more: the Knights play this Saturday at 3 pm.")
    await c.says("That is nice", "Should I buy tickets for it?")
    wrong = {"event": "Knights", "city": "Leeds", "date": "2026-03-10"}
    out = await c.turn("Yes. two tickets please", call("buy_event_tickets", **wrong), say("Shall I?"))
    assert done == [] and out != ["Tickets bought."]
    assert c.arguments()["date"]["status"] != "traced", c.arguments()["date"]
    await c.turn("yes", call("buy_event_tickets", **{**wrong, "date": "2026-03-07"}), say("Shall I?"))
    assert c.arguments()["date"]["status"] == "traced", c.arguments()["date"]


@pytest.mark.parametrize(
    "others",
    ["Actually, are there any other events?", "Hmm, anything else on?", "Can you check for other ones?"],
)
async def test_a_value_taken_from_an_offer_goes_when_the_caller_asks_for_others_and_gets_one(
    alice: tuple[Call, list[str]], others: str
) -> None:
    """The caller took the first offer's day, then asked for others; the agent's next offer brings
    another day. The day of the tickets asked for after it is not the first offer's."""
    c, done = alice
    await c.says("Can you find me some sports events in Leeds?", "The Rhinos play next Tuesday at 7 pm.")
    await c.says("That sounds great.", "Shall I get you tickets?")
    await c.says(others, "There's also the Knights this Saturday at 3 pm.")
    wrong = {"event": "Knights", "city": "Leeds", "date": "2026-03-10"}
    out = await c.turn("I'll take that one, two tickets", call("buy_event_tickets", **wrong), say("Shall I?"))
    assert done == [] and out != ["Tickets bought."]
    assert c.arguments()["date"]["status"] != "traced", c.arguments()["date"]
    await c.turn("yes", call("buy_event_tickets", **{**wrong, "date": "2026-03-07"}), say("Shall I?"))
    assert c.arguments()["date"]["status"] == "traced", c.arguments()["date"]


async def test_a_value_taken_from_an_offer_stands_when_no_other_is_found(
    alice: tuple[Call, list[str]],
) -> None:
    """Asking for others and hearing there are none leaves the day the caller took."""
    c, _ = alice
    await c.says("Can you find me some sports events in Leeds?", "The Rhinos play next Tuesday at 7 pm.")
    await c.says("That sounds great.", "Shall I get you tickets?")
    await c.says("Are there any other events?", "No, that is the only one.")
    tickets = {"event": "Rhinos", "city": "Leeds", "date": "2026-03-10"}
    await c.turn("ok then, two tickets for the Rhinos", call("buy_event_tickets", **tickets), say("Shall I?"))
    assert c.arguments()["date"]["status"] == "traced", c.arguments()["date"]


@pytest.mark.parametrize(
    "more",
    [
        "Is there anything more available? I need to pick it up from March 12th",
        "anything more? i need it from the 12th",
        "Do you have any more? I'd need the car from March 12th.",
        "What other options do you have. I need it from March 12th.",
    ],
)
async def test_asking_for_more_in_the_same_turn_as_the_request_takes_no_offer(
    alice: tuple[Call, list[str]], more: str
) -> None:
    """ "Is there anything more available?" asks for other cars, even when the same turn goes on
    to say what the caller needs, and so does a question written with a full stop ("What other
    options do you have."): the place of the car offered before it is not taken."""
    c, done = alice
    await c.says(
        "I need a rental car from Concord on March 7th.",
        "One of them is a Standard Camry to pick up at Clayton Valley on March 7th.",
    )
    await c.says(more, "There is a Standard Accord at Canterbury Village for March 12th.")
    await c.says("Can I know the total cost?", "It comes to $31.")
    hire = {"pickup_location": "Clayton Valley", "pickup_date": "2026-03-12"}
    out = await c.turn("That is okay, book it.", call("hire_car", **hire), say("Shall I?"))
    assert done == [] and out != ["Hired."]
    assert c.arguments()["pickup_location"]["status"] != "traced", c.arguments()["pickup_location"]
    await c.turn(
        "yes", call("hire_car", **{**hire, "pickup_location": "Canterbury Village"}), say("Shall I?")
    )
    assert c.arguments()["pickup_location"]["status"] == "traced", c.arguments()["pickup_location"]


@pytest.mark.parametrize(
    "said",
    [
        "Account ACC-1234 should be 200 dollars in credit by now.",
        "ACC-1234 is now 200 dollars short, it has to be 200 dollars more",
        "two hundred dollars. ACC-1234. that's what the statement says",
    ],
)
async def test_what_a_value_is_to_be_asks_for_no_transfer(alice: tuple[Call, list[str]], said: str) -> None:
    """Saying what an account's balance should be, or reading figures out, asks for no transfer:
    the values are there, the request is not."""
    c, done = alice
    out = await c.turn(said, call("transfer_money", amount=200, to_account="ACC-1234"), say("Shall I?"))
    assert done == [] and out != ["Sent."], c.arguments()
    assert c.last().outcome != "act", c.arguments()


@pytest.mark.parametrize(
    ("said", "tool", "args"),
    [
        (
            "I want 2 tickets for the concert at Ortega Tapas in Leeds on Friday at 7pm",
            "reserve_table",
            {
                "restaurant": "Ortega Tapas",
                "city": "Leeds",
                "party": 2,
                "date": "2026-03-13",
                "time": "19:00",
            },
        ),
        (
            "i need a hotel room in Leeds from the 10th to the 12th",
            "rent_car",
            {"city": "Leeds", "pickup_date": "2026-03-10", "return_date": "2026-03-12"},
        ),
        (
            "rent a storage unit in Leeds from the 10th to the 12th",
            "rent_car",
            {"city": "Leeds", "pickup_date": "2026-03-10", "return_date": "2026-03-12"},
        ),
    ],
)
async def test_a_request_for_another_thing_in_the_actions_words_does_not_name_it(
    alice: tuple[Call, list[str]], said: str, tool: str, args: dict[str, Any]
) -> None:
    """In a call, the caller's first words asking for another thing with the action's values
    ("2 tickets for the concert at Ortega Tapas ... at 7pm") do not ask for the table: the gate
    does not act on them."""
    c, done = alice
    await c.turn(said, call(tool, **args), say("Shall I?"))
    assert done == [] and c.last().outcome != "act", c.arguments()


@pytest.mark.parametrize(
    ("said", "tool", "args"),
    [
        ("A-1001 please", "ship_order", {"order_id": "A-1001"}),
        ("ok 200 dollars and ACC-1234 please", "transfer_money", {"amount": 200, "to_account": "ACC-1234"}),
        (
            "friday at 7pm is fine for the two of us to meet up at Ortega Tapas in Leeds",
            "reserve_table",
            {
                "restaurant": "Ortega Tapas",
                "city": "Leeds",
                "party": 2,
                "date": "2026-03-13",
                "time": "19:00",
            },
        ),
        (
            "leeds to york on friday works for both of us",
            "buy_bus_tickets",
            {"origin": "Leeds", "destination": "York", "date": "2026-03-13", "travelers": 2},
        ),
    ],
)
async def test_values_alone_or_said_to_suit_name_no_action_in_a_call(
    alice: tuple[Call, list[str]], said: str, tool: str, args: dict[str, Any]
) -> None:
    """The caller's first words giving values only ("A-1001 please") or saying they suit ("friday
    at 7pm is fine for us to meet up") answer a question nobody asked: nothing asks for the
    action yet, so the gate asks."""
    c, done = alice
    await c.turn(said, call(tool, **args), say("Shall I?"))
    assert done == [] and c.last().outcome != "act", c.arguments()


async def test_values_answering_the_agents_question_complete_the_request(
    alice: tuple[Call, list[str]],
) -> None:
    """The same values said in answer to the agent, after the caller asked for the action, carry it."""
    c, done = alice
    await c.says("I need to send some money", "How much, and to which account?")
    out = await c.turn(
        "ok 200 dollars and ACC-1234 please",
        call("transfer_money", amount=200, to_account="ACC-1234"),
        say("Done."),
    )
    assert out == ["Sent."] and done == ["sent 200 to ACC-1234"], c.arguments()


@pytest.mark.parametrize(
    "ask", ["Could you book me an appointmnet with her at one pm please?", "can i get an apointment at 1 pm"]
)
async def test_a_misspelt_thing_is_the_thing_it_misspells(alice: tuple[Call, list[str]], ask: str) -> None:
    """ "an appintment" is the appointment: the request takes up the therapist the agent found."""
    c, done = alice
    await c.says(
        "Could you find me a psychologist in Leeds?", "Here is a psychologist, Alissa Scanlin in Leeds."
    )
    await c.says(ask, "What date would you like?")
    booking = {"therapist": "Alissa Scanlin", "date": "2026-03-10", "time": "13:00"}
    out = await c.turn("march 10th please", call("book_therapist", **booking), say("Booked."))
    assert out == ["Booked."] and done == ["therapist Alissa Scanlin 2026-03-10 13:00"], c.arguments()
    assert c.arguments()["therapist"]["rule"] == "trace.offer", c.arguments()["therapist"]


@pytest.mark.parametrize(
    ("said", "tool", "args"),
    [
        (
            "the teacher told me she'd like 200 dollars to account ACC-1234 from now on",
            "transfer_money",
            {"amount": 200, "to_account": "ACC-1234"},
        ),
        ("the warehouse said order A-1001 ships today", "ship_order", {"order_id": "A-1001"}),
        ("please call me back about order A-1001", "ship_order", {"order_id": "A-1001"}),
        (
            "can you ring me back on friday about ACC-1234 and the 200 dollars",
            "transfer_money",
            {"amount": 200, "to_account": "ACC-1234"},
        ),
    ],
)
async def test_what_someone_said_or_a_call_back_asks_for_no_action(
    alice: tuple[Call, list[str]], said: str, tool: str, args: dict[str, Any]
) -> None:
    """What somebody else told the caller ("the teacher told me she'd like ...") is their word, and
    a call back ("please call me back about order A-1001") is no shipping, whatever values they carry."""
    c, done = alice
    await c.turn(said, call(tool, **args), say("Shall I?"))
    assert done == [] and c.last().outcome != "act", c.arguments()


async def test_a_country_after_a_place_names_no_airline(alice: tuple[Call, list[str]]) -> None:
    """ "Toronto, Canada" is a place and its country: "Canada", the one word of Air Canada no other
    airline has, does not name it there; the American Airlines flight offered is what was taken."""
    c, done = alice
    await c.says(
        "I want to fly to Toronto, Canada on March 10th.",
        "How about this American Airlines flight? It leaves at 6:55 am.",
    )
    wrong = {"airline": "Air Canada", "destination": "Toronto", "date": "2026-03-10"}
    out = await c.turn("That sounds good, book it.", call("book_flight", **wrong), say("Shall I?"))
    assert done == [] and out != ["Booked."]
    assert c.arguments()["airline"]["status"] != "traced", c.arguments()["airline"]
    await c.turn("yes", call("book_flight", **{**wrong, "airline": "American Airlines"}), say("Shall I?"))
    assert c.arguments()["airline"]["status"] == "traced", c.arguments()["airline"]


async def test_the_word_only_one_choice_has_still_names_it(alice: tuple[Call, list[str]]) -> None:
    """Said on its own, "Canada" names Air Canada among the airlines."""
    c, done = alice
    flight = {"airline": "Air Canada", "destination": "Toronto", "date": "2026-03-10"}
    out = await c.turn(
        "Book me a flight to Toronto on March 10th, with Canada please.",
        call("book_flight", **flight),
        say("Done."),
    )
    assert out == ["Booked."] and done == ["flight Air Canada Toronto 2026-03-10"], c.arguments()


@pytest.mark.parametrize(
    "letting_go",
    [
        "he paid me back in cash so skip it",
        "ah he's paid me back already, drop it then",
        "actually give it a miss",
        "hmm, ditch it for now",
    ],
)
async def test_a_command_to_let_go_of_what_was_asked_takes_it_back(
    alice: tuple[Call, list[str]], letting_go: str
) -> None:
    """ "skip it", "drop it then", "give it a miss" said after a request let go of what was asked:
    for an action that does something (a transfer), a take-back, whatever reason goes before it."""
    c, done = alice
    await c.says("please send 200 dollars to ACC-1234", "Sure, is there anything else?")
    out = await c.turn(letting_go, call("transfer_money", amount=200, to_account="ACC-1234"), say("Shall I?"))
    assert done == [] and out != ["Sent."], c.last().rule
    assert c.last().outcome != "act"


@pytest.mark.parametrize(
    "pointer",
    [
        "can you email it over to my accountant",
        "could you check it against last month's first",
        "remind me about it on friday",
    ],
)
async def test_a_pointer_asking_another_thing_done_with_it_names_no_action(
    alice: tuple[Call, list[str]], pointer: str
) -> None:
    """After the caller says what ("the rent is 200 dollars to ACC-1234"), a turn that points at it
    and asks for another thing done with it ("email it over to my accountant", "check it",
    "remind me about it") asks for no transfer."""
    c, done = alice
    await c.says("the rent is 200 dollars to account ACC-1234 this month", "Thanks, noted.")
    out = await c.turn(pointer, call("transfer_money", amount=200, to_account="ACC-1234"), say("Shall I?"))
    assert done == [] and out != ["Sent."], c.arguments()
    assert c.last().rule == "evidence.missing", c.last().rule


@pytest.mark.parametrize(
    ("said", "lets_go"),
    [
        ("so skip it", True),
        ("the tooth stopped hurting, drop it then", True),
        ("the stomach's settled down now so give it a miss", True),
        ("ok, bin the idea", True),
        ("leave it at the door", False),
        ("deliver it friday and don't leave it", False),
        ("skip the queue and book it", False),
        ("drop it off on friday", False),
    ],
)
def test_a_command_to_let_go_is_only_that_command(said: str, lets_go: bool) -> None:
    """Only a clause that ends with letting go of what it points at is one ("drop it off on friday"
    and "leave it at the door" go on)."""
    from gate import utterance

    assert utterance.drops_pointed(said) is lets_go


@pytest.mark.parametrize(
    ("said", "acts"),
    [
        ("please ship order A-1001 at once", True),
        ("i need someone to ship order A-1001 today", True),
        ("could somebody ship order A-1001 for me", True),
        ("ship order A-1001 once the payment clears", False),
        ("i need someone to remind me about order A-1001 on friday", False),
        ("i need somebody to email me the invoice for order A-1001", False),
    ],
)
async def test_at_once_is_no_condition_and_someone_to_do_it_asks_for_its_verb(
    alice: tuple[Call, list[str]], said: str, acts: bool
) -> None:
    """ "at once" says when, and sets no condition ("once the payment clears" still does); a
    request that someone do a thing asks for that thing, "i need someone to ship ..." shipping
    and "i need someone to remind me about ..." a reminder."""
    c, done = alice
    out = await c.turn(said, call("ship_order", order_id="A-1001"), say("Shall I?"))
    if acts:
        assert out == ["Shipped A-1001."] and done == ["shipped A-1001"], c.last().rule
    else:
        assert done == [] and c.last().outcome != "act", c.last().rule


async def test_letting_go_of_what_the_agent_asked_about_keeps_the_request(
    alice: tuple[Call, list[str]],
) -> None:
    """After the agent asks about something else ("would you like a receipt by email?"), "no, skip
    it" lets go of that, and the transfer asked for before still stands."""
    c, done = alice
    await c.says("please send 200 dollars to ACC-1234", "Would you like a receipt by email?")
    out = await c.turn("no, skip it", call("transfer_money", amount=200, to_account="ACC-1234"), say("Done."))
    assert out == ["Sent."] and done == ["sent 200 to ACC-1234"], c.last().rule


@pytest.mark.parametrize(
    ("offer", "traced"),
    [
        ("How about Sapori Restaurant Bar on Castro Street? It's well rated.", False),
        ("How about Sapori Restaurant on Castro Street? It's well rated.", False),
        ("How about Sapori, a restaurant on Castro Street? It's well rated.", True),
        ("How about the Sapori restaurant on Castro Street? It's well rated.", True),
    ],
)
async def test_a_name_that_goes_on_is_not_the_shorter_name_and_its_kind(
    alice: tuple[Call, list[str]], offer: str, traced: bool
) -> None:
    """ "Sapori Restaurant Bar" and "Sapori Restaurant" offer those places, not one called "Sapori"
    (a word of its kind written with a capital is part of the name, as "Americana Apartments" is
    no "Americana"); "the Sapori restaurant" and "Sapori, a restaurant" offer Sapori."""
    c, _ = alice
    await c.says("I want a table for 2 in San Jose on March 10th at 7pm.", offer)
    table = {"restaurant": "Sapori", "city": "San Jose", "date": "2026-03-10", "time": "19:00", "party": 2}
    await c.turn("Sounds good, book it.", call("reserve_table", **table), say("Shall I?"))
    status = c.arguments()["restaurant"]["status"]
    assert (status == "traced") is traced, c.arguments()["restaurant"]


async def test_asking_for_other_things_of_the_same_family_turns_the_offer_down(
    alice: tuple[Call, list[str]],
) -> None:
    """ "What other hotels are there? I want one room." asks for other places of the request's kind
    (a hotel is an accommodation, though the service never says "hotel"), so it does not take the
    hotel offered before it."""
    c, _ = alice
    await c.says(
        "What hotels are there in Los Angeles?", "Ac Hotel By Marriott Beverly Hills is a 2 star hotel."
    )
    await c.says("What other hotels are there? I want one room.", "Airtel Plaza Hotel has 3 stars.")
    await c.says("What else is there?", "Banana Bungalow - Hollywood Hostel has 1 star.")
    await c.says("Okay, that works.", "Do you want to book a room?")
    wrong = {"place_name": "Ac Hotel By Marriott Beverly Hills", "check_in_date": "2026-03-02"}
    await c.turn(
        "Yes, please book a room. I want to check in on March 2nd.", call("reserve_rooms", **wrong), say("?")
    )
    assert c.arguments()["place_name"]["status"] != "traced", c.arguments()["place_name"]


async def test_what_another_things_place_is_called_offers_no_place_for_this_one() -> None:
    """ "The bus station is York Interchange", said of the bus the caller then took ("Sure, that's
    fine!"), offers no pick-up place for the hire car they ask for next (the trace of a call's
    turns, with the meaning the gate prepares); the place the agent offers for the car is."""
    from gate.evidence import Meaning, Statement, from_match, reading, trace
    from gate.memory.embedder import MiniLMEmbedder

    turns = [
        "I'd like to book a bus.",
        "How many seats do you need and when do you want to go?",
        "Three of us, going on the 4th of march.",
        "Where from and where to, and at what time?",
        "From Leeds at half past 6 in the evening, going to York.",
        "Please confirm a bus from Leeds to York on March 4th at 6:30 pm for 3 people.",
        "Yes, that's right. What's the name of the station we arrive at?",
        "Sorry, I couldn't book that bus. Anything else I can do?",
        "Could you try again, but from York to Hull on March 3rd this time?",
        "Please confirm a bus from York to Hull on March 3rd at 6:30 pm for 3 people.",
        "Yes, that's fine. Which station does it leave from?",
        "The bus station is York Interchange and it has no changes, but I could not book that ticket. "
        "Would you be interested in a bus leaving at 6:45 pm that costs $21?",
        "Sure, that's fine!",
        "Your seats are booked!",
        "Thanks. Could you also find me a hire car please?",
        "Are you collecting the car in Hull? When would you like it?",
        "Yes, I'll collect it there at about 5 in the afternoon and keep it until March 9th.",
        "Do you need it from March 3rd?",
        "I need it from Thursday next week.",
        "There's a nice Standard Focus available on March 5th at Hull Paragon Station. "
        "Would that one suit you?",
        "Yes, that's perfect!",
        "Shall I reserve the car now?",
        "Yes, I'd like to reserve it now.",
    ]
    said = [
        Statement(t, "caller" if n % 2 == 0 else "agent", 1772798400.0 + n, "call", turn=n)
        for n, t in enumerate(turns)
    ]
    meaning = Meaning(MiniLMEmbedder())

    async def pickup_location(place: str) -> str:
        match = {"pickup_location": place, "pickup_date": "2019-03-05", "dropoff_date": "2019-03-09"}
        request = from_match(
            f"Reserve car rental for given dates and location: pickup location {place}, "
            "pickup date 2019-03-05, dropoff date 2019-03-09",
            match,
        )
        prepared = await meaning.prepare(
            [*reading.base_texts(request, said), *reading.texts_for(request, said)]
        )
        return {a.name: a.status for a in trace(request, said, prepared).arguments}["pickup_location"]

    assert await pickup_location("York Interchange") != "traced"
    assert await pickup_location("Hull Paragon Station") == "traced"


@pytest.mark.parametrize(
    "said",
    [
        "refund the 40 delivery fee on my gym membership, reference A-1042",
        "please refund 40 dollars on my car insurance, policy number A-1042",
        "can you refund the 40 booking charge on my dentist appointment, it's A-1042",
        "refund 40 of the joining fee on our broadband contract A-1042",
    ],
)
async def test_a_thing_said_to_be_another_kinds_is_not_the_requests_thing(
    alice: tuple[Call, list[str]], said: str
) -> None:
    """The action's own verb and values, for something the caller says belongs to a known thing of
    another kind, in the words the query ties its own thing with ("the delivery fee on my gym
    membership" for "refund {amount} dollars on order {order_id}"), ask for no refund on an order."""
    c, done = alice
    out = await c.turn(said, call("refund_order", amount=40, order_id="A-1042"), say("Shall I?"))
    assert done == [] and out != ["Refunded."], c.arguments()


@pytest.mark.parametrize(
    "said",
    [
        "please refund 40 dollars on order A-1042",
        "refund the 40 on my order A-1042 please, it arrived broken",
        "the parcel never came, refund the 40 on my purchase A-1042",
        "refund 40 of the shipping on my order A-1042",
    ],
)
async def test_a_refund_on_the_callers_own_order_is_still_read(
    alice: tuple[Call, list[str]], said: str
) -> None:
    """The same verb and values on the order itself, or a thing of its kind, ask for the refund."""
    c, done = alice
    out = await c.turn(said, call("refund_order", amount=40, order_id="A-1042"), say("Shall I?"))
    assert out == ["Refunded."] and done == ["refund 40 A-1042"], c.arguments()


@pytest.mark.parametrize(
    "search",
    [
        "I prefer a bigger car, please",
        "i'd rather have an electric car if you've got one",
        "we really need a roomier car for the luggage",
        "could you look for a cheaper car",
    ],
)
async def test_asking_for_the_thing_with_a_word_the_offer_never_said_turns_it_down(
    alice: tuple[Call, list[str]], search: str
) -> None:
    """The agent offers a compact car; the caller asks for "a bigger car" (a word for it that the
    offer never said): what to look for, not a yes. When the agent's next offer is in another city,
    the compact car first offered is not what the caller took."""
    c, done = alice
    await c.says("i need a car in leeds from the 10th to the 14th", "I found a compact Fiesta in Leeds.")
    await c.says(search, "The nearest one is an SUV in York.")
    await c.turn("ok that's fine", call("rent_car", **{**CAR_10_14, "car_class": "compact"}), say("Shall I?"))
    assert done == [] and c.arguments()["car_class"]["status"] != "traced", c.arguments()


@pytest.mark.parametrize(
    "taken", ["i'd like a compact car then", "ok i'll take the car", "book that car please"]
)
async def test_asking_for_the_thing_in_the_offers_own_words_takes_it(
    alice: tuple[Call, list[str]], taken: str
) -> None:
    """The same request in the offer's own words, or with none of its own, takes the compact car."""
    c, done = alice
    await c.says("i need a car in leeds from the 10th to the 14th", "I found a compact Fiesta in Leeds.")
    out = await c.turn(taken, call("rent_car", **{**CAR_10_14, "car_class": "compact"}), say("Done."))
    assert out == ["Reserved."] and c.arguments()["car_class"]["status"] == "traced", c.arguments()
    assert done == ["car compact Leeds 2026-03-10-2026-03-14"]


@pytest.mark.parametrize(
    "others",
    [
        "What else is there?",
        "what else have you got",
        "what other cars are there?",
        "what else is available?",
        "Fine, get me better cars though.",
        "have you got any cheaper cars?",
        "May I have another suggestion?",
        "This looks okay but I need to search for some other cars, please do so.",
    ],
)
async def test_asking_what_else_there_is_turns_the_offer_down(
    alice: tuple[Call, list[str]], others: str
) -> None:
    """ "What else is there?" asks for other options, whatever verb the question is put with: the
    compact offered before it (and asked about since) is not what a later yes takes."""
    c, done = alice
    await c.says("i need a car in leeds from the 10th to the 14th", "I found a compact Fiesta in Leeds.")
    await c.says("how much is it in total?", "It comes to 180 dollars.")
    await c.says(
        f"{others} I'd like to rent the car from the 11th.", "There is a Kuga in Leeds from the 11th."
    )
    await c.turn(
        "ok that's fine",
        call("rent_car", **{**CAR_10_14, "pickup_date": "2026-03-11", "car_class": "compact"}),
        say("Shall I?"),
    )
    assert done == [] and c.arguments()["car_class"]["status"] != "traced", c.arguments()


@pytest.mark.parametrize(
    "said",
    [
        "can you book me a taxi in leeds from the 10th to the 14th",
        "get me a cab in leeds from the 10th to the 14th please",
        "i need a ride in leeds from the 10th to the 14th",
    ],
)
async def test_a_thing_of_the_other_sense_of_the_requests_word_is_another_thing(
    alice: tuple[Call, list[str]], said: str
) -> None:
    """ "Car" is a hire car and a ride; a tool that reserves a hire car rules the ride out, so a
    taxi, a cab or a ride asked for with its values asks for no hire car."""
    c, done = alice
    await c.turn(said, call("rent_car", **CAR_10_14), say("Shall I?"))
    assert done == [], c.arguments()


@pytest.mark.parametrize(
    "said",
    [
        "i need a hire car in leeds from the 10th to the 14th",
        "get me a car in leeds from the 10th to the 14th",
    ],
)
async def test_the_requests_own_sense_of_its_word_still_names_it(
    alice: tuple[Call, list[str]], said: str
) -> None:
    c, done = alice
    out = await c.turn(said, call("rent_car", **CAR_10_14), say("Done."))
    assert out == ["Reserved."] and done == ["car standard Leeds 2026-03-10-2026-03-14"], c.arguments()


@pytest.mark.parametrize(
    "said", ["can you collect order A-1001 from me tomorrow", "please pick up order A-1001 from my house"]
)
async def test_a_collection_is_no_shipment(alice: tuple[Call, list[str]], said: str) -> None:
    """Collecting a thing from the caller is the opposite way to shipping it to them."""
    c, done = alice
    await c.turn(said, call("ship_order", order_id="A-1001"), say("Shall I?"))
    assert done == [], c.arguments()


@pytest.mark.parametrize("chose", ["ok let's go with someone like you", "someone like you sounds good"])
async def test_another_item_of_a_list_read_out_is_the_callers_choice(
    alice: tuple[Call, list[str]], chose: str
) -> None:
    """The agent reads out three songs; the caller picks the second: a later "play that song" is
    for the one picked, not the first of the list."""
    c, done = alice
    await c.says(
        "find me some adele songs",
        "i found these songs for you. A hello from me, Someone like you, and skyfall",
    )
    await c.says(chose, "Anything else?")
    await c.turn("i would like to play that song please", call("play_song", song="A Hello From Me"), say("?"))
    assert done == [] and c.arguments()["song"]["status"] != "traced", c.arguments()


@pytest.mark.parametrize(
    "found",
    ["I found 1 leaving at 9am.", "The search returned 1, at 9am.", "I found only 1 on friday morning."],
)
async def test_how_many_a_search_found_counts_no_travellers(
    alice: tuple[Call, list[str]], found: str
) -> None:
    """ "I found 1 leaving at 9am" says how many buses the search found: a yes to it gives no
    number of travellers."""
    c, done = alice
    await c.says("find me a bus from leeds to york on friday", found)
    await c.turn(
        "that sounds good, book it",
        call("buy_bus_tickets", origin="Leeds", destination="York", date="2026-03-13", travelers=1),
        say("Shall I?"),
    )
    assert done == [] and c.arguments()["travelers"]["status"] != "traced", c.arguments()


async def test_a_not_with_a_pointer_at_the_offer_refuses_it(alice: tuple[Call, list[str]]) -> None:
    """ "I don't want to listen to that" points at the song offered and refuses it: a later "that
    would be fine", after another search, is not for it."""
    c, done = alice
    await c.says("play me some country music", "Would you like to hear all on me by devin dawson?")
    await c.says("from which year?", "It's from 2017.")
    await c.says(
        "I don't want to listen to that. Do you have anything by jimmie allen?",
        "There is 1 song: best shot by jimmie allen.",
    )
    await c.turn("That would be fine.", call("play_song", song="All On Me"), say("?"))
    assert done == [] and c.arguments()["song"]["status"] != "traced", c.arguments()


@pytest.mark.parametrize(
    "another",
    [
        "There's another good option in Leeds. It's a compact, a Fiesta.",
        "How about this: it's a compact, a Fiesta, in Leeds.",
    ],
)
async def test_what_the_agent_puts_forward_before_describing_it_is_a_new_offer(
    alice: tuple[Call, list[str]], another: str
) -> None:
    """The agent puts another option forward and describes it in the next sentence: the car class
    it gives is that option's, a new offer, not an answer about the one before; the caller's
    "sounds good" takes it, not the SUV first offered."""
    c, done = alice
    await c.says("i need a car in leeds from the 10th to the 14th", "I found an SUV, a Kuga, in Leeds.")
    await c.says("What esle is available?", another)
    await c.turn(
        "Sounds good, can you reserve it for me.",
        call("rent_car", **{**CAR_10_14, "car_class": "suv"}),
        say("?"),
    )
    assert done == [] and c.arguments()["car_class"]["status"] != "traced", c.arguments()


@pytest.mark.parametrize(
    "search", ["Give me a more moderate priced place please.", "is there a less noisy place around?"]
)
async def test_asking_for_a_place_more_or_less_of_something_turns_the_offer_down(
    alice: tuple[Call, list[str]], search: str
) -> None:
    c, done = alice
    await c.says("i want to eat out in leeds", "Sakura is supposed to be good.")
    await c.says(search, "Give Nopi a try, also in Leeds.")
    await c.says("Do they have seating outside?", "No, but they are on Chestnut Street.")
    await c.turn(
        "Please set aside a table for two on the 14th at 7pm.", call("reserve_table", **SAKURA_14TH), say("?")
    )
    assert done == [] and c.arguments()["restaurant"]["status"] != "traced", c.arguments()


async def test_a_name_with_its_kind_written_as_part_of_it_is_not_the_shorter_name(
    alice: tuple[Call, list[str]],
) -> None:
    """ "Sakura Restaurant is a nice place" offers the restaurant of that name, not one called
    "Sakura"; the caller taking it up traces no "Sakura"."""
    c, done = alice
    await c.says("find me a japanese restaurant in leeds", "Sakura Restaurant is a nice place in Leeds.")
    await c.turn("great, book it for two on the 14th at 7pm", call("reserve_table", **SAKURA_14TH), say("?"))
    assert done == [] and c.arguments()["restaurant"]["status"] != "traced", c.arguments()


DENTIST_TUESDAY = {"date": "2026-03-10", "time": "09:00"}


@pytest.mark.parametrize(
    "said",
    [
        "I need to see the dentist next Tuesday at 9am.",
        "could i see a dentist on tuesday the 10th at nine am",
    ],
)
async def test_seeing_whom_the_meeting_is_with_is_having_it(alice: tuple[Call, list[str]], said: str) -> None:
    """ "See" is a verb of looking into things, except of the one a meeting is with: seeing the
    dentist is the dentist appointment."""
    c, done = alice
    out = await c.turn(said, call("book_dentist", **DENTIST_TUESDAY), say("Done."))
    assert out == ["Booked."] and done == ["dentist 2026-03-10 09:00"], c.arguments()


@pytest.mark.parametrize(
    "said",
    [
        "i'd like to see the dentist's notes from next tuesday at 9am",
        "move my dentist appointment to next tuesday at 9am",
        "could you push my appointment with the dentist to tuesday the 10th at 9am",
    ],
)
async def test_seeing_something_else_or_moving_ones_own_books_nothing(
    alice: tuple[Call, list[str]], said: str
) -> None:
    """Seeing what is the dentist's is an inquiry; moving the caller's own appointment changes
    one they have: neither asks for a new one."""
    c, done = alice
    await c.turn(said, call("book_dentist", **DENTIST_TUESDAY), say("Shall I?"))
    assert done == [], c.arguments()


@pytest.mark.parametrize(
    "said",
    [
        "can you add a night onto my rooms at the Hilton from the 10th",
        "extend my rooms at the Hilton from the 10th",
        "shorten my stay at the Hilton from the 10th",
    ],
)
async def test_adding_to_ones_own_booking_makes_no_new_one(alice: tuple[Call, list[str]], said: str) -> None:
    c, done = alice
    await c.turn(
        said, call("reserve_rooms", place_name="Hilton", check_in_date="2026-03-10"), say("Shall I?")
    )
    assert done == [], c.arguments()


ORTEGA_TUESDAY = {
    "restaurant": "Ortega Tapas",
    "city": "Leeds",
    "party": 2,
    "date": "2026-03-10",
    "time": "19:30",
}


@pytest.mark.parametrize(
    "said",
    [
        "its our anniversary can we book ortega tapas in leeds for 2 next tuesday at 7:30pm",
        "we fancy spanish could we get a table at ortega tapas in leeds for two on tuesday the 10th"
        " at half seven",
    ],
)
async def test_a_request_put_as_a_question_run_on_after_other_words_is_read(
    alice: tuple[Call, list[str]], said: str
) -> None:
    """Speech-to-text writes no full stop before "can we ...": the request is a clause of its own."""
    c, done = alice
    await c.turn(said, call("reserve_table", **ORTEGA_TUESDAY), say("Done."))
    assert done == ["table Ortega Tapas Leeds 2 2026-03-10 19:30"], c.arguments()


@pytest.mark.parametrize(
    "said",
    [
        "my wife asked can we book ortega tapas in leeds for 2 next tuesday at 7:30pm",
        "i was going to ask could we book ortega tapas in leeds for 2 next tuesday at 7:30pm",
        "we cant do next tuesday at 7:30pm can we book ortega tapas in leeds for 2 another day",
        "before you do anything could i check the table at ortega tapas in leeds for 2 next tuesday"
        " at 7:30pm",
        "if it rains can we book ortega tapas in leeds for 2 next tuesday at 7:30pm",
    ],
)
async def test_reported_words_or_another_day_ask_for_nothing_here(
    alice: tuple[Call, list[str]], said: str
) -> None:
    """Somebody else's words, a question the caller meant to ask, or another day asked for beside
    the one the tool was called with: none of them is this booking."""
    c, done = alice
    await c.turn(said, call("reserve_table", **ORTEGA_TUESDAY), say("Shall I?"))
    assert done == [], c.arguments()


async def _searched_anew(c: Call) -> None:
    await c.says(
        "Please can you help me find a family counsellor in Leeds?",
        "Would you like to consult Anna Berg, a family counsellor in Leeds?",
    )
    await c.says("Please can I have their contact number?", "You can reach them at 0113 496 0000.")
    await c.says(
        "Please can you find some psychologist?", "What about consulting Tom Hale, a psychologist in Leeds?"
    )


async def test_a_search_for_some_other_one_sets_the_offer_aside(alice: tuple[Call, list[str]]) -> None:
    """ "Can you find some psychologist?" after Anna Berg was offered looks anew: a later yes and
    request are for the one offered then, not for Anna Berg."""
    c, done = alice
    await _searched_anew(c)
    await _asks_for_anna_berg(
        c, "That sounds good. Can you schedule an appointment for the 10th at eleven am?"
    )
    assert done == [] and c.arguments()["therapist"]["status"] != "traced", c.arguments()


async def _asks_for_anna_berg(c: Call, words: str) -> None:
    """The caller's ``words``, and the model books Anna Berg on the 10th at 11am with them."""
    await c.turn(
        words,
        call("book_therapist", therapist="Anna Berg", date="2026-03-10", time="11:00"),
        say("?"),
    )


async def _books_tom_hale(c: Call, done: list[str], words: str) -> None:
    """The caller's ``words`` book Tom Hale on the 10th at 11am, the one the agent put forward."""
    out = await c.turn(
        words,
        call("book_therapist", therapist="Tom Hale", date="2026-03-10", time="11:00"),
        say("Done."),
    )
    assert out == ["Booked."] and done == ["therapist Tom Hale 2026-03-10 11:00"], c.arguments()


async def test_the_one_offered_after_the_new_search_is_taken(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    await _searched_anew(c)
    await _books_tom_hale(
        c, done, "That sounds good. Can you schedule an appointment for the 10th at eleven am?"
    )


async def test_looking_for_another_kind_of_thing_leaves_the_offer_standing(
    alice: tuple[Call, list[str]],
) -> None:
    """ "Can you help me find an apartment there?" starts another task: the car the caller took
    just before stays theirs."""
    c, done = alice
    await c.says("Could you help me to get a rental car in Leeds?", "From when until when?")
    await c.says("From the 10th until the 14th.", "There is a standard car ready for collection in Leeds.")
    await c.says("That would suit me, now can you help me find an apartment there?", "How many bedrooms?")
    await c.says("At least 2 bedrooms.", "Bristol Commons has 2 bedrooms.")
    out = await c.turn("Now please reserve the car.", call("rent_car", **CAR_10_14), say("Done."))
    assert out == ["Reserved."] and done == ["car standard Leeds 2026-03-10-2026-03-14"], c.arguments()


async def _venue_named_for_a_town(c: Call) -> None:
    await c.says(
        "I heard Adele is great. I want something in Knaresborough.",
        "There is one Adele event on March 13th at Harrogate Convention Centre.",
    )


async def test_a_town_starting_a_venues_name_is_not_offered(alice: tuple[Call, list[str]]) -> None:
    """ "At Harrogate Convention Centre" names a venue: it puts no town Harrogate forward over the
    caller's own "Knaresborough"."""
    c, done = alice
    await _venue_named_for_a_town(c)
    await c.turn(
        "That sounds great. Could you book me tickets?",
        call("buy_event_tickets", event="Adele", city="Harrogate", date="2026-03-13"),
        say("?"),
    )
    assert done == [] and c.arguments()["city"]["status"] != "traced", c.arguments()


async def test_the_callers_town_stands_beside_a_venue_named_for_another(
    alice: tuple[Call, list[str]],
) -> None:
    c, done = alice
    await _venue_named_for_a_town(c)
    out = await c.turn(
        "That sounds great. Could you book me tickets?",
        call("buy_event_tickets", event="Adele", city="Knaresborough", date="2026-03-13"),
        say("Done."),
    )
    assert out == ["Tickets bought."] and done == ["event Adele Knaresborough 2026-03-13"], c.arguments()


# Results read out one at a time in the same words around each name, in lower case as
# speech-to-text writes them, or with a name the reader does not take for one.
FRAMED_OFFERS = [
    (
        "i need a room in leeds from the 10th",
        "the queens hotel is 3 stars",
        "i want 4 stars and one room",
        "the dakota leeds is 4 stars",
        "The Queens Hotel",
        "The Dakota Leeds",
    ),
    (
        "i need a room in york from the 10th",
        "the minster inn is 2 stars, and it has a bar",
        "i want one with parking",
        "the grange is 4 stars and has parking",
        "The Minster Inn",
        "The Grange",
    ),
    (
        "Rooms in York from the 10th, please.",
        "I found a guest house called Rose Cottage.",
        "We need two rooms.",
        "I found a guest house called Hollins B.",
        "Rose Cottage",
        "Hollins B",
    ),
    (
        "can you find me a place to stay in bath from the 10th",
        "there is the abbey inn which has 2 stars and costs 90 a night",
        "that is too cheap i want somewhere nicer",
        "there is the royal crescent which has 5 stars and costs 90 a night",
        "The Abbey Inn",
        "The Royal Crescent",
    ),
]


@pytest.mark.parametrize(("ask", "first", "more", "second", "earlier", "later"), FRAMED_OFFERS)
async def test_another_name_in_the_same_frame_replaces_the_offer(
    alice: tuple[Call, list[str]], ask: str, first: str, more: str, second: str, earlier: str, later: str
) -> None:
    """The agent puts a second place in the words it put the first in: a yes after it is not for
    the first, and it is for the second."""
    c, done = alice
    await c.says(ask, first)
    await c.says(more, second)
    await c.turn(
        "yes please make a reservation",
        call("reserve_rooms", place_name=earlier, check_in_date="2026-03-10"),
        say("?"),
    )
    assert done == [] and c.arguments()["place_name"]["status"] != "traced", c.arguments()
    out = await c.turn(
        "yes please make a reservation",
        call("reserve_rooms", place_name=later, check_in_date="2026-03-10"),
        say("Done."),
    )
    assert out == ["Reserved."] and done == [f"rooms {later} 2026-03-10"], c.arguments()


@pytest.mark.parametrize(
    "again",
    ["it is 3 stars", "the hotel is 3 stars", "the queens is 3 stars", "yes the queens hotel is 3 stars"],
)
async def test_the_same_one_said_again_in_the_frame_is_still_offered(
    alice: tuple[Call, list[str]], again: str
) -> None:
    c, _ = alice
    await c.says("i need a room in leeds from the 10th", "the queens hotel is 3 stars")
    await c.says("how many stars is it", again)
    out = await c.turn(
        "ok book it",
        call("reserve_rooms", place_name="The Queens Hotel", check_in_date="2026-03-10"),
        say("Done."),
    )
    assert out == ["Reserved."], c.arguments()


async def _therapist_away(c: Call) -> None:
    await c.says(
        "Can I book an appointment with Anna Berg on the 10th at 11am?",
        "Anna Berg is away on the 10th, would Tom Hale do instead?",
    )
    await c.says("ok tom hale is fine", "Tom Hale on March 10th at 11 am, shall I book it?")


async def test_a_value_the_agent_says_is_not_to_be_had_is_no_longer_asked_for(
    alice: tuple[Call, list[str]],
) -> None:
    """ "Anna Berg is away on the 10th" takes the caller's Anna Berg off the table: the yes after
    it is to the one put forward in her place."""
    c, done = alice
    await _therapist_away(c)
    await _asks_for_anna_berg(c, "yes")
    assert done == [] and c.arguments()["therapist"]["rule"] == "trace.offer.unavailable", c.arguments()


async def test_the_one_put_in_its_place_is_taken(alice: tuple[Call, list[str]]) -> None:
    c, done = alice
    await _therapist_away(c)
    await _books_tom_hale(c, done, "yes")


@pytest.mark.parametrize(
    ("reply", "ships"),
    [
        ("yes please", False),
        ("sure that's easier", False),
        ("no thanks just ship it", True),
        ("no, please ship it to me", True),
        ("no thanks, still ship it", True),
        ("no, ship it anyway", True),
    ],
)
async def test_a_yes_to_something_offered_in_the_actions_place_takes_it_back(
    alice: tuple[Call, list[str]], reply: str, ships: bool
) -> None:
    """ "Would you like to collect it from the store instead?" offers another thing in the
    action's place, with no value of it: a yes to it takes the request back; a no and the request
    again keeps it."""
    c, done = alice
    await c.says("please ship order A-1001", "Would you like to collect it from our store instead?")
    await c.turn(reply, call("ship_order", order_id="A-1001"), say("Done."))
    assert (done == ["shipped A-1001"]) is ships, c.last().evidence_json


async def test_a_word_only_one_choice_has_describing_another_thing_names_no_choice(
    alice: tuple[Call, list[str]],
) -> None:
    """ "the american fare" asks about a price: the word only American Airlines has among the
    airlines describes the fare there, so the caller named no airline; the one they pick does."""
    c, done = alice
    await c.says("i need a flight to boston on the 13th", "Two flights: one at 9 am, one at noon.")
    flight = {"airline": "American Airlines", "destination": "Boston", "date": "2026-03-13"}
    await c.turn("how much is the american fare", call("book_flight", **flight), say("Shall I?"))
    assert done == [] and c.arguments()["airline"]["status"] != "traced", c.arguments()["airline"]
    out = await c.turn("ok the american one please", call("book_flight", **flight), say("Done."))
    assert out == ["Booked."] and c.arguments()["airline"]["status"] == "traced", c.arguments()["airline"]


@pytest.mark.parametrize(("reply", "books"), [("yes napoli", False), ("no, bella roma please", True)])
async def test_the_caller_naming_another_name_the_agent_put_forward_picks_it(
    alice: tuple[Call, list[str]], reply: str, books: bool
) -> None:
    """ "Did you mean Napoli?" ... "yes napoli": the caller takes another name the agent put
    forward, in lower case and shorter; a yes beside it takes nothing of the first name."""
    c, done = alice
    await c.says(
        "a table at bella roma in leeds for two on the 13th at 7pm",
        "I have Bella Roma on King Street and Bella Napoli on Park Row. Did you mean Napoli?",
    )
    table = {"restaurant": "Bella Roma", "city": "Leeds", "party": 2, "date": "2026-03-13", "time": "19:00"}
    out = await c.turn(reply, call("reserve_table", **table), say("Booked."))
    assert (done == ["table Bella Roma Leeds 2 2026-03-13 19:00"]) is books, c.arguments()
    if not books:
        assert out != ["Booked."] and c.arguments()["restaurant"]["rule"] == "trace.changed"


@pytest.mark.parametrize(
    ("reply", "refunds"),
    [
        ("a replacement please", False),
        ("the replacement pair", False),
        ("store credit is fine", False),
        ("the refund please", True),
        ("refund it", True),
    ],
)
async def test_taking_the_other_option_the_agent_offered_asks_for_no_refund(
    alice: tuple[Call, list[str]], reply: str, refunds: bool
) -> None:
    """ "Would you like a refund of 40 dollars or a replacement pair?" offers the action beside
    another thing: the reply that takes the other thing asks for no refund, even after the caller
    asked for one; the reply that takes the refund does."""
    c, done = alice
    await c.says(
        "i want a refund, the shoes from order a-1042 came broken",
        "I'm sorry. Would you like a refund of 40 dollars, a replacement pair, or store credit?",
    )
    out = await c.turn(reply, call("refund_order", amount=40, order_id="A-1042"), say("Shall I?"))
    assert (done == ["refund 40 A-1042"]) is refunds, c.arguments()
    if not refunds:
        assert out != ["Refunded."] and c.last().outcome != "act"


async def test_a_choice_of_where_the_refund_goes_is_still_the_refund(alice: tuple[Call, list[str]]) -> None:
    """ "the refund to your card or your bank account?" offers two places for the refund, not
    another action: "bank account" keeps it."""
    c, done = alice
    await c.says(
        "please refund the 40 dollars on order a-1042",
        "Do you want the refund to your card or your bank account?",
    )
    out = await c.turn("bank account", call("refund_order", amount=40, order_id="A-1042"), say("Done."))
    assert out == ["Refunded."] and done == ["refund 40 A-1042"], c.arguments()


@pytest.mark.parametrize(
    ("reply", "refunds"),
    [
        ("40 dollars", True),
        ("it was forty dollars", True),
        ("40 but i'd rather have store credit", False),
        ("about 40, let me check my statement first", False),
        ("how much can you refund", False),
    ],
)
async def test_answering_what_the_agent_asked_to_do_it_takes_it_up(
    alice: tuple[Call, list[str]], reply: str, refunds: bool
) -> None:
    """ "I can refund the extra charge. How much was it?": the agent undertakes the action and
    asks for its value; a reply that gives that value and nothing else takes it up, though the
    caller never said "refund" (and "i was charged twice" tells what happened, no wish to be
    charged). An answer is no yes: the gate asks once, and the caller's yes refunds. A reply that
    says more, or asks, takes nothing up."""
    c, done = alice
    await c.says(
        "i was charged twice for order a-1042",
        "I'm sorry about that. I can refund the extra charge. How much was it?",
    )
    await c.turn(reply, call("refund_order", amount=40, order_id="A-1042"), say("Refund 40 on A-1042?"))
    record = json.loads(c.last().evidence_json)
    assert done == [] and c.last().outcome == "ask", record
    assert (record["action"]["rule"] == "trace.action.offer_answered") is refunds, record
    if refunds:
        assert record["verdict"] == "supported", record
        await c.turn("yes please", call(gate.CONFIRM_TOOL), say("Refunded."))
        assert done == ["refund 40 A-1042"]


@pytest.mark.parametrize(
    ("undertaking", "ships"),
    [
        ("I can ship it out today. What's the order number?", True),
        ("Let me get that shipped for you. Which order is it?", True),
        ("I can check on it for you. What's the order number?", False),
        ("I can email you the tracking link. Which order is it?", False),
    ],
)
async def test_only_an_undertaking_of_the_action_is_taken_up_by_an_answer(
    alice: tuple[Call, list[str]], undertaking: str, ships: bool
) -> None:
    """The order number given in answer takes up the agent's undertaking to ship it (the gate asks
    once); given in answer to an offer to look it up or to send a link, it asks for no shipping."""
    c, done = alice
    await c.says("my order still hasn't gone out", undertaking)
    await c.turn("it's a-1001", call("ship_order", order_id="A-1001"), say("Done."))
    record = json.loads(c.last().evidence_json)
    assert done == [] and (record["verdict"] == "supported") is ships, record


@pytest.mark.parametrize(
    ("asked", "song", "plays"),
    [
        ("any alternatives?", "Always Remember Us This Way", False),
        ("Do you have an alternative? Something from the same album.", "Always Remember Us This Way", False),
        ("any alternatives?", "Before I Cry", True),
        ("I like alternative rock too. That one sounds fine.", "Always Remember Us This Way", True),
    ],
)
async def test_asking_for_alternatives_sets_the_offer_aside(
    alice: tuple[Call, list[str]], asked: str, song: str, plays: bool
) -> None:
    """ "Any alternatives?" asks for another option than the song offered: a yes after the next
    offer is to that one. "alternative rock" is a kind of music, no option asked for."""
    c, _ = alice
    await c.says("play something by lady gaga", "How about Always Remember Us This Way?")
    await c.says(asked, "I also found Before I Cry by Lady Gaga.")
    await c.turn("that sounds great, play it", call("play_song", song=song), say("Enjoy."))
    # confirm: always: the trace says whether the caller's words chose this song
    assert (c.arguments()["song"]["status"] == "traced") is plays, c.last().evidence_json


@pytest.mark.parametrize(
    "said",
    ["r102 doesn't fit so i'd like my money back", "r102 doesn't fit me, refund the 25 dollars please"],
)
async def test_a_fault_of_one_of_two_orders_is_no_no_to_it(alice: tuple[Call, list[str]], said: str) -> None:
    """ "r102 doesn't fit": a no of fitting said of an identified thing says what is wrong with
    it, no no to it; the refund asked for in the same breath is of that order."""
    c, _ = alice
    await c.says("i have two orders, r101 and r102", "How can I help with them?")
    await c.turn(said, call("refund_order", amount=25, order_id="R-102"), say("Done."))
    assert c.arguments()["order_id"]["status"] == "traced", c.last().evidence_json


@pytest.mark.parametrize(
    "opening",
    ["order a-1042 arrived broken, i want my money back", "order a1042 came broken i want my money back"],
)
async def test_an_identifiers_label_opening_a_sentence_about_it_is_no_command(
    alice: tuple[Call, list[str]], opening: str
) -> None:
    """ "order a-1042 arrived broken": the label and its identifier are what the sentence is
    about, not a command to order; the refund asked for after it, and taken up, is asked for."""
    c, done = alice
    await c.says(opening, "I'm sorry. The order was 40 dollars. Shall I refund that?")
    await c.turn("yes please", call("refund_order", amount=40, order_id="A-1042"), say("Done."))
    assert done == ["refund 40 A-1042"], c.last().evidence_json


@pytest.mark.parametrize(
    ("closing", "ships"),
    [
        ("no that's all, thanks a lot", True),
        ("nope, that's everything cheers", True),
        ("no thanks", True),
        ("hmm let me think about the shipping first actually", False),
        ("actually no, don't send it yet", False),
    ],
)
async def test_a_no_to_another_matter_puts_nothing_off(
    alice: tuple[Call, list[str]], closing: str, ships: bool
) -> None:
    """ "Anything else?" ... "no that's all": the no answers whether there is another matter, and
    leaves the request standing; a no that speaks of the action still puts it off."""
    c, done = alice
    await c.says("please ship order a-1001", "Shall I ship A-1001 now?")
    await c.says("yes please", "Is there anything else I can help you with today?")
    await c.turn(closing, call("ship_order", order_id="A-1001"), say("Done."))
    assert (done == ["shipped A-1001"]) is ships, c.last().evidence_json


@pytest.mark.parametrize(
    ("amount", "to_account", "sends"),
    [(20, "ACC-2222", True), (20, "ACC-1111", False), (50, "ACC-2222", False)],
)
async def test_a_second_request_keeps_its_own_values(
    alice: tuple[Call, list[str]], amount: int, to_account: str, sends: bool
) -> None:
    """ "and transfer 20 dollars to acc-2222" after 50 to ACC-1111 is a request of its own: its 20
    is not the first account's, and the first's 50 is not the second's."""
    c, done = alice
    await c.says("transfer 50 dollars to account acc-1111", "Done. Anything else?")
    await c.turn(
        "and transfer 20 dollars to acc-2222",
        call("transfer_money", amount=amount, to_account=to_account),
        say("Sent."),
    )
    assert (done == [f"sent {amount} to {to_account}"]) is sends, c.last().evidence_json


@pytest.mark.parametrize(
    ("words", "acts"),
    [
        ("Envía 75 dólares a la cuenta ACC-3099, por favor.", True),
        ("transfiere los 75 dólares a la cuenta acc-3099", True),
        ("Transferí 75 dólares a la cuenta ACC-3099 ayer.", False),  # the past narrates
        ("Envía 75 dólares a la cuenta ACC-3098, por favor.", False),
    ],
)
async def test_a_spanish_command_with_no_pronoun_asks_for_the_action(
    alice: tuple[Call, list[str]], words: str, acts: bool
) -> None:
    """ "envía", "transfiere": a Spanish command is the verb's stem and an imperative ending, with
    no pronoun on it; the same verb in the past tells what was done."""
    c, done = alice
    await c.turn(words, call("transfer_money", amount=75, to_account="ACC-3099"), say("Sent."))
    assert (done == ["sent 75 to ACC-3099"]) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("words", "to_account", "acts"),
    [
        ("chuck 75 bucks over to acc-3099", "ACC-3099", True),
        ("bung 75 dollars across to account acc-3099 for me", "ACC-3099", True),
        ("chuck 75 bucks over to acc-3099", "ACC-3098", False),
    ],
)
async def test_a_verb_no_list_names_then_a_number_in_digits_is_a_command(
    alice: tuple[Call, list[str]], words: str, to_account: str, acts: bool
) -> None:
    """A verb first, then a number in digits and what it counts, commands as it does with the
    number in words ("chuck seventy five bucks")."""
    c, done = alice
    await c.turn(words, call("transfer_money", amount=75, to_account=to_account), say("Sent."))
    assert (done == [f"sent 75 to {to_account}"]) is acts, c.last().evidence_json


@pytest.mark.parametrize(("time", "acts"), [("20:00", True), ("19:00", False)])
async def test_the_value_put_aside_for_another_is_not_asked_for(
    alice: tuple[Call, list[str]], time: str, acts: bool
) -> None:
    """ "at 8pm instead of 7pm": the value after "instead of" is the one put aside."""
    c, done = alice
    await c.turn(
        "book a table for 2 at lotus in danville on march 10 at 8pm instead of 7pm",
        call("reserve_table", restaurant="Lotus", city="Danville", date="2026-03-10", time=time, party=2),
        say("Booked."),
    )
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("words", "acts"),
    [("give priya 30 dollars from my savings", True), ("give priya jones 30 dollars from my savings", False)],
)
async def test_a_name_right_after_the_verb_of_a_request_is_its_object(
    alice: tuple[Call, list[str]], words: str, acts: bool
) -> None:
    """ "give priya 30": the verb a request opens with is no word of the name after it; a longer
    name is another one."""
    c, done = alice
    await c.turn(words, call("pay_person", amount=30, payee="Priya", from_account="savings"), say("Sent."))
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("reply", "asked", "acts"),
    [
        ("I see that account on file.", "can you sort that out for me now", True),
        ("Would you like me to set up a standing order for it?", "can you sort that out for me now", False),
        ("I see that account on file.", "can you email that to my landlord", False),
    ],
)
async def test_a_pointer_is_read_with_the_callers_turn_before_it(
    alice: tuple[Call, list[str]], reply: str, asked: str, acts: bool
) -> None:
    """ "the rent is 75 dollars and it goes to acc-3099" ... "can you sort that out for me now":
    the pointer asks to have done what the caller's turn before it told, when the agent only
    acknowledged it; after an offer of something else, or asking for another thing done with
    it, it asks for nothing here."""
    c, done = alice
    await c.says("the rent is 75 dollars and it goes to account acc-3099", reply)
    await c.turn(asked, call("transfer_money", amount=75, to_account="ACC-3099"), say("Sent."))
    assert (done == ["sent 75 to ACC-3099"]) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("words", "acts"),
    [
        ("send 30 dollars from my savings into priya's account", True),
        ("move 30 dollars over to priya's bank account from my savings", True),
        ("put 30 dollars from my savings in priya's account please", True),
        ("send 30 dollars from my savings into priya's husband's account", False),
        ("take 30 dollars out of priya's account and put it in my savings", False),
    ],
)
async def test_money_sent_where_a_person_keeps_it_goes_to_them(
    alice: tuple[Call, list[str]], words: str, acts: bool
) -> None:
    """ "into priya's account", "in priya's bank account": money sent to where she keeps it is sent to
    her. Somebody of hers ("priya's husband's account") and money taken from hers are not."""
    c, done = alice
    await c.turn(words, call("pay_person", amount=30, payee="Priya", from_account="savings"), say("Sent."))
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("words", "acts"),
    [
        ("can doctor ahmed fit me in on march 12th at 10am", True),
        ("i'd like ahmed to see me on march 12th at 10am", True),
        ("can anyone but ahmed fit me in on march 12th at 10am", False),
        ("can ahmed's colleague fit me in on march 12th at 10am", False),
    ],
)
async def test_a_name_then_what_they_do_to_the_caller_is_the_name(
    alice: tuple[Call, list[str]], words: str, acts: bool
) -> None:
    """ "can ahmed fit me in", "ahmed to see me": the word after the name is what they do, no part
    of a longer name; anyone but them, or somebody of theirs, is not them."""
    c, done = alice
    await c.says("i need to see a therapist", "Dr Ahmed has openings next week.")
    await c.turn(
        words, call("book_therapist", therapist="Ahmed", date="2026-03-12", time="10:00"), say("Done.")
    )
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("answer", "takes"),
    [
        ("Okay, I want a small car, could you find it for me?", False),
        ("ok i'd rather have a cheaper car can you look for one", False),
        ("Okay, that compact one, could you book it for me?", True),
        ("Okay, I want that one. Could you find me a hotel nearby too?", True),
    ],
)
async def test_an_okay_then_a_new_search_takes_up_nothing(
    alice: tuple[Call, list[str]], answer: str, takes: bool
) -> None:
    """ "Okay, I want a small car, could you find it for me?" after a Compact car was offered: the
    "okay" acknowledges, and asking the agent to look for another sets the offer aside."""
    c, done = alice
    await c.says(
        "i need a car in leeds from march 10th to march 14th",
        "I found 5 cars. The best is a Compact car, a Honda Civic, at Leeds station.",
    )
    await c.says(answer, "Sure. Shall I reserve it?")
    await c.turn("yes please", call("rent_car", **{**CAR_10_14, "car_class": "compact"}), say("Reserved."))
    args = c.arguments()
    assert (args["car_class"]["status"] == "traced") is takes, args["car_class"]
    assert bool(done) is takes


@pytest.mark.parametrize(
    ("words", "utility", "acts"),
    [
        ("Quiero pagar la factura del agua de 42 dólares.", "water", True),
        ("Bitte bezahlen Sie meine Gasrechnung über 42 Dollar.", "gas", True),
        ("je voudrais payer la facture d'électricité de 42 dollars", "electricity", True),
        ("pay my electric bill of 42 dollars please", "electricity", True),
        ("Quiero pagar la factura de la luz de 42 dólares.", "water", False),
        ("Bezahlen Sie die Gasrechnung über 42 Dollar bitte nicht.", "gas", False),
        ("pay my electrician 42 dollars", "electricity", False),
    ],
)
async def test_a_value_said_in_other_words_is_the_value(
    alice: tuple[Call, list[str]], words: str, utility: str, acts: bool
) -> None:
    """ "la factura del agua", "die Gasrechnung", "la facture d'électricité", "the electric bill":
    the words a language folder lists for a value are that value; another value in the same
    language, a no, and a word of the same stem that is another thing ("the electrician") are not."""
    c, done = alice
    await c.turn(words, call("pay_utility", utility=utility, amount=42), say("Paid."))
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("words", "acts"),
    [
        ("activez le roaming pour l'Allemagne, s'il vous plaît", True),
        ("Bitte schalten Sie Roaming für Deutschland ein.", True),
        ("Active el roaming para Alemania, por favor.", True),
        ("activez le roaming pour l'Italie, s'il vous plaît", False),
        ("Bitte schalten Sie Roaming für Deutschland aus.", False),
        ("desactive el roaming para Alemania, por favor", False),
    ],
)
async def test_a_country_in_the_callers_language_and_the_switch_they_ask_for(
    alice: tuple[Call, list[str]], words: str, acts: bool
) -> None:
    """ "l'Allemagne", "Deutschland", "Alemania" are Germany (a French elision is no part of the
    word); switching roaming off, in any of the languages, is no request to switch it on."""
    c, done = alice
    await c.turn(words, call("turn_on_roaming", country="Germany"), say("Done."))
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("therapist", "acts"),
    [("Bayview Counselling", False), ("Tim Brown", True)],
)
async def test_another_of_the_requests_own_kind_sets_the_offer_aside(
    alice: tuple[Call, list[str]], therapist: str, acts: bool
) -> None:
    """ "the name of another therapist": another of the request's own kind of thing, whatever the
    word, sets aside what was offered before; "that one" is the one offered after it."""
    c, done = alice
    await c.says("i'm looking for a therapist in oakland", "What about Bayview Counselling?")
    await c.says("can you get me their phone number?", "It's 510-383-5100.")
    await c.says(
        "will you give me the name of another therapist in the area?", "There is also Dr. Tim Brown."
    )
    await c.turn(
        "that one sounds good. book me an appointment on march 12th at 2:15 in the afternoon",
        call("book_therapist", therapist=therapist, date="2026-03-12", time="14:15"),
        say("Booked."),
    )
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("first", "asked", "origin", "destination", "acts"),
    [
        (
            "we're spending the weekend in fresno",
            "get us 2 bus tickets from there to sacramento on march 14th",
            "Fresno",
            "Sacramento",
            True,
        ),
        (
            "we've got a wedding in sacramento",
            "can you get 2 of us there from fresno on march 14th by bus",
            "Fresno",
            "Sacramento",
            True,
        ),
        (
            "we're spending the weekend in fresno",
            "get us 2 bus tickets from there to sacramento on march 14th",
            "Sacramento",
            "Fresno",
            False,
        ),
        (
            "my sister lives in sacramento",
            "is there a bus from fresno on march 14th for 2 of us",
            "Fresno",
            "Sacramento",
            False,
        ),
    ],
)
async def test_there_is_the_place_the_callers_turn_before_it_named(
    alice: tuple[Call, list[str]], first: str, asked: str, origin: str, destination: str, acts: bool
) -> None:
    """ "we're spending the weekend in fresno" ... "get us 2 bus tickets from there": "there" is the
    place the caller named just before, at the end of the journey the pointer says ("from there"
    is where it starts), traced by rule ``trace.value.there``; "is there a bus" points at nothing."""
    c, done = alice
    await c.says(first, "Sounds lovely.")
    await c.turn(
        asked,
        call("buy_bus_tickets", origin=origin, destination=destination, date="2026-03-14", travelers=2),
        say("Bought."),
    )
    assert bool(done) is acts, c.last().evidence_json
    if acts:
        assert "trace.value.there" in c.last().evidence_json


@pytest.mark.parametrize(
    ("asked", "answer", "pickup", "acts"),
    [
        (
            "thanks. now i need a standard car in sacramento from march 10th",
            "on the 13th",
            "2026-03-10",
            True,
        ),
        ("thanks. now i need a standard car in sacramento", "back on the 13th", "2026-03-07", False),
    ],
)
async def test_what_was_said_for_a_task_reported_done_is_that_tasks(
    alice: tuple[Call, list[str]], asked: str, answer: str, pickup: str, acts: bool
) -> None:
    """ "I need to book a bus ride." ... "fresno to sacramento on march 7th" ... "Your bus is
    booked.": the bus ride is no hire car, and the day said for it, on a task the agent reported
    done, gives the car no pick-up day (not even as context)."""
    c, done = alice
    await c.says("I need to book a bus ride.", "Where from and where to, and when?")
    await c.says("fresno to sacramento on march 7th", "Your bus is booked.")
    await c.says(asked, "When will you bring it back?")
    await c.turn(
        answer,
        call("rent_car", city="Sacramento", pickup_date=pickup, return_date="2026-03-13"),
        say("Reserved."),
    )
    assert bool(done) is acts, c.last().evidence_json


GAS_BILL = {"utility": "gas", "amount": 80}
TRANSFER_200 = {"amount": 200, "to_account": "ACC-1234"}
REFUND_40 = {"amount": 40, "order_id": "B-221"}


@pytest.mark.parametrize(
    ("language", "said", "tool", "args", "acts"),
    [
        (
            "de",
            "Ich brauche einen Zahnarzttermin am Dienstag um 9 Uhr.",
            "book_dentist",
            DENTIST_TUESDAY,
            True,
        ),
        (
            "es",
            "Necesito una cita con el dentista el martes a las nueve.",
            "book_dentist",
            DENTIST_TUESDAY,
            True,
        ),
        (
            "de",
            "Wir möchten unseren Zahnarzttermin am Dienstag um 9 Uhr stornieren.",
            "book_dentist",
            DENTIST_TUESDAY,
            False,
        ),
        (
            "es",
            "Quiero cerrar mi cita con el dentista del martes a las nueve.",
            "book_dentist",
            DENTIST_TUESDAY,
            False,
        ),
        ("en", "i need the gas bill of 80 dollars", "pay_utility", GAS_BILL, False),
        ("en", "please pay the gas bill of 80 dollars", "pay_utility", GAS_BILL, True),
    ],
)
async def test_a_wish_for_the_thing_asks_for_the_action_only_when_the_action_brings_it(
    alice: tuple[Call, list[str]], language: str, said: str, tool: str, args: dict[str, Any], acts: bool
) -> None:
    """ "Ich brauche einen Zahnarzttermin": wanting an appointment, in the caller's language, asks
    for it to be booked; a verb said last or one no list knows ("... stornieren", "quiero cerrar")
    asks for something else, and wanting the gas bill is no payment of it."""
    c, done = alice
    spoken = Call(c.gate, gate.Caller("alice", verified=True), language=language)
    await spoken.start()
    try:
        await spoken.turn(said, call(tool, **args), say("Done."))
    finally:
        await spoken.session.aclose()
    assert bool(done) is acts, spoken.last().evidence_json


@pytest.mark.parametrize(
    ("said", "acts"),
    [
        ("someone stole my card ending 4432 please block it", True),
        ("my son lost his card ending 4432, block it", False),
    ],
)
async def test_what_another_did_to_the_callers_thing_names_it(
    alice: tuple[Call, list[str]], said: str, acts: bool
) -> None:
    """ "someone stole my card ending 4432": the card is the caller's own, whoever took it; "his
    card" is his."""
    c, done = alice
    await c.turn(said, call("block_card", last4="4432"), say("Done."))
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("said", "tool", "args", "acts"),
    [
        ("put the 200 dollar transfer to ACC-1234 on hold", "transfer_money", TRANSFER_200, False),
        ("reverse the transfer of 200 dollars to ACC-1234", "transfer_money", TRANSFER_200, False),
        ("complete the transfer of 200 dollars to ACC-1234", "transfer_money", TRANSFER_200, True),
        ("chase the 40 dollar refund on order B-221", "refund_order", REFUND_40, False),
        ("go ahead with the refund of 40 dollars on order B-221", "refund_order", REFUND_40, True),
    ],
)
async def test_the_action_named_by_its_noun_under_a_verb_that_stops_it_is_not_asked_for(
    alice: tuple[Call, list[str]], said: str, tool: str, args: dict[str, Any], acts: bool
) -> None:
    """ "put the 200 dollar transfer on hold", "chase the refund": the action's own noun, under a
    verb that stops, undoes, delays or looks into it, asks for that; going ahead with it asks for
    the action."""
    c, done = alice
    await c.turn(said, call(tool, **args), say("Done."))
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("said", "tool", "args", "acts"),
    [
        ("please send 200 dollars for order ACC-1234", "transfer_money", TRANSFER_200, False),
        ("please send 200 dollars to account ACC-1234", "transfer_money", TRANSFER_200, True),
        ("refund 40 dollars on invoice B-221", "refund_order", REFUND_40, False),
        ("refund 40 dollars on order number B-221", "refund_order", REFUND_40, True),
    ],
)
async def test_a_value_said_under_another_kinds_label_is_not_the_arguments(
    alice: tuple[Call, list[str]], said: str, tool: str, args: dict[str, Any], acts: bool
) -> None:
    """ "for order ACC-1234" is an order, not the account the money goes to; "invoice B-221" is no
    order (trace.value.label); the value under its own label, through "number", is."""
    c, done = alice
    await c.turn(said, call(tool, **args), say("Done."))
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("place", "acts"),
    [("Kona Kai Village Apartments", True), ("Clayton Creek Apartments", False)],
)
async def test_a_result_read_out_in_the_same_opening_words_replaces_the_one_before(
    alice: tuple[Call, list[str]], place: str, acts: bool
) -> None:
    """ "Clayton Creek Apartments is located at 5255 Clayton Road" ... "Can you find me apartments
    with 1 bed room?" ... "Kona Kai Village Apartments is located at 3066 Willow Pass Road": the
    second result, read out in the first's opening words, replaces it (trace.offer.replaced); the
    search for more is no question about the first, and "apartments" is its kind, not its name."""
    c, done = alice
    await c.says("I want to stay somewhere with 3 baths that allows pets.", "In which area?")
    await c.says(
        "Look in Concord please.",
        "Clayton Creek Apartments is located at 5255 Clayton Road and has 2 bed rooms and 3 baths.",
    )
    await c.says(
        "Can you find me apartments with 1 bed room?",
        "Kona Kai Village Apartments is located at 3066 Willow Pass Road and has 1 bed room and 3 baths.",
    )
    await c.says("Is the apartment furnished?", "Yes, it is furnished.")
    await c.turn(
        "Perfect. Please reserve rooms there from the 10th of March.",
        call("reserve_rooms", place_name=place, check_in_date="2026-03-10"),
        say("Reserved."),
    )
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    "again",
    [
        "It is located at 5 Park Row, near the station.",
        "The hotel is located at 5 Park Row, a short walk from the station.",
        "The Queens is located at 5 Park Row.",
    ],
)
async def test_the_same_one_read_out_again_in_the_opening_words_is_still_offered(
    alice: tuple[Call, list[str]], again: str
) -> None:
    """The opening words of a result's details said again of the same one (a pronoun, its kind,
    its own name) put nothing else forward."""
    c, _ = alice
    await c.says(
        "i need a room in leeds from the 10th", "The Queens Hotel is located at 5 Park Row and has 3 stars."
    )
    await c.says("where is it exactly", again)
    out = await c.turn(
        "ok book it",
        call("reserve_rooms", place_name="The Queens Hotel", check_in_date="2026-03-10"),
        say("Done."),
    )
    assert out == ["Reserved."], c.arguments()


@pytest.mark.parametrize(
    ("answer", "acts"),
    [
        ("hmm maybe not then", False),
        ("oh, in that case leave it", False),
        ("yes i'm sure, go ahead", True),
    ],
)
async def test_a_no_to_the_agents_check_on_the_request_takes_it_back(
    alice: tuple[Call, list[str]], answer: str, acts: bool
) -> None:
    """ "send 200 dollars to ACC-1234" ... "Are you sure? That account is new to us." ... "hmm maybe
    not then": a no to the agent's check, as the confirmation reader reads one, takes the request
    back (trace.action.refused); a yes to it puts nothing off."""
    c, done = alice
    await c.says("please send 200 dollars to ACC-1234", "Are you sure? That account is new to us.")
    await c.turn(answer, call("transfer_money", **TRANSFER_200), say("Done."))
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(("answer", "acts"), [("a replacement please", False), ("the refund please", True)])
async def test_options_said_and_then_asked_about_are_a_choice(
    alice: tuple[Call, list[str]], answer: str, acts: bool
) -> None:
    """ "I can refund the 40 dollars or send a replacement. Which would you prefer?": the options
    said before the question are the choice it asks for; the other one taken is no refund."""
    c, done = alice
    await c.says(
        "order b221 arrived damaged",
        "I'm sorry. I can refund the 40 dollars or send a replacement. Which would you prefer?",
    )
    await c.turn(answer, call("refund_order", **REFUND_40), say("Done."))
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("asked", "amount", "to_account", "acts"),
    [
        ("please send 200 dollars to ACC-1234, actually make it 300", 300, "ACC-1234", True),
        ("send 200 dollars to ACC-1234 or rather 300 dollars", 300, "ACC-1234", True),
        ("please send 200 dollars to ACC-1234, actually make it 300", 200, "ACC-1234", False),
        ("please send 200 dollars to ACC-1234, sorry, ACC-5678", 200, "ACC-1234", False),
        ("please send 200 dollars to ACC-1234, actually let me ask my wife first", 200, "ACC-1234", False),
        ("please send 200 dollars to ACC-1234, actually 200 might be too much", 200, "ACC-1234", False),
    ],
)
async def test_a_value_corrected_in_the_same_breath_is_the_one_asked_for(
    alice: tuple[Call, list[str]], asked: str, amount: int, to_account: str, acts: bool
) -> None:
    """ "send 200 dollars to ACC-1234, actually make it 300": the correction replaces the value it
    is for and the request stands (rule ``trace.value.corrected``); the value it replaced is no
    longer asked for; "actually" followed by anything but a value still takes the request back."""
    c, done = alice
    await c.turn(asked, call("transfer_money", amount=amount, to_account=to_account), say("Sent."))
    assert bool(done) is acts, c.last().evidence_json
    if acts:
        assert c.arguments()["amount"]["rule"] == "trace.value.corrected"


@pytest.mark.parametrize(
    ("told", "asked", "order_id", "acts"),
    [
        ("i ordered A-1001 last week and it still hasn't gone out", "please ship it today", "A-1001", True),
        ("we bought a-1001 on monday", "can you ship it out now", "A-1001", True),
        (
            "i ordered A-1001 last week and it still hasn't gone out",
            "please ship A-1002 today",
            "A-1001",
            False,
        ),
        ("i ordered A-1001 last week and it arrived fine", "thanks for that", "A-1001", False),
    ],
)
async def test_an_identifier_in_what_the_caller_tells_of_the_thing_names_it(
    alice: tuple[Call, list[str]], told: str, asked: str, order_id: str, acts: bool
) -> None:
    """ "i ordered A-1001 last week and it still hasn't gone out" ... "please ship it today": an
    identifier told of in what was done names the same thing now (a clause of what was done says
    no day or place for the new request, but an identifier is one thing whatever is told of it)."""
    c, done = alice
    await c.says(told, "I'm sorry to hear that.")
    await c.turn(asked, call("ship_order", order_id=order_id), say("Shipped."))
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("asked", "utility", "acts"),
    [
        ("don't pay my gas bill, pay my water bill of 60 dollars", "water", True),
        ("not my gas bill, pay my water bill of 60 dollars please", "water", True),
        ("don't pay my gas bill, pay my water bill of 60 dollars", "gas", False),
        ("my wife says don't pay my gas bill, pay my water bill of 60 dollars", "water", False),
        ("don't pay my water bill of 60 dollars, i was asking about my gas bill", "water", False),
    ],
)
async def test_a_no_to_the_action_on_another_thing_leaves_this_one_asked_for(
    alice: tuple[Call, list[str]], asked: str, utility: str, acts: bool
) -> None:
    """ "don't pay my gas bill, pay my water bill": the no is to the other thing named in the
    query's own frame ("my {utility} bill"), and the request beside it is for this one; a no that
    names this one, or another person's commands relayed, ask for nothing."""
    c, done = alice
    await c.turn(asked, call("pay_utility", utility=utility, amount=60), say("Paid."))
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("turned_down", "place", "acts"),
    [
        ("can you keep looking? i'd like it to have a pool", "Parkside Lodge", True),
        ("can you keep looking? i'd like it to have a pool", "Alder House", False),
        ("that one doesn't work for me, it's too far out", "Alder House", False),
        ("i don't like that one, we stayed there last year", "Alder House", False),
        ("next one please", "Alder House", False),
        ("hmm, could you search again", "Alder House", False),
        ("not interested, anything besides that?", "Alder House", False),
    ],
)
async def test_asking_the_search_to_go_on_turns_the_offer_down(
    alice: tuple[Call, list[str]], turned_down: str, place: str, acts: bool
) -> None:
    """ "can you keep looking? i'd like it to have a pool", "that one doesn't work for me", "next
    one please": the offer in hand is turned down without a no (its "it" takes nothing up), and
    "that place" later is the one offered since."""
    c, done = alice
    await c.says(
        "i'm after somewhere to stay in leeds",
        "There are 6 that match. There's a very good place at Alder House on 12 Park Lane. It has a gym.",
    )
    await c.says(
        turned_down,
        "There are 2 that match. There's a very good place at Parkside Lodge on 9 Mill Road. It has a pool.",
    )
    await c.says("what's their phone number?", "You can call them on 0113 496 0000.")
    await c.turn(
        "okay, that place sounds like something i'd like, reserve it from march 9th",
        call("reserve_rooms", place_name=place, check_in_date="2026-03-09"),
        say("Reserved."),
    )
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("said", "asked", "acts"),
    [
        ("it's priya's birthday today", "give her 30 dollars from my savings would you", True),
        ("priya fixed my fence yesterday", "can you send her 30 dollars from my savings", True),
        ("priya's dad is in hospital", "send him 30 dollars from my savings", False),
        ("priya and jo did the shopping", "send her 30 dollars from my savings for it", False),
        ("priya lent me 30 dollars", "don't give her anything from my savings yet", False),
        ("it's priya's birthday today", "did you send her 30 dollars from my savings?", False),
    ],
)
async def test_a_person_pointed_at_is_the_one_the_caller_named_before(
    alice: tuple[Call, list[str]], said: str, asked: str, acts: bool
) -> None:
    """ "it's priya's birthday today" ... "give her 30 dollars": the one person the caller's turn
    before named is the payee (rule ``trace.value.pointed``); a person of hers ("priya's dad"),
    two people, a command said with a no and a question give nobody."""
    c, done = alice
    await c.says(said, "Okay.")
    await c.turn(asked, call("pay_person", amount=30, payee="Priya", from_account="savings"), say("Sent."))
    assert bool(done) is acts, c.last().evidence_json
    if acts:
        assert c.arguments()["payee"]["rule"] == "trace.value.pointed", c.arguments()["payee"]


@pytest.mark.parametrize(
    ("said", "tool", "args", "acts"),
    [
        (
            "i sorted the bill out with my flatmate transfer 200 dollars to acc 1234",
            "transfer_money",
            TRANSFER_200,
            True,
        ),
        (
            "the parcel turned up smashed to bits refund 40 dollars on order b221",
            "refund_order",
            REFUND_40,
            True,
        ),
        ("i think i left it at the pub block the card ending 4432", "block_card", {"last4": "4432"}, True),
        (
            "me and my flatmates transfer 200 dollars to acc 1234 every month",
            "transfer_money",
            TRANSFER_200,
            False,
        ),
        (
            "i sorted it with my flatmate should i transfer 200 dollars to acc 1234",
            "transfer_money",
            TRANSFER_200,
            False,
        ),
        (
            "the parcel turned up smashed to bits they said theyd refund 40 dollars on order b221",
            "refund_order",
            REFUND_40,
            False,
        ),
        ("if i can't find it at the pub block the card ending 4432", "block_card", {"last4": "4432"}, False),
    ],
)
async def test_a_command_run_on_after_a_telling_without_a_stop_asks_for_it(
    alice: tuple[Call, list[str]], said: str, tool: str, args: dict[str, Any], acts: bool
) -> None:
    """ "i sorted the bill out with my flatmate transfer 200 dollars ...": speech-to-text writes no
    stop before the command, which asks as it would after one; the verb with a subject of its own,
    a question, someone else's words or a condition asks for nothing."""
    c, done = alice
    await c.turn(said, call(tool, **args), say("Done."))
    assert bool(done) is acts, c.last().evidence_json


@pytest.mark.parametrize(
    ("offer", "song", "traced"),
    [
        ("Would you like Rats by Ghost?", "Ghost", False),
        ("Would you like Rats by Ghost?", "Rats", True),
        ("Would you like Stand By Me by Ben E. King?", "Stand By Me", True),
        ("Would you like Stand By Me by Ben E. King?", "Ben E. King", False),
    ],
)
async def test_the_name_after_by_is_who_made_the_song_not_its_title(
    alice: tuple[Call, list[str]], offer: str, song: str, traced: bool
) -> None:
    """ "Rats by Ghost": the name after "by" is the artist; a title's argument never takes it from
    the agent's offer or the caller's words."""
    c, _ = alice
    await c.says("can you find me some rock songs?", offer)
    await c.turn("yes, that one", call("play_song", song=song), say("Play it?"))
    assert (c.arguments()["song"]["status"] == "traced") is traced, c.arguments()["song"]


@pytest.mark.parametrize(
    "more",
    ["Tell me some more hotels.", "list me a few more hotels", "any more places around there?"],
)
async def test_asking_for_more_of_the_kind_sets_the_offer_aside(
    alice: tuple[Call, list[str]], more: str
) -> None:
    """ "Tell me some more hotels.": more of the kind found asks for others, so "that one" after
    the next offer is not the first hotel (rule ``trace.offer.others``)."""
    c, done = alice
    await c.says("i need a hotel in leeds", "This one has 4 stars, it's the Grand Plaza.")
    await c.says(more, "This one has 3 stars, it's the Riverside Lodge.")
    await c.turn(
        "that one sounds nice, book it from march 9th",
        call("reserve_rooms", place_name="Grand Plaza", check_in_date="2026-03-09"),
        say("Reserved."),
    )
    assert done == [] and c.arguments()["place_name"]["status"] != "traced", c.last().evidence_json
