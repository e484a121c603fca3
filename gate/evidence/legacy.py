"""What counts as support: about the action, values as values, stated by the caller, not denied, current.

The stock verify-before-act rule counts any trusted memory the query
happens to retrieve. gate reads each memory and gives it a *stance* towards
the requested action (:func:`read`), then keeps what is current
(:func:`judge`):

``support``
    (a) it is about the action: its cosine similarity with the rendered
    evidence query (all-MiniLM-L6-v2, the embedder gate ships) is at least
    :data:`CLEAR_THRESHOLD`, or at least :data:`ABOUT_THRESHOLD` and it
    names the action or its object (a word of the query, of the same stem,
    or of the same family: "end" for "cancel", "parcel" for "deliver"), and
    when it asks for an action in so many words, that action is the query's
    ("please add my wife to the joint account" is not about closing it) and
    is done on the query's object ("please cancel my premium seats for the
    opera" does not cancel the premium plan);
    (b) every bound value is mentioned *as a value* (:func:`gate.values.mentions`:
    "1,500" is 1500 and never 500, "thu" is Thursday, identifiers exact) or
    is the memory's slot value, in the part the request gives it ("from
    lisbon" is not a flight to Lisbon, "transfer 400 from account X" does
    not send to X), a name whole ("gold plus" or "rose gold" is not "gold"),
    and, when the memory holds two requests ("refund 40 on x-19 and 300 on
    x-20"), all of them in the same one, and in the clause of the verb that
    asks when that clause names another value or another thing ("it's
    booked for 3 days, extend it by 2"; "reorder my lisinopril, the
    amlodipine one is fine"); in the query's currency, period, and bound
    ("500 dollars" is not 500 pounds, "85 a quarter" not 85 a month, "any
    time after 2pm" not 2pm); with the query's label ("order 4471" is not
    "4471 pounds"), and not inside a clause that says when something else
    happened ("the booking I made on monday"); where the query qualifies its
    thing ("delivery address"), the memory does not name the same thing
    with another qualifier ("billing address"), nor another place or party
    after the query's preposition ("at the groomer" for "at the vet");
    (c) no clause denies a value or the action
    (:func:`gate.utterance.scopes`, plus the engine's ``negated`` flag when the
    clause reading cannot place it) and it does not ask for the opposite
    ("keep" against "cancel"); (d) it is the caller's own stated wish: a
    request or preference, not a question (nor "i want to know if"), not on a
    condition ("if the price goes up, cancel it"; "if possible" is
    politeness), not a wish about the past, not about or for someone else,
    not the agent's words, not text labelled as from elsewhere (any short
    label before a colon: "Supplier tip:", "Recommended next step:") or
    addressed to the caller ("set your direct debit to ..."), not text
    that tries to instruct the agent or speaks of "the caller" in the third
    person, not taken back later in the same breath ("book it for 4pm,
    or actually, let me ring them myself"), and not for a later time the
    request does not name ("cancel it at the end of the month"). The gate's own
    records ("I confirm: <query>." after the caller's yes, "I request:
    <query>.") support exactly the query they name, and only when trusted;
    an untrusted text in that form is an imitation and supports nothing.
``against``
    About the action, mentioning a bound value, and denying it or the action,
    or asking for the opposite: "i can never do thursday", "do not cancel my
    premium plan, ever", "never send money to account 12345678". A trusted
    one makes the decision ``abstain`` and is returned with ``role="against"``
    and named in the reason.
``retract`` / ``change`` / ``undo``
    A statement that withdraws something on the same matter ("forget the
    sunday delivery"), names another value of a bound kind ("actually make
    it monday", "can we do thursday instead"), or withdraws what was said
    just before without naming it ("scratch that", "hold off on that",
    "actually a replacement would be better", "sorry, wrong address"). None
    supports anything.

(e) Only what is current counts: a support is void when a later memory is
against it, retracts, changes or (right after it) undoes it, or is anything
else the caller said right after it that is not a request for it (``after``:
both times known, never a slot's standing fact or the gate's own record); an ``against``
is void the same way when a later memory supports. Memories without a time
(hosted answers) are treated as possibly later than any other, so a mixed
answer never acts.

Calibration (``tests/data/evidence_set.yaml``, run by
``tests/test_evidence_set.py``, which prints the figures and every miss):
true supports in paraphrase reach 0.43-0.98 with the query, while
memories that only share the values ("i'd like a paris themed cake for
sunday" against "book a flight to paris on sunday": 0.60; "2 tickets for
the concert on saturday at 8 pm" against a table for 2 on saturday at
20:00: 0.44) overlap that range. So similarity alone never decides below
0.75; the floor of 0.40 keeps unrelated memories out, and the word check
separates the rest.

Nothing here does I/O or raises on odd text; :func:`judge` is a pure
function of the memories it is given.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Literal

from gate import utterance
from gate.values import Value, currencies, currency_of, find_values, locate, mentions, normalise

# Cosine similarity (MiniLM, unit vectors) from which a memory may be about the query;
# below CLEAR_THRESHOLD it must also name the action or its object (a word of the
# query or of the same family, see _FAMILIES). Shared values alone lift unrelated
# memories well above the floor: "i'd like a paris themed cake for sunday" scores
# 0.60 against "book a flight to paris on sunday", "2 tickets for the concert on
# saturday at 8 pm" 0.44 against "book a table for 2 on saturday at 20:00".
ABOUT_THRESHOLD = 0.40
CLEAR_THRESHOLD = 0.75
# Retractions and denials are short ("forget the sunday delivery"); they count
# against an action from a lower similarity, which can only make the gate ask or abstain.
AGAINST_THRESHOLD = 0.30

Stance = Literal["support", "against", "retract", "change", "undo", "after", "none"]
Role = Literal["support", "against", "pending"]

# The gate's own record of a request it acts on: "I confirm: <query>." after the caller's yes,
# "I request: <query>." when the policy needs no evidence (see gate.pipeline.attestation_text).
_CONFIRM_RECORD = re.compile(r"^\s*I (?:confirm|request):\s*(?P<query>.+?)\.\s*(?:\(Asked:|$)", re.DOTALL)
_STOP = frozenset(
    [
        *("a", "an", "the", "on", "at", "in", "of", "to", "for", "by", "with", "from", "and", "or", "as"),
        *("my", "me", "i", "your", "our", "this", "that", "it", "is", "be", "please", "some", "any"),
    ]
)
_CALLER_SOURCES = frozenset({"user_stated", "", "none"})

# Words callers use for the same action or the same thing in customer-service speech.
# A memory below CLEAR_THRESHOLD must use a word of the query or of one of its families.
_FAMILIES: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split("|"))
    for group in (
        "cancel|end|stop|terminate|drop|quit|discontinue|get rid of|unsubscribe|close|want out|opt out|shut",
        "plan|subscription|membership|package|contract|tariff|bundle|service|account",
        "refund|money back|reimburse|repay|refunded|credit back|my money|give me back|give me my",
        "return|send back|sending back|bring back|give back|take back",
        "pay|settle|payment|transfer|send|wire|move money|deposit",
        "deliver|delivery|deliveries|drop off|drop it|bring|ship|shipping|parcel|receive|courier|"
        "leave|send|post",
        "visit|come out|come round|come over|come by|call out|callout|technician|engineer|appointment",
        "home|house|flat|apartment|my place",
        "book|reserve|schedule|booking|reservation|appointment|slot|sign up|sign me up|enrol|enroll|register|"
        "join|get in|fit me in|put me down|see the",
        "table|restaurant|dinner|lunch|breakfast|brunch|seat",
        "flight|fly|flying|plane|airline|trip",
        "hotel|room|stay|check in|check-in|accommodation|reservation",
        "move|change|switch|reschedule|push|shift|update|swap|put|redirect|forward|send",
        "address|live|living|moved|moving|residence",
        "remove|take off|take out|drop|get rid of|delete",
        "add-on|addon|extra|bolt-on|option|channel",
        "invoice|bill|statement",
        "order|purchase|item|buy|get me|have",
        "phone|mobile|line|sim",
        "mail|post|letters|correspondence",
        "tour|trip|excursion|outing|visit",
    )
)


@dataclass(frozen=True)
class EvidenceSlot:
    """An exact memory slot (entity, attribute) to read instead of a similarity search."""

    entity: str
    attribute: str


@dataclass(frozen=True)
class EvidenceMemory:
    """One memory as evidence: what it says, whether it may gate an action, and what it did.

    ``similarity`` is the cosine with the rendered query (None: unknown, never
    "about"). ``created_at`` is seconds since the epoch (None: unknown, read
    as possibly later than anything). ``role`` is set by :func:`judge` on the
    memories it returns: ``support``, ``against`` or ``pending`` (support that
    needs the caller's confirmation). ``note`` says why, in a few words.
    """

    id: str
    content: str
    trusted: bool
    requires_confirmation: bool = False
    injection_suspect: bool = False
    slot_value: str | None = None
    source: str | None = None
    confidence: float | None = None
    negated: bool = False
    similarity: float | None = None
    created_at: float | None = None
    said_by: str | None = None
    in_slot: bool = False
    role: Role = "support"
    note: str = ""


@dataclass(frozen=True)
class ServiceDecision:
    """The decision service's answer to one evaluation.

    ``memories`` are the memories that decided, each with its ``role``:
    the supporting ones for ``act``/``ask``, the ones against for an
    ``abstain`` caused by the caller's own denial.
    """

    decision_id: str
    outcome: str  # act | ask | abstain
    memories: list[EvidenceMemory] = field(default_factory=list)
    pending_ids: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass(frozen=True)
class ServiceReceipt:
    """The decision service's record of a receipt."""

    receipt_id: str
    decision_id: str
    status: str
    policy_alignment: str
    replayed: bool = False


@dataclass(frozen=True)
class EvidenceRequest:
    """What the memories are judged against: the rendered query and the values it binds.

    Build it with :meth:`of`; ``match`` is either a mapping from argument name
    to its raw value (kinds are kept: 1500.0 is a number, "A-1001" an
    identifier) or a list of values as spoken.
    """

    query: str
    values: tuple[object, ...]
    normalised: tuple[Value | None, ...]
    action_words: tuple[str, ...]
    slot_only: bool = False
    objects: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, query: str, match: Sequence[Any] | Mapping[str, Any] = (), *, slot_only: bool = False
    ) -> EvidenceRequest:
        raw = list(match.values()) if isinstance(match, Mapping) else list(match)
        values = tuple(v for v in raw if str(v).strip())
        normalised = tuple(_normalised(v) for v in values)
        words, labels = _query_words(query, [str(v) for v in values])
        return cls(query, values, normalised, words, slot_only, words[1:] or labels)

    @property
    def labels(self) -> tuple[str, ...]:
        """The values as text, for clause matching."""
        return tuple(str(v) for v in self.values)


