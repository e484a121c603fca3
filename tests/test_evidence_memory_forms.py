"""A caller's remembered request in the forms real callers use, and the look-alikes that are not one.

Each class is a way a request is said that the action's own words and meaning do not reach:
a request that points back at what was said before it, a reason for removing something said
as a no, a request run on after other words as speech-to-text writes it, a polite request put
as a modal question, a name beside ordinary words, a memory found by the values it states.
Every class has its look-alikes beside it, which must never act. The engine is asked the way
the gate asks it.
"""

from __future__ import annotations

from typing import Any

import pytest

import gate


async def _decide(
    engine: gate.LocalEngine, memories: list[str], query: str, match: dict[str, Any]
) -> tuple[gate.ServiceDecision, str]:
    last = ""
    for text in memories:
        last = await engine.remember(
            "alice", text, source="user_stated", confidence=0.9, action_relevant=True
        )
    return await engine.evaluate_action("alice", query, match=match), last


async def _expect(
    engine: gate.LocalEngine, memories: list[str], query: str, match: dict[str, Any], acts: bool
) -> None:
    """Decide ``query`` over ``memories`` and check that it acts exactly when ``acts`` says."""
    decision, _ = await _decide(engine, memories, query, match)
    assert (decision.outcome == "act") is acts, decision


CANCEL = ("cancel the {} plan", "plan")
REMOVE = ("remove the {} add-on from my package", "addon")
INSURE = ("cancel my {} insurance", "kind")


@pytest.mark.parametrize(
    ("memories", "action", "value", "acts"),
    [
        # A request that points back at the thing said before it, in one breath or the memory before.
        (["the platinum one is wasted on me, please get me off it"], CANCEL, "platinum", True),
        (["honestly the movies bundle, nobody watches it, turn it off"], REMOVE, "movies", True),
        (["we've had the bronze plan for years", "but money's tight so please just end it"],
         CANCEL, "bronze", True),
        (["the phone cover came free with the handset", "we've upgraded so stop it for me"],
         INSURE, "phone", True),
        # ... and the pointer that asks for something else, or points at something else.
        (["my platinum card was declined again, can you look into it"], CANCEL, "platinum", False),
        (["the bronze plan has gone up again", "can you explain it to me"], CANCEL, "bronze", False),
        (["the movies bundle keeps freezing, please get it fixed"], REMOVE, "movies", False),
        (["keep the bronze plan", "but end the other one"], CANCEL, "bronze", False),
    ],
)  # fmt: skip
async def test_a_request_that_points_back_asks_for_what_it_points_at(
    engine: gate.LocalEngine, memories: list[str], action: tuple[str, str], value: str, acts: bool
) -> None:
    query, name = action
    decision, last = await _decide(engine, memories, query.format(value), {name: value})
    if acts:
        assert decision.outcome == "act" and last in {m.id for m in decision.memories}, decision
        assert decision.rule == "evidence.trace", decision
        assert decision.trace is not None and decision.trace.action.rule == "trace.action.points_back"
    else:
        assert decision.outcome != "act", decision


@pytest.mark.parametrize(
    ("memories", "acts"),
    [
        # For an action that takes something away, not needing it is the reason to.
        (["i don't need the racing add-on any more, take it off"], True),
        (["the racing add-on is no use to me now, remove it please"], True),
        (["racing's no good to me since the season ended, get rid of it"], True),
        # A no to the action, or to this value in favour of another, is still a no.
        (["don't take the racing add-on off, i still watch it"], False),
        (["not the racing add-on, remove the kids one"], False),
        (["i don't need the racing add-on any more"], False),  # a reason, and nothing asked
    ],
)
async def test_a_reason_for_removing_something_is_not_a_no_to_removing_it(
    engine: gate.LocalEngine, memories: list[str], acts: bool
) -> None:
    await _expect(engine, memories, "remove the racing add-on from my package", {"addon": "racing"}, acts)


@pytest.mark.parametrize(
    ("memories", "acts"),
    [
        # Speech-to-text writes a request run on after other words, with no punctuation.
        (["um so the gold membership im never at the gym anymore can you just cancel it"], True),
        (["yeah the gold membership i never use it just cancel it"], True),
        # A question before the run-on is still a question.
        (["what happens to my points can you just cancel it"], False),
    ],
)
async def test_a_request_run_on_after_other_words_is_read_as_its_own_clause(
    engine: gate.LocalEngine, memories: list[str], acts: bool
) -> None:
    await _expect(engine, memories, "cancel the gold membership", {"tier": "gold"}, acts)


@pytest.mark.parametrize(
    ("memory", "query", "match", "acts"),
    [
        # A polite request put as a modal question, whoever is to do it.
        ("can the technician come round on wednesday instead", "move my engineer visit to {}",
         {"day": "Wednesday"}, True),
        ("could my yoga class move to thursday at six in the evening", "move my yoga class to {} at {}",
         {"day": "Thursday", "time": "18:00"}, True),
        ("can rosa do me a cut and colour on friday", "book a cut and colour with {} on {}",
         {"stylist": "Rosa", "day": "Friday"}, True),
        # ... and the modal question that asks whether, when or how, or about something else.
        ("would wednesday work for the engineer visit", "move my engineer visit to {}",
         {"day": "Wednesday"}, False),
        ("can i move the yoga class to thursday online", "move my yoga class to {} at {}",
         {"day": "Thursday", "time": "18:00"}, False),
        ("can i take ibuprofen with my amoxicillin?", "refill my {} prescription",
         {"drug": "amoxicillin"}, False),
        ("will it still be raining on friday?", "deliver the parcel on {}", {"day": "Friday"}, False),
    ],
)  # fmt: skip
async def test_a_modal_question_asks_for_the_action_only_when_it_names_it(
    engine: gate.LocalEngine, memory: str, query: str, match: dict[str, Any], acts: bool
) -> None:
    await _expect(engine, [memory], query.format(*match.values()), match, acts)


