"""Trace a request to the caller's words: the action, then each argument, keeping what is current.

:func:`trace` reads the statements in the order they were said (memories
from earlier calls, then this call's turns) and answers, with the rule that
decided each:

- **the action** (``trace.action``): the latest statement of the caller that
  asks for it by meaning, or with a pronoun for what they said before it
  (``trace.action.points_back``), or the caller's agreement to the agent's offer to do
  it (``trace.action.offer``), or their answer giving just the value the agent asked for
  when it undertook to do it (``trace.action.offer_answered``); asked for only if
  there is room, never trusted alone (``trace.action.hedged``, its values
  ``trace.value.hedged``); a later denial (``trace.action.denied``) or withdrawal
  (``trace.action.withdrawn``) ends it;
- **each argument the policy binds**: the caller's latest word on it wins.
  Their own value said in its part (``trace.value``), their answer to the
  agent's question, or the value the agent offered and the caller took up
  (``trace.offer``: by agreeing when it was the only value of its kind
  offered, or by naming it, a distinctive part of a name included); another
  value said later replaces it (``trace.changed``); a no to it is
  ``trace.denied``. A later request that names another identifier or name for
  the same action is another request, not a change, and leaves the value standing,
  unless it says it replaces ("instead", "actually", "I meant"). An argument
  nobody spoke of and that the model passed at the tool's own default is
  ``trace.default``; one nothing traces is ``trace.missing``.
- **the verdict**: ``supported`` when the action is asked for and every
  bound argument traced or at its default; ``denied`` when the caller's
  current word is no; ``partial`` or ``none`` otherwise.

A statement said after what it answers can only replace or end it; nothing
said earlier changes what was said later. Pure: no I/O, no clock.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from gate.evidence import choices, forms, frames, offers, words
from gate.evidence import reading as rd
from gate.evidence.forms import Said, alternatives, name_spans, picks, proposed_names
from gate.evidence.meaning import Similarities
from gate.evidence.readings import ReadingCache
from gate.evidence.request import ArgumentSpec, TraceRequest
from gate.evidence.statements import Statement, with_parts
from gate.evidence.types import Accepted, ActionTrace, ArgumentStatus, ArgumentTrace, Trace, Verdict
from gate.utterance import (
    asks_to_know,
    clauses,
    defers,
    drops_pointed,
    hedged_on_room,
    is_question,
    puts_off,
    states_wish,
    without_titles,
)

_OFFER = re.compile(
    r"\b(?:would you like|do you want|shall i|should i|want me to|can i|may i|how about|what about|"
    r"would that|does that|is that|i (?:can|could) (?:book|reserve|get|make|buy|arrange|schedule|put)|"
    r"there (?:is|are)|i (?:found|have|see)|available|option|¿|quiere|voulez|möchten)\b|\?\s*$",
    re.IGNORECASE,
)
# A question for a value ("how many tickets would you like to get?", "where will you leave
# from?"): it asks about a task under way, and offers none.
_ASKS_FOR_VALUE = re.compile(
    r"^\W*(?:and\s+|so\s+|also\s+)?(?:how (?:many|much|long|late|early)|what|which|when|where|who|whom)\b",
    re.IGNORECASE,
)


def _offers(text: str) -> bool:
    """Whether the agent's words offer something: words that offer, or a closing question, in a
    sentence that does not ask for a value (:data:`_ASKS_FOR_VALUE`)."""
    sentences = [text[a:b].strip() for a, b in _sentences(text)]
    return any(
        _OFFER.search(sentence) is not None
        and _ASKS_FOR_VALUE.match(sentence) is None
        and (n == len(sentences) - 1 or _OFFER.search(sentence.rstrip("?! .")) is not None)
        for n, sentence in enumerate(sentences)
    )


# The agent offering to do something now ("Shall I cancel it?", "Please confirm the transfer").
_OFFERS_TO_DO = re.compile(
    r"\b(?:shall i|should i|(?:would|do) you (?:like|want) me to|want me to|can i|may i|please confirm|"
    r"(?:do|would) you (?:like|want) (?:to|a|an|the)|i (?:can|could) (?:book|reserve|get|make|buy|arrange|"
    r"schedule|put|cancel|send|transfer))\b",
    re.IGNORECASE,
)
# An agent's offer of the action must be at least this close to it in meaning.
OFFER_ABOUT = offers.OFFER_ABOUT


def trace(
    request: TraceRequest,
    statements: Sequence[Statement],
    meaning: Similarities,
    *,
    since: float | None = None,
    readings: ReadingCache | None = None,
) -> Trace:
    """The trace of ``request`` over ``statements`` (oldest first).

    ``since``: when this call began; the gate's own records of a confirmed
    request count only from then on (a record from an earlier call says what
    was done then, not what the caller asks for now). ``readings``: statements
    read for an earlier decision with the same ``meaning`` are not read again.
    """
    read = readings.read if readings is not None else rd.read
    statements = [_marked(s) for s in statements]
    readings_ = _pointers_read(
        [read(s, request, meaning) for s in with_parts(statements)], request, meaning, read
    )
    away = _elsewhere(readings_, request)
    closed = _closed(readings_, away)
    action = _action(readings_, request, since)
    arguments = _one_part_each(
        tuple(_argument(spec, readings_, request, action, since, away, closed) for spec in request.arguments),
        request,
        readings_,
    )
    return _verdict(action, arguments, readings_)


def _marked(s: Statement) -> Statement:
    """``s``, marked as hedged when the caller asks with only whether there is room as a condition."""
    if s.speaker == "caller" and not s.hedged and hedged_on_room(s.text):
        return dataclasses.replace(s, hedged=True)
    return s


def _pointers_read(
    readings: list[rd.Reading],
    request: TraceRequest,
    meaning: Similarities,
    read: Callable[[Statement, TraceRequest, Similarities], rd.Reading],
) -> list[rd.Reading]:
    """A caller's memory that asks with only a pointer ("so please just shut it down for me") is
    read together with the memory said just before it ("the basic tier is pointless for me
    now"): when the two read as one ask for the action with a request that points back
    (``trace.points_back``), or name it by meaning while the earlier one only said what and the
    later one asks to have it done (:func:`gate.evidence.reading.asks_it_done`), the later one
    names the action. Nothing else is taken from the pair: the values are each memory's own.
    The pair's texts must have been prepared (:func:`gate.evidence.reading.pointer_texts`);
    unprepared, it is similar to nothing and only a pointing-back request counts.
    """
    out = list(readings)
    kinds = {a.name: a.kind for a in request.arguments}
    pairs = rd.pointer_pairs([r.statement for r in readings])
    for j, i in pairs:
        r, before = out[i], out[j]
        if r.stance != "request" or r.names_action or r.other_action:
            continue
        if rd.points_into_a_list(before.statement.text, r.statement.text, request):
            continue  # "sam and jo are coming over" ... "give him twenty": which one, nothing says
        if rd.points_to_thing(r.statement.text) and any(
            r.said(a.name) for a in request.arguments if a.kind in ("ident", "text")
        ):
            # "r102 doesn't fit, i'd like to send it back": it is the thing it names ("get h-909
            # to me there" points at a place, which no identifier is)
            continue
        both = read(rd.joined(before.statement, r.statement), request, meaning)
        # Read as one by meaning, the pair names the action only where the earlier memory said
        # what and asked nothing itself ("the builders sent bill INV-5150 through" ... "sort it
        # out today"), and the later one asks to have it done, not another thing done with it
        # ("email it to my accountant"): after a request of its own, the later one is read on
        # its own ("skip it").
        told_first = before.stance != "request" or not before.names_action
        if (
            both.stance == "request"
            and both.names_action
            and (
                both.rule == "trace.points_back"
                or (both.names_plainly and told_first and rd.asks_it_done(r.statement.text, request))
            )
        ):
            # naming the action, its own values count for it as any request's do
            out[i] = dataclasses.replace(
                r,
                names_action=True,
                names_plainly=True,
                counts=True,
                rule="trace.points_back",
                about=max(r.about, both.about),
            )
    for j, i in pairs:
        out[j] = _place_pointed_at(out[j], out[i], request)
        out[j], out[i] = _person_pointed_at(out[j], out[i], request, meaning, read)
        if out[i].stance == "request" and rd.points_into_a_list(
            out[j].statement.text, out[i].statement.text, request
        ):
            # "sam, jo and ali are coming over" ... "send her twenty please": which of them the
            # request is for, nothing says; the names said give no value (rule trace.value.which)
            out[j] = dataclasses.replace(
                out[j],
                values={
                    n: tuple(
                        dataclasses.replace(x, rule="trace.value.which") if kinds.get(n) == "text" else x
                        for x in said
                    )
                    for n, said in out[j].values.items()
                },
            )
    return out


def _person_pointed_at(
    before: rd.Reading,
    r: rd.Reading,
    request: TraceRequest,
    meaning: Similarities,
    read: Callable[[Statement, TraceRequest, Similarities], rd.Reading],
) -> tuple[rd.Reading, rd.Reading]:
    """``before`` and ``r``, read for the person ``r`` points at with "him" or "her" ("it's sam's
    birthday today" ... "give him twenty from me would you"): when ``r`` read with the value
    said in its pronoun's place asks for the action and gives the value there, the person
    ``before`` named is the argument's value (rule ``trace.value.pointed``) and ``r`` names the
    action as that reading does. Only a statement is pointed at (not a request, a no, a question
    or someone else's words), and only by a request of the caller's (see
    :func:`gate.evidence.reading.person_pointed`)."""
    if before.stance != "value" or r.stance != "request" or r.other_action:
        return before, r
    s = r.statement
    for name, text in rd.person_pointed(before.statement.text, s.text, request):
        put = read(dataclasses.replace(s, text=text), request, meaning)
        if (
            put.stance != "request"
            or not put.names_action
            or put.other_action
            or not any(x.same and x.fits for x in put.said(name))
        ):
            continue
        named = tuple(dataclasses.replace(x, rule="trace.value.pointed") for x in before.said(name) if x.same)
        values = {
            n: named if n == name else (said if before.counts else ()) for n, said in before.values.items()
        }
        before = dataclasses.replace(before, counts=True, values=values)
        r = dataclasses.replace(
            r,
            names_action=True,
            names_plainly=r.names_plainly or put.names_plainly,
            counts=True,
            about=max(r.about, put.about),
        )
    return before, r


def _place_pointed_at(before: rd.Reading, r: rd.Reading, request: TraceRequest) -> rd.Reading:
    """``before``, read with what the caller's next words say of its place when they ask for the
    action and point at that place with "there" ("my train leaves from king's cross" ... "book me
    a taxi there for 6pm"): the place is taken for the argument of the pointer's own end (where
    the action ends, or starts for "from there"), whatever the earlier words made of it, by rule
    ``trace.value.there``; for the argument of the other end it is no longer a value ("we're at
    the royal hotel" ... "book a taxi from there" is no taxi to the hotel). What else they said
    counts as before. Only a statement is pointed at: not a request, a no, a question or someone
    else's words."""
    if (
        before.stance != "value"
        or r.stance != "request"
        or not r.names_action
        or r.other_action
        or not rd.points_to_place(r.statement.text)
    ):
        return before
    role = "from" if _FROM_THERE.search(r.statement.text) else "to"
    places = {a.name: a.role for a in request.bound if a.kind == "text" and a.role in ("from", "to")}
    values = {
        name: tuple(
            dataclasses.replace(x, rule="trace.value.there" if places[name] == role else "trace.value.role")
            for x in said
            if x.same
        )
        if name in places
        else said
        for name, said in before.values.items()
    }
    if not any(x.rule == "trace.value.there" for said in values.values() for x in said):
        return dataclasses.replace(before, values=values)
    if not before.counts:
        # a statement far from the action: only the place pointed at counts
        values = {name: said if name in places else () for name, said in values.items()}
    return dataclasses.replace(before, counts=True, values=values)


_FROM_THERE = re.compile(r"\bfrom\s+(?:(?:over|up|down|out)\s+)?there\b", re.IGNORECASE)


def _plain(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".?! ")


def _record_counts(r: rd.Reading, request: TraceRequest, since: float | None) -> bool:
    if r.record is None or _plain(r.record) != _plain(request.query):
        return False
    at = r.statement.at
    return since is None or at is None or at >= since - 1.0


def _next_caller(readings: Sequence[rd.Reading], i: int) -> rd.Reading | None:
    for r in readings[i + 1 :]:
        if r.statement.speaker == "caller" and not r.statement.part:
            return r
        if r.statement.speaker == "agent":
            return None
    return None


def _requested(
    r: rd.Reading, rule: str, *, accepted: rd.Reading | None = None, note: str = ""
) -> ActionTrace:
    s = r.statement
    # "book a table at 8 if there's room", or "yes if it's still free" to the agent's offer
    hedged = (s if accepted is None else accepted.statement).hedged
    if hedged:
        rule = "trace.action.hedged"
        note = "asked for only if there is room; the caller's yes confirms it"
    return ActionTrace(
        status="requested",
        rule=rule,
        note=note,
        words=s.text,
        at=s.at,
        turn=s.turn,
        message_id=s.message_id,
        memory_id=s.memory_id,
        similarity=r.about,
        speaker=s.speaker if s.speaker != "other" else None,
        accepted=_accepted(accepted) if accepted is not None else None,
        trusted=(s.trusted if accepted is None else accepted.statement.trusted) and not hedged,
    )


def _accepted(r: rd.Reading) -> Accepted:
    return Accepted(r.statement.text, r.statement.at, r.statement.message_id)


def _ended(r: rd.Reading, status: str, rule: str, note: str) -> ActionTrace:
    s = r.statement
    return ActionTrace(
        status=status,  # type: ignore[arg-type]
        rule=rule,
        note=note,
        words=s.text,
        at=s.at,
        turn=s.turn,
        message_id=s.message_id,
        memory_id=s.memory_id,
        similarity=r.about,
        speaker="caller",
        trusted=s.trusted,
    )


def _elsewhere(readings: Sequence[rd.Reading], request: TraceRequest) -> frozenset[int]:
    """The statements of the call said while the caller was on another task (``trace.task``).

    A caller who asks for another thing ("can you help me find an apartment there?") is on
    that task from their next turn: what they and the agent say there ("no, on the 5th" for
    the visit) is that task's, not a change of this request. They are back when they ask
    for this action in its own words or meaning ("I'd like to reserve that car we talked
    about"), take up the agent's offer of it, or search for its thing again.
    """
    out: set[int] = set()
    away_from: int | None = None  # the turn that took the caller elsewhere
    for i, r in enumerate(readings):
        s = r.statement
        if s.origin != "call":
            continue
        if s.speaker == "agent" and away_from is not None:
            reply = _next_caller(readings, i)
            if reply is not None and _offers_action(r, reply, request):
                away_from = None
        elif s.speaker == "caller" and not s.part:
            if r.task == "away":
                # a second request on the other task ("I need the reservation for 3 people")
                # is said there too: the caller left this task at the first
                if away_from is None:
                    away_from = s.turn if s.turn is not None else -1
            elif r.task == "back" or (
                r.stance != "ignored" and rd.shares_word(s.text, rd.query_thing(request))
            ):
                away_from = None  # this action again, or its own thing named ("make the car ...")
        if away_from is not None and s.turn != away_from:
            out.add(i)
    return frozenset(out)


def _closed(readings: Sequence[rd.Reading], away: frozenset[int]) -> frozenset[int]:
    """The statements of ``away`` (said on another task) that the agent then reported done, in
    the same stretch away ("Your bus is booked.", "The visit is set", "your reservation was
    successful"): what was said there is that task's, whatever this one asks later. Unless the
    caller's next words point at that task ("can you add this to my calendar?" after the
    appointment was booked): then its values are what they point at."""
    out: set[int] = set()
    stretch: list[int] = []
    for i, r in enumerate(readings):
        if i not in away:
            stretch = []
            continue
        stretch.append(i)
        if r.statement.speaker == "agent" and _reported_done(r.statement.text):
            reply = _next_caller(readings, i)
            if reply is None or not rd.points_with_pronoun(reply.statement.text):
                out.update(stretch)
            stretch = []
    return frozenset(out)


# The agent reporting a thing done: "Your bus is booked.", "The alarm has been set.", "Your
# reservation was a success", "I was able to complete the booking", "I've booked it". Not what a
# thing is to do ("the event is scheduled to begin at 7:30").
_REPORTED_DONE = re.compile(
    r"\b(?:your|the|this|it|that)\s+(?:[\w'-]+\s+){0,3}?(?:is|are|has been|have been|was|were|'s)\s+"
    r"(?:now\s+|all\s+)?(?:booked|reserved|confirmed|scheduled|set(?:\s+up)?|placed|purchased|bought|"
    r"made|done|completed|arranged|sorted|added|sent|on (?:its|it's|the) way)\b(?!\s+(?:to|out|up)\b)|"
    r"\b(?:i|we)(?:'ve|\s+have)\s+(?:now\s+|successfully\s+)?(?:booked|reserved|scheduled|set up|"
    r"placed|made|purchased|bought|arranged|completed)\b|"
    r"\bsuccess(?:ful(?:ly)?)?\b|\bable to (?:book|reserve|complete|make|schedule|set)\b",
    re.IGNORECASE,
)


def _reported_done(text: str) -> bool:
    # not "the reservation was not successful", "it could not be booked"
    return any(
        _NOT_DONE.search(text[max(0, m.start() - 24) : m.start()]) is None
        for m in _REPORTED_DONE.finditer(text)
    )


_NOT_DONE = re.compile(
    r"\b(?:not|never|no longer|couldn't|could not|can't|cannot|wasn't|isn't|unable)\b", re.I
)


# The agent puts something forward in the place of what was asked for.
_INSTEAD = re.compile(r"\b(?:instead|rather than|as an alternative|alternatively)\b", re.IGNORECASE)


def _takes_instead(r: rd.Reading, reply: rd.Reading, request: TraceRequest) -> bool:
    """Whether the agent's statement offers something in the action's place, saying no value of
    the request ("would you like a free month instead?"; "would you like the 5th instead?" offers
    a value, a change of this request), and the caller's reply takes it up without asking for the
    action again."""
    text = r.statement.text
    return (
        _INSTEAD.search(text) is not None
        and _offers(text)
        and not any(r.values.values())
        and not any(forms.other_value_spans(text, spec, request, offered=True) for spec in request.bound)
        and _takes_up(reply, reply.statement.text, text, request.lang)
        and not reply.names_action
        and reply.stance not in ("denial", "retraction", "ignored")
    )


def _offers_abroad(text: str, request: TraceRequest) -> bool:
    """Whether the agent's words say the action's verb in Spanish, French or German ("soll ich
    buchen?", "¿reservo la mesa?" for booking), and no verb of another class ("soll ich den Tisch
    stornieren?"): the English sentence model does not reach them, the word lists do."""
    wanted = rd.action_words(request)
    if not wanted:
        return False
    mine = words.VERB_CLASSES.get(wanted[0])
    found = rd.foreign_families(text)
    said = {w for family in found for w in family if w in words.VERB_CLASSES}
    return any(wanted[0] in family for family in found) and all(words.VERB_CLASSES[w] == mine for w in said)


def _offers_action(r: rd.Reading, reply: rd.Reading, request: TraceRequest) -> bool:
    """Whether the agent's statement offers to do the action and the caller's reply takes it up."""
    s = r.statement
    return (
        (
            r.about >= OFFER_ABOUT
            or rd.shares_word(s.text, rd.action_words(request)[:1])
            # "do you want to visit?" for "schedule a visit": the action said by its thing
            or (r.about >= rd.RELATED and rd.shares_word(s.text, rd.query_thing(request)))
            or _offers_abroad(s.text, request)
        )
        and _offers(s.text)
        and (
            _takes_up(reply, reply.statement.text, s.text, request.lang)
            # "no, i'd just like it confirmed": a request that opens with a no takes up nothing
            or (reply.stance == "request" and not reply.other_action and not reply.refuses)
        )
        and reply.stance not in ("denial", "retraction", "ignored")
        and not _other_ident_offered(r, request)
    )


def _raised_by_caller(readings: Sequence[rd.Reading], i: int) -> bool:
    """Whether the caller's last turn before the agent's at ``i`` raised a matter the agent may act
    on: a need or a trouble told ("my parcel never turned up"), a request of this action, or a
    question that asks for it ("do you have room tonight?"); not one asking to know a fact ("what
    does the gold plan include?"), one asking for another action ("i just want to check my
    balance"), a no or a take-back. The agent's undertaking then answers the caller, not its
    own idea."""
    last = next(
        (x for x in reversed(readings[:i]) if x.statement.speaker == "caller" and not x.statement.part), None
    )
    if last is None or last.other_action or rd.says_fine(last.statement.text):
        return False  # "my card is fine, i just want to check my balance"
    text = last.statement.text
    if last.stance in ("value", "other"):
        return True
    if last.stance == "request":
        return last.names_action
    return last.stance == "question" and not asks_to_know(text)


def _other_ident_offered(r: rd.Reading, request: TraceRequest) -> bool:
    """Whether the agent's statement names another identifier of a kind the request binds, and
    not the request's own: "Cancel B-7782?" offers the action on another order, and a yes to it
    is that request's."""
    return any(
        spec.kind == "ident"
        and not any(x.same for x in r.said(spec.name))
        and forms.other_value_spans(r.statement.text, spec, request, offered=True)
        for spec in request.bound
    )


def _offer_answered(r: rd.Reading, reply: rd.Reading, request: TraceRequest) -> bool:
    """Whether the agent undertook the action and asked for one of its values, and the caller's
    reply gives that value and nothing else (:mod:`gate.evidence.offers`)."""
    return (
        offers.undertakes(r.statement.text, request, r.about)
        and offers.answers_only(reply, request)
        and not _other_ident_offered(r, request)
    )


def _action(readings: Sequence[rd.Reading], request: TraceRequest, since: float | None) -> ActionTrace:
    found = ActionTrace("missing", "trace.action.missing", "the caller never asked for this")
    asked_at: int | None = None
    for i, r in enumerate(readings):
        s = r.statement
        if r.stance == "record":
            if _record_counts(r, request, since):
                found, asked_at = _requested(r, "trace.record", note="confirmed by the caller"), i
            continue
        if r.stance == "agent":
            reply = _next_caller(readings, i)
            if reply is not None and _offers_action(r, reply, request):
                found = _requested(
                    r, "trace.action.offer", accepted=reply, note="the agent offered it, the caller agreed"
                )
                asked_at = readings.index(reply)
            elif (
                reply is not None
                and found.status not in ("denied", "withdrawn")
                and _raised_by_caller(readings, i)
                and _offer_answered(r, reply, request)
            ):
                # "I can move it. Which day suits you?" ... "monday would be better": the caller
                # gave what the agent asked for to do it, and nothing else. An answer is no yes
                # (it may only name the thing the agent asked about): it supports asking the
                # caller once, never acting on its own.
                note = "the agent undertook it and asked a value, the caller gave it; their yes confirms it"
                found = dataclasses.replace(
                    _requested(r, "trace.action.offer_answered", accepted=reply, note=note), trusted=False
                )
                asked_at = readings.index(reply)
            elif (
                reply is not None
                and found.status == "requested"
                and found.rule != "trace.record"
                and _takes_instead(r, reply, request)
            ):
                # "i want to cancel premium" ... "would you like a free month instead?" ... "yes
                # please": the caller took something else in its place.
                note = "the caller took what the agent offered in its place"
                found = _ended(reply, "withdrawn", "trace.action.instead", note)
                asked_at = None
            continue
        if s.speaker != "caller" or s.part:
            continue  # a sentence of a turn gives values; the turn as a whole asks or takes back
        if (
            found.status == "requested"
            and found.rule != "trace.record"  # confirmed: only a plain take-back ends it
            and asked_at is not None
            and i > asked_at
            and _right_after(readings, asked_at, i)
            and not (r.stance == "request" and r.names_action)
            and not _gives_any(r)
            and not asks_another(s.text, request)
            and _puts_off_now(s.text, request)
            and not _closing_answered(readings, i, request)
            # "Are you sure?" ... "yes i'm sure, go ahead": a yes to the check puts nothing off
            and _answer_to_the_agent(readings, i, request) != "yes"
            and not (drops_pointed(s.text) and _agent_asked_other(readings, i, request))
        ):
            # "leave it for now", "let me think", "hold off": said next, it takes the request back.
            found = _ended(r, "withdrawn", "trace.action.withdrawn", "put off right after it was asked")
            asked_at = None
            continue
        if (
            found.status == "requested"
            and found.rule != "trace.record"
            and asked_at is not None
            and i > asked_at
            and _right_after(readings, asked_at, i)
            and not (r.stance == "request" and r.names_action)
            and not _gives_any(r)
            and _answer_to_the_agent(readings, i, request) == "no"
            and not _closing_answered(readings, i, request)
            and not _agent_asked_other(readings, i, request)
        ):
            # "cancel my gold plan" ... "Are you sure? You'll lose your points." ... "hmm, maybe
            # not then": a no to the agent's check on it, as the confirmation reader reads a no
            note = "the caller said no when the agent asked about it"
            found = _ended(r, "withdrawn", "trace.action.refused", note)
            asked_at = None
            continue
        if r.stance == "ignored":
            continue
        offered = _agent_just_before(readings, i) if s.origin == "call" else None
        if offered is not None and choices.other_option_taken(offered.statement.text, s.text, request):
            # "Would you like a refund of 30 pounds or a replacement?" ... "a replacement please":
            # the caller took the other option, whatever they asked before.
            if found.status == "requested" and found.rule != "trace.record":
                note = "the caller took another option the agent offered"
                found = _ended(r, "withdrawn", "trace.action.instead", note)
                asked_at = None
            continue
        if (
            r.stance == "request"
            and r.names_action
            and (s.origin == "call" or not request.slot or _in_slot(s))
        ):
            if r.rule == "trace.points_back":
                note = "asked for by the caller, pointing back at what they said before"
                found, asked_at = _requested(r, "trace.action.points_back", note=note), i
            else:
                found, asked_at = _requested(r, "trace.action", note="asked for by the caller"), i
            continue
        if (
            s.hedged
            and not s.part
            and r.stance == "value"
            and r.counts
            and not r.other_action
            and _gives_any(r)
            and rd.shares_word(s.text, rd.query_thing(request))
        ):
            # "a table for three on sunday at 1pm, if there's room": only what is asked for is
            # hedged on room; the values and the thing named are the request (asked once).
            found, asked_at = _requested(r, "trace.action.hedged"), i
            continue
        if r.stance == "denial" and (r.about >= rd.RELATED or r.denied or _mentions_bound(r)):
            if r.denies_action or _denies_all(r, request):
                found = _ended(r, "denied", "trace.action.denied", "the caller said no to this")
                asked_at = None
            continue
        if found.status == "requested" and asked_at is not None and i > asked_at:
            if (
                r.stance == "retraction"
                and (
                    r.about >= rd.RELATED
                    or len(rd.content_words(s.text)) <= 6
                    # "the tooth's fine now, so drop it": lets go of what was asked just before
                    or (drops_pointed(s.text) and _right_after(readings, asked_at, i))
                )
                # "would you like travel insurance?" ... "no, skip it": the insurance it points at
                and not (drops_pointed(s.text) and _agent_asked_other(readings, i, request))
            ):
                found = _ended(r, "withdrawn", "trace.action.withdrawn", "the caller took it back")
                asked_at = None
            elif (
                found.rule != "trace.record"
                and _right_after(readings, asked_at, i)
                and r.stance in ("value", "other", "question")
                and not _gives_any(r)
                # Agreeing ("that is correct, proceed") or asking for a fact ("how much is it in
                # total?") puts nothing off unless it says so.
                # A question about what was offered ("is that the 2019 album?") puts nothing off
                # unless it says so ("can we leave that for now?").
                and (
                    defers(s.text)
                    if r.agrees or asks_to_know(s.text) or is_question(s.text)
                    else puts_off(s.text)
                )
                and not states_wish(s.text)
                # "Anything else?" ... "no that's all, thanks": a no to other matters
                and not _closing_answered(readings, i, request)
            ):
                found = _ended(r, "withdrawn", "trace.action.withdrawn", "put off right after it was asked")
                asked_at = None
    return found


def _answer_to_the_agent(readings: Sequence[rd.Reading], i: int, request: TraceRequest) -> str | None:
    """How the confirmation reader (:func:`gate.confirm.read_answer`) reads the caller's turn ``i``
    as an answer to the question the agent asked just before it ("maybe not then", "in that case
    leave it", "i guess not" are a no; "yes i'm sure, go ahead" a yes), or None when the agent
    asked nothing."""
    asked = _agent_just_before(readings, i)
    if asked is None or "?" not in asked.statement.text:
        return None
    from gate.confirm import read_answer

    text = readings[i].statement.text
    return read_answer(text, question=asked.statement.text, lang=request.lang or "en").answer


def _offered_since(offered: rd.Reading, current: ArgumentTrace) -> bool:
    """Whether the agent offered its value after the caller said another one: taking the offer up
    is the caller's latest word ("an intermediate car" ... "a Standard Accord at Canterbury
    Village" ... "how much?" ... "that works for me")."""
    at = offered.statement.at
    return current.status == "conflict" and current.at is not None and at is not None and current.at < at


def _answered_since(readings: Sequence[rd.Reading], offered: rd.Reading, n: int) -> bool:
    """Whether the yes at ``n`` answers the offer: since it, the caller only asked about it and the
    agent only answered ("how much?" ... "$116" ... "that works for me"), and asked nothing else
    (a yes to "do you mind a shared ride?" is a yes to that)."""
    start = next((k for k, r in enumerate(readings) if r is offered), None)
    if start is None:
        return False
    for k in range(start + 1, n):
        r = readings[k]
        if r.statement.speaker == "caller" and not r.statement.part:
            if r.stance != "question" and not asks_to_know(r.statement.text):
                return False
        elif r.stance == "agent" and ("?" in r.statement.text or is_question(r.statement.text)):
            return False
    return True


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _gives_any(r: rd.Reading) -> bool:
    """Whether the statement gives a value of the request, its own or another (it is about the request)."""
    return rd.gives_value(r.values)


def _mentions_bound(r: rd.Reading) -> bool:
    return any(x.same for said in r.values.values() for x in said)


def _in_slot(s: Statement) -> bool:
    return s.memory is not None and s.memory.in_slot


def _agent_asked_other(readings: Sequence[rd.Reading], i: int, request: TraceRequest) -> bool:
    """Whether the agent's turn just before ``i`` asked a question of something else than this
    action ("would you like to add travel insurance?"), not offering it ("shall I book it?"):
    what the caller's next words point at is that."""
    before = _turn_before(readings, i)
    if before is None or before.stance != "agent":
        return False
    text = before.statement.text
    if "?" not in text and not is_question(text):
        return False
    return not (
        before.about >= OFFER_ABOUT
        or rd.shares_word(text, rd.action_words(request))
        # "shall I go ahead?", "want me to do that?": an offer naming nothing else is this one
        or (_offers(text) and len(rd.content_words(text)) <= 4)
        # "Are you sure? You'll lose your points.", "Do you still want to go ahead?": a check on
        # what was asked, whatever else it tells
        or _CHECKS.search(text) is not None
    )


_CHECKS = re.compile(
    r"\b(?:are you (?:sure|certain|positive)|you sure|(?:do|would) you still (?:want|like)|still want to|"
    r"still like to|(?:shall|should) i (?:still )?(?:proceed|go ahead|continue|carry on)|"
    r"(?:want|like) me to (?:proceed|go ahead|continue|carry on))\b",
    re.IGNORECASE,
)


# The agent asking whether there is another matter ("Anything else?", "Is there anything else I
# can help you with today?", "Can I help with something else?").
_ANYTHING_ELSE = re.compile(
    r"\b(?:anything|something) else\b|\b(?:any|another) (?:other )?(?:thing|question|matter)s?\b"
    r"(?! (?:about|with|on|for) (?:it|that|this|the))",
    re.IGNORECASE,
)


def _closing_answered(readings: Sequence[rd.Reading], i: int, request: TraceRequest) -> bool:
    """Whether the caller's statement ``i`` answers the agent's question whether they have another
    matter, or its question of something else (:func:`_agent_asked_other`), and says nothing of
    this action (its words or values): their no, their thanks or their "that's all" answer that
    question and put nothing off ("let me think about the shipping first" still does)."""
    r = readings[i]
    if rd.shares_word(r.statement.text, rd.action_words(request)) or _mentions_bound(r):
        return False
    before = _turn_before(readings, i)
    if before is None or before.stance != "agent" or _INSTEAD.search(before.statement.text):
        return False  # "Would you like to collect it from our store instead?": its answer decides
    if _agent_asked_other(readings, i, request):
        return True  # "Would you like to add gift wrapping?" ... "no thanks"
    text = before.statement.text
    spans = _sentences(text)
    last = text[spans[-1][0] : spans[-1][1]] if spans else ""
    return _ANYTHING_ELSE.search(last) is not None and "?" in last


def _turn_before(readings: Sequence[rd.Reading], i: int) -> rd.Reading | None:
    """The whole turn said just before statement ``i`` (a turn's sentences aside)."""
    return next((r for r in reversed(readings[:i]) if not r.statement.part), None)


def _right_after(readings: Sequence[rd.Reading], asked: int, i: int) -> bool:
    """Whether the caller said ``i`` next after the request at ``asked`` (agent turns between aside)."""
    return not any(r.statement.speaker == "caller" and not r.statement.part for r in readings[asked + 1 : i])


def _denies_all(r: rd.Reading, request: TraceRequest) -> bool:
    bound = {a.name for a in request.bound}
    return bool(bound) and bound <= set(r.denied)


def _traced(
    spec: ArgumentSpec, r: rd.Reading, said: Said, *, rule: str = "trace.value", note: str = ""
) -> ArgumentTrace:
    s = r.statement
    # A value the caller only asked about ("what's the weather on the 13th?", "is Friday free?")
    # is theirs, but they never asked for it: it gates the action only with their yes.
    asked_about = r.stance == "question"
    if asked_about and not note:
        note = f"said as {said.words!r} in a question; the caller's yes confirms it"
    if s.hedged and rule == "trace.value":
        rule = "trace.value.hedged"
        note = f"said as {said.words!r}, asked for only if there is room; the caller's yes confirms it"
    if said.rule == "trace.value.there" and rule == "trace.value":
        rule = said.rule
        note = note or f"said as {said.words!r}, the place the caller's next words point at with 'there'"
    if said.rule == "trace.value.pointed" and rule == "trace.value":
        rule = said.rule
        note = note or f"said as {said.words!r}, the person the caller's next words point at"
    if said.rule == "trace.value.corrected" and rule == "trace.value":
        rule = said.rule
        note = note or f"said as {said.words!r}, in place of what the caller said for it just before"
    return ArgumentTrace(
        name=spec.name,
        value=spec.value,
        status="traced",
        rule=rule,
        note=note or f"said as {said.words!r}",
        source="memory" if s.origin == "memory" else "call",
        speaker="caller",
        at=s.at,
        turn=s.turn,
        message_id=s.message_id,
        memory_id=s.memory_id,
        words=s.text,
        span=said.span,
        trusted=s.trusted and not asked_about and not s.hedged,
    )


def _argument(
    spec: ArgumentSpec,
    readings: Sequence[rd.Reading],
    request: TraceRequest,
    action: ActionTrace,
    since: float | None,
    away: frozenset[int] = frozenset(),
    closed: frozenset[int] = frozenset(),
) -> ArgumentTrace:
    if not spec.bound:
        return ArgumentTrace(
            spec.name, spec.value, "unchecked", "trace.unchecked", "the policy does not bind it"
        )
    current: ArgumentTrace | None = None
    # Whether the value current was said on this task, not on another (see _elsewhere), and
    # whether another value of its kind was left to the other task.
    settled = False
    left_to_task = False
    # The value as said on a task the agent then reported done (see _closed): named in the note
    # when nothing on this task gives it. A place or a name said there may still be this one's
    # ("a cab to go there" after the concert's tickets): days, times and counts of a booking
    # done are that booking's.
    done_there: Said | None = None
    closed = closed if spec.kind != "text" else frozenset()
    before: ArgumentTrace | None = None
    spoken_of = False
    offer: tuple[rd.Reading, Said, int] | None = None
    options: set[str] = set()
    standing: tuple[rd.Reading, Said] | None = None
    # The offer the caller's last question for other options set aside: it stands again when
    # the agent's answer finds none ("no, there is no refundable one right now").
    set_aside: tuple[rd.Reading, Said] | None = None
    # The last offer of this value nobody took up, and the rule that set it aside (named in the
    # note when nothing else traces the value).
    dropped: tuple[rd.Reading, str] | None = None
    heard = ""  # the agent's latest words: what a reply answers
    searched: rd.Reading | None = None  # the caller's latest words, when they searched for other things
    sought_at: float | None = None  # when the caller first asked or searched for the request's thing
    # The agent's latest words offer another action ("Shall I cancel your gym membership?"): a yes
    # to them is that action's.
    elsewhere_offer = False
    # The offer whose value the caller took, and whether the caller then asked for others: the
    # agent's next offer of another value of this kind replaces it (``trace.offer.replaced``).
    taken: rd.Reading | None = None
    others_asked = False
    for n, r in enumerate(readings):
        s = r.statement
        if current is not before and n - 1 not in away:
            settled = True  # the statement before, on this task, gave the value current now
        before = current
        if n in away and (settled or n in closed):
            # Said on another task after this one had its value, or on one the agent then
            # reported done ("fresno to los angeles, leaving march 7th" ... "Your bus is booked."
            # before the car was asked for): the values and offers there are that task's ("no, on
            # the 5th" for the visit), not this one's.
            offer = None
            if settled and s.speaker == "caller" and any(x.fits and not x.same for x in r.said(spec.name)):
                left_to_task = True
            if not settled and done_there is None:
                done_there = next((x for x in r.said(spec.name) if x.same), None)
            continue
        if r.stance == "record":
            if _record_counts(r, request, since):
                current = ArgumentTrace(
                    spec.name,
                    spec.value,
                    "traced",
                    "trace.record",
                    "in the request the caller confirmed",
                    source="confirmation",
                    speaker="caller",
                    at=s.at,
                    memory_id=s.memory_id,
                    trusted=s.trusted,
                )
            continue
        if r.stance == "agent":
            heard = s.text
            elsewhere_offer = (
                _OFFERS_TO_DO.search(s.text) is not None
                and r.about < rd.RELATED
                and not any(r.values.values())
            )
            named = tuple(
                x
                for x in r.said(spec.name)
                if searched is None or not _searched_not_started(searched, spec, x, request, r)
            )
            gone = [x for x in named if spec.kind == "text" and _unavailable(s.text, x.end)]
            if gone:
                # "Sophie is off on Thursday, would Mark do?": the value is not to be had, so it
                # is not on offer, and what the caller asked for with it is not what a yes now
                # takes; the caller may ask for it again.
                named = tuple(x for x in named if x not in gone)
                if current is not None and current.status == "traced" and any(x.same for x in gone):
                    spoken_of = True
                    note = f"the agent said {gone[0].words!r} is not to be had"
                    current = _said_by(spec, r, "conflict", "trace.offer.unavailable", note)
                    taken = None
                if standing is not None and any(x.same for x in gone):
                    dropped, standing = (standing[0], "trace.offer.unavailable"), None
            if set_aside is not None and standing is None and _none_found(s.text):
                standing = set_aside
            set_aside = None
            offer = (r, named[0], _offered_of_kind(r, spec, request)) if named else None
            if (
                others_asked
                and taken is not None
                and spec.kind != "number"  # "0 transfers" in a new bus offered is no count of seats
                and current is not None
                and current.rule == "trace.offer"
                and not named
                and forms.other_value_spans(s.text, spec, request, offered=True)
                and not _none_found(s.text)
            ):
                # "That sounds great." took the Rhinos' Tuesday; "any other events?" and "There's
                # also the Knights on Saturday": the day taken is not the one now on offer.
                dropped = (taken, "trace.offer.replaced")
                current = taken = None
            elif (
                taken is not None
                and current is not None
                and current.rule == "trace.offer"
                and (framed := _framed((current.words or "", current.span), s.text, spec, request, named))
                and not _answers_about_offer(readings, n, framed, request)
            ):
                # "We need two rooms." took up Rose Cottage; "I found a guest house called Hollins
                # B." puts another forward in the same words: the one taken is not on offer now.
                dropped = (taken, "trace.offer.replaced")
                current = taken = None
            others_asked = False
            if offer is not None and offer[2] == 1:
                standing = (r, named[0])
                dropped = None
            elif (
                (other_spans := forms.other_value_spans(s.text, spec, request, offered=True))
                or offer is not None
                or (other_spans := _framed(_offered_words(standing), s.text, spec, request, named))
            ) and not _answers_about_offer(readings, n, [x.span for x in named] + other_spans, request):
                # the agent offers something else now
                dropped = _dropped(standing, "trace.offer.replaced", dropped)
                standing = None
            elif not named and spec.kind == "text" and _new_results(r, request):
                # "Search revealed 9 results. Auberge Vancouver Hotel is ...": another
                dropped = _dropped(standing, "trace.offer.new_results", dropped)
                standing = None
            if named and spec.kind == "text":
                options |= {o for x in named for o in alternatives(s.text, x.start, x.end)}
            continue
        if (
            s.speaker == "caller"
            and r.rule == "trace.condition"
            and (offer is not None or standing is not None)
            and asks_another(s.text, request)
            and not _asks_of_another_kind(s.text, request)
        ):
            # "Can you check if there are some other cars available?": asking whether there are
            # others turns the offer down, as asking for them does.
            turned = offer[0] if offer is not None else standing[0] if standing is not None else None
            if standing is not None:
                set_aside = standing
            if turned is not None:
                dropped = (turned, "trace.offer.others")
            offer = standing = None
        if (
            s.speaker == "caller"
            and r.rule == "trace.condition"
            and s.origin == "call"
            and _answers_agent(readings, n, any_stance=True)
        ):
            # "I'll probably arrive on March 10th" to the agent's "when do you check in?": the
            # caller's answer, said with a hedge or a condition: theirs, but their yes confirms it.
            said = [
                x
                for x in forms.said_in(s.text, spec, request)
                if x.fits and not _belongs_elsewhere(x, r, spec)
            ]
            if said:
                spoken_of = True
                last = max(said, key=lambda x: x.start)
                note = f"said as {last.words!r} with a condition or a hedge; the caller's yes confirms it"
                if last.same:
                    traced = _traced(spec, r, last, rule="trace.value.hedged", note=note)
                    current = dataclasses.replace(traced, trusted=False)
                else:
                    note = f"the caller's latest word on it is {last.words!r}"
                    current = _said_by(spec, r, "conflict", "trace.changed", note, span=last.span)
            continue
        if s.speaker == "caller" and s.origin == "call" and not s.part:
            others_asked = (
                taken is not None
                and asks_another(s.text, request)
                and not _asks_of_another_kind(s.text, request)
            )
            searched = r if r.other_action else None
            if sought_at is None and s.at is not None and (r.names_action or _searches_again(r, request)):
                sought_at = s.at
        if s.speaker != "caller" or r.stance == "ignored":
            continue
        # A name the agent listed that the caller said in another argument's part ("from my
        # savings account", to "checking or savings?") is that argument's, not a choice for this one.
        claimed = [x.span for other, said in r.values.items() if other != spec.name for x in said if x.fits]
        chosen = [
            o
            for o in options
            if any(not any(_overlap(at, c) for c in claimed) for at in name_spans(s.text, o))
            and not name_spans(o, spec.shown)
        ]
        if (
            not chosen
            and spec.kind == "text"
            and s.origin == "call"
            # a value already set aside keeps the rule that set it aside
            and (current is None or current.status == "traced")
            and (agent := _agent_just_before(readings, n)) is not None
            # the agent named this value beside the others: the choice is among values of it
            and any(x.same for x in agent.said(spec.name))
            and not any(x.same and x.fits for x in r.said(spec.name))
            and (
                other := choices.other_name_picked(
                    s.text, heard, spec.shown.split(), _known_words(request, spec)
                )
            )
        ):
            # "I see Maria Lopez and Mario Lopez. Did you mean Mario?" ... "yes mario": the
            # caller picks another name the agent put forward, whatever a yes beside it says.
            chosen = [other]
        if chosen and not any(x.same and x.fits for x in r.said(spec.name)):
            # The agent named this value beside others; the caller took another of them, and a
            # later "rent that movie" is for the one taken, not for this one.
            spoken_of = True
            offer = None
            if standing is not None:
                dropped = _dropped(standing, "trace.offer.changed", dropped)
                standing = None
            current = ArgumentTrace(
                spec.name,
                spec.value,
                "conflict",
                "trace.changed",
                f"the caller chose {chosen[0]!r}",
                source="call",
                speaker="caller",
                at=s.at,
                turn=s.turn,
                message_id=s.message_id,
                words=s.text,
                trusted=s.trusted,
            )
            continue
        if s.speaker == "caller" and not s.part:
            set_aside = None
            if (
                standing is not None
                and r.stance == "request"
                and (
                    _INDEFINITE.search(s.text) is not None
                    or _searches_anew(s.text, request)
                    or _qualified_anew(s.text, standing[0].statement.text, request)
                )
                and not _asks_for_offered(r, s.text, request, standing[0].statement.text)
                # "Okay, I want a small car, could you find it for me?": the "okay" only
                # acknowledges when the caller asks the agent to look again
                and (not _takes_up(r, s.text, heard, request.lang) or _asks_to_look(s.text))
            ):
                # "I would like something italian around york", "I prefer a small car": a search
                # for something, in words that neither take up nor point at what stands offered.
                dropped = _dropped(standing, "trace.offer.search", dropped)
                standing = None
        if offer is not None and s.origin == "call":
            offered_r, offered, kinds = offer
            picked = spec.kind == "text" and picks(s.text, offered.words, offered_r.statement.text)
            changed = _sets_aside(r, spec, offered_r, request)
            asks_others = (asks_another(s.text, request) and not _asks_of_another_kind(s.text, request)) or (
                # "Okay, I want a small car, could you find it for me?": another search, not a yes
                r.stance == "request"
                and _asks_to_look(s.text)
                and _qualified_anew(s.text, offered_r.statement.text, request)
                and not _asks_for_offered(r, s.text, request, offered_r.statement.text)
            )
            disliked = _dislikes(r, spec)
            if asks_others or changed or r.refuses or disliked:
                # "can you find me something else?", "I'd rather see the Mariners game": the offer
                # is turned down, and what it offered goes with it.
                if standing is not None and not changed and not r.refuses and not disliked:
                    set_aside = standing
                why = (
                    "trace.offer.changed"
                    if changed
                    else "trace.offer.others"
                    if asks_others
                    else "trace.offer.refused"
                    if r.refuses
                    else "trace.offer.disliked"
                )
                dropped = (offered_r, why)
                standing = None
            elif (_takes_up(r, s.text, heard, request.lang) and kinds == 1) or picked:
                spoken_of = True
                current, taken = _offer_taken(spec, offered_r, offered, r), offered_r
                standing = None
            elif kinds > 1 and _takes_up(r, s.text, heard, request.lang):
                dropped = (offered_r, "trace.offer.choice")  # a yes to several takes none of them
            offer = None
        if standing is not None and (
            down := _turned_down(r, n, spec, standing[0], readings, request, sought_at)
        ):
            # A change of mind, asking for other options ("are there any other events on other
            # dates?"), or a new search for the thing ("can you change the search to look for
            # three star hotels?") turns down what the agent offered before it; only asking,
            # until the agent finds none.
            if not _sets_aside(r, spec, standing[0], request) and not r.refuses:
                set_aside = standing
            dropped = (standing[0], down)
            standing = None
        if (
            current is not None
            and current.rule == "trace.offer"
            and spec.kind == "text"
            and (spec.role is not None or forms.PLACE_CUES & set(spec.cues))
            and s.speaker == "caller"
            and not s.part
            and r.stance == "request"
            and not any(x.same for x in r.said(spec.name))
            and rd.shares_word(s.text, rd.query_thing(request))  # the thing itself, elsewhere
            and _asks_elsewhere(s.text, request)
        ):
            # "I prefer a small car" took up the car at McCarran; "I need a car in Paris, France"
            # then asks for one somewhere else: the place offered is no longer the caller's word.
            spoken_of = True
            current = _said_by(spec, r, "conflict", "trace.changed", "the caller asked for it somewhere else")
        if (
            standing is not None
            and s.origin == "call"
            and not s.part
            # a bare yes to the agent's offer of another action is that action's ("Sure." to
            # "Please confirm the transfer of $450?")
            and not (elsewhere_offer and not _gives_any(r) and not r.names_action)
            and (
                (
                    current is None
                    and (
                        _asks_for_offered(r, s.text, request, standing[0].statement.text)
                        or _takes_up(r, s.text, heard, request.lang)
                    )
                )
                # After another value of the caller's own, only a plain yes to the offer takes it:
                # a new request ("I'd like a small car") may ask for something else again.
                or (
                    current is not None
                    and _offered_since(standing[0], current)
                    and _takes_up(r, s.text, heard, request.lang)
                    and _answered_since(readings, standing[0], n)
                )
            )
        ):
            # The caller asks for the action, or agrees, after the agent offered one value of this
            # kind and nobody turned it down, whatever was asked and answered about it between:
            # "I'd like tickets to the event you found"; "what year is it from?" ... "that would work".
            spoken_of = True
            note = "the agent offered it; the caller " + ("asked for it" if r.names_action else "took it up")
            current, taken = _offer_taken(spec, standing[0], standing[1], r, note=note), standing[0]
            standing = None
        proposed = [
            p
            for p in proposed_names(s.text)
            if not name_spans(p, spec.shown) and not _not_a_new_name(p, spec, r, request)
        ]
        first_proposed = proposed[:1] and not _proposes_own(s.text, spec)
        if (
            r.change
            and spec.kind == "text"
            and (first_proposed or not any(x.fits for x in r.said(spec.name)))
        ):
            longer = [x for x in r.said(spec.name) if x.same and x.rule == "trace.value.name"]
            if longer or proposed:
                # "make it Premium Plus", "sorry, I meant the vet": a change to another name.
                spoken_of = True
                current = ArgumentTrace(
                    spec.name,
                    spec.value,
                    "conflict",
                    "trace.changed",
                    f"the caller changed it to {(longer[0].words if longer else proposed[0])!r}",
                    source="memory" if s.origin == "memory" else "call",
                    speaker="caller",
                    at=s.at,
                    turn=s.turn,
                    message_id=s.message_id,
                    memory_id=s.memory_id,
                    words=s.text,
                    trusted=s.trusted,
                )
                continue
        said = [x for x in r.said(spec.name) if x.fits and not _searched_not_started(r, spec, x, request)]
        own = [x for x in said if x.same]
        others = [x for x in said if not x.same and not _belongs_elsewhere(x, r, spec)]
        if others and _town_of_another_thing(r, spec, request):
            others = []
        if current is not None and s.origin == "call" and s.speaker == "caller" and not own:
            # Another of its kind with nothing around it ("no, three will do"), its label unsaid.
            bare = [
                x
                for x in r.said(spec.name)
                if not x.same
                and x.rule in ("trace.value", "trace.value.label")
                and not _belongs_elsewhere(x, r, spec)
            ]
            if bare and not r.counts and r.stance == "value":
                spoken_of = True
                note = f"the caller later said {bare[-1].words!r}"
                current = _said_by(spec, r, "conflict", "trace.changed", note, span=bare[-1].span)
                continue
            names_none = not any(x.fits for said_of in r.values.values() for x in said_of)
            if (
                r.stance in ("retraction", "request")
                and not r.other_action
                and not r.agrees  # "actually yes, book it": a yes, nothing changed
                and _CHANGES.search(without_titles(s.text)) is not None
                and _FOR_NOW.search(s.text) is None
                and names_none
                and current.at is not None
                and s.at is not None
                and current.at < s.at
                and not is_question(s.text)
            ):
                mine = [x for x in forms.said_in(s.text, spec, request) if x.fits and not x.same]
                if mine:
                    # "and make the car from the 11th actually": the change says this one's value.
                    spoken_of = True
                    note = f"the caller's latest word on it is {mine[-1].words!r}"
                    current = _said_by(spec, r, "conflict", "trace.changed", note, span=mine[-1].span)
                    continue
                if not _names_a_detail(s.text, request):
                    # "actually, economy is fine", "send it there instead": something was taken
                    # back or changed, and not said what ("I'd rather have a 4 star hotel" says).
                    spoken_of = True
                    note = "the caller took something back after this was said, and did not say what"
                    current = _said_by(spec, r, "conflict", "trace.withdrawn", note)
                    continue
        if not r.counts and not _answers_agent(readings, n):
            continue

        if others and _another_request(r, spec, request):
            continue
        if own and spec.kind not in _KEY_KINDS and _asks_for_another_thing(r, spec, request):
            continue  # "and send 20 dollars to sue" after 50 to Tom: the 20 is Sue's, not Tom's

        denied_here = spec.name in r.denied or (
            r.stance == "denial" and r.denies_action and any(x.same for x in said)
        )
        if denied_here and _no_then_own(readings, n, spec, request):
            # "Check in on March 8th?" - "no next Monday": the no is to the agent's day, the
            # day after it the caller's own.
            spoken_of = True
            current = _traced(spec, r, own[0], note=f"said as {own[0].words!r} after a no to the agent's")
            continue
        if denied_here:
            spoken_of = True
            current = _said_by(spec, r, "denied", "trace.denied", "the caller said no to it")
            continue
        if not own and not others:
            continue
        if (r.stance == "denial" or (r.stance == "retraction" and not own)) and not others:
            # A change that says its own value ("six days, and make the check-in thursday
            # actually") says what is current; one that says none takes it back.
            spoken_of = True
            current = _said_by(spec, r, "conflict", "trace.withdrawn", "the caller took it back")
            continue
        spoken_of = True
        last = max(own + others, key=lambda x: x.start)
        if r.change and own and others:
            # "make that Tuesday evening, I'm out in the afternoon": a change naming both.
            current = _said_by(
                spec,
                r,
                "conflict",
                "trace.changed",
                f"the caller also said {others[-1].words!r}",
                span=others[-1].span,
            )
        elif last.same:
            current = _traced(spec, r, last)
        else:
            note = f"the caller's latest word on it is {last.words!r}"
            current = _said_by(spec, r, "conflict", "trace.changed", note, span=last.span)
    if current is not None and left_to_task and current.status == "traced":
        note = f"{current.note}; a later value of its kind was said on another task (trace.task)"
        current = dataclasses.replace(current, note=note)
    if current is not None:
        if (
            current.status == "traced"
            and current.source == "memory"
            and request.slot
            and not _slot_memory(current, readings)
        ):
            current = None
        else:
            return current
    if standing is not None and action.status == "requested" and action.rule == "trace.action.offer":
        # The caller said yes to the agent's offer to do it while this value stood offered.
        yes = action.accepted
        taken = next(
            (
                r
                for r in readings
                if yes is not None and (r.statement.text, r.statement.at) == (yes.words, yes.at)
            ),
            None,
        )
        if taken is not None and (standing[0].statement.turn or 0) < (taken.statement.turn or 0):
            return _offer_taken(
                spec, standing[0], standing[1], taken, note="offered by the agent; the caller said yes to it"
            )
    if action.status == "requested" and not spoken_of and action.turn is not None:
        carried = _from_context(spec, readings, request, closed)
        if carried is not None:
            return carried
    if spec.at_default and not spoken_of:
        return ArgumentTrace(
            spec.name,
            spec.value,
            "default",
            "trace.default",
            "the tool's default; nobody spoke of it",
            source="default",
        )
    note = "nothing the caller said gives it"
    if done_there is not None:
        note += f"; {done_there.words!r} was said for another task the agent reported done (trace.task.done)"
    if dropped is not None:
        offered_r, rule = dropped
        turn = offered_r.statement.turn
        when = f" (turn {turn})" if turn is not None else ""
        note += f"; the agent offered it{when}, and {_DROPPED[rule]} ({rule})"
    elif standing is not None:
        turn = standing[0].statement.turn
        when = f" (turn {turn})" if turn is not None else ""
        note += f"; the agent offered it{when}, and the caller never took it up"
    return ArgumentTrace(spec.name, spec.value, "missing", "trace.missing", note)


# Why an offer of the value was set aside, by the rule's id (named in the argument's note).
_DROPPED = {
    "trace.offer.changed": "the caller changed their mind",
    "trace.offer.refused": "the caller said no to it",
    "trace.offer.disliked": "the caller said it does not suit them",
    "trace.offer.others": "the caller asked for other options",
    "trace.offer.elsewhere": "the caller asked for it somewhere else",
    "trace.offer.search_again": "the caller searched for the thing again",
    "trace.offer.search": "the caller searched for something else",
    "trace.offer.replaced": "the agent put another forward",
    "trace.offer.new_results": "the agent reported a new search's results",
    "trace.offer.choice": "it was one of several, and a yes takes none of them",
    "trace.offer.unavailable": "the agent said it is not to be had",
}


# A name said not to be had, right after it: "Sophie is off on Thursday", "Nopa is fully booked".
_NOT_TO_BE_HAD = re.compile(
    r"\s*(?:is|are|'s|was|were)\s+(?:(?:sadly|unfortunately|already|now|completely)\s+)?"
    r"(?:not available|unavailable|off|away|on holiday|fully booked|booked up|sold out|closed|"
    r"not (?:working|open|in)|no longer available)\b",
    re.IGNORECASE,
)


def _unavailable(text: str, end: int) -> bool:
    """Whether the agent says the value ending at ``end`` is not to be had."""
    return _NOT_TO_BE_HAD.match(text, end) is not None


def _framed(
    offered: tuple[str, tuple[int, int] | None] | None,
    text: str,
    spec: ArgumentSpec,
    request: TraceRequest,
    named: Sequence[Said],
) -> list[tuple[int, int]]:
    """Where the agent's ``text`` puts another value in the frame an offer was said in (the
    offer's words and the value's span in them): "aloft portland airport is 3 stars" ... "the
    canopy by hilton is 3 stars" puts the other name forward, in words with no capitals to tell
    it by (``trace.offer.replaced``)."""
    if offered is None or named or spec.kind != "text":
        return []
    words, span = offered
    if span is None or not words:
        return []
    framed = frames.another_in_frame(words, span, text, _own_thing(request))
    return [framed] if framed is not None else []


def _offered_words(standing: tuple[rd.Reading, Said] | None) -> tuple[str, tuple[int, int]] | None:
    return (standing[0].statement.text, standing[1].span) if standing is not None else None


def _dropped(
    standing: tuple[rd.Reading, Said] | None, why: str, dropped: tuple[rd.Reading, str] | None
) -> tuple[rd.Reading, str] | None:
    """The offer set aside now and why, or the one before when nothing stood offered."""
    return (standing[0], why) if standing is not None else dropped


def _turned_down(
    r: rd.Reading,
    n: int,
    spec: ArgumentSpec,
    offered: rd.Reading,
    readings: Sequence[rd.Reading],
    request: TraceRequest,
    sought_at: float | None,
) -> str | None:
    """The id of the rule by which ``r`` turns down the value standing offered, or None."""
    s = r.statement
    if _sets_aside(r, spec, offered, request):
        return "trace.offer.changed"
    if s.speaker == "caller" and asks_another(s.text, request) and not _asks_of_another_kind(s.text, request):
        return "trace.offer.others"
    # "what rating do they have?" ... "4.7" ... "nope, yet again you fail": a no once the
    # questions about the offer are answered turns it down, as a no right after it does.
    if (
        s.speaker == "caller"
        and r.refuses
        and not any(x.same for x in r.said(spec.name))
        # "No thanks. Play the song you found please.": the no is to something else; "I don't
        # want to listen to that" is a no to the action on it
        and (not r.names_action or _NOT_WANTED.search(s.text) is not None)
        and not _asks_for_offered(r, s.text, request)
        and _answered_since(readings, offered, n)
    ):
        return "trace.offer.refused"
    if _dislikes(r, spec):
        return "trace.offer.disliked"  # "i don't like that one", "that doesn't work for me"
    if spec.kind == "text" and r.stance == "request" and _asks_elsewhere(s.text, request):
        return "trace.offer.elsewhere"
    # (again: the offer answered an earlier search for it, not another task's)
    if (
        spec.kind == "text"
        and s.speaker == "caller"
        and sought_at is not None
        and offered.statement.at is not None
        and sought_at < offered.statement.at
        and _searches_again(r, request)
    ):
        return "trace.offer.search_again"
    return None


# The offer in hand said not to be liked or not to do ("i don't like that one", "that one doesn't
# work for me", "not interested", "i'm not keen on it"): the caller turns it down without a no.
_DISLIKED = re.compile(
    r"\b(?:(?:i|we)\s+(?:really\s+)?(?:don'?t|do not|didn'?t)\s+(?:really\s+|quite\s+)?"
    r"(?:like|love|fancy|want)\s+(?:that|this|it|those|them)\b(?!\s+(?:to|too|much|if|when|unless|but)\b)|"
    r"(?:that|this|it|that one|this one|those)\s+(?:really\s+)?"
    r"(?:doesn'?t|does not|won'?t|will not|isn'?t|is not)\s+"
    r"(?:really\s+|quite\s+)?(?:work|suit|do it|sound (?:good|great|right)|right|good|for me|for us)\b|"
    r"\bnot (?:really\s+)?(?:interested|keen|my (?:thing|cup of tea)|for me|for us)\b)",
    re.IGNORECASE,
)


def _dislikes(r: rd.Reading, spec: ArgumentSpec) -> bool:
    """Whether the caller says the offer in hand does not suit them (:data:`_DISLIKED`: "i don't
    like that one", "that one doesn't work for me"), naming none of this argument's own value."""
    s = r.statement
    return (
        s.speaker == "caller"
        and _DISLIKED.search(s.text) is not None
        and not any(x.same for x in r.said(spec.name))
    )


def _name_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[^\W\d_]+", text.casefold()) if w not in _DETERMINERS}


_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "on", "in", "at", "for", "to", "one"})


def _not_a_new_name(proposed: str, spec: ArgumentSpec, r: rd.Reading, request: TraceRequest) -> bool:
    """Whether what a change proposes is not another name for ``spec`` after all: the kind of thing
    it names (its own words: "I'd rather prefer an apartment with 2 baths" for the apartment's
    name), or the words of a value the same statement gives another argument ("make it on my
    kitchen speaker" changes where a song plays, not the song)."""
    named = _name_words(proposed)
    if not named:
        return True
    if named <= set(spec.cues):
        return True
    return any(
        named <= _name_words(other.shown)
        for other in request.arguments
        if other.name != spec.name and other.kind == "text" and any(x.same for x in r.said(other.name))
    )


def _puts_off_now(text: str, request: TraceRequest) -> bool:
    """Whether the words put the request off ("leave it for now", "later"), its own values aside:
    "one for later today" asks for today."""
    rest = rd.without_values(text, request)
    # A verb the arguments speak of is about them ("where the bus leaves" for a leaving time).
    cues = {rd.stem(c) for a in request.arguments for c in a.cues}
    rest = re.sub(
        r"[^\W\d_]+", lambda m: m.group() if rd.stem(m.group().casefold()) not in cues else " ", rest
    )
    return defers(rest) or rd.puts_later(rest, request)


def _from_context(
    spec: ArgumentSpec,
    readings: Sequence[rd.Reading],
    request: TraceRequest,
    closed: frozenset[int] = frozenset(),
) -> ArgumentTrace | None:
    """The value said by the caller in this call about another matter, when it is the only one of its
    kind they said and nobody offered another since ("what's the weather there on March 7th?",
    then "book the appointment"): ``trace.value.context``, never trusted on its own, so the gate
    asks with the value said out and the caller's yes confirms it. Not what was said on another
    task the agent reported done (``closed``, see :func:`_closed`): "leaving march 7th" for the
    bus booked before the car is the bus's day, and gives the car none.
    """
    if spec.kind == "bool":
        return None
    found: tuple[rd.Reading, Said] | None = None
    for n, r in enumerate(readings):
        if n in closed:
            continue
        s = r.statement
        if s.origin != "call":
            continue
        if s.speaker == "agent":
            if found is not None and (
                forms.other_value_spans(s.text, spec, request) and not any(x.same for x in r.said(spec.name))
            ):
                return None  # the agent offered another value since
            continue
        if s.speaker != "caller" or r.stance in ("ignored", "record"):
            continue
        said = r.said(spec.name)
        if spec.name in r.denied or (r.stance in ("denial", "retraction") and said):
            return None
        if any(not x.same and x.fits and not _belongs_elsewhere(x, r, spec) for x in said):
            return None  # another value of its kind: which one was meant is not known
        own = [x for x in said if x.same and x.fits and not _searched_not_started(r, spec, x, request)]
        if own:
            found = (r, own[-1])
    if found is None:
        return None
    where, value = found
    traced = _traced(
        spec,
        where,
        value,
        rule="trace.value.context",
        note=f"said as {value.words!r} about another matter in this call; the caller's yes confirms it",
    )
    return dataclasses.replace(traced, trusted=False)


def _proposes_own(text: str, spec: ArgumentSpec) -> bool:
    names = proposed_names(text)
    return bool(names) and bool(name_spans(names[0], spec.shown))


def _agent_just_before(readings: Sequence[rd.Reading], n: int) -> rd.Reading | None:
    """The agent's words right before the caller's statement ``n`` (its turn's, if a part)."""
    r = readings[n]
    k = n - 1
    while k >= 0 and r.statement.part and readings[k].statement.turn == r.statement.turn:
        k -= 1
    return readings[k] if k >= 0 and readings[k].statement.speaker == "agent" else None


@rd.per_request
def _known_words_of(request: TraceRequest) -> frozenset[str]:
    said = f"{request.template} {request.description} " + " ".join(a.shown for a in request.arguments)
    return frozenset(w.casefold() for w in re.findall(r"[^\W\d_]+", said))


def _known_words(request: TraceRequest, spec: ArgumentSpec) -> frozenset[str]:
    """The words the request says itself, this value's aside: no name the agent puts forward."""
    own = {w.casefold() for w in re.findall(r"[^\W\d_]+", spec.shown)}
    return _known_words_of(request) - own


def _answers_agent(readings: Sequence[rd.Reading], n: int, *, any_stance: bool = False) -> bool:
    """Whether the caller's statement ``n`` answers a question the agent just put in this call.

    In a call about this request, "the 18th" or "just the two of us" right after the
    agent asked counts as the caller's own value, however far it is in meaning.
    """
    r = readings[n]
    if r.statement.origin != "call" or r.other_action:
        return False
    if not any_stance and r.stance not in ("value", "request", "question"):
        return False
    k = n - 1
    while k >= 0 and r.statement.part and readings[k].statement.turn == r.statement.turn:
        k -= 1  # a sentence of the turn answers what the turn answers
    before = readings[k] if k >= 0 else None
    return (
        before is not None
        and before.statement.speaker == "agent"
        and _ASKED.search(before.statement.text) is not None
    )


_ASKED = re.compile(r"\?\s*$|\b(?:what|which|when|how many|how much|where|who)\b", re.IGNORECASE)


# Words that ask for a thing not yet found: "something italian", "somewhere near the park" (not
# where to look: "find me the phone number somewhere").
_INDEFINITE = re.compile(
    r"\b(?:something|someplace|somewhere (?:else|to|that|with|near|around)|anything|"
    r"any (?:\w+ )?(?:type|kind|sort|make|model)s? of)\b",
    re.IGNORECASE,
)


def _asks_to_look(text: str) -> bool:
    """Whether the caller asks the agent to look for something ("could you find it for me?",
    "please search for one")."""
    return _look_for().search(text) is not None


@lru_cache(maxsize=1)
def _look_for() -> re.Pattern[str]:
    return re.compile(
        rf"\b(?:(?:can|could|would|will)\s+you|please)\s+(?:please\s+)?(?:{_seeking()})\b", re.IGNORECASE
    )


def _seeking() -> str:
    """The verbs that look for things (:data:`words.SEEKING`) as a pattern's alternatives, longest first."""
    return "|".join(sorted((re.escape(v) for v in words.SEEKING), key=len, reverse=True))


@lru_cache(maxsize=1)
def _new_search() -> re.Pattern[str]:
    """A verb that looks for things, with an object of no particular one ("can you find some
    psychologist?", "look for a cheaper place"), and the words that name it."""
    verbs = _seeking()
    return re.compile(
        rf"\b(?:{verbs})(?:\s+(?:for|me|us))?\s+(?:some|a|an|another)\s+"
        r"(?!(?:bit|little|moment|sec|second)\b)(?P<thing>[a-z]+(?:\s+[a-z]+)?)",
        re.IGNORECASE,
    )


def _searches_anew(text: str, request: TraceRequest) -> bool:
    """Whether the caller looks anew for things of the request's kind, or of no kind gate knows
    ("can you find some psychologist?" after a counsellor was offered). Looking for a thing of a
    family apart from the request's thing ("can you help me find an apartment there?" while a
    car is on offer) starts another task, and looking with what was offered ("a bus going
    there") keeps it: the offer stands."""
    found = _new_search().search(text)
    if found is None or _AT_OFFERED.search(text[found.start() :]) is not None:
        return False  # "help me find a bus going there": looking with what was offered
    thing = _thing_forms(request)
    for word in found.group("thing").casefold().split():
        families = _families_of(word)
        if families and all(f.isdisjoint(thing) for f in families):
            return False
    return True


def _thing_forms(request: TraceRequest) -> set[str]:
    """The words of the request's thing, each also without a plural "s"."""
    return {w for t in rd.query_thing(request) for w in (t, t.rstrip("s"))}


def _families_of(word: str) -> list[frozenset[str]]:
    """The families of :data:`words.FAMILIES` that hold ``word``, or it without a plural "s"."""
    return [f for f in words.FAMILIES if word in f or word.rstrip("s") in f]


# Words that point at what was offered: "book it", "a table there", "that one", "those tickets".
_AT_OFFERED = re.compile(
    # "this month", "that evening" say when, not what
    r"\b(?:it|that|them|this|those|these|there|one|ones)\b"
    r"(?!\s+(?:month|week|weekend|morning|afternoon|evening|night|year|time|season|quarter)\b)",
    re.IGNORECASE,
)


def _asks_for_offered(r: rd.Reading, text: str, request: TraceRequest, offered: str | None = None) -> bool:
    """Whether the caller's request asks for the action on what the agent offered (in ``offered``):
    in the action's own words or meaning ("I'd like tickets to the event you found"), pointing at
    it ("can you book a table there?"), or in a call's looser sense with at most a day, a time or
    a count ("on the 14th sounds good to me"). One in that looser sense that names a place or a
    name ("I would like Baseball around SD"), or the thing with a word the offer never said ("I
    prefer a small car"), is a new search, not a yes to the offer."""
    if r.stance != "request" or not r.names_action:
        return False
    pointer = _AT_OFFERED.search(text)
    anew = _qualified_anew_at(text, offered, request) if offered is not None else None
    if pointer is not None and not (anew is not None and anew < pointer.start()):
        # "I don't want to listen to that": a pointer in a wish said with a not refuses it;
        # "I want a small car, could you find it for me?": it is the car just asked for
        return _NOT_WANTED.search(_sentence_around(text, pointer.start())[:200]) is None
    if _INDEFINITE.search(text) is not None or (
        offered is not None and _qualified_anew(text, offered, request)
    ):
        # "I would like something italian", "find me please any type of car", "I prefer a small
        # car": a search for something, in the action's own words or not
        return False
    if r.names_plainly:
        return True
    kinds = {spec.kind for spec in request.arguments for x in r.said(spec.name) if x.fits}
    return not kinds & {"text", "ident"}


def _qualified_anew(text: str, offered: str, request: TraceRequest) -> bool:
    """Whether the caller asks for a thing of the request's kind with a word for it that neither
    the offer nor the request says ("I prefer a small car" after "a Standard car, a Honda
    Civic"): what to look for, not a yes to what was offered."""
    return _qualified_anew_at(text, offered, request) is not None


def _qualified_anew_at(text: str, offered: str, request: TraceRequest) -> int | None:
    """Where :func:`_qualified_anew` finds the thing asked for anew (None: nowhere)."""
    things = [w for w in rd.query_thing(request) if len(w) > 2]
    if not things:
        return None
    said = set(re.findall(r"[a-zà-ÿ0-9]+", offered.casefold()))
    own = set(rd.action_words(request)) | {c for a in request.arguments for c in a.cues}
    pattern = rf"\b(?:a|an)\s+([a-zà-ÿ]+)\s+(?:{'|'.join(re.escape(t) for t in things)})s?\b"
    for m in re.finditer(pattern, text, re.IGNORECASE):
        word = m.group(1).casefold()
        if word not in said and word not in own and word not in words.BESIDE_NAME:
            return m.start()
    return None


def _offer_taken(
    spec: ArgumentSpec, offered_r: rd.Reading, offered: Said, taken: rd.Reading, *, note: str = ""
) -> ArgumentTrace:
    s = offered_r.statement
    return ArgumentTrace(
        spec.name,
        spec.value,
        "traced",
        "trace.offer",
        note or "the agent offered it and the caller took it up",
        source="call",
        speaker="agent",
        at=s.at,
        turn=s.turn,
        message_id=s.message_id,
        words=s.text,
        span=offered.span,
        accepted=_accepted(taken),
        trusted=taken.statement.trusted,
    )


_ANOTHER = re.compile(
    r"\b(?:something|anything|somewhere|anywhere|someone)\s+(?:else|different)\b|"
    r"\b(?:anything|something)\s+(?:besides|other than|apart from)\b|"
    # "let me hear another", "can you find others": another option, its noun left unsaid
    r"\b(?:another|others)\b(?=\s*(?:[?.!,;]|$|please\b|then\b|instead\b|for (?:me|us)\b))|"
    r"\b(?:another|other|different|alternative|alternate)\s+"
    # "other available small cars": words that describe the thing may stand before it
    r"(?:[a-z]+\s+){0,2}?(?:ones?|options?|choices?|suggestions?|recommendations?|ideas?|results?|matches|"
    r"times?|days?|dates?|places?|restaurants?|hotels?|events?|flights?|buses|bus|"
    r"cars?|shows?|films?|movies?|houses?|apartments?|rooms?|songs?|doctors?|dentists?|salons?|stylists?)\b|"
    r"\bany(?:thing)? (?:other|others)\b|\bnot (?:that|this) one\b|"
    # "any alternatives?", "do you have an alternative": the noun is another option itself
    # ("alternative rock" is a kind of music, no option asked for)
    r"\balternatives\b|\b(?:an|any|another|other) alternative\b(?=\s*(?:[?.!,;]|$|to\b|please\b))|"
    # "could you show me more results?", "give me more": more of what a search found ("tell me
    # more" asks about the one offered)
    r"\bmore\s+(?:[a-z]+\s+)?(?:results?|options?|choices?|suggestions?|matches)\b|"
    # "tell me some more hotels", "any more italian places?": more of the kind of thing found
    # (not "two more rooms", a count, nor "tell me more", about the one offered)
    r"(?:\b(?:some|any|a few)\s+|\b(?:give|show|find|get|tell|suggest|list|recommend)\s+(?:me|us)\s+)"
    r"more\s+(?:[a-z]+\s+)?(?:places|restaurants|hotels|events|flights|buses|cars|shows|films|movies|"
    r"houses|apartments|songs|doctors|dentists|salons|stylists|properties|attractions|concerts)\b|"
    r"\b(?:give|show|find|get)\s+(?:me|us)\s+(?:some\s+)?more\b(?!\s+(?:time|days?|of|about|details|info))|"
    r"\bwhat else\b|"
    # "is there anything more available?", "anything more?": more of them, not more about one
    r"\b(?:anything|something|any)\s+more\b(?!\s+(?:about|on|of|to|than|i|we|you|for|details|info))|"
    r"\b(?:something|anything|somewhere|anywhere|one|ones) (?:cheaper|closer|nearer|better|earlier|later|"
    r"bigger|smaller|quieter)\b|"
    # "a more moderate priced place": one of the kind put as more or less of something
    r"\b(?:a|an|some)\s+(?:more|less)\s+[a-z]+(?:\s+[a-z]+)?\s+(?:ones?|places?|options?|restaurants?|hotels?|"
    r"events?|flights?|cars?|rooms?|houses?|apartments?|songs?|films?|movies?|shows?)\b|"
    # "get me better events", "any cheaper flights?": things of the kind, put as better than the
    # one offered ("the later flight" picks one of those offered)
    r"(?<!\bthe )\b(?:cheaper|closer|nearer|better|nicer|earlier|later|bigger|smaller|quieter)\s+"
    r"(?:[a-z]+\s+)?"
    r"(?:ones|options|choices|times|days|dates|places|restaurants|hotels|events|flights|buses|cars|shows|"
    r"films|movies|houses|apartments|rooms|songs|doctors|dentists|salons|stylists)\b",
    re.IGNORECASE,
)


_ASKS = re.compile(
    r"\b(?:find|search|show|get|try|suggest|recommend|offer|give|got|have|is there|are there|any|tell|list|"
    r"what about|how about|see|check|look|there (?:is|are)|want|prefer|rather|hear|next)\b",
    re.IGNORECASE,
)


_A_TIME = re.compile(r"\b(?:times?|days?|dates?)\b", re.IGNORECASE)
_ONLY_FILLERS = re.compile(
    r"[\W_]*(?:(?:ok|okay|um|uh|hmm|well|no|nah|and|then|so|right)[\W_]+)*", re.IGNORECASE
)


# Asking what else there is: "are there any fantasy movies?", "do you have any cheaper ones?"
_ANY_MORE = re.compile(
    r"\b(?:are there|is there|do you have|have you got|you got|got)\s+any(?:thing|one|where)?\b",
    re.IGNORECASE,
)


_ASKED_KIND = re.compile(
    r"\b(?:other|another|different|any|else)\s+((?:(?!(?:in|on|at|for|with|from|to|that|which|and|or|but)\b)[a-z]+\s*){1,3})",
    re.IGNORECASE,
)
_ANY_KIND = frozenset(
    {
        "one",
        "ones",
        "option",
        "options",
        "choice",
        "choices",
        "alternative",
        "alternatives",
        "thing",
        "things",
    }
    | {"place", "places", "spot", "spots", "venue", "venues", "that", "this", "which"}
    # what a search or the agent puts forward, of whatever kind ("another suggestion")
    | {"suggestion", "suggestions", "recommendation", "recommendations", "idea", "ideas", "result"}
    | {"results", "match", "matches", "possibility", "possibilities"}
)
# Words that stand for the thing asked about without naming a kind: "can you find any others?"
# asks for more of the request's own kind; "any wifi available?" names its kind in another word.
_NO_KIND = frozenset(
    {"other", "others", "else", "more", "anything", "something", "them", "those", "these", "there"}
    | {"available", "left", "results", "suggestions", "recommendations", "ideas", "possibilities"}
    # and the words of the question that goes on after it ("any others you can find?")
    | {"you", "i", "we", "they", "can", "could", "would", "will", "may", "might", "should", "do", "does"}
    | {"is", "are", "was", "were", "be"}  # "what else is there?"
    | {"please", "find", "see", "recommend", "suggest", "show", "have", "got"}
)


def _asks_of_another_kind(text: str, request: TraceRequest) -> bool:
    """Whether the caller's question for other options names things of another kind than the
    request's ("is there any other hotel?" while the request is an event's tickets): the
    request's own offer stands through it."""
    known = {w for w in re.findall(r"[a-z]+", f"{request.template} {request.description}".casefold())}
    known |= {w for a in request.arguments for w in a.cues}
    thing = _thing_forms(request)
    # The words after "other" or "any" up to the thing they name ("any other spacious cars"):
    # the thing is of the request's kind when any of them is.
    named = [m.group(1).casefold().split() for m in _ASKED_KIND.finditer(text)]
    if not named:
        return False

    def known_word(n: str) -> bool:
        return (
            n in _ANY_KIND
            or n in known
            or n.rstrip("s") in known
            or n.removesuffix("es") in known
            # "other hotels" for rooms at an accommodation: a word of the family of the request's
            # thing (not of any of its words: a hotel is no restaurant's "reservation")
            or any(not f.isdisjoint(thing) for f in _families_of(n))
        )

    def of_another_kind(phrase: list[str]) -> bool:
        content = [n for n in phrase if n not in _NO_KIND]
        return bool(content) and not any(known_word(n) for n in content)

    return all(of_another_kind(phrase) for phrase in named)


# The search asked to go on past what was found, in words that need nothing around them: "can
# you keep looking?", "search a bit further", "search again", "try another search", "look for
# more restaurants", "next one please", "is that all you have?" (not "the next one at 5": a pick
# among those listed; not "look further into it": a question about the one offered).
_GOES_ON = re.compile(
    r"\b(?:keep|carry on|go on|continue)\s+(?:looking|searching|checking|hunting)\b|\bcontinue the search\b|"
    r"\b(?:look|search|check)\s+(?:a\s+bit\s+|a\s+little\s+|some\s+)?(?:further|more|around more)\b"
    r"(?!\s+(?:into|at|for))|"
    r"\b(?:search|look|try|check)\s+(?:again|once more)\b|\b(?:another|new|fresh)\s+search\b|"
    r"\b(?:look|search)\s+for\s+(?:some\s+|a\s+few\s+)?more\b(?!\s+(?:details|info|information|about))|"
    r"\bnext\s+(?:one|option|result|suggestion|choice)s?\b(?!\s+(?:at|on|in|from|after|before)\b)|"
    r"^\W*next\W*(?:please\W*)?$|"
    r"\bis (?:that|this|it) (?:all|the only (?:one|option|choice))\b",
    re.IGNORECASE,
)


def asks_another(text: str, request: TraceRequest | None = None) -> bool:
    """Whether the caller asks for another option than the one offered ("find me something else",
    "isn't there anything else?", "are there any fantasy movies?"); saying they got something
    else ("my gp switched me to something else, so skip it") is not asking. With ``request``,
    another of its own kind of thing counts too, whatever the word ("the name of another
    therapist" for a therapist's appointment)."""
    more = _ANY_MORE.search(text)
    # "is there anything on the 9th of this month.": a question written with a stop is one
    if (more and ("?" in text or is_question(_sentence_around(text, more.start())))) or _GOES_ON.search(text):
        return True
    # "Which is the second song?": another of what was found, by its place in the list
    placed = _ANOTHER_OF_THE_LIST.search(text)
    if placed is not None and ("?" in text or is_question(_sentence_around(text, placed.start()))):
        return True
    own = _another_of_own_kind(request) if request is not None else None
    found = [*_ANOTHER.finditer(text), *(own.finditer(text) if own is not None else ())]
    for m in found:
        lead = text[max(0, m.start() - 40) : m.start()]
        if (
            _ASKS.search(lead)
            or text[m.end() :].lstrip().startswith("?")
            or text.rstrip().endswith("?")
            # "What other options do you have. I need one ticket ...": a question written with a stop
            or is_question(_sentence_around(text, m.start()))
            # "more choices please", "ok, something else": asked for by naming it first ("another
            # time" puts off, it asks for no other option)
            or (_ONLY_FILLERS.fullmatch(lead) is not None and _A_TIME.search(m.group()) is None)
        ):
            return True
    return False


# Words of an argument that measure or count, not a kind of thing ("number of seats", "total
# amount"): "another number to call" asks for no other option.
_MEASURES = frozenset({"number", "amount", "total", "count", "price", "value", "other", "quantity"})


def _another_of_own_kind(request: TraceRequest) -> re.Pattern[str] | None:
    """ "another therapist", "a different provider": another of the request's own kind of thing
    (its thing's words and its arguments' own, five letters or more, a time, a day or a measure
    aside)."""
    kinds = {
        w
        for w in (*rd.query_thing(request), *(c for a in request.arguments for c in a.cues))
        if len(w) >= 5 and w.isalpha() and _A_TIME.fullmatch(w) is None and w not in _MEASURES
    }
    return _another_of(tuple(sorted(kinds))) if kinds else None


@lru_cache(maxsize=256)
def _another_of(kinds: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(
        rf"\b(?:another|other|different|alternative|alternate)\s+(?:[a-z]+\s+){{0,2}}?"
        rf"(?:{'|'.join(map(re.escape, kinds))})s?\b",
        re.IGNORECASE,
    )


_RATHER = re.compile(r"\b(?:rather|instead|actually|prefer|on second thought)\b", re.IGNORECASE)


# An agent's words that put another option forward ("there's one at 5pm", "how about ...").
_ALTERNATIVE = re.compile(
    r"\b(?:there(?:'s| is| are)|how about|what about|(?:i|we) (?:also )?(?:found|have)|another|instead|"
    r"alternatively|also|other|else|one (?:at|that|which)|earlier|later|cheaper|next|"
    # a recommendation puts one forward: "I would suggest a Compact Cooper", "you might like"
    r"(?:i|we)(?: would| 'd|'d| can| could| might| also)? (?:suggest|recommend|propose)|"
    r"my (?:suggestion|recommendation|pick)|you (?:could|might|may) (?:try|like|enjoy|prefer))\b",
    re.IGNORECASE,
)
# A question for another item of what was found, by its place in the list ("Which is the second
# song?", "what's the last one?"): the answer puts that one forward.
_ANOTHER_OF_THE_LIST = re.compile(r"\b(?:second|third|fourth|fifth|last)\s+(?:one|\w+)\b", re.IGNORECASE)
# A caller's "how about ..." or "what about ..." that puts a thing forward ("How about a small
# car in Philadelphia?", "what about somewhere in Denver?"), not one that asks about the thing on
# offer ("what about the parking?", "how about it?"): the answer to it is a new offer.
_PROPOSES = re.compile(
    r"\b(?:how|what) about\s+(?!(?:it|its|it's|that|this|the|them|those|these|there|they|price|cost)\b)",
    re.IGNORECASE,
)
# A wish said with a not: "I don't want to listen to that", "we'd rather not book it".
_NOT_WANTED = re.compile(
    r"\b(?:don'?t|do not|doesn'?t|does not|won'?t|will not|wouldn'?t|would not|rather not|never)\s+"
    r"(?:really\s+)?(?:want|like|need|fancy|care for|book|take|get|go with|play|listen|watch|buy|reserve)\b",
    re.IGNORECASE,
)
# Words that put another option forward, in a sentence before the one that gives its values.
_PUT_ANOTHER = re.compile(r"\b(?:another|instead|alternatively|how about|what about)\b", re.IGNORECASE)
_COMPARED = re.compile(r"\b(?:earlier|later|sooner|cheaper|closer|nearer|better|bigger|smaller|next)\b", re.I)


def _answers_about_offer(
    readings: Sequence[rd.Reading], n: int, spans: Sequence[tuple[int, int]], request: TraceRequest
) -> bool:
    """Whether the agent's turn ``n`` answers the caller's question about what is on offer ("When
    will the departing flight arrive?" - "It will arrive at 2:07 pm."): its values (at
    ``spans``) are facts of that offer, not another offer. A question for another option ("is
    there a later one?"), or an answer that puts one forward in the sentence that names the
    value ("there's one at 5pm"), is a new offer; another sentence's answer ("There are 0 stops
    on the flight.") puts nothing forward, nor does a question for things of another kind than
    the request's ("are there any stops?")."""
    text = readings[n].statement.text
    if (
        any(
            _ALTERNATIVE.search(_sentence_around(text, start))
            or _OFFERS_TO_DO.search(_sentence_around(text, start))
            # "There's another good option at McCarran. It's a standard car.": what the sentences
            # before the value put forward, they describe
            or _PUT_ANOTHER.search(text[:start])
            for start, _ in spans
        )
        or (not spans and _ALTERNATIVE.search(text))
    ):
        return False  # "there's one at 5pm", "Would you like to pick it up from York?": put forward
    k = n - 1
    while k >= 0 and readings[k].statement.part:
        k -= 1
    if k < 0:
        return False
    asked = readings[k]
    question = asked.statement.text
    return (
        asked.statement.speaker == "caller"
        # "That might work. ... I also need to know what time it arrives": a question in any part
        and (asked.stance == "question" or any(asks_to_know(part) for part in [question, *clauses(question)]))
        # "are there any stops on the flight?" asks about the offer, not for another
        and not (asks_another(question, request) and not _asks_of_another_kind(question, request))
        # "Can you find me apartments with 1 bed room?": a search, whose answer is a new offer
        and not (_asks_to_look(question) and _FINDS_OUT.search(question) is None)
        and _COMPARED.search(question) is None
        and _PROPOSES.search(question) is None
        and _ANOTHER_OF_THE_LIST.search(question) is None
        and not _brings_new_values(question, readings[:k], request)
    )


# Looking into the offer, not for another ("can you find out if it has parking?").
_FINDS_OUT = re.compile(r"\b(?:find out|look into|look up|look at)\b", re.IGNORECASE)


def _brings_new_values(question: str, before: Sequence[rd.Reading], request: TraceRequest) -> bool:
    """Whether the caller's question gives a value nobody said before it in the call ("What about
    in New York City for Buddy Guy?" after an offer of another band): it puts something new
    forward, so the answer to it is a new offer, not a fact of the one before. ("When does the
    flight arrive in SF?" after the caller asked to go to SF asks about the offer.)"""
    folded = " ".join(r.statement.text for r in before if not r.statement.part).casefold()
    return any(
        x.fits and x.words.casefold() not in folded
        for spec in request.arguments
        for x in forms.said_in(question, spec, request)
    )


def _sets_aside(r: rd.Reading, spec: ArgumentSpec, offered: rd.Reading, request: TraceRequest) -> bool:
    """Whether the caller sets aside what the agent offered in ``offered`` by picking something
    else: a change of mind that names another thing, or gives another argument of that offer its
    value ("I'd rather see the Mariners game in Seattle" after the agent offered a festival on
    Monday: Monday went with the festival). A preference for a count, a day or a time the offer
    left open ("I would prefer three tickets in economy" after a flight's airline and times)
    takes nothing back from it."""
    if r.statement.speaker != "caller" or _RATHER.search(r.statement.text) is None:
        return False
    text = offered.statement.text
    return any(
        other.name != spec.name
        and any(x.same and x.fits for x in r.said(other.name))
        and (
            bool(offered.said(other.name))
            or any(x.fits for x in forms.said_in(text, other, request))
            # a name picked: the agent's offer is of a named thing ("Ortega Tapas has a table");
            # one of a fixed set ("on my TV instead") is a setting of the request, not a thing
            or (other.kind == "text" and not other.choices)
        )
        for other in request.arguments
    )


_NO_FIRST = re.compile(r"^\W*(?:no|nope|nah|non|nein)\b[\s,.;:!-]*", re.IGNORECASE)


_NONE_FOUND = re.compile(
    r"\b(?:there (?:is|are|'s) (?:no|nothing|none)|(?:no|none|nothing) (?:other|else|more)|"
    r"(?:the )?only (?:one|option)|(?:couldn't|could not|can't|cannot|didn't|did not) find|"
    r"not (?:available|right now)|none (?:available|left))\b",
    re.IGNORECASE,
)


_REGRET = frozenset({"no", "nope", "sorry", "unfortunately", "i'm", "im", "i", "am", "afraid", "but", "oh"})


def _none_found(text: str) -> bool:
    """Whether the agent's turn answers a search for other options with none ("No, sorry, that's
    the only one", "There is nothing else on the 13th", "I couldn't find any other") and puts
    nothing else forward: each other phrase is regret alone, or a fact that names nothing and
    offers nothing ("the flight arrives at 1:47 am"); "Bella Roma has one at 8pm, there is no
    other" names another."""
    phrases = [p.strip() for p in re.split(r"[.!?,;]", text) if p.strip()]
    return any(_NONE_FOUND.search(p) for p in phrases) and all(
        _NONE_FOUND.search(p)
        or set(re.findall(r"[a-z']+", p.casefold())) <= _REGRET
        or (_ALTERNATIVE.search(p) is None and _NAMED_INSIDE.search(p) is None)
        for p in phrases
    )


# A capitalised word after a phrase's first: a name in the agent's written words.
_NAMED_INSIDE = re.compile(r"(?<=\s)[A-Z][a-z]+")


def _no_then_own(readings: Sequence[rd.Reading], n: int, spec: ArgumentSpec, request: TraceRequest) -> bool:
    """Whether the caller's statement ``n`` opens with a no and then says this argument's own value,
    right after the agent put another value of its kind to them: a correction, not a denial."""
    r = readings[n]
    text = r.statement.text
    lead = _NO_FIRST.match(text)
    own = [x for x in r.said(spec.name) if x.same and x.fits]
    # "no, next Monday", "no on the 5th": at most two words between the no and the value, besides
    # the argument's own label ("no, the check-in date is March 6th").
    between = re.findall(r"[a-zà-ÿ0-9']+", text[lead.end() : own[0].start].casefold()) if lead and own else []
    label = {*spec.cues, "the", "my", "our", "is", "it's", "its", "will", "be", "should", "date", "time"}
    if lead is None or not own or len([w for w in between if w not in label]) > 2:
        return False
    before = readings[n - 1] if n > 0 else None
    return (
        before is not None
        and before.statement.speaker == "agent"
        and not before.said(spec.name)
        and bool(forms.other_value_spans(before.statement.text, spec, request))
    )


_PLACE_NAMED = re.compile(r"\b(?:at|in|to|from|near)\s+(?:the\s+)?[A-Z][\w'’&-]*")


def _asks_elsewhere(text: str, request: TraceRequest) -> bool:
    """Whether a request names a place in written text that is none of the request's values ("I
    need a car in Paris, France on the 2nd" after the agent offered one at McCarran): what the
    agent offered before is not what the caller now asks for."""
    owned = [span for spec in request.bound for span in forms.value_spans(text, spec, request)]
    for m in _PLACE_NAMED.finditer(without_titles(text) if text != text.casefold() else ""):
        start = m.end() - len(m.group().split()[-1])
        if not any(a <= start < b for a, b in owned):
            return True
    return False


def _names_a_detail(text: str, request: TraceRequest) -> bool:
    """Whether a change says what it changes, though not one of the arguments: a number, a day,
    a time or an amount ("I'd rather have a 4 star hotel"), or a place named in written text
    ("make it available at Fremont")."""
    if forms.mentions_in(rd.without_values(text, request), request.lang):
        return True
    return _PLACE_NAMED.search(without_titles(text) if text != text.casefold() else "") is not None


def _takes_up(r: rd.Reading, text: str, heard: str = "", lang: str | None = None) -> bool:
    """Whether the caller's reply takes up what the agent just offered (``heard``, the agent's
    words): it opens with agreement, answers each of the agent's questions with a yes for the
    offer among them, or is a yes to the agent's words as the confirmation reader reads a yes
    ("Yea, that's fine", "Yes, that is the one I wanted to hear").

    "Sounds good to me. Could you find hotels too?" takes the offer and moves on;
    "yes, but for three" agrees and changes (the change is read as the latest value).
    """
    if r.refuses:
        return False
    return _agrees_first(r, text) or _answers_each(r, text) or _reads_as_yes(text, heard, lang)


def _reads_as_yes(text: str, heard: str, lang: str | None) -> bool:
    """Whether the confirmation reader (:func:`gate.confirm.read_answer`) reads the reply as a yes
    to the agent's words: the same reader, and the same vetoes, as a yes to the gate's own
    question; its no, change and unclear take nothing up."""
    if not heard:
        return False
    from gate.confirm import read_answer

    reading = read_answer(text, question=heard, lang=lang or "en")
    if reading.answer != "yes":
        return False
    if not reading.side_question:
        return True
    # A yes with a question after it ("perfect, what's the address?") takes the offer up when
    # what comes before the question agrees in words of agreement: "please tell me the stations"
    # has only the "please" of a request for information.
    head = text[: max(0, text.find(reading.side_question))]
    return _only_agreement(head) and any(w in words.AGREEMENT and w != "please" for w in _words_of(head))


def _agrees_first(r: rd.Reading, text: str) -> bool:
    """Whether the reply opens with agreement: alone, or before the offer's details or a wish."""
    first = re.split(r"[.!?;]|,\s+(?:but|now|and|so)\b", text, maxsplit=1)[0]
    if not _says_agreement(first):
        return False  # "thanks. can you cancel my gym membership?": politeness, then another matter
    if _only_agreement(first):
        return True
    # "sure, on the 14th": agreement, then the details of what was offered; "that works for me,
    # can you book it": agreement, then the request for it
    head, comma, tail = first.partition(",")
    if comma and _only_agreement(head) and not is_question(tail):
        return _gives_any(r) or (states_wish(tail.strip()) and not r.other_action and not asks_another(text))
    return False


_PHRASES = re.compile(r"[.!?;,]|\b(?:and|but)\b", re.IGNORECASE)


def _answers_each(r: rd.Reading, text: str) -> bool:
    """Whether the reply answers an agent's turn of several questions, one phrase each: a phrase
    of agreement alone and the others giving values ("For how many seats, and are you going to
    4175 Blacow Road?" - "Just 1 person and yes, that's perfect"). A question or a phrase that
    neither agrees nor gives a value ("1 person, and I'm not sure") takes nothing up."""
    phrases = [p for p in _PHRASES.split(text) if p.strip()]
    if len(phrases) < 2 or "?" in text or not _gives_any(r) or asks_another(text):
        return False
    agreeing = [p for p in phrases if _only_agreement(p)]
    giving = [p for p in phrases if p not in agreeing and _phrase_gives(r, text, p)]
    return bool(agreeing) and len(agreeing) + len(giving) == len(phrases)


def _phrase_gives(r: rd.Reading, text: str, phrase: str) -> bool:
    """Whether a value the reading found lies in ``phrase`` of ``text`` (its first occurrence)."""
    at = text.find(phrase)
    return at >= 0 and any(at <= x.start < at + len(phrase) for v in r.values.values() for x in v if x.fits)


def _said_by(
    spec: ArgumentSpec,
    r: rd.Reading,
    status: ArgumentStatus,
    rule: str,
    note: str,
    *,
    span: tuple[int, int] | None = None,
) -> ArgumentTrace:
    """An argument's trace to what the caller said in ``r``."""
    s = r.statement
    return ArgumentTrace(
        spec.name,
        spec.value,
        status,
        rule,
        note,
        source="memory" if s.origin == "memory" else "call",
        speaker="caller",
        at=s.at,
        turn=s.turn,
        message_id=s.message_id,
        memory_id=s.memory_id,
        words=s.text,
        span=span,
        trusted=s.trusted,
    )


def _belongs_elsewhere(x: Said, r: rd.Reading, spec: ArgumentSpec) -> bool:
    """Whether another value said is another argument's own ("back on Friday" is the return date)."""
    return any(
        y.same and y.fits and y.start < x.end and x.start < y.end
        for name, said in r.values.items()
        if name != spec.name
        for y in said
    )


_ALSO_AGREEING = frozenset(
    {
        *(
            "book",
            "it",
            "that",
            "one",
            "do",
            "go",
            "ahead",
            "please",
            "let's",
            "with",
            "by",
            "to",
            "me",
            "us",
        ),
        *("all", "is", "be", "would", "will", "sure", "definitely", "absolutely", "sounds", "good", "nice"),
        *("fine", "great", "perfect", "ok", "okay", "yeah", "yes", "yep", "thats", "that's", "i'm", "im"),
        *("happy", "really", "just", "so", "quite", "pretty", "very", "totally", "cool", "alright"),
    }
)


def _words_of(text: str) -> list[str]:
    """The words of a reply, each "no problem" read as the "ok" it means."""
    return re.findall(r"[a-zà-ÿ']+", rd.without_no_trouble(text).casefold())


def _says_agreement(text: str) -> bool:
    """Whether the words say more than thanks or goodbye ("thanks." alone agrees to nothing)."""
    return any(w not in _THANKS_ONLY for w in _words_of(text))


# Thanks, goodbye and what goes with them: no agreement to anything offered.
_THANKS_ONLY = frozenset(
    {
        *("please", "thank", "thanks", "you", "so", "much", "very", "a", "lot", "then", "oh", "ta"),
        *("cheers", "bye", "goodbye", "appreciate", "it", "danke", "vielen", "sehr", "merci"),
        *("beaucoup", "gracias", "muchas"),
    }
)


def _only_agreement(text: str) -> bool:
    """Whether the reply is agreement and politeness alone ("yes please", "that works, thanks")."""
    said = _words_of(text)
    allowed = (
        words.AGREEMENT
        | words.CLOSING
        | {"book", "it", "that", "one", "do", "go", "ahead", "please", "let's"}
        # "that would work", "sounds good to me", "i like it", "that's the one for us"
        | {"would", "will", "be", "is", "to", "me", "for", "us", "i", "like", "love", "that's", "it's"}
        | {"this", "just", "all", "really", "the", "then"}
        # "i'll take that one", "we'll go with it", "i'd have that"
        | {"take", "have", "with", "i'll", "we'll", "i'd", "we'd"}
        # "yeah, i'm fine with that", "we're happy with it"
        | {"i'm", "we're", "am", "are", "happy"}
        # "of course", "i like the sound of that", "ok, that's great and sounds good to me",
        # "i'm interested in that one"
        | {"of", "course", "sound", "and", "interested", "in"}
    )
    # Speech-to-text drops apostrophes: "thats great", "im happy with it".
    bare = {w.replace("'", "") for w in allowed}
    return bool(said) and all(w in allowed or w.replace("'", "") in bare for w in said)


def _slot_memory(current: ArgumentTrace, readings: Sequence[rd.Reading]) -> bool:
    for r in readings:
        if r.statement.memory_id == current.memory_id:
            return _in_slot(r.statement)
    return False


def _offered_of_kind(r: rd.Reading, spec: ArgumentSpec, request: TraceRequest) -> int:
    """How many values of this argument's kind the agent's words name (a plain yes takes up only one).

    Names cannot be counted by kind: an offer of a name with a choice in it ("your checking
    account, or your savings account?") counts as more than one.
    """
    if spec.kind == "text":
        named = r.said(spec.name)
        text = r.statement.text
        # A choice in the sentence that names the value ("X, or Y?"); an "or" in another
        # sentence ("... Or you can pick any of 10 others.") offers no other name.
        choice = any(
            _CHOICE.search(_sentence_around(text, x.start))
            or alternatives(text, x.start, x.end)
            or _in_a_list(text, x.start, x.end)
            for x in named
        )
        # The same name said twice ("Boulevard, at 40001 Fremont Boulevard") is one offer.
        distinct = {" ".join(x.words.casefold().split()) for x in named}
        return len(distinct) + (1 if named and choice else 0)
    text = r.statement.text
    # A value the call gives another argument of this kind is that argument's offer, not another
    # choice for this one ("the outbound flight leaves at 8:30, the return flight at 11:55").
    claimed = {
        span
        for other in request.arguments
        if other.name != spec.name and other.kind == spec.kind
        for span in forms.agent_offers(text, other, request)
    }
    own = len(r.said(spec.name))
    others = len(
        [
            span
            for span in forms.other_value_spans(text, spec, request)
            # "The 14th is sold out. Would you like the 15th instead?": one day on offer
            if span not in claimed and not _unavailable(text, span[1])
        ]
    )
    return own + others


# Names listed with commas and no "and" ("4 movies: Dumbo, Hellboy, Mad Max: Fury Road"): another
# listed name right before the value with a comma or colon before it, or two right after it.
# A list also follows the words that put options forward ("There's Luxury, Regular, any type
# that you want").
_LISTED_BEFORE = re.compile(
    r"(?:[:,]|\b[Tt]here(?:'s| is| are)|\b[Ww]e have|\b[Yy]ou can (?:have|choose|pick)|\b[Ee]ither)"
    r"\s*[A-Z][^,:;.!?]{0,40},\s*$"
)
_LISTED_AFTER = re.compile(r"^\s*,\s*[A-Z][^,:;.!?]{0,40},\s*[A-Z]")
# A list of three or more in lower case, read out after a lead ("there's dogman, hackers, and high
# life."): items of one to four words, no digits, to the end of the sentence.
_LOWER_LIST = re.compile(rf"{forms.LIST_LEAD}({forms.READ_OUT_LIST})\s*(?:[.?!]|$)")


# A name put forward as a question of its own ("Mary Magdalene?", "Or Hackers?", "Perhaps Ramen
# Shop?"): a lead that offers, then only a name's words.
_NAME_QUESTION = re.compile(
    r"^\s*(?:(?i:or|and|perhaps|maybe|possibly|how about|what about)\s+)*"
    r"(?:[A-Z0-9][\w'’&.-]*)(?:\s+(?:[A-Z0-9][\w'’&.-]*|of|the|and|a|an|in|on|at|de|la|&|-))*\s*\?\s*$"
)


def _in_a_list(text: str, start: int, end: int) -> bool:
    """Whether the name at ``start:end`` is one of a list of names the agent read out: with
    commas, or one name a question ("Little Woods? Mary Magdalene? Perhaps Ramen Shop?")."""
    if _LISTED_BEFORE.search(text[:start]) or _LISTED_AFTER.match(text[end:]):
        return True
    if text == text.casefold():
        # Words as speech-to-text writes them carry no capitals: "there's dogman, hackers, and
        # high life" is a list by its commas and its short items ("the bristol apartment homes,
        # the location is 1550 valley glen drive, it has 1 bed room and 1 bath" describes one).
        return any(m.start(1) <= start and end <= m.end(1) for m in _LOWER_LIST.finditer(text))
    sentences = _sentences(text)
    at = next((n for n, (a, b) in enumerate(sentences) if a <= start < b), None)
    if at is None or not _NAME_QUESTION.match(text[sentences[at][0] : sentences[at][1]]):
        return False
    near = [sentences[n] for n in (at - 1, at + 1) if 0 <= n < len(sentences)]
    return any(_NAME_QUESTION.match(text[a:b]) for a, b in near)


def _sentences(text: str) -> list[tuple[int, int]]:
    """Where each sentence of ``text`` starts and ends (empty ones left out)."""
    bounds = [0, *(m.end() for m in _SENTENCE_END.finditer(text)), len(text)]
    return [(a, b) for a, b in itertools.pairwise(bounds) if text[a:b].strip()]


def _sentence_around(text: str, at: int) -> str:
    """The sentence of ``text`` around ``at``, or the question within it when a second is joined
    on with "and" ("Is 565 University Avenue your destination and would you like a regular or
    luxury ride?": the choice is the second question's, not the address's)."""
    start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, at)), default=0)
    end = next((m.start() for m in _SENTENCE_END.finditer(text, at)), len(text))
    start = max((m.end() for m in _NEXT_QUESTION.finditer(text, start, at)), default=start)
    end = next((m.start() for m in _NEXT_QUESTION.finditer(text, at, end)), end)
    return text[start:end]