def _normalised(value: object) -> Value | None:
    try:
        return normalise(value)
    except (ValueError, TypeError):
        return None


def _query_words(query: str, values: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The query's words that are not values (the verb first: queries open with it), and its labels.

    A label is a word that only names the kind of a value ("order" in "on
    order A-1001"): it is left out of the words, because a memory that names
    the same order is not thereby about refunding it, and kept apart as
    what the action is on when the query names nothing else.
    """
    text = query.casefold()
    for v in sorted(values, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(v.casefold())}(?![\w-])", " \x00 ", text)
    tokens = re.findall(r"\x00|[a-zà-ÿ][a-zà-ÿ'\-]+", text)
    words: list[str] = []
    labels: list[str] = []
    for i, token in enumerate(tokens):
        if token == "\x00" or token in _STOP:
            continue
        if words and i + 1 < len(tokens) and tokens[i + 1] == "\x00":
            labels.append(token)
            continue
        words.append(token)
    return tuple(words), tuple(labels)


_PLURAL_DAY = re.compile(r"\b(\w+day)s\b", re.IGNORECASE)


def _mentions(text: str, value: object) -> bool:
    try:
        # "i can never do thursdays": a weekday said in the plural is still that weekday.
        return mentions(text, value) or mentions(_PLURAL_DAY.sub(r"\1", text), value)
    except (ValueError, TypeError):
        return False


# -- one memory -----------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """One memory's stance towards a request, and why."""

    stance: Stance
    why: str


def statement_of(memory: EvidenceMemory) -> tuple[str, bool]:
    """The words to judge and whether they are the gate's own confirmation record.

    A confirmation record is judged on the query it confirms only: the
    question and the caller's answer quoted after it are not the request.
    """
    record = _CONFIRM_RECORD.match(memory.content)
    if record is not None and memory.trusted:
        return record.group("query"), True
    return memory.content, False


# Readings of the caller's own words that still take back a request said just before them.
_NOT_THE_CALLERS = frozenset(
    {
        "tries to instruct the agent",
        "not the caller's own words",
        "the agent's words",
        "imitates the gate's own record",
    }
)


def read(memory: EvidenceMemory, request: EvidenceRequest) -> Reading:
    """How ``memory`` bears on ``request`` (see the module docstring for the rules).

    Whatever else the caller said is ``after``: said right after a request (both times known),
    it takes the request back unless it asks for something itself without putting anything
    off ("yes, book it"). A request the caller went on from ("cancel the gold plan" then "the
    gate code is 1234") is acted on only after asking.
    """
    reading = _read(memory, request)
    if reading.stance != "none" or reading.why in _NOT_THE_CALLERS or memory.injection_suspect:
        return reading
    text, record = statement_of(memory)
    if record or (memory.source or "").casefold() not in _CALLER_SOURCES:
        return reading
    if memory.said_by not in (None, "", "caller", "user"):
        return reading
    if utterance.states_wish(text) and not utterance.puts_off(text):
        return reading
    return Reading("after", f"said after it, and not a request for it ({reading.why})")


def _read(memory: EvidenceMemory, request: EvidenceRequest) -> Reading:
    text, record = statement_of(memory)
    if memory.injection_suspect:
        return Reading("none", "tries to instruct the agent")
    if not record and _CONFIRM_RECORD.match(memory.content):
        # The gate writes its records trusted; an untrusted one in that form is an imitation.
        return Reading("none", "imitates the gate's own record")
    similarity = memory.similarity if memory.similarity is not None else -1.0
    matched = [_matches(memory, text, v, n) for v, n in zip(request.values, request.normalised, strict=True)]
    about = (record and _same_query(text, request.query)) or (
        similarity >= CLEAR_THRESHOLD
        or (similarity >= ABOUT_THRESHOLD and _shares_word(text, request.action_words))
    )
    if (
        matched
        and not any(matched)
        and not about
        and not utterance.retracts(text)
        and not utterance.puts_off(text)
    ):
        # Names none of the values, is not about the action and withdraws nothing: most
        # of what a search returns, settled before the slower readings below.
        return Reading("none", "does not mention these values")
    if utterance.looks_like_instruction(memory.content):
        return Reading("none", "tries to instruct the agent")
    if not record:
        if (memory.source or "").casefold() not in _CALLER_SOURCES or (
            memory.said_by not in (None, "", "caller", "user")
        ):
            return Reading("none", "not the caller's own words")
        if utterance.spoken_by_agent(text):
            return Reading("none", "the agent's words")
        put_off = not all(matched) and utterance.puts_off(text) and not _names_kind_of(text, request)
        if utterance.is_question(text):
            # "can we do thursday instead" asks for a change: it ends what came before.
            if utterance.retracts(text) and _other_value(text, request, [False] * len(request.values)):
                return Reading("change", "asks to change to another value")
            if put_off:
                return Reading("undo", "questions what was asked just before")  # "can we put that on ice"
            return Reading("none", "a question, not a request")
        if utterance.about_someone_else(_carrying(text, request)) or utterance.for_someone_else(text):
            if put_off:
                return Reading("undo", "takes back what was said just before")  # "she's been paid already"
            return Reading("none", "about someone else")
    near = about or similarity >= AGAINST_THRESHOLD
    if near and all(matched):
        denied = _denied(memory, text, request)
        if denied:
            return Reading("against", denied)
        if not record and utterance.retracts(text) and not utterance.states_wish(text):
            return Reading("retract", "withdrawn or changed later")
        if not record and _taken_back(text, request):
            return Reading("none", "taken back in the same breath")
        if not record and _fine_as_it_is(text, request):
            return Reading("none", "says the thing with this value needs nothing")
        if not record and _for_later(text, request):
            return Reading("none", "asks for a later time the request does not name")
        if not record and utterance.conditional(text):
            return Reading("none", "asks on a condition, or asks whether: not a request to act now")
        if not record and not _together(text, request):
            return Reading("none", "names these values in different requests")
        if not record and not _in_verb_request(text, request):
            return Reading("none", "names these values outside the request that asks for this")
        if not record and not all(
            _fits(memory, text, v, n, request)
            for v, n in zip(request.values, request.normalised, strict=True)
        ):
            return Reading("none", "names these values in another part, or as part of another name")
        if about and (record or utterance.states_wish(text) or _commands(text, request)):
            if not record and not _same_action(text, request):
                return Reading("none", "asks for another action on the same thing")
            if not record and not _same_object(text, request):
                return Reading("none", "asks for the same action on something else")
            if not record and _qualifier_clash(text, request):
                return Reading("none", "asks about another kind of the same thing")
            if not record and _other_place(text, request):
                return Reading("none", "asks for it at another place or with another party")
            if not record and _other_thing(text, request):
                return Reading("none", "asks for it on another thing")
            extra = [] if record else _unexplained(text, request)
            if len(extra) > MAX_UNEXPLAINED:
                # Words that may change what is asked (a condition, a plan, a report, someone
                # else) in a form the rules above do not know: not read as a request to act now.
                return Reading("none", "says more than the request: " + " ".join(extra[:6]))
            return Reading("support", "the caller asked for this")
        if not about and not memory.trusted and _bare(text, request) and utterance.states_wish(text):
            # "thursday please" names no matter at all: not enough to act on, enough to ask
            # the caller the whole question (an untrusted support only ever makes the gate ask).
            return Reading("support", "the caller asked for these values")
        if not about:
            return Reading("none", f"about another matter (similarity {similarity:.2f})")
        return Reading("none", "not a request or a preference")
    if near and any(matched):
        # "never send money to account 12345678" denies every transfer to it, whatever the amount.
        denied = _denied(memory, text, request)
        if denied:
            return Reading("against", denied)
    if not record and utterance.retracts(text):
        if about or (near and any(matched)):
            return Reading("retract", "withdrawn or changed later")
        # "no wait, make it monday" carries no words of the action: the value it
        # changes to is what ties it to the request.
        if _other_value(text, request, matched):
            return Reading("change", "changed to another value")
        # "actually just store credit is fine", "hold off on that payment", "sorry wrong
        # address": a withdrawal that names no value, or names the request's own matter,
        # takes back what was said just before it ("forget the sunday delivery" does not
        # take back a plan's cancellation).
        if not find_values(text) or _shares_word(text, request.action_words):
            return Reading("undo", "withdraws what was said just before")
    if not record and not all(matched) and utterance.puts_off(text) and not _names_kind_of(text, request):
        # Right after a request, whatever puts it off, doubts it, offers something else or
        # says the need has gone ("let's leave it for now", "false alarm") takes it back.
        return Reading("undo", "puts off or takes back what was said just before")
    # The gate's records are completed requests, each its own matter: a confirmed refund of
    # one order never changes a request about another.
    if about and not record and _other_value(text, request, matched) and utterance.states_wish(text):
        return Reading("change", "names another value")
    if not near:
        return Reading("none", f"about another matter (similarity {similarity:.2f})")
    return Reading("none", "does not mention these values")


def _commands(text: str, request: EvidenceRequest) -> bool:
    """Whether the memory opens with the query's own verb as a command ("port my number to x")."""
    return bool(request.action_words) and utterance.opens_with(text, request.action_words[0])


def _asked_verb(text: str, request: EvidenceRequest) -> str | None:
    """The verb the memory asks with: its request form, or the query's own verb said as a command."""
    asked = utterance.requested_verb(text)
    if asked is None and _commands(text, request):
        return request.action_words[0]
    return asked


def _carrying(text: str, request: EvidenceRequest) -> str:
    """The clauses that name a value of the request ("book bella in at the vet on tuesday" of
    "right, she's worse, book bella in ..."), or the whole text when none does."""
    parts = [c for c in utterance.clauses(text) if any(_mentions(c, v) for v in request.values)]
    return ". ".join(parts) if parts else text


_LATER = re.compile(
    r"\b(?:at the (?:end|start|beginning) of (?:the|this|next) \w+|from (?:the \w+ of )?next \w+|"
    r"from (?:january|february|march|april|may|june|july|august|september|october|november|december)|"
    r"next (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|month|year|term)|"
    r"(?:in|after) (?:a|one|two|three|four|five|six|a few|\d+) (?:days?|weeks?|months?|years?)|"
    r"tomorrow|the day after tomorrow|later (?:this|next|on|today)|when my contract ends|"
    r"once the \w+ (?:ends|finishes|runs out))\b",
    re.IGNORECASE,
)


def _for_later(text: str, request: EvidenceRequest) -> bool:
    """Whether the memory asks for it at a later time that no value of the request names
    ("cancel spotify at the end of the month" for "cancel spotify" now; "transfer 1200 next
    friday" still fits a transfer on Friday)."""
    for found in _LATER.finditer(text):
        if not any(_mentions(found.group(), v) for v in request.values):
            return True
    return False


_FINE = re.compile(
    r"(?:\b(?:is|are|was|were)|'s|'re)\s+(?:(?:totally|perfectly|absolutely|still|actually|all)\s+)?"
    r"(?:fine|ok|okay|alright|all right|grand|good|working|in one piece|no problem)\b(?! to| for| by| with)|"
    r"\bnothing (?:wrong|the matter) with\b",
    re.IGNORECASE,
)


def _fine_as_it_is(text: str, request: EvidenceRequest) -> bool:
    """Whether a clause says the thing with a value is fine ("the green bin's fine, it's the
    blue one i need replacing"): nothing is asked for it. The thing itself must be named
    between the value and "fine": "friday is fine" and "18 pounds a month is fine" accept a
    value, they do not say a thing needs nothing."""
    for clause in utterance.clauses(text):
        fine = _FINE.search(clause)
        if fine is None:
            continue
        for value in request.values:
            for _, end in _spans(clause, value):
                between = _content_words(clause[end : fine.start()])
                if 0 < len(between) <= 3 and _shares_word(" ".join(between), request.objects):
                    return True
    return False


def _taken_back(text: str, request: EvidenceRequest) -> bool:
    """Whether words after the request take it back ("book it for 4pm, or actually, let me ring
    them myself"), unless they name its values again ("actually yes, friday at 4")."""
    ends = [spans[0][1] for v in request.values if (spans := _spans(text, v))]
    if not ends:
        return False
    end = max(ends)
    if all(_mentions(text[end:], v) for v in request.values):
        return False
    return utterance.takes_back_after(text, end)


def _same_action(text: str, request: EvidenceRequest) -> bool:
    """False when the memory asks, in so many words, for another action than the query's.

    "please add my wife to the joint account" asks to add, not to close. A
    memory that names no verb ("friday works best") agrees, and so does one
    whose verb is a word of the query or of a family of one ("fly" for
    "book a flight", "come out" for "a home visit").
    """
    words = request.action_words
    asked = _asked_verb(text, request)
    if asked is None or not words:
        return True
    # The verb with the words right after it ("sign me up", "check in"), less the
    # query's own objects: "update my pet insurance" does not cancel it.
    folded = _without_values(text.casefold(), request, " \x00 ")
    at = folded.find(asked)
    # The verb's own particles and object, up to the first value: "refund the 500 acme
    # builders wired to me" asks to refund, whatever verb follows the values.
    tail = folded[at:].split("\x00", 1)[0] if at >= 0 else ""
    following = re.findall(r"[a-zà-ÿ][a-zà-ÿ'\-]*", tail)[1:5]
    kept = [w for w in following if w in _PARTICLES or (w not in _STOP and not _shares_word(w, words[1:]))]
    return _shares_word(" ".join([asked, *kept]), words)


_NOT_OBJECT = frozenset(
    {
        *("the", "a", "an", "my", "our", "your", "his", "her", "their", "this", "that", "these", "those"),
        *("all", "any", "some", "both", "each", "every", "me", "us", "it", "them", "whole", "entire"),
        *("dollars", "dollar", "euros", "euro", "pounds", "pound", "bucks", "quid", "pesos", "cents"),
        *("percent", "k", "grand", "usd", "eur", "gbp", "just", "also", "please", "now", "again"),
    }
)
_OBJECT_ENDS = frozenset(
    {
        *("on", "at", "for", "to", "from", "with", "by", "in", "of", "into", "onto", "instead", "and"),
        *("but", "because", "so", "as", "if", "when", "then", "today", "tomorrow", "tonight", "next"),
        *("before", "after", "until", "asap", "right", "is", "are", "was", "its", "it's", "i", "we"),
    }
)


def _same_object(text: str, request: EvidenceRequest) -> bool:
    """False when the memory names another thing as what the asked-for action is on.

    "please cancel my premium seats for the opera" cancels seats, not the
    premium plan; "book a taxi for 2 on friday" books a taxi, not a table;
    "move my driving test to wednesday" moves a test, not a driving lesson.
    The words right after the asked-for verb are read, skipping values,
    determiners and units, up to a preposition; a memory that names nothing
    there ("cancel it", "pay the 75 on inv-9") agrees. When the query names
    its own thing the same way, the memory's must be that thing: it names the
    query's head word ("installation" of "broadband installation"), or ends on
    a word of the query's ("move my broadband").
    """
    asked = _asked_verb(text, request)
    if asked is None or not request.objects:
        return True
    named = _object_after(text, asked, request)
    if not named:
        return True
    wanted = _object_after(request.query, request.action_words[0], request) if request.action_words else []
    if not wanted:
        return any(_shares_word(n, request.objects) for n in named)
    return any(_shares_word(n, wanted[-1:]) for n in named) or _shares_word(named[-1], wanted)


def _object_after(text: str, verb: str, request: EvidenceRequest) -> list[str]:
    """The words naming what ``verb`` acts on in ``text`` (at most three; values left out)."""
    folded = _without_values(text.casefold(), request, " \x00 ")
    at = folded.find(verb)
    if at < 0:
        return []
    tokens = re.findall(r"\x00|[a-zà-ÿ0-9][a-zà-ÿ0-9'\-]*", folded[at + len(verb) :])
    named: list[str] = []
    for token in tokens[:8]:
        if token in _OBJECT_ENDS:
            break
        if token == "\x00" or token in _NOT_OBJECT or token in _PARTICLES or token[0].isdigit():
            continue
        named.append(token)
        if len(named) == 3:
            break
    return named


_PARTICLES = frozenset({"in", "on", "up", "off", "out", "back", "down", "over", "round", "by"})


_WISH_WORDS = frozenset(
    [
        "yes",
        "yeah",
        "ok",
        "okay",
        "please",
        "pls",
        "thanks",
        "thank",
        "you",
        "id",
        "i'd",
        "like",
        "want",
        "would",
        "love",
        "prefer",
        "works",
        "work",
        "fine",
        "good",
        "great",
        "perfect",
        "best",
        "better",
        "suits",
        "suit",
        "then",
        "let's",
        "lets",
        "go",
        "with",
    ]
)


def _bare(text: str, request: EvidenceRequest) -> bool:
    """Whether ``text`` is only the values and words of wanting ("thursday please", "7pm works")."""
    rest = _without_values(text, request, " ")
    return all(w in _WISH_WORDS for w in _content_words(rest))


def _locate(text: str, value: object) -> list[tuple[int, int]]:
    try:
        return locate(text, value)
    except (ValueError, TypeError):
        return []


def _without_values(text: str, request: EvidenceRequest, mark: str) -> str:
    """``text`` with every place it names a value of the request replaced by ``mark``."""
    for value in request.values:
        for start, end in sorted(_locate(text, value), reverse=True):
            text = text[:start] + mark + text[end:]
    return text


def _content_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-zà-ÿ][a-zà-ÿ'\-]*", text.casefold()) if w not in _STOP]


@lru_cache(maxsize=256)
def _family_pattern(family: frozenset[str]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(re.escape(f) for f in sorted(family, key=len, reverse=True)) + ")")


@lru_cache(maxsize=4096)
def _starts_word(term: str) -> re.Pattern[str]:
    """A word that begins with ``term`` ("cancel" finds "cancelling"); compiled once."""
    return re.compile(rf"(?<![\w-]){re.escape(term)}\w*")


def _shares_word(text: str, words: Sequence[str]) -> bool:
    """Whether ``text`` names the action or its object: a word of the query, of the same stem or family."""
    folded = " ".join(re.findall(r"[a-zà-ÿ][a-zà-ÿ'\-]*", text.casefold()))
    mine = set(folded.split()) - _STOP
    for w in words:
        for m in mine:
            if m.startswith(w) or (w.startswith(m) and len(m) >= 4) or (len(w) >= 5 and m[:5] == w[:5]):
                return True
        for family in _FAMILIES:
            if w in family and _family_pattern(family).search(folded):
                return True
    return False


def _same_query(text: str, query: str) -> bool:
    def plain(words: str) -> str:
        return " ".join(words.casefold().split()).rstrip(".?! ")

    return plain(text) == plain(query)


def _matches(memory: EvidenceMemory, text: str, value: object, norm: Value | None) -> bool:
    # The slot's own value counts for the slot's fact only: the engine also guesses a slot for
    # plain memories ("for 3 days" -> a party size of 3), which says nothing about this request.
    if memory.in_slot and memory.slot_value and norm is not None:
        slot = _normalised(memory.slot_value)
        if slot is not None and slot == norm:
            return True
    return _mentions(text, value)


def _fits(
    memory: EvidenceMemory, text: str, value: object, norm: Value | None, request: EvidenceRequest
) -> bool:
    """Whether a mentioned value plays the request's part: what a support needs beyond the mention.

    Not "from madrid" for a flight to Madrid (:func:`_same_role`), and, for a name, the
    whole name, not part of a longer one ("gold plus" is not "gold", :func:`_whole_name`).
    A denial needs only the mention ("never fly from madrid" still bears on Madrid).
    """
    if memory.in_slot and memory.slot_value and norm is not None:
        slot = _normalised(memory.slot_value)
        if slot is not None and slot == norm:
            return True
    spans = _spans(text, value)
    if not spans:
        return True  # mentioned in a form locate() cannot place: nothing more to check
    query_spans = _spans(request.query, value)
    wanted = _role_of(request.query, query_spans, request)
    unit = _unit_after(request.query, query_spans[0]) if query_spans else None
    bound = _bound_before(request.query, query_spans[0]) if query_spans else None
    period = _period_after(request.query, query_spans[0]) if query_spans else None
    currency = _currency_near(request.query, query_spans[0]) if query_spans else None
    label = _label_before(request.query, query_spans[0]) if query_spans else None
    return any(
        _same_role(_role_of(text, [span], request), wanted)
        and (norm is None or not _is_name(norm, value) or _whole_name(text, span, request))
        and not _in_relative_clause(text, span)
        and _same_label(text, span, label, currency)
        and _unit_after(text, span) == unit
        and (not query_spans or _same_bound(_bound_before(text, span), bound, request.query, query_spans[0]))
        and (currency is None or _currency_near(text, span) in (currency, None))
        and _period_after(text, span) in (period, None)
        for span in spans
    )


# A bound before a time or a date: "any time after 2pm" is not "at 2pm", "by friday" not "on friday".
_BOUNDS = frozenset({"after", "before", "until", "till", "til", "by", "than", "past", "latest", "earliest"})


def _bound_before(text: str, span: tuple[int, int]) -> str | None:
    before = re.findall(r"[a-zà-ÿ]+", text[: span[0]].casefold())[-1:]
    return before[0] if before and before[0] in _BOUNDS else None


# An end point said as "to": "till 2pm" and "until 2pm" are "extend it to 2pm".
_END_POINT = frozenset({"till", "til", "until"})


def _same_bound(said: str | None, wanted: str | None, query: str, span: tuple[int, int]) -> bool:
    if said == wanted:
        return True
    ends_at = wanted is None and re.search(r"\bto\s*$", query[: span[0]].casefold()) is not None
    return ends_at and said in _END_POINT


# The currency an amount is in, from a symbol before it or a word after it: "500 dollars" is
# not "500 pounds"; an amount said without one fits either.
def _currency_near(text: str, span: tuple[int, int]) -> str | None:
    before = currency_of(text[: span[0]].rstrip()[-1:])
    if before is not None:
        return before
    said = currencies(text[span[0] : span[1]])
    if said:
        return sorted(said)[0]
    after = re.findall(r"[a-zà-ÿ]+", text[span[1] :].casefold())[:1]
    return currency_of(after[0]) if after else None


# How often an amount is paid: "85 pounds a quarter" is not "85 pounds a month".
_PERIOD = re.compile(
    r"^\W*(?:(?:pounds?|dollars?|euros?|quid|bucks|gbp|usd|eur)\W+)?"
    r"(?:(?:a|an|per|each|every|/)\s*(?P<unit>day|week|fortnight|month|quarter|year|annum)\b|"
    r"(?P<adverb>daily|weekly|fortnightly|monthly|quarterly|yearly|annually))",
    re.IGNORECASE,
)
_PERIOD_OF = {"daily": "day", "weekly": "week", "fortnightly": "fortnight", "monthly": "month",
              "quarterly": "quarter", "yearly": "year", "annually": "year", "annum": "year"}  # fmt: skip


def _period_after(text: str, span: tuple[int, int]) -> str | None:
    found = _PERIOD.match(text[span[1] :])
    if found is None:
        return None
    unit = (found.group("unit") or found.group("adverb")).casefold()
    return _PERIOD_OF.get(unit, unit)


# Words that say which thing a number identifies: "order 4471" is an order, not 4471 pounds.
_ID_LABELS = frozenset(
    {
        *("order", "invoice", "account", "acct", "ref", "reference", "number", "no", "booking"),
        *("ticket", "case", "policy", "room", "seat", "flight", "table", "platform", "gate", "item"),
        *("code", "pin", "card", "ending", "extension", "unit", "flat", "apartment", "parcel"),
    }
)


def _label_before(text: str, span: tuple[int, int]) -> str | None:
    before = re.findall(r"[a-zà-ÿ]+", text[: span[0]].casefold())[-1:]
    return before[0] if before and before[0] in _ID_LABELS else None


def _same_label(text: str, span: tuple[int, int], label: str | None, currency: str | None) -> bool:
    """Whether a number plays the query's part: "refund 4471 pounds on order 200" does not refund
    200 on order 4471. A number the query labels ("order 4471") is not said with another label or
    as money; a number the query does not label is not said with a label."""
    said = _label_before(text, span)
    if label is not None:
        return said in (label, None) and (said is not None or _currency_near(text, span) in (None, currency))
    return said is None


def _is_name(norm: Value, value: object) -> bool:
    """A name, or a product name with a number in it ("iphone 15", "galaxy s24"), whose longer
    forms ("iphone 15 pro") name other things."""
    return norm.kind == "text" or (norm.kind == "ident" and " " in str(value).strip())


# A value inside a clause that says when something else happened: "the booking I made on
# monday", "the walker I met on monday", "the one the gp mentioned on tuesday".
_RELATIVE_BEFORE = re.compile(
    r"\b(?:i|we|you|he|she|they|gp|doctor|one|that|which|who)\s+(?:\w+\s+){0,2}?"
    r"(?:made|met|mentioned|viewed|saw|seen|said|had|got|bought|ordered|used|did|went|was|were|"
    r"told|recommended|suggested|visited|called|rang|emailed|booked|spoke|talked|sent|paid)"
    r"(?:\s+(?:it|them|him|her|to|with|about|me|us|you))?\s+(?:on|at|in|last|this|back on|for)?\s*$",
    re.IGNORECASE,
)


def _in_relative_clause(text: str, span: tuple[int, int]) -> bool:
    """Whether the value at ``span`` tells when something else happened ("i made on monday")."""
    return _RELATIVE_BEFORE.search(text[max(0, span[0] - 60) : span[0]]) is not None


# Units a number is counted in: "pause for 3 weeks" is not "pause for 3 days", and a table
# for 4 is not one "for 4 hours".
_UNITS = {
    **dict.fromkeys(("minute", "minutes", "min", "mins"), "minute"),
    **dict.fromkeys(("hour", "hours", "hr", "hrs"), "hour"),
    **dict.fromkeys(("day", "days", "night", "nights"), "day"),
    **dict.fromkeys(("week", "weeks", "wk", "wks", "fortnight", "fortnights"), "week"),
    **dict.fromkeys(("month", "months", "mo"), "month"),
    **dict.fromkeys(("year", "years", "yr", "yrs"), "year"),
    **dict.fromkeys(("kg", "kilo", "kilos", "kilogram", "kilograms"), "kg"),
    **dict.fromkeys(("litre", "litres", "liter", "liters", "l"), "litre"),
}


def _unit_after(text: str, span: tuple[int, int]) -> str | None:
    """The unit named right after a value, if any ("3 days" -> "day")."""
    after = re.findall(r"[a-zà-ÿ]+", text[span[1] :].casefold())[:1]
    return _UNITS.get(after[0]) if after else None


def _spans(text: str, value: object) -> list[tuple[int, int]]:
    spans = _locate(text, value)
    if not spans:
        spans = _locate(_PLURAL_DAY.sub(r"\1", text), value)
    return spans


# Prepositions that give a value its part: a flight "to" a city is not one "from" it.
_TOWARDS = frozenset({"to", "into", "onto", "towards", "toward", "hacia", "vers", "nach"})
_AWAY = frozenset({"from", "out", "off", "desde", "depuis", "von", "ab"})
_LABELS = frozenset({"account", "acct", "order", "invoice", "number", "no", "city", "the", "my", "our"})


def _role_of(text: str, spans: Sequence[tuple[int, int]], request: EvidenceRequest) -> str | None:
    """ "to" or "from" when a directional preposition stands before the value (labels skipped)."""
    if not spans:
        return None
    start = spans[0][0]
    before = re.findall(r"[a-zà-ÿ]+", text[:start].casefold())[-3:]
    labels = set(request.objects) | _LABELS
    if before[-2:] in (["out", "of"], ["away", "from"]):
        return "from"
    for word in reversed(before):
        if word in _TOWARDS:
            return "to"
        if word in _AWAY:
            return "from"
        if word not in labels:
            return None
    return None


def _same_role(found: str | None, wanted: str | None) -> bool:
    return found is None or wanted is None or found == wanted


# Words that may stand right beside a name without making it another name ("my gold plan
# please"): function words, politeness, time, and adjectives that do not name a product.
_BESIDE_NAME = frozenset(
    {
        *("please", "thanks", "now", "today", "tomorrow", "tonight", "asap", "too", "also", "then", "one"),
        *("ones", "so", "because", "but", "or", "if", "when", "right", "away", "immediately", "instead"),
        *("anymore", "again", "already", "is", "was", "are", "it", "that", "i", "we", "you", "effective"),
        *("current", "existing", "old", "present", "new", "just", "straight", "thank", "cheers", "ok"),
        *("okay", "yes", "yeah", "which", "who", "since", "as", "well", "all", "any", "whole", "entire"),
        *("there", "here", "not", "no", "never", "thing", "stuff", "etc", "actually", "really", "after"),
        *("before", "until", "till", "about", "during", "into", "onto", "off", "out", "up", "down"),
        *("over", "under", "through", "via", "per", "than", "like", "each", "every", "this", "these"),
        *("those", "they", "he", "she", "us", "them", "him", "her", "his", "their", "its", "mine"),
        *("has", "have", "had", "do", "does", "did", "will", "would", "can", "could", "should", "must"),
        *("shall", "may", "might", "be", "been", "being", "were", "am", "what", "where", "how", "why"),
        *("no", "nor", "yet", "still", "even", "only", "else", "matter", "either", "neither", "both"),
        # States, which say how a thing is left, not which thing ("leave it active").
        *("active", "inactive", "open", "running", "going", "enabled", "working", "alone", "unchanged"),
        # Order and quantity, which say which one, not what kind ("a second visit").
        *("first", "second", "third", "another", "next", "other", "extra", "additional", "further"),
        *("same", "usual", "regular", "normal", "quick", "short", "follow", "later", "earlier", "last"),
        # Determiners and possessives of the other languages callers use.
        *("mein", "meine", "meinen", "meinem", "meiner", "den", "die", "das", "der", "dem", "ein"),
        *("eine", "einen", "le", "la", "les", "mon", "ma", "mes", "un", "une", "el", "los", "las"),
        *("mi", "mis", "una", "de", "du", "des", "del", "al", "bitte", "por", "favor"),
    }
)


# Verbs whose object right after them is the one who receives ("pay tom rees", "give tom baker");
# not "get bob hale to send me ...", where the name is who acts.
_TO_WHOM = frozenset(
    {
        *("pay", "give", "send", "transfer", "wire", "refund", "reimburse", "credit", "donate"),
        *("lend", "tip", "gift", "ship", "post", "mail", "email", "text", "ring", "call", "phone"),
    }
)  # fmt: skip


def _whole_name(text: str, span: tuple[int, int], request: EvidenceRequest) -> bool:
    """Whether the name at ``span`` stands alone: no other word of a name beside it.

    "cancel my gold plus plan" names "gold plus", and "my rose gold plan" "rose gold": not
    the gold plan. A word of the query ("plan"), of its family ("membership"), a function
    word or politeness may stand beside it.
    """
    folded = text.casefold()
    before = re.findall(r"[a-zà-ÿ0-9+][a-zà-ÿ0-9'\-+]*", folded[: span[0]])[-1:]
    # "amelia's school trip": a possessive ends the name; what follows is hers, and must be
    # what the query is about ("ava's piano lessons" is not "ava's school trip").
    possessive = re.match(r"['’]s\b|s['’]", folded[span[1] :])
    rest = folded[span[1] + possessive.end() :] if possessive else folded[span[1] :]
    after = re.findall(r"[a-zà-ÿ0-9+][a-zà-ÿ0-9'\-+]*", rest)[:1]
    # Every word of the query may stand beside it, the kind words before values too
    # ("a replacement grey recycling bin").
    query_words = (*request.action_words, *request.objects, *_content_words(request.query))
    if possessive and after and after[0] not in _STOP and after[0] not in _BESIDE_NAME:
        return _shares_word(after[0], query_words)
    for word in (*before, *after):
        if word in _STOP or word in _BESIDE_NAME or _shares_word(word, query_words):
            continue
        if word in before and word in _TO_WHOM:
            continue  # "pay tom rees 50 pounds": the verb the name is the recipient of
        if find_values(word):
            continue  # "berlin thursday": a day, a time or a number is not part of a name
        return False
    return True


def _denied(memory: EvidenceMemory, text: str, request: EvidenceRequest) -> str:
    """Why ``text`` is against the request, or "" when it is not.

    A value or the action's verb in a denied part of a clause denies the
    request ("never deliver on a friday"), with one exception: a reason in
    its own clause followed by a request that refers back to it ("we don't
    use the family plan anymore, so please cancel it").
    """
    verb = request.action_words[:1]
    if text.rstrip().endswith("?") and not _PLAIN_NO.search(text):
        return ""  # "can i overpay 500 without a penalty?" asks; it says no to nothing
    # "i don't want to keep the gold plan" denies the opposite of cancelling it: not against.
    # A request that moves something from X ("move 500 from current to savings") is not
    # denied by a memory that moves it from X.
    moves_from = any(
        _role_of(request.query, _spans(request.query, v), request) == "from" for v in request.values
    )
    scoped = utterance.scopes(text, moves=not moves_from)
    parts = [(a, d) for a, d in scoped if not (d and verb and utterance.opposes(d, [verb[0]]))]
    if len(parts) < len(scoped):
        return ""  # a denial of the opposite, the engine's flag included: not against
    denied_value = [d for _, d in parts if d and any(_mentions(d, v) for v in request.values)]
    denied_verb = [d for _, d in parts if d and verb and _has_verb(d, verb[0])]
    if denied_verb:
        return "the caller said no to this"
    if denied_value and not _reason_then_request(parts, request, verb):
        return "the caller said no to these values"
    if (
        not denied_value
        and memory.negated
        and not any(a and any(_mentions(a, v) for v in request.values) for a, _ in parts)
    ):
        # The engine read a denial the clause reading could not place: not support, and against.
        return "the caller said no (engine)"
    if verb and any(
        utterance.opposes(clause, verb)
        for clause in utterance.clauses(text)
        if _bears_on(clause, request) and not utterance.conditional(clause)
    ):
        # "in case the first surveyor cancels, put me down for saturday": the opposite verb in
        # a condition is not what the caller asks for.
        return "the caller asked for the opposite"
    return ""


_PLAIN_NO = re.compile(r"\b(?:don'?t|do not|never|not|no|stop|cancel)\b", re.IGNORECASE)


def _bears_on(clause: str, request: EvidenceRequest) -> bool:
    """Whether a clause may be about the request: it names one of its values, or no other of their kinds.

    "keep gold, cancel silver": "keep gold" says nothing against cancelling silver.
    """
    if any(_mentions(clause, v) for v in request.values):
        return True
    kinds = {n.kind for n in request.normalised if n is not None}
    if "text" in kinds:
        # Names are not found by kind: the clause is about another thing when the word after
        # its verb names one ("keep gold"), not when it is a pronoun ("leave it active").
        words = _content_words(clause)
        named = [w for w in words[1:3] if w not in _BESIDE_NAME and w not in _NOT_OBJECT]
        return not named or _shares_word(named[0], (*request.action_words, *request.objects))
    return not any(f.kind in kinds for f in find_values(clause))


def _has_verb(part: str, verb: str) -> bool:
    # "deliver" covers "delivery" and "deliveries", "cancel" covers "cancelling".
    return _starts_word(verb).search(part) is not None


_BACK_REFERENCE = re.compile(r"\b(?:it|that|them|this|those|one)\b")


def _reason_then_request(
    parts: Sequence[tuple[str, str]], request: EvidenceRequest, verb: tuple[str, ...]
) -> bool:
    if not verb:
        return False
    if any(d and _has_verb(d, verb[0]) for _, d in parts):
        return False
    for asserted, denied in parts:
        if denied or not _has_verb(asserted, verb[0]) or not utterance.states_wish(asserted):
            continue
        # A whole request of its own ("so please cancel the travel insurance"), or one
        # that refers back to what the reason named ("so please cancel it").
        if all(_mentions(asserted, v) for v in request.values):
            return True
        if not any(_mentions(asserted, v) for v in request.values) and _BACK_REFERENCE.search(asserted):
            return True
    return False


def _names_kind_of(text: str, request: EvidenceRequest) -> bool:
    """Whether ``text`` names a value of a kind the request binds, names aside (a number, a day...)."""
    kinds = {n.kind for n in request.normalised if n is not None and n.kind != "text"}
    return any(f.kind in kinds for f in find_values(text))


# Where one request in a memory ends and another begins: "refund 40 on x-19 and 300 on x-20".
_REQUEST_SPLIT = re.compile(r"[,;]\s|\s(?:and|plus|also|then|as well as|y|et|und|e)\s", re.IGNORECASE)


def _together(text: str, request: EvidenceRequest) -> bool:
    """Whether the request's values are asked for together, not in two requests of one memory.

    Only when the memory names two different values of a kind the request binds (two
    amounts, two orders, two days) must one part of it carry every value: "refund 40 on
    order x-19 and 300 on order x-20" does not ask for 300 on x-19.
    """
    if len(request.values) < 2:
        return True
    kinds = {n.kind for n in request.normalised if n is not None and n.kind != "text"}
    seen: dict[str, set[str]] = {}
    for found in find_values(text):
        if found.kind in kinds:
            seen.setdefault(found.kind, set()).add(found.key)
    if not any(len(keys) > 1 for keys in seen.values()):
        return True
    parts = _REQUEST_SPLIT.split(text)
    return any(all(_mentions(part, v) for v in request.values) for part in parts)


# A support may carry this many words of substance besides the request itself (its verb, its
# thing, its values, politeness and wishing): a short reason ("it broke", "i moved") passes;
# more is read as saying something else, and the gate asks. Chosen on the labelled set: every
# true support the other rules find there keeps at most this many, and longer memories were where conditions,
# plans, reports and others' wishes the rules do not name got through.
MAX_UNEXPLAINED = 3
_SMALL = frozenset(
    {
        *("um", "umm", "uh", "er", "erm", "ah", "oh", "hi", "hello", "hey", "yeah", "yes", "ok", "okay"),
        *("so", "well", "basically", "like", "just", "really", "actually", "also", "too", "now", "today"),
        *("asap", "soon", "straight", "away", "right", "thanks", "thank", "you", "cheers", "ta", "please"),
        *("pls", "kindly", "can", "could", "would", "will", "want", "wanna", "need", "like", "love", "i'd"),
        *("id", "i'm", "im", "i've", "ive", "i'll", "ill", "go", "ahead", "do", "get", "got", "make", "let"),
        *("let's", "lets", "sure", "definitely", "think", "time", "thing", "bit", "lot", "much", "very"),
        *("some", "any", "one", "ones", "there", "here", "then", "again", "still", "yet", "already"),
        *("know", "mean", "guess", "said", "say", "tell", "told", "asked", "ask", "call", "calling", "phone"),
    }
)


def _unexplained(text: str, request: EvidenceRequest) -> list[str]:
    """The memory's words of substance that are not the request: not its verb, thing or values."""
    folded = _without_values(text.casefold(), request, " ")
    mine = (*request.action_words, *request.objects)
    out = []
    for word in re.findall(r"[^\W\d_][\w'\-]*", folded):
        if len(word) < 3 or word in _STOP or word in _BESIDE_NAME or word in _SMALL or word in _NOT_OBJECT:
            continue
        if word in _PARTICLES or word in _WISH_WORDS or find_values(word) or _shares_word(word, mine):
            continue
        out.append(word)
    return out


def _in_verb_request(text: str, request: EvidenceRequest) -> bool:
    """Whether the values sit in the part of the memory whose verb asks for this action.

    "close the checking account and move what's left into savings" asks to close the checking
    account: "savings" belongs to the move. Only read when the memory asks in so many words
    with the request's own verb (or one of its family).
    """
    asked = utterance.requested_verb(text)
    if asked is None or not request.action_words or not _shares_word(asked, request.action_words[:1]):
        return True
    folded = text.casefold()
    verb = _starts_word(asked)
    # A comma often adds the value ("pay my electricity bill, it's 84.20"), but the verb's own
    # clause naming another value asks for that one ("it's booked for 3 days, extend it by 2").
    for clause in re.split(r";|,(?!\d)", folded):
        if (
            verb.search(clause)
            and not all(_mentions(clause, v) for v in request.values)
            and (
                _other_value(clause, request, [False] * len(request.values))
                or _names_own_object(clause, asked, request)
            )
        ):
            return False  # "reorder my lisinopril, the amlodipine one is fine": not amlodipine
    # Split at words that join two requests only: not inside a value ("a cut and colour"),
    # and not where the request itself joins two ("close it and move the balance").
    if len(_NEXT_REQUEST.split(_masked(request.query.casefold(), request))) > 1:
        return True
    for part in _NEXT_REQUEST.split(_masked(folded, request)):
        if verb.search(part):
            return all(f"\x00{k}\x00" in part or _mentions(part, v) for k, v in enumerate(request.values))
    return True


def _masked(text: str, request: EvidenceRequest) -> str:
    """``text`` with each value said with a joining word in it ("a cut and colour", "a hundred
    and twenty") replaced by a mark of its own (its index), so no split falls inside it."""
    for k, value in enumerate(request.values):
        for start, end in sorted(_locate(text, value), reverse=True):
            if len(_NEXT_REQUEST.split(f" {text[start:end]} x ")) > 1:
                text = text[:start] + f" \x00{k}\x00 " + text[end:]
    return text


def _names_own_object(clause: str, asked: str, request: EvidenceRequest) -> bool:
    """Whether the words after the verb name a thing that is neither a value nor a query word."""
    at = clause.find(asked)
    values = {w for v in request.labels for w in v.casefold().split()}
    query_words = (*request.action_words, *request.objects)
    for token in re.findall(r"[a-zà-ÿ][a-zà-ÿ'\-]*", clause[at + len(asked) :])[:4]:
        if token in _OBJECT_ENDS:
            return False
        if token in _STOP or token in _NOT_OBJECT or token in _PARTICLES or token in _BESIDE_NAME:
            continue
        if token in values or token in _WISH_WORDS or _shares_word(token, query_words):
            continue
        return True
    return False


_NEXT_REQUEST = re.compile(r"\s(?:and then|and|plus|also|then|as well as)\s+(?=\w+\s)", re.IGNORECASE)


_PLACE_FRAME = re.compile(
    r"(?=\b(at|with|in|into|to|from)\s+(?:(?:the|my|a|an|our|your|this|that)\s+)?([a-zà-ÿ][a-zà-ÿ'\-]+))"
)
# "book my car in for its MOT": what the booking is for, when the query names a thing there.
_FOR_FRAME = re.compile(
    r"(?=\b(for)\s+(?:(?:the|my|a|an|our|your|its|their|his|her)\s+)?([a-zà-ÿ][a-zà-ÿ'\-]+))"
)
_NOT_PLACES = frozenset(
    {"morning", "afternoon", "evening", "night", "noon", "midday", "weekend", "lunchtime", "moment", "time"}
)


def _other_place(text: str, request: EvidenceRequest) -> bool:
    """Whether the memory puts the action at another place or with another party than the query.

    "book biscuit in at the groomer" is not "book biscuit in at the vet": where the query
    says "at the vet" and the memory never names the vet, another word of substance after the
    same preposition names another place. Values, times of day and the query's own words do
    not count.
    """
    values = {w for v in request.labels for w in v.casefold().split()}
    folded = text.casefold()
    said_frames = _PLACE_FRAME.findall(folded)
    for prep, noun in _PLACE_FRAME.findall(request.query.casefold()) + _FOR_FRAME.findall(
        request.query.casefold()
    ):
        if noun in values and noun not in _STOP and not find_values(noun) and prep != "for":
            # A name the query puts after the preposition ("upgrade me to premium"): the
            # memory's own "to business", and never "to premium", names another one.
            own = [w for p, w in said_frames if p == prep and w not in _STOP and w not in _NOT_PLACES]
            if own and noun not in own and not any(_shares_word(w, request.action_words) for w in own):
                return True
            continue
        if noun in values or noun in _STOP or len(noun) < 3 or find_values(noun):
            continue
        if _shares_word(text, [noun]):
            continue
        for said_prep, said in [*said_frames, *_FOR_FRAME.findall(folded)]:
            if said_prep != prep or said in values or said in _STOP or said in _NOT_PLACES:
                continue
            if said in _BESIDE_NAME or find_values(said) or _shares_word(said, request.action_words):
                continue
            return True
    return False


# "on my car loan", "off the mortgage": what an action is on, after a possessive or an article
# ("for the hen do" says what it is for, not what it is on).
_THING_FRAME = re.compile(
    r"\b(?:on|onto|against|towards|toward|off|into)\s+(?:my|our|the|his|her|their)\s+"
    r"([a-zà-ÿ][a-zà-ÿ'\-]+)(?:\s+([a-zà-ÿ][a-zà-ÿ'\-]+))?"
)


def _other_thing(text: str, request: EvidenceRequest) -> bool:
    """Whether the memory puts the action on another thing than the one the query names.

    "make an overpayment of 5000 pounds on my car loan" is not "make a mortgage overpayment
    of 5000 pounds": where a word of substance of the query ("mortgage") is missing from the
    memory and the memory names what the action is on or for ("on my car loan") with no word
    of the query, values or times, it names another thing. A memory that names every word of
    the query, or names its thing with no such frame, is read by the other rules.
    """
    query_words = (*request.action_words, *request.objects)
    missing = [
        w for w in request.objects if len(w) >= 4 and currency_of(w) is None and not _shares_word(text, [w])
    ]
    if not missing:
        return False
    values = {w for v in request.labels for w in v.casefold().split()}
    for match in _THING_FRAME.finditer(text.casefold()):
        named = [w for w in match.groups() if w]
        if any(w in values or find_values(w) or _shares_word(w, query_words) for w in named):
            continue
        head = named[0]
        if head in _STOP or head in _NOT_PLACES or head in _BESIDE_NAME or head in _NOT_OBJECT:
            continue
        return True
    return False


def _qualifier_clash(text: str, request: EvidenceRequest) -> bool:
    """Whether the memory names the request's thing with another qualifier.

    "change my billing address" is not "change my delivery address", though both change an
    address: where the query says "<qualifier> <thing>", a memory that puts another word of
    substance before the same thing names another one. Adjectives that name nothing else
    ("new", "current") and the query's own words do not clash.
    """
    query = re.findall(r"[a-zà-ÿ][a-zà-ÿ'\-]*", request.query.casefold())
    values = {w for v in request.labels for w in v.casefold().split()}
    pairs = [
        (q, w)
        for q, w in itertools.pairwise(query)
        if q not in _STOP and w not in _STOP and q not in values and w not in values and len(w) >= 3
    ]
    if not pairs:
        return False
    words = re.findall(r"[a-zà-ÿ][a-zà-ÿ'\-]*", text.casefold())
    for q, thing in pairs:
        for k, word in enumerate(words[1:], start=1):
            if not (word == thing or (len(thing) >= 5 and word[:5] == thing[:5])):
                continue
            before = words[k - 1]
            if before in _STOP or before in _BESIDE_NAME or before in values or currency_of(before):
                continue  # "a 1500 pound overpayment" names an amount, not another kind
            if (
                before[:4] == q[:4]
                or _shares_word(before, [q])
                or _shares_word(before, request.action_words[:1])
            ):
                continue  # "dental" for "dentist", a word of the same family
            return True
    return _qualifier_around_value(text, request)


_DETERMINERS = frozenset(
    {"a", "an", "the", "my", "our", "your", "his", "her", "their", "this", "that", "another", "one"}
)
# Words before a thing that name no other kind of it ("a new blue bin" is a blue bin).
_SAME_THING = frozenset(
    {
        *("new", "current", "existing", "old", "present", "usual", "regular", "normal", "same", "one"),
        *("please", "just", "also", "now", "that", "this", "it", "is", "was", "are", "and", "or"),
    }
)


def _qualifier_around_value(text: str, request: EvidenceRequest) -> bool:
    """Whether the memory qualifies the query's thing with a word the query does not use, next
    to the value: "an extra blue bin" is not "a replacement blue wheelie bin" (the query's own
    qualifiers, the value and words that name nothing else do not clash)."""
    if not request.action_words:
        return False
    wanted = _object_after(request.query, request.action_words[0], request)
    if len(wanted) < 2:
        return False
    thing, own = wanted[-1], wanted[:-1]
    folded = _without_values(text.casefold(), request, " \x00 ")
    words = re.findall(r"\x00|[a-zà-ÿ][a-zà-ÿ'\-]*", folded)
    for k, word in enumerate(words):
        if not (word == thing or (len(thing) >= 5 and word[:5] == thing[:5])):
            continue
        if k == 0 or words[k - 1] != "\x00":
            continue  # the word right before the thing: the rule above reads it
        before = words[k - 2] if k >= 2 else ""
        # A qualifier sits between a determiner and the value ("an extra blue bin"); a verb
        # before the value ("i'd like one ticket") is no qualifier.
        if (
            k >= 3
            and words[k - 3] in _DETERMINERS
            and before
            and before not in _STOP
            and before not in _NOT_OBJECT
            and before not in _SAME_THING
            and currency_of(before) is None
            and not _shares_word(before, own)
            and not _shares_word(before, request.action_words[:1])
        ):
            return True
    return False


def _other_value(text: str, request: EvidenceRequest, matched: Sequence[bool]) -> bool:
    """Whether ``text`` names a different value of the same kind for an unmatched argument."""
    found = find_values(text)
    for norm, ok in zip(request.normalised, matched, strict=True):
        if ok or norm is None:
            continue
        if any(f.kind == norm.kind and f != norm for f in found):
            return True
    return False


# -- the decision ---------------------------------------------------------------

_VOIDS: dict[str, frozenset[str]] = {
    "support": frozenset({"against", "retract", "change", "undo", "after"}),
    "against": frozenset({"support", "retract", "change", "undo"}),
}


def _later(a: EvidenceMemory, b: EvidenceMemory) -> bool:
    """Whether ``b`` may have been said after ``a`` (unknown times: assume so)."""
    if a.created_at is None or b.created_at is None:
        return True
    return b.created_at > a.created_at


def _next_after(a: EvidenceMemory, b: EvidenceMemory, memories: Sequence[EvidenceMemory]) -> bool:
    """Whether ``b`` may come right after ``a``: later, with nothing known said in between."""
    if not _later(a, b):
        return False
    if a.created_at is None or b.created_at is None:
        return True
    lo, hi = a.created_at, b.created_at
    return not any(m.created_at is not None and lo < m.created_at < hi for m in memories)


def _voids(
    m: EvidenceMemory, stance: str, o: EvidenceMemory, other: str, memories: Sequence[EvidenceMemory]
) -> bool:
    if o.id == m.id or other not in _VOIDS.get(stance, frozenset()):
        return False
    if other == "after":
        # Only when both times are known (hosted answers carry none), and never the gate's own
        # record of a confirmed request.
        # A slot's fact is a standing preference: only a denial, a change or a withdrawal ends it.
        known = m.created_at is not None and o.created_at is not None
        return known and not m.in_slot and not statement_of(m)[1] and _next_after(m, o, memories)
    if other == "undo":
        return _next_after(m, o, memories)
    return _later(m, o)


def judge(memories: Iterable[EvidenceMemory], request: EvidenceRequest) -> ServiceDecision:
    """Act on current trusted support, ask on current untrusted support, abstain otherwise.

    A current trusted ``against`` wins over any support (abstain, cited). On
    a slot-scoped request (``request.slot_only``) only the slot's own fact
    may support; every memory may still count against. The returned
    ``decision_id`` is empty; the service that records the decision fills it.
    """
    readings = [(m, read(m, request)) for m in memories]
    everything = [m for m, _ in readings]
    # On a slot-scoped request a support outside the slot neither counts nor voids.
    usable = [
        (m, r) for m, r in readings if not (r.stance == "support" and request.slot_only and not m.in_slot)
    ]
    current: list[tuple[EvidenceMemory, Reading]] = []
    for m, r in usable:
        if r.stance not in _VOIDS:
            continue
        if not any(_voids(m, r.stance, o, s.stance, everything) for o, s in usable):
            current.append((m, r))
    against = [replace(m, role="against", note=r.why) for m, r in current if r.stance == "against"]
    trusted_against = [m for m in against if m.trusted]
    if trusted_against:
        cited = ", ".join(m.id for m in trusted_against)
        return ServiceDecision(
            "", "abstain", trusted_against, [], f"the caller's own words are against this ({cited})"
        )
    support = [m for m, r in current if r.stance == "support"]
    trusted = [replace(m, role="support", note="supports these arguments") for m in support if m.trusted]
    if trusted and not against:
        return ServiceDecision("", "act", trusted, [], "trusted memory supports these arguments")
    if against:
        cited = ", ".join(m.id for m in against)
        return ServiceDecision(
            "",
            "abstain",
            against,
            [],
            f"the caller's latest words are against this, not yet confirmed ({cited})",
        )
    if support:
        pending = [
            replace(m, role="pending", note="supports these arguments, not yet trusted") for m in support
        ]
        return ServiceDecision(
            "",
            "ask",
            pending,
            [m.id for m in pending],
            "memory supports these arguments but is not trusted yet",
        )
    return ServiceDecision("", "abstain", [], [], "nothing on file supports these arguments")