@pytest.mark.parametrize(
    ("memory", "acts"),
    [
        # Lower-case speech: the words beside a name are ordinary words, not more of the name.
        ("send sofia a hundred for the flowers", True),
        ("sofia isnt paid yet so send her a hundred", True),
        # A longer name is another name.
        ("send sofia martinez a hundred", False),
    ],
)
async def test_words_beside_a_name_in_speech_are_not_part_of_it(
    engine: gate.LocalEngine, memory: str, acts: bool
) -> None:
    await _expect(engine, [memory], "send 100 to Sofia", {"amount": 100, "payee": "Sofia"}, acts)


@pytest.mark.parametrize(
    ("memories", "query", "match", "acts"),
    [
        # Far from the query in meaning (another language), found by the values it states.
        (["Quiero que me devuelvan los 60 euros del pedido K-4410."], "refund {} on order {}",
         {"amount": 60, "order_id": "K-4410"}, True),
        (["Bitte überweisen Sie 250 Euro auf das Konto DE-7731."], "transfer {} to account {}",
         {"amount": 250, "account": "DE-7731"}, True),
        # ... among other memories, and never another caller's.
        (["my dog is called rex", "i like jazz", "Quiero que me devuelvan los 60 euros del pedido K-4410."],
         "refund {} on order {}", {"amount": 60, "order_id": "K-4410"}, True),
        (["Tráiganme el paquete el miércoles, por favor."], "deliver the parcel on {}",
         {"day": "Wednesday"}, True),
        (["Können Sie meinen Termin bitte auf Donnerstag verschieben?"], "move my appointment to {}",
         {"day": "Thursday"}, True),
        (["¿Cuándo llega el pedido K-4410? Pagué 60 euros."], "refund {} on order {}",
         {"amount": 60, "order_id": "K-4410"}, False),
    ],
)  # fmt: skip
async def test_a_memory_that_states_the_values_is_read_whatever_its_language(
    engine: gate.LocalEngine, memories: list[str], query: str, match: dict[str, Any], acts: bool
) -> None:
    await _expect(engine, memories, query.format(*match.values()), match, acts)
    other = await engine.evaluate_action("bob", query.format(*match.values()), match=match)
    assert other.outcome != "act", other


@pytest.mark.parametrize(
    "memory",
    [
        "oh sure, cancel the gold plan, and while you're at it cancel christmas",
        "yeah right, like i'd ever cancel the gold plan",
        "oh great, cancel the gold plan, that'll fix everything",
    ],
)
async def test_a_request_opened_in_sarcasm_is_not_meant(engine: gate.LocalEngine, memory: str) -> None:
    decision, _ = await _decide(engine, [memory], "cancel the gold plan", {"plan": "gold"})
    assert decision.outcome != "act", decision


async def test_an_annoyed_but_real_request_still_acts(engine: gate.LocalEngine) -> None:
    """Only a sarcastic form of two words or more opens sarcasm: "whatever" alone is an ordinary word."""
    decision, _ = await _decide(
        engine, ["whatever it costs, cancel the gold plan today"], "cancel the gold plan", {"plan": "gold"}
    )
    assert decision.outcome == "act", decision


@pytest.mark.parametrize(
    ("memory", "query", "match", "acts"),
    [
        # What the request is about, stated first in the same breath, is what it asks for.
        ("the lamp from k-7702 arrived in pieces, i want the 35 back on my card",
         "refund {} on order {}", {"amount": 35, "order_id": "K-7702"}, True),
        ("order m-310 never turned up, so the 18.50 back please",
         "refund {} on order {}", {"amount": 18.5, "order_id": "M-310"}, True),
        # ... but not what was said after it, nor what a question asked.
        ("i want the 35 back on my card, the lamp from k-7702 is fine though",
         "refund {} on order {}", {"amount": 35, "order_id": "K-7702"}, False),
        ("where is k-7702? i paid 35 for it", "refund {} on order {}",
         {"amount": 35, "order_id": "K-7702"}, False),
    ],
)  # fmt: skip
async def test_what_a_request_is_about_said_first_counts_for_it(
    engine: gate.LocalEngine, memory: str, query: str, match: dict[str, Any], acts: bool
) -> None:
    await _expect(engine, [memory], query.format(*match.values()), match, acts)