_NEXT_QUESTION = re.compile(
    r",?\s+and\s+(?=(?:would|do|does|did|what|which|when|where|how|can|could|shall|should|will|is|are)\b)",
    re.IGNORECASE,
)


# A sentence ends at its stop, not at a "!" inside a list of titles ("Captain Marvel, Shazam! or
# The Poseidon Adventure?").
_SENTENCE_END = re.compile(r"(?:[.?]|!(?!\s+(?:or|and)\b))(?:\s+|$)")
_KEY_KINDS = frozenset({"ident", "text"})
# A choice in the sentence: "X or Y", "either", "which one", or a list ("Dogman, Hackers and High Life").
# A choice: "X or Y", "which one", or a list of names ("Rhubarb, Ottolenghi and Nopi"); not a
# description's list ("located on 5th Street, with 3 bedrooms and 1 bath").
_CHOICE = re.compile(
    r"\b(?:or|either|which (?:one|of))\b|"
    r",\s*(?:(?-i:[A-Z])|(?:the|a|an)\s)(?:\S*\s+){0,5}?and\s+(?:(?-i:[A-Z])|(?:the|a|an)\s)",
    re.IGNORECASE,
)


# The agent's words report what a new search found ("Search revealed 9 results", "I found 3
# more", "there are 4 other hotels").
_NEW_RESULTS = re.compile(
    r"\b(?:search(?:ed)? (?:revealed|returned|found|shows?)|"
    r"(?:i|we) (?:(?:have|did|also|just|was able to|were able to|could|can) )*"
    r"(?:found|find|located|came up with) "
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|some|several|a few|many|\w+ (?:more|other))|"
    r"\d+ (?:more |other )?(?:results?|matches|options))\b",
    re.IGNORECASE,
)