@pytest.mark.parametrize(
    ("memory", "query", "match", "acts"),
    [
        # A verb with a second sense asks for the action in that sense.
        ("please hold a table for four for us on friday at 8, name is cho",
         "reserve a table for {} on {} at {}", {"party": 4, "day": "Friday", "time": "20:00"}, True),
        ("drop the parcel round on thursday please, i work from home", "deliver the parcel on {}",
         {"day": "Thursday"}, True),
        # ... and in its own sense it is still another action.
        ("please hold my parcel until thursday, i'm away", "deliver the parcel on {}",
         {"day": "Thursday"}, False),
        ("drop the thursday delivery, i'll collect it", "deliver the parcel on {}",
         {"day": "Thursday"}, False),
    ],
)  # fmt: skip
async def test_a_verb_asks_in_each_of_its_senses(
    engine: gate.LocalEngine, memory: str, query: str, match: dict[str, Any], acts: bool
) -> None:
    await _expect(engine, [memory], query.format(*match.values()), match, acts)


@pytest.mark.parametrize(
    ("memory", "query", "match", "acts"),
    [
        # A causative asks for what its participle says: for a removal, something else ...
        ("the sports add-on keeps dropping out, please get it fixed", "remove the {} add-on from my package",
         {"addon": "sports"}, False),
        ("my gold plan bill looks wrong, can you have it checked", "cancel the {} plan",
         {"plan": "gold"}, False),
        # ... and the action itself when its participle is the action's verb.
        ("the engineer visit, can i get it booked in for tuesday at 10am",
         "book an engineer visit on {} at {}", {"day": "Tuesday", "time": "10:00"}, True),
    ],
)  # fmt: skip
async def test_a_causative_asks_for_what_its_participle_says(
    engine: gate.LocalEngine, memory: str, query: str, match: dict[str, Any], acts: bool
) -> None:
    await _expect(engine, [memory], query.format(*match.values()), match, acts)


@pytest.mark.parametrize(
    ("memory", "acts"),
    [
        # A no before the caller's own wish, written without its comma, answers what came before.
        ("no i need the cab to 12 mill lane at 9pm", True),
        ("great no we want a cab to 12 mill lane at 9pm", True),
        # The caller among the people they name is their own request.
        ("i need a cab with my friends to 12 mill lane at 9pm", True),
        # A no to the wish itself, and a ride for somebody else, are not.
        ("no i dont want a cab to 12 mill lane at 9pm", False),
        ("i need a cab for my brother to 12 mill lane at 9pm", False),
        ("my brothers cab to 12 mill lane at 9pm needs booking", False),
    ],
)
async def test_a_no_before_a_wish_and_the_caller_among_friends(
    engine: gate.LocalEngine, memory: str, acts: bool
) -> None:
    match = {"address": "12 Mill Lane", "time": "9pm"}
    await _expect(engine, [memory], "book a cab to 12 Mill Lane at 9pm", match, acts)


@pytest.mark.parametrize(
    ("memory", "subtitles", "acts"),
    [
        # An argument whose value is an absence is given by a no that says it.
        ("rent pet sematary for me, as for subtitles i want none", "None", True),
        ("rent pet sematary for me, subtitles none please", "None", True),
        # ... and another value of it is not that absence.
        ("rent pet sematary for me with english subtitles", "None", False),
        # A no to an argument with a value is still a no to it.
        ("rent pet sematary for me, no english subtitles", "English", False),
    ],
)
async def test_a_value_that_is_an_absence_is_given_by_a_no(
    engine: gate.LocalEngine, memory: str, subtitles: str, acts: bool
) -> None:
    match = {"movie": "Pet Sematary", "subtitles": subtitles}
    await _expect(engine, [memory], f"rent the movie Pet Sematary with {subtitles} subtitles", match, acts)


@pytest.mark.parametrize(
    ("memory", "party", "acts"),
    [
        # The speaker with others wishes too, and counts themselves in.
        ("me and a mate want a table for lunch on wednesday at 12:30", 2, True),
        ("me and my other half would like a table wednesday at 12:30", 2, True),
        ("the three of us want a table on wednesday at 12:30", 3, True),
        # ... and the count is the people said, not another.
        ("me and a mate want a table for lunch on wednesday at 12:30", 3, False),
        ("me and my brother ate there on wednesday at 12:30", 2, False),  # a report, no wish
    ],
)
async def test_a_wish_said_with_others_counts_the_speaker_in(
    engine: gate.LocalEngine, memory: str, party: int, acts: bool
) -> None:
    match = {"party": party, "day": "Wednesday", "time": "12:30"}
    await _expect(engine, [memory], f"book a table for {party} on Wednesday at 12:30", match, acts)


@pytest.mark.parametrize(
    ("memory", "acts"),
    [
        ("tuesdays good for the parcel so just bring it then", True),
        ("can you bring the parcel round on tuesday", True),
        ("tuesdays good for the parcel but don't bring it then", False),
    ],
)
async def test_bringing_a_parcel_is_delivering_it(engine: gate.LocalEngine, memory: str, acts: bool) -> None:
    await _expect(engine, [memory], "deliver the parcel on Tuesday", {"day": "Tuesday"}, acts)


@pytest.mark.parametrize(
    ("memory", "acts"),
    [
        # A name with its possessive names the thing after it ("rosa's school trip").
        ("pay rosa's school outing please, the forty five", True),
        # A possessive before another thing is another thing.
        ("pay rosa's piano lesson please, the forty five", False),
    ],
)
async def test_a_possessive_names_the_thing_after_it(
    engine: gate.LocalEngine, memory: str, acts: bool
) -> None:
    match = {"amount": 45, "child": "Rosa"}
    await _expect(engine, [memory], "pay 45 pounds for Rosa's school trip", match, acts)


async def test_a_reason_for_removing_remembered_on_its_own_is_no_no(engine: gate.LocalEngine) -> None:
    """The engine marks "i don't need the isa any more" as a no; for a removal it is the reason."""
    memories = ["i don't need the isa any more", "wind it up and put the money in my savings account"]
    match = {"account": "ISA", "dest": "my savings account"}
    query = "close my ISA account and move the balance to my savings account"
    decision, _ = await _decide(engine, memories, query, match)
    assert decision.outcome == "act", decision
    assert decision.rule != "evidence.denied", decision


@pytest.mark.parametrize(
    ("memory", "name", "acts"),
    [
        # A name that ends in "'s" is the name, at the end of a sentence or before more words.
        ("i would like a shared cab to get to gallo's.", "Gallo's", True),
        ("a shared cab to gallo's please", "Gallo's", True),
        ("i want a shared cab to mimi's.", "Mimi's Cafe", True),  # the kind of place left out
        ("a shared cab to gallo's bakery please", "Gallo's", False),  # a longer name
    ],
)
async def test_a_name_ending_in_a_possessive_is_the_name(
    engine: gate.LocalEngine, memory: str, name: str, acts: bool
) -> None:
    match = {"destination": name, "shared_ride": True}
    await _expect(engine, [memory], f"book a shared cab to {name}", match, acts)


@pytest.mark.parametrize(
    ("memory", "query", "match", "acts"),
    [
        # A count said with what it counts does not come up by chance.
        ("make it 6 people", "set the party size to {}", {"party": 6}, True),
        ("make it 3 nights please", "set the stay to {} nights", {"nights": 3}, True),
        # ... a bare number does, and a count of something else is not it.
        ("make it 6", "set the party size to {}", {"party": 6}, False),
        ("make it 6 tables", "set the party size to {}", {"party": 6}, False),
        # A label before a number is right before it: "a table, 4 people" counts people.
        ("get us a table, 4 people, friday, 8 pm", "book a table for {} on {} at {}",
         {"party": 4, "day": "Friday", "time": "20:00"}, True),
        ("get us table 4 on friday at 8 pm", "book a table for {} on {} at {}",
         {"party": 4, "day": "Friday", "time": "20:00"}, False),
        # A plural of a word of the thing's family is of that family.
        ("i don't want the sports channels anymore, remove them", "remove the {} add-on",
         {"addon": "sports"}, True),
    ],
)  # fmt: skip
async def test_counts_labels_and_plurals(
    engine: gate.LocalEngine, memory: str, query: str, match: dict[str, Any], acts: bool
) -> None:
    await _expect(engine, [memory], query.format(*match.values()), match, acts)


@pytest.mark.parametrize(
    ("memory", "acts"),
    [
        # A new state of the caller's own, said as it now is, is what they want it changed to.
        ("my new address for deliveries is 22 elm street", True),
        ("our new delivery address will be 22 elm street", True),
        # ... somebody else's new address, or a question about it, is not.
        ("my mum's new address is 22 elm street", False),
        ("is my new address 22 elm street on your system?", False),
    ],
)
async def test_a_new_state_said_as_it_is_asks_for_it(
    engine: gate.LocalEngine, memory: str, acts: bool
) -> None:
    match = {"address": "22 Elm Street"}
    await _expect(engine, [memory], "change my delivery address to 22 Elm Street", match, acts)


@pytest.mark.parametrize(
    ("memories", "acts"),
    [
        # A size said with its number in words and a spoken unit of its scale is that size.
        (["can you put my mobile on the ten gig a month tariff"], True),
        (["switch me to the 10 gigabytes plan please"], True),
        # Another size, or a later change to one, is not.
        (["switch me to the twenty gig plan please"], False),
        (["put my mobile on the ten gig plan", "actually make it twenty gig, ten won't do"], False),
        (["switch me to the ten meg plan please"], False),  # another scale
    ],
)
async def test_a_size_said_with_a_spoken_unit(
    engine: gate.LocalEngine, memories: list[str], acts: bool
) -> None:
    await _expect(engine, memories, "change my phone plan to 10GB", {"plan": "10GB"}, acts)


ADDON = ("remove the {} add-on", "addon")


@pytest.mark.parametrize(
    ("memories", "action", "value", "acts"),
    [
        # Ending what is being done to the thing, said with a gerund, asks to take it away.
        (["stop billing me for the golf channel"], ADDON, "golf", True),
        (["please quit charging us for the kids extra"], ADDON, "kids", True),
        (["stop renewing my bronze plan"], CANCEL, "bronze", True),
        # ... a gerund of something else done, or ending a thing that is not the action's.
        (["stop sending me emails about the golf channel"], ADDON, "golf", False),
        (["stop charging me twice for the golf channel"], CANCEL, "golf", False),
        (["don't stop billing me for the golf channel"], ADDON, "golf", False),
        # Saying the thing has to go asks to take it away; going somewhere is no such thing.
        (["the golf channel can go now, we never watch it"], ADDON, "golf", True),
        (["honestly the bronze plan has to go"], CANCEL, "bronze", True),
        (["the golf channel can go on the big screen"], ADDON, "golf", False),
        (["can the golf channel go on my other tv?"], ADDON, "golf", False),
        # A wish that the thing it points at be gone, after what says the thing.
        (["the golf channel is a waste of money, i want it gone"], ADDON, "golf", True),
        (["bronze plan? we'd like that cancelled please"], CANCEL, "bronze", True),
        (["the golf channel is great, i want it kept"], ADDON, "golf", False),
        (["the golf channel is a waste, is it gone yet?"], ADDON, "golf", False),
    ],
)  # fmt: skip
async def test_ending_what_is_done_to_a_thing_or_wishing_it_gone_takes_it_away(
    engine: gate.LocalEngine, memories: list[str], action: tuple[str, str], value: str, acts: bool
) -> None:
    query, name = action
    await _expect(engine, memories, query.format(value), {name: value}, acts)