def _new_results(r: rd.Reading, request: TraceRequest) -> bool:
    """Whether the agent's words report a new search's results for the request's own kind of
    thing without naming the value that stood offered: what they put forward replaces it
    ("I found 10 possible hotels" leaves the event offered before standing)."""
    text = r.statement.text
    return _NEW_RESULTS.search(text) is not None and (
        r.about >= rd.RELATED or rd.shares_word(text, _own_thing(request))
    )


def _own_thing(request: TraceRequest) -> list[str]:
    """The thing the action is on, as the query and the tool's description name it ("tickets";
    "Buy tickets for a bus itinerary")."""
    return [*rd.query_thing(request), *rd.content_words(request.description)]


def _searches_again(r: rd.Reading, request: TraceRequest) -> bool:
    """Whether the caller searches again for the request's own kind of thing ("look for three
    star hotels"): what the agent offered before it is no longer what they want."""
    return (
        r.stance == "request"
        and r.other_action
        and r.counts
        and rd.shares_word(r.statement.text, rd.query_thing(request))
    )


def _searched_not_started(
    r: rd.Reading, spec: ArgumentSpec, x: Said, request: TraceRequest, said_by: rd.Reading | None = None
) -> bool:
    """Whether a place said in a search for other things ("look in San Fran for the Giants game"),
    or in the agent's answer to one (``said_by``: "the races are at York Racecourse"), is read as
    where a journey starts: the search says where the thing found is, which a journey there ends
    at; it starts there only when the words say so ("from San Fran"). A search for the request's
    own thing ("buses departing Sacramento") says where it starts."""
    # Read for every value of every statement: the thing's words are looked at only when the
    # place is said without "from" in a search.
    if not (
        r.other_action
        and spec.kind == "text"
        and spec.role == "from"
        and forms.role_at((said_by or r).statement.text, x.start) != "from"
    ):
        return False
    thing = _own_thing(request)
    return not rd.shares_word(r.statement.text, thing) and (
        # the agent's answer names the place of the request's own thing ("a compact car, available
        # at Charles de Gaulle International Airport")
        said_by is None or not rd.shares_word(said_by.statement.text, thing)
    )