@pytest.mark.parametrize(
    ("memories", "acts"),
    [
        # A thing named by its value and a word for its kind is the thing, whatever the word.
        (["take the golf package off my account"], True),
        (["please drop the golf bundle"], True),
        # ... a thing of another kind is not, and praise of the thing asks for nothing.
        (["take the golf clubs off my account"], False),
        (["please drop the golf magazine"], False),
        (["the golf channel is great"], False),
        (["honestly the golf package is brilliant, we love it"], False),
    ],
)  # fmt: skip
async def test_a_thing_named_by_its_value_and_its_kind(
    engine: gate.LocalEngine, memories: list[str], acts: bool
) -> None:
    await _expect(engine, memories, "remove the golf add-on", {"addon": "golf"}, acts)


PARTY = "set the party size to {party}"


@pytest.mark.parametrize(
    ("memories", "value", "acts"),
    [
        # Setting a thing to a value changes it: change, update and move ask for it.
        (["could you change the booking to 7 people"], 7, True),
        (["swap it to nine guests please"], 9, True),
        (["three more are coming so we'll be seven altogether, update it please"], 7, True),
        (["knock the party down to 7 please"], 7, True),
        (["drop it to 7 people going forward"], 7, True),
        # ... what it grows by is not what it is set to; another action is another action.
        (["three more are coming, update it please"], 3, False),
        (["drop the booking for 7 people"], 7, False),
        (["could you cancel the booking for 7 people"], 7, False),
        (["could you change the booking to 8 people"], 7, False),
    ],
)  # fmt: skip
async def test_setting_a_thing_to_a_value_is_changing_it(
    engine: gate.LocalEngine, memories: list[str], value: int, acts: bool
) -> None:
    await _expect(engine, memories, PARTY.format(party=value), {"party": value}, acts)


@pytest.mark.parametrize(
    ("first", "acts"),
    [("Can I get a table Sunday evening?", True), ("Can I get a taxi Sunday evening?", False)],
)
async def test_a_part_of_the_day_after_the_thing_says_when_not_what(
    engine: gate.LocalEngine, first: str, acts: bool
) -> None:
    query = "book a table for {party} on {day} at {time}"
    args = {"party": 3, "day": "Sunday", "time": "18:00"}
    await _expect(engine, [first, "Three of us, 6pm please."], query.format(**args), args, acts)


@pytest.mark.parametrize(
    ("memories", "value", "acts"),
    [
        # The opposite asked for another thing in the same breath leaves this request standing.
        (["keep the copper plan and cancel the iron one"], "iron", True),
        (["please hang on to copper, but end iron"], "iron", True),
        (["sign me up to copper and get rid of the iron one"], "iron", True),
        # ... and is a no for the thing it names, or for the thing it points at.
        (["keep the copper plan and cancel the iron one"], "copper", False),
        (["sign me up to copper and get rid of the iron one"], "copper", False),
        (["put me on copper and drop iron"], "copper", False),
        (["cancel iron, actually no, keep it"], "iron", False),
    ],
)  # fmt: skip
async def test_an_opposite_asked_for_another_thing_does_not_deny_this_one(
    engine: gate.LocalEngine, memories: list[str], value: str, acts: bool
) -> None:
    await _expect(engine, memories, f"cancel the {value} plan", {"plan": value}, acts)


@pytest.mark.parametrize(
    ("memory", "doctor", "acts"),
    [
        # A person's name without the title, the letters after it or the middle initials.
        ("please book me in with Dr. Andrew Sorenson on tuesday", "Dr. Andrew L. Sorenson, MD", True),
        ("book me with susan logan on tuesday please", "Susan C. Logan, MD", True),
        ("book me an appointment with Dr. Wendy Landreville on tuesday", "Wendy M. Landreville, M.D.", True),
        # ... another given name or family name is another person, and initials alone no name.
        ("please book me in with Dr. Andrew Smith on tuesday", "Dr. Andrew L. Sorenson, MD", False),
        ("please book me in with Dr. Sorenson on tuesday", "Dr. Andrew L. Sorenson, MD", False),
        ("book me with susan on tuesday please", "Susan C. Logan, MD", False),
    ],
)  # fmt: skip
async def test_a_persons_name_is_said_without_its_title_and_initials(
    engine: gate.LocalEngine, memory: str, doctor: str, acts: bool
) -> None:
    query = f"book an appointment with {doctor} on Tuesday"
    await _expect(engine, [memory], query, {"doctor": doctor, "day": "Tuesday"}, acts)


REFILL = "refill my prescription for ramipril"


@pytest.mark.parametrize(
    ("memories", "query", "match", "acts"),
    [
        # A noun that names the action itself is not the thing: the thing comes after it.
        (["i need a top up of my ramipril please"], REFILL, {"drug": "ramipril"}, True),
        (["could you do a renewal of my ramipril"], REFILL, {"drug": "ramipril"}, True),
        (["i need a top up of my phone credit"], REFILL, {"drug": "ramipril"}, False),
        # Calling it off is cancelling; a car to take the caller somewhere is a taxi.
        (["i don't want order k-311 anymore, call it off"], "cancel order K-311", {"order_id": "K-311"},
         True),
        (["call order k-311 in for me"], "cancel order K-311", {"order_id": "K-311"}, False),
        (["please order a car to take me to the docks at 7am"], "book a taxi to the docks at 7am",
         {"destination": "the docks", "time": "07:00"}, True),
        (["please order a car part for the docks at 7am"], "book a taxi to the docks at 7am",
         {"destination": "the docks", "time": "07:00"}, False),
        # The other person named by the request's own value is whom the caller acts for.
        (["I'd like to add a line for my son Tomasz."], "add a new line for Tomasz to my account",
         {"name": "Tomasz"}, True),
        (["my son Tomasz wants to add a line, he'll call you"], "add a new line for Tomasz to my account",
         {"name": "Tomasz"}, False),
        (["I'd like to add a line for my son."], "add a new line for Tomasz to my account",
         {"name": "Tomasz"}, False),
        # A word the query says just before the value labels it there too.
        (["Please put a hold on card 7730."], "freeze my card ending 7730", {"last4": "7730"}, True),
        (["Please put a hold on order 7730."], "freeze my card ending 7730", {"last4": "7730"}, False),
    ],
)  # fmt: skip
async def test_the_thing_said_in_the_callers_own_terms(
    engine: gate.LocalEngine, memories: list[str], query: str, match: dict[str, Any], acts: bool
) -> None:
    await _expect(engine, memories, query, match, acts)


TRANSFER = "transfer 900 dollars to account ACC-6120"


@pytest.mark.parametrize(
    ("memories", "query", "match", "acts"),
    [
        # The account money is sent to is the recipient's: its owner named is no one else's request.
        (["my landlord's account is ACC-6120", "please transfer 900 dollars to it"], TRANSFER,
         {"amount": 900, "to_account": "ACC-6120"}, True),
        (["my landlord wants me to transfer 900 dollars to ACC-6120"], TRANSFER,
         {"amount": 900, "to_account": "ACC-6120"}, False),
        (["my landlord will transfer 900 dollars to ACC-6120 himself"], TRANSFER,
         {"amount": 900, "to_account": "ACC-6120"}, False),
        # "X, not Y" says no to the other value: X is the correction, not denied.
        (["make it seven people, not six"], "set the party size to 7", {"party": 7}, True),
        (["make it seven people, not six"], "set the party size to 6", {"party": 6}, False),
        # What follows the thing about when it takes effect is not the thing.
        (["please terminate my basic subscription effective today"], "cancel the basic plan",
         {"plan": "basic"}, True),
        (["please terminate my basic broadband effective today"], "cancel the basic plan",
         {"plan": "basic"}, False),
    ],
)  # fmt: skip
async def test_recipients_corrections_and_when_it_takes_effect(
    engine: gate.LocalEngine, memories: list[str], query: str, match: dict[str, Any], acts: bool
) -> None:
    await _expect(engine, memories, query, match, acts)


async def test_a_yes_no_value_said_by_its_name_and_found_good_is_taken(engine: gate.LocalEngine) -> None:
    """A yes/no value said by its name and found good ("a shared ride for one is good") is taken; it
    is no "the thing is fine as it is", as a value of another kind said that way would be."""
    query = "book a ride to the docks for 1 riders, shared ride True"
    match = {"destination": "the docks", "riders": 1, "shared": True}
    await _expect(
        engine, ["get me a cab to the docks please, yes a shared ride for one is good"], query, match, True
    )


ROAMING = "turn on roaming for Portugal"
SHARES = "buy 40 shares of GLOBEX"


@pytest.mark.parametrize(
    ("memories", "query", "match", "acts"),
    [
        # The action's verb with the particle that reverses it is the opposite action.
        (["turn on roaming for portugal please"], ROAMING, {"country": "Portugal"}, True),
        (["please turn off roaming, i'm back from portugal"], ROAMING, {"country": "Portugal"}, False),
        (["switch roaming off for portugal"], ROAMING, {"country": "Portugal"}, False),
        (["sign me out of the harbour tour"], "sign me in for the harbour tour", {"event": "harbour"}, False),
        # Raising and lowering, lengthening and shortening, are opposites.
        (["please raise my credit limit to 7000 dollars"], "increase my credit limit to 7000 dollars",
         {"limit": 7000}, True),
        (["please lower my credit limit to 7000 dollars"], "increase my credit limit to 7000 dollars",
         {"limit": 7000}, False),
        (["please shorten my stay at the Ritz by 3 nights"], "extend my stay at the Ritz by 3 nights",
         {"hotel": "the Ritz", "nights": 3}, False),
        # Asking whether they need it, or what it would do, asks to know.
        (["Do I need roaming in Portugal?"], ROAMING, {"country": "Portugal"}, False),
        (["would a 7000 dollar limit hurt my credit score?"], "increase my credit limit to 7000 dollars",
         {"limit": 7000}, False),
        (["would buying 40 shares of GLOBEX be risky?"], SHARES, {"qty": 40, "ticker": "GLOBEX"}, False),
        (["could you buy 40 shares of GLOBEX for me?"], SHARES, {"qty": 40, "ticker": "GLOBEX"}, True),
    ],
)  # fmt: skip
async def test_opposites_and_questions_about_the_action_are_not_requests(
    engine: gate.LocalEngine, memories: list[str], query: str, match: dict[str, Any], acts: bool
) -> None:
    await _expect(engine, memories, query, match, acts)