def _town_of_another_thing(r: rd.Reading, spec: ArgumentSpec, request: TraceRequest) -> bool:
    """Whether another town said for a place with no direction is the town of something else the
    caller asks for ("find a concert to see in NY", in a call that books a restaurant): a search
    or request for other things, that names neither the request's own thing nor one of its names
    ("I want to see Low. Do they play in NYC?" asks where the event asked for is)."""
    return (
        r.other_action
        and spec.kind == "text"
        and spec.role is None
        and bool(forms.PLACE_CUES & set(spec.cues))
        and not rd.shares_word(r.statement.text, _own_thing(request))
        and not any(
            x.same and x.fits
            for other in request.arguments
            if other.name != spec.name and other.kind in ("text", "ident")
            for x in r.said(other.name)
        )
    )


def _another_request(r: rd.Reading, spec: ArgumentSpec, request: TraceRequest) -> bool:
    """Whether a statement with another value for ``spec`` is another request rather than a change.

    Only for what names the thing acted on (an identifier, a name): a request of
    its own for the action ("please ship order A-1002", "also pay Ann 30") that
    does not say it replaces the first.
    """
    if spec.kind not in _KEY_KINDS or spec.choices or forms.alternatives_of(spec.shown):
        # a class or a choice ("standard", "full-size") is one per request: a change; unless the
        # statement asks for the action on another thing ("and send 20 dollars to sue" after 50
        # to Tom): its amount is that request's
        return _asks_for_another_thing(r, spec, request)
    if spec.role is not None and forms.PLACE_CUES & set(spec.cues):
        return False  # where a journey starts or ends is one per journey: "I'd like to leave from Washington"
    if r.stance != "request" or not r.names_action or r.change:
        return False
    if _NO_FIRST.match(r.statement.text) and not _ALSO.search(r.statement.text):
        return False  # "Okay, 50 dollars to Tom?" ... "no, send it to sue": a correction
    if forms.names_the_thing(r.statement.text):
        return False  # "title it House": the name of the thing in hand, not another thing's
    if forms.PLACE_CUES & set(spec.cues):
        # A place is where the thing is, one per request: another town for the event asked for
        # ("do they perform in NYC?") changes it; one said with another thing's identifier
        # ("and ship A-1002 to Leeds") is that other request's.
        return any(
            x.fits and not x.same
            for other in request.arguments
            if other.kind == "ident"
            for x in r.said(other.name)
        )
    return True