PAUSE = "pause the halo plan"


@pytest.mark.parametrize(
    ("memories", "query", "match", "acts"),
    [
        # A bare no opening a sentence right after the request takes it back.
        (["Cancel the halo plan? No, definitely not."], "cancel the halo plan", {"plan": "halo"}, False),
        (["cancel the halo plan. wait, no. leave it."], "cancel the halo plan", {"plan": "halo"}, False),
        (["Cancel the halo plan. No rush, end of the day is fine."], "cancel the halo plan", {"plan": "halo"},
         True),
        # "un" before the action's own verb is its opposite.
        (["Unpause the halo plan please."], PAUSE, {"plan": "halo"}, False),
        (["Pause the halo plan please."], PAUSE, {"plan": "halo"}, True),
        # Asking whether it can be done another way asks to know.
        (["Can I pay the 45 dollars on INV-808 by cheque instead?"], "pay 45 dollars on invoice INV-808",
         {"amount": 45, "invoice": "INV-808"}, False),
    ],
)  # fmt: skip
async def test_a_request_taken_back_undone_or_asked_about_is_not_one(
    engine: gate.LocalEngine, memories: list[str], query: str, match: dict[str, Any], acts: bool
) -> None:
    await _expect(engine, memories, query, match, acts)


async def test_a_request_put_as_a_negative_question_is_no_no(engine: gate.LocalEngine) -> None:
    """A request put as a negative question ("can't you just cancel it for me?") is never a no."""
    decision, _ = await _decide(
        engine, ["Can't you just cancel the halo plan for me?"], "cancel the halo plan", {"plan": "halo"}
    )
    assert decision.rule != "evidence.denied", decision


@pytest.mark.parametrize(
    ("memory", "acts"),
    [
        ("Book a table for 6 on Monday at 6pm.", True),
        # A weekday a month or more away is not the weekday said alone.
        ("Book a table for 6 on Monday at 6pm next month.", False),
        ("book a table for six next year on a monday at 6pm", False),
    ],
)
async def test_a_weekday_said_for_next_month_is_not_the_weekday(
    engine: gate.LocalEngine, memory: str, acts: bool
) -> None:
    query = "book a table for 6 on Monday at 18:00"
    await _expect(engine, [memory], query, {"party": 6, "day": "Monday", "time": "18:00"}, acts)


TRANSFER = (
    "transfer money to another user's account: account type {account}, amount {amount}, recipient {recipient}"
)


@pytest.mark.parametrize(
    ("memory", "match", "acts"),
    [
        # "From X to Y" between two parties or two of the request's things names the source.
        ("Transfer $300 to Maria from my savings account to hers.", {"account": "savings"}, True),
        ("send 300 dollars from my savings to maria please", {"account": "savings"}, True),
        ("please move 300 bucks from my checking over to someone else's account, maria's",
         {"account": "checking"}, True),
        # ... while one thing changed from an old value to a new one still says no to the old.
        ("Transfer 300 to Maria, but change it from my savings to my checking account.",
         {"account": "savings"}, False),
        ("switch the recipient from Maria to Jerry and send 300 from savings", {"account": "savings"}, False),
    ],
)  # fmt: skip
async def test_from_one_party_to_another_is_the_source_not_a_change(
    engine: gate.LocalEngine, memory: str, match: dict[str, Any], acts: bool
) -> None:
    values = {"amount": 300, "recipient": "Maria", **match}
    query = TRANSFER.format(**values)
    await _expect(engine, [memory], query, values, acts)


TABLE = "book a table for {party} on {day} at {time}"


@pytest.mark.parametrize(
    ("memory", "time", "acts"),
    [
        # "By" a time is the latest the caller will have it, which the time itself meets.
        ("book a table for 4 on friday, we'd like to eat by 8pm", "20:00", True),
        ("Book us a table for 4 on Friday. We need to be seated by 8 in the evening.", "20:00", True),
        # ... unless another time is said for it outright.
        ("we must be home by 8pm, so book a table for 4 on friday at 6pm", "20:00", False),
        ("book a table for 4 on friday at 6pm, we'll be done by 8pm", "20:00", False),
        # An English "a" before a time is the article ("around a quarter to 8"), not a direction.
        ("book a table for 4 on friday around a quarter to 8", "19:45", True),
        ("book a table for 4 on friday at a half past 7 in the evening", "19:30", True),
        ("book a table for 4 on friday around a quarter to 8", "20:15", False),
    ],
)  # fmt: skip
async def test_a_time_said_by_its_latest_or_after_an_article_is_the_time(
    engine: gate.LocalEngine, memory: str, time: str, acts: bool
) -> None:
    values = {"party": 4, "day": "Friday", "time": time}
    await _expect(engine, [memory], TABLE.format(**values), values, acts)