# Words that say a request is one more besides the first ("and also ship A-1002", "as well").
_ALSO = re.compile(
    r"\b(?:"
    + "|".join(
        sorted(
            (re.escape(w) for w in words.ALSO_MARKERS if w not in ("and", "second", "another")),
            key=len,
            reverse=True,
        )
    )
    + r")\b",
    re.IGNORECASE,
)


def _asks_for_another_thing(r: rd.Reading, spec: ArgumentSpec, request: TraceRequest) -> bool:
    """Whether ``r`` is a request of its own, not marked as a change, that names another identifier
    or name than the request's for another argument and not the request's own."""
    if r.stance != "request" or not r.names_action or r.change or _NO_FIRST.match(r.statement.text):
        return False
    return any(
        other.name != spec.name
        and other.kind in _KEY_KINDS
        and not other.choices
        and any(x.fits and not x.same for x in r.said(other.name))
        and not any(x.same for x in r.said(other.name))
        for other in request.bound
    )


_ASKS_FROM = re.compile(
    r"\b(?:from|leav\w*|depart\w*|start\w*|located|pick(?:ing)?\s+(?:you\s+)?up|origin|where are you)\b", re.I
)
_ASKS_TO = re.compile(r"\b(?:to|going|headed|heading|destination|arriv\w*|drop\w*|travel\w* to)\b", re.I)