APPOINTMENT = "book an appointment with a specific doctor for the given day: {day}"


@pytest.mark.parametrize(
    ("memory", "acts"),
    [
        # A word that only picks a thing out ("a specific doctor") does not say what it is.
        ("i'd like to make an appointment with the doctor on friday", True),
        ("can you get me an appointment with my doctor for friday please", True),
        ("i'd like to make an appointment with the plumber on friday", False),
    ],
)  # fmt: skip
async def test_a_frame_is_its_thing_not_the_word_that_picks_it(
    engine: gate.LocalEngine, memory: str, acts: bool
) -> None:
    await _expect(engine, [memory], APPOINTMENT.format(day="Friday"), {"day": "Friday"}, acts)


@pytest.mark.parametrize(
    ("memory", "acts"),
    [
        # What will happen, asked: no request.
        ("will the delivery be here on friday?", False),
        ("will it arrive on friday", False),
        ("will the engineer be able to come on friday?", False),
        # Asked of the one who acts, it is a polite request.
        ("Will you schedule the delivery for Friday?", True),
        ("could the courier come on friday please", True),
    ],
)  # fmt: skip
async def test_what_will_happen_asked_is_no_request(
    engine: gate.LocalEngine, memory: str, acts: bool
) -> None:
    await _expect(engine, [memory], "schedule the delivery for Friday", {"day": "Friday"}, acts)


BUS = "buy bus tickets for {travelers} people from {origin} to {destination} leaving at {time}"


@pytest.mark.parametrize(
    ("memory", "match", "acts"),
    [
        # The query's own verb for a value's moment ("leaving at {time}") is this action's detail.
        ("book 2 bus tickets from leeds to york, we need to leave by 9am", {"time": "09:00"}, True),
        ("two tickets leeds to york please, i want to leave at 9am", {"time": "09:00"}, True),
        ("book 2 bus tickets from leeds to york, we need to leave by 9am", {"time": "08:00"}, False),
        # "No later than" is the latest, as "by" is.
        ("2 bus tickets leeds to york leaving no later than 9am please", {"time": "09:00"}, True),
        ("2 bus tickets leeds to york leaving no later than 9am please", {"time": "09:30"}, False),
        # A fraction counts nothing whole: "rated 4.5 or higher" is no party.
        ("book 2 bus tickets from leeds to york leaving at 9am, any company rated 4.5 or higher",
         {"time": "09:00"}, True),
    ],
)  # fmt: skip
async def test_a_moment_the_query_names_its_latest_and_a_fraction(
    engine: gate.LocalEngine, memory: str, match: dict[str, Any], acts: bool
) -> None:
    values = {"travelers": 2, "origin": "Leeds", "destination": "York", **match}
    await _expect(engine, [memory], BUS.format(**values), values, acts)


TRAIN = "buy train tickets for {travelers} people to {destination} departing at {time}"


@pytest.mark.parametrize(
    ("memory", "acts"),
    [
        ("2 train tickets to york please, departing at 7:15", True),
        ("get us two tickets to york, we want to leave at 7:15am", True),
        # The other end of the journey: no departure time.
        ("2 train tickets to york please, arriving at 7:15", False),
        ("two tickets to york, we need to arrive by 7:15am", False),
    ],
)  # fmt: skip
async def test_a_time_for_the_other_end_is_no_time_for_this_one(
    engine: gate.LocalEngine, memory: str, acts: bool
) -> None:
    values = {"travelers": 2, "destination": "York", "time": "07:15"}
    await _expect(engine, [memory], TRAIN.format(**values), values, acts)


@pytest.mark.parametrize(
    ("memory", "acts"),
    [
        ("book a table for 4 on saturday at 8pm please", True),
        # Leaving a thing as it is asks for nothing new.
        ("cancel my other table and keep saturday at 8pm for 4 as it is", False),
        ("please leave my saturday 8pm table for 4 unchanged", False),
    ],
)  # fmt: skip
async def test_leaving_a_thing_as_it_is_asks_for_nothing(
    engine: gate.LocalEngine, memory: str, acts: bool
) -> None:
    values = {"party": 4, "day": "Saturday", "time": "20:00"}
    await _expect(engine, [memory], TABLE.format(**values), values, acts)


RENTAL = "reserve a rental car in {city} from {pickup_date} to {return_date}"
CORK = {"city": "Cork", "pickup_date": "2026-03-10", "return_date": "2026-03-13"}


@pytest.mark.parametrize(
    ("memories", "acts"),
    [
        # A size or class before the thing's word picks a kind of it: still a rental car.
        (["can you reserve me a small car in cork from the 10th to the 13th"], True),
        (["please reserve a compact car in cork from the 10th until the 13th"], True),
        (["i'd like to reserve a large car in cork from the 10th to the 13th"], True),
        # Another word before it names another thing.
        (["reserve me a vintage car in cork from the 10th to the 13th"], False),
        (["can you reserve a company car in cork from the 10th to the 13th"], False),
    ],
)
async def test_a_kind_of_the_thing_before_its_word_is_no_other_thing(
    engine: gate.LocalEngine, memories: list[str], acts: bool
) -> None:
    await _expect(engine, memories, RENTAL.format(**CORK), CORK, acts)