# Words that say the caller changes what they asked for (not that they put it off).
_CHANGES = re.compile(
    r"\b(?:actually|instead|rather|make (?:it|that)|i meant|change (?:it|that)|switch (?:it|that)|"
    r"on second thoughts?|en fait|plutôt|finalement|laissez tomber|eigentlich|lieber|stattdessen|"
    r"mejor|en realidad|en vez|en lugar)\b",
    re.IGNORECASE,
)


# Words that put the request off rather than change it ("not now, I'll decide later").
_FOR_NOW = re.compile(
    r"\b(?:not now|for now|not yet|later|decide|think (?:about|it over)|sleep on|hold off|wait)\b", re.I
)


def _one_part_each(
    arguments: tuple[ArgumentTrace, ...], request: TraceRequest, readings: Sequence[rd.Reading]
) -> tuple[ArgumentTrace, ...]:
    """One mention of a place is not both where a journey starts and where it ends.

    When a "from" and a "to" argument are traced to the same words, the sentence decides when it
    marks the start elsewhere ("go Philly from New York": Philly is where it ends); otherwise the
    agent's question they answer does ("where are you leaving from?"), unless it asks for both
    ends; when nothing decides, neither is traced (``trace.value.role``).
    """
    specs = {s.name: s for s in request.arguments}
    out = list(arguments)
    for i, a in enumerate(out):
        for j in range(i + 1, len(out)):
            b = out[j]
            ra, rb = specs[a.name].role, specs[b.name].role
            same = (
                a.status == b.status == "traced"
                and a.span is not None
                and (a.turn, a.span) == (b.turn, b.span)
            )
            if not same or not ra or not rb or ra == rb or a.words != b.words:
                continue
            wanted = _other_end_named(readings, a) or _end_asked(_asked_before(readings, a.turn))
            for k, role in ((i, ra), (j, rb)):
                if role != wanted:
                    out[k] = dataclasses.replace(
                        out[k], status="missing", rule="trace.value.role", note="said once, for another part"
                    )
    return tuple(out)


def _end_asked(asked: str | None) -> str | None:
    """The end of a journey the agent's question asks for, or None when it asks for neither or
    both ("From where are you leaving, and where to?")."""
    if not asked:
        return None
    start, end = _ASKS_FROM.search(asked), _ASKS_TO.search(asked)
    if start and end:
        return None
    return "from" if start else "to" if end else None


# A place said with its start marked: "from New York", "out of Boston", "leaving Chicago".
_START_NAMED = re.compile(r"\b(?:from|out of|leaving)\s+(?:the\s+)?[^\W\d_]", re.IGNORECASE)


def _other_end_named(readings: Sequence[rd.Reading], a: ArgumentTrace) -> str | None:
    """``to`` when the sentence that says the place without a direction names where the journey
    starts elsewhere in it ("I want to go Philly from New York"): the place said bare is the
    other end."""
    if a.span is None:
        return None
    for r in readings:
        s = r.statement
        at, until = a.span
        if s.turn != a.turn or s.speaker != "caller" or s.text != a.words:
            continue  # (a long turn is also read sentence by sentence: the span is in one text)
        begin, sentence_end = next(((b, e) for b, e in _sentences(s.text) if b <= at < e), (0, len(s.text)))
        for m in _START_NAMED.finditer(s.text, begin, sentence_end):
            if not (at <= m.start() < until) and not (m.start() <= at < m.end() + 1):
                return "to"
    return None


def _asked_before(readings: Sequence[rd.Reading], turn: int | None) -> str | None:
    if turn is None:
        return None
    for r in readings:
        if r.statement.turn == turn - 1 and r.statement.speaker == "agent":
            return r.statement.text
    return None


def _verdict(
    action: ActionTrace, arguments: Sequence[ArgumentTrace], readings: Sequence[rd.Reading]
) -> Trace:
    bound = [a for a in arguments if a.status != "unchecked"]
    against = tuple(
        r.statement.memory_id
        for r in readings
        if r.statement.memory_id and r.stance == "denial" and r.statement.trusted
    )
    supporting = tuple(
        dict.fromkeys(
            x
            for x in [action.memory_id, *(a.memory_id for a in bound if a.status == "traced")]
            if x is not None
        )
    )
    if action.status == "denied":
        return Trace(
            action,
            tuple(arguments),
            "denied",
            "trace.action.denied",
            "the caller said no to this",
            trusted=action.trusted,
            against=_cited(action, against),
        )
    denied = [a for a in bound if a.status == "denied"]
    if denied:
        names = ", ".join(a.name for a in denied)
        return Trace(
            action,
            tuple(arguments),
            "denied",
            "trace.denied",
            f"the caller said no to {names}",
            trusted=all(a.trusted for a in denied),
            against=tuple(a.memory_id for a in denied if a.memory_id),
        )
    ok = [a for a in bound if a.status in ("traced", "default")]
    trusted = action.trusted and all(a.trusted for a in ok)
    if action.status == "requested" and len(ok) == len(bound):
        return Trace(
            action,
            tuple(arguments),
            "supported",
            "trace.supported",
            "the caller asked for this, and said every value",
            trusted=trusted,
            supporting=supporting,
        )
    missing = [a.name for a in bound if a.status not in ("traced", "default")]
    if action.status != "requested":
        reason = action.note or "the caller never asked for this"
        rule = action.rule
    else:
        reason = "nothing the caller said gives " + ", ".join(missing)
        rule = next(a.rule for a in bound if a.status not in ("traced", "default"))
    verdict: Verdict = "partial" if ok or action.status == "requested" else "none"
    sources = {a.memory_id or a.message_id for a in bound if a.status == "traced"}
    bare = (
        action.status == "missing"
        and bool(bound)
        and len(ok) == len(bound)
        and any(a.status == "traced" for a in bound)
        and all(r.bare for r in readings if (r.statement.memory_id or r.statement.message_id) in sources)
    )
    return Trace(
        action,
        tuple(arguments),
        verdict,
        rule,
        reason,
        trusted=trusted,
        supporting=supporting,
        bare=bare,
    )


def _cited(action: ActionTrace, against: tuple[str, ...]) -> tuple[str, ...]:
    if action.memory_id is not None:
        return (action.memory_id,)
    return against
