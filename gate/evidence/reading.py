"""What one statement does towards a request: asks for it, gives its values, denies, withdraws, or none.

A statement is read clause by clause (a value counts only in a clause that
asks or gives values, never in one that puts something off, asks on a
condition or says no), and as a whole for who said it. Each reading names
the rule that decided it, a stable id; in order, the first that applies:

``trace.speaker``       not the caller's own words (the agent's, a quoted or labelled source)
``trace.instruction``   text that tries to instruct the agent or the system
``trace.sarcasm``       opened by a fixed sarcastic form ("oh sure, stop the gym one, and ...")
``trace.record``        the gate's own record of a request it acted on ("I confirm: ...")
``trace.closing``       thanks, agreement or politeness and nothing else ("that works for me")
``trace.someone_else``  about or for somebody else
``trace.condition``     asks only on a condition, asks whether, plans, reports, jokes
``trace.later``         asks for it at a later time the request does not name
``trace.denied``        says no to the action ("don't book it"), or prefers another to it ("i'd
                        rather pause it than cancel it"); or ``trace.opposite``: asks for its
                        opposite ("keep my plan" against cancelling it)
``trace.withdrawn``     takes back or changes what was said before ("actually forget it"),
                        also later in the same breath ("book it, or actually let me check")
``trace.question``      asks rather than requests ("is Friday free?", "when do i need to pay it
                        by", "hypothetically, could you ...", a request said back as a question
                        and answered with anything but a yes); its values still count
``trace.request``       asks for an action (a wish, a command, a polite question)
``trace.points_back``   asks for this action with a pronoun for what was said before it ("i'm
                        done with the gold one, get me off it"): its own verb is the action's
``trace.value``         gives values without asking for anything itself ("at 11:45", "Lotus please")
``trace.other``         says something else

A request is for *this* action when it is close in meaning to the action
(the query with and without its values, the tool's description) or names
its verb or its thing (a word of the query, its stem or its family); it
asks for another action (``trace.other_action``) when its verb is of
another family, or when it asks for this action on another thing ("cancel
my premium seats for the opera" is not the premium plan, "book a vet
visit" not a home visit, "at the groomers" not "at the vet"). A modal
question whose subject is not the one asked ("can he come tuesday instead")
asks for it only by its words or meaning, never by its values alone.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, wraps
from typing import Any, TypeVar, cast

from gate import lang as lang_data
from gate import utterance
from gate.evidence import forms, words
from gate.evidence.in_language import compound_heads
from gate.evidence.meaning import Similarities
from gate.evidence.request import ArgumentSpec, TraceRequest
from gate.evidence.statements import Statement
from gate.lang.text import fold
from gate.values import find_mentions

_T = TypeVar("_T")

# Cosine similarity (MiniLM) of a statement with the action's texts. Without the values
# (the query's own words, the tool's description): from ABOUT a statement may be about the
# action when it also names its verb or thing, from CLEAR on meaning alone. With the values
# (the rendered query, whose shared values lift unrelated statements): from ABOUT_RENDERED
# with a word of the action, from CLEAR_RENDERED alone. Below RELATED a statement is about
# another matter: its values do not count for this request.
ABOUT = 0.35
CLEAR = 0.55
ABOUT_RENDERED = 0.40
CLEAR_RENDERED = 0.75
RELATED = 0.25
# Two things named are the same thing from this similarity (when no word is shared).
SAME_THING = 0.6
# A request that carries every bound value, one of them an identifier or a name, asks for
# this action in whatever words (no verb of another action, no other thing) from this
# similarity: values of that kind do not meet by chance.
FLOOR = 0.10
# In a call, a request of the caller's own on this matter: the rest of the call gives the values.
CALL_FLOOR = 0.15

_STOP = frozenset(
    {
        *("a", "an", "the", "on", "at", "in", "of", "to", "for", "by", "with", "from", "and", "or", "as"),
        *("my", "me", "i", "your", "our", "this", "that", "it", "is", "be", "please", "some", "any", "us"),
    }
)
_WORD = re.compile(r"[a-zà-ÿß][a-zà-ÿß'\-]*")
_RECORD = re.compile(r"^\s*I (?:confirm|request):\s*(?P<query>.+?)\.\s*(?:\(Asked:|$)", re.DOTALL)
_PARTICLES = frozenset({"in", "on", "up", "off", "out", "back", "down", "over", "round", "by"})
# Adverbs that say how a thing goes or where, never what it is ("bring 07700 900456 along").
_HOW_IT_GOES = frozenset({"along", "away", "together", "aside", "ahead", "forward", "forwards", "across"})
# Nouns that measure out a thing rather than name it ("another month of sertraline", "a batch of
# the usual"): the thing is what follows their "of"; said alone after "another" or "more", they name
# no thing ("can you sort another batch" is more of what was being spoken of).
_MEASURES = frozenset(
    {
        *("batch", "batches", "supply", "supplies", "lot", "load", "loads", "box", "boxes", "pack"),
        *("packs", "bottle", "bottles", "round", "rounds", "dose", "doses", "course", "courses"),
        *("month", "months", "week", "weeks", "year", "years", "worth", "bit", "bits", "amount"),
    }
)
_MORE_OF = frozenset({"another", "more", "further", "extra", "fresh", "new"})
# What is left of something, said in place of its name ("stick what's left in my joint account",
# "move the rest to savings"): a pointer at a thing already named, never another thing.
_REMAINDER = re.compile(
    r"^\W*(?:(?:what|whatever)(?:'s|\s+is|\s+was)?\s+(?:left|remaining|remains|over)|"
    r"the\s+(?:rest|remainder|leftovers?)|everything\s+(?:left|remaining))\b(?!\s+of\b)",
    re.IGNORECASE,
)
_OBJECT_ENDS = frozenset(
    {
        *("about", "regarding", "concerning", "effective", "immediately", "straight", "permanently"),
        *("on", "at", "for", "to", "from", "with", "by", "in", "of", "into", "onto", "instead", "and"),
        *("but", "because", "so", "as", "if", "when", "then", "today", "tomorrow", "tonight", "next"),
        *("before", "after", "until", "till", "asap", "right", "is", "are", "was", "its", "it's", "i"),
        *("we", "please", "now", "again", "too", "also", "there", "here", "this", "that", "these"),
        *("those", "which", "who", "plus", "or", "toward", "towards", "across", "onto", "over", "through"),
        *("near", "nearby", "around", "within"),
        # a clause of its own after the thing ("pause the gold plan while i'm abroad")
        *("while", "whilst", "unless", "since", "once", "although", "whereas", "whenever", "i'm"),
        *("we're", "i'll", "we'll", "i've", "we've", "i'd", "we'd"),
        # words said of the whole request after its object ("cancel it anyway"): no thing
        *("anyway", "anyways", "anyhow", "regardless", "though", "altogether", "already", "thanks"),
        *("rather", "than"),
        # the same in the other languages callers use ("mi suscripción de netflix")
        *("de", "del", "du", "des", "von", "vom", "para", "pour", "für", "por", "con", "avec", "mit"),
    }
)
_TIMES_OF_DAY = frozenset(
    {"morning", "afternoon", "evening", "night", "lunchtime", "midday", "noon", "midnight", "weekend"}
)
_NOT_OBJECT = frozenset(
    {
        *("the", "a", "an", "my", "our", "your", "his", "her", "their", "all", "any", "some", "both"),
        *("me", "us", "it", "them", "whole", "entire", "dollars", "dollar", "euros", "euro", "pounds"),
        *("pound", "bucks", "quid", "pesos", "cents", "percent", "k", "grand", "just", "one", "ones"),
        *("another", "new", "second", "other", "same", "usual", "current", "existing", "old", "extra"),
        *("additional", "more", "few", "couple", "kindly", "also", "really", "please", "like", "um", "uh"),
        *("erm", "kinda", "sorta", "maybe", "actually", "literally", "basically", "quickly", "sent", "paid"),
        *("done", "gone", "made", "put", "got", "given", "taken", "set", "sorted", "somewhere", "something"),
        # Determiners of the other languages callers use ("mi suscripción", "mon abonnement").
        *("mi", "mis", "tu", "tus", "su", "sus", "el", "la", "los", "las", "un", "una", "mon", "ma"),
        *("mes", "le", "les", "une", "mein", "meine", "meinen", "meinem", "den", "die", "das", "der"),
        *("ein", "eine", "einen", "unser", "unsere", "unseren", "notre", "nos", "nuestro", "nuestra"),
        # Words a tool's description uses for "the one the caller picks": no kind of thing.
        *("selected", "chosen", "particular", "specific", "desired", "preferred", "certain", "specified"),
    }
)
_WISH_OBJECT = re.compile(
    r"\b(?:(?:i|we)(?:'?d| would)? (?:(?:also|really|just|still|now|then|actually) )?(?:like|want|need)|"
    r"can i (?:get|have)|could i (?:get|have)|i'?ll take|i'?ll have|i'?m after|looking for|"
    # "can you get me a ride", "sort us a cab": what the caller is to be got
    r"\b(?:get|sort|grab|fetch|order|arrange) (?:me|us)(?= an? ))"
    r"\s+(?:to\s+\w+\s+)?",
    re.IGNORECASE,
)
# Later times a request may be for ("cancel it at the end of the month"): not a request now
# unless a value of the request names that time.
_LATER = re.compile(
    r"\b(?:at the (?:end|start|beginning) of (?:the|this|next) \w+|from (?:the \w+ of )?next \w+|"
    r"from (?:january|february|march|april|may|june|july|august|september|october|november|december)|"
    r"(?:in|after) (?:a|one|two|three|four|five|six|a few|\d+) (?:days?|weeks?|months?|years?)|"
    r"later (?:this|next|on|today)|when my contract ends|once the \w+ (?:ends|finishes|runs out)|"
    # "monday at 6pm next month": a weekday a month or more away is not the one said alone
    r"(?<!of )next (?:month|year))\b",
    re.IGNORECASE,
)
# After a negation, verbs that say a value does not suit ("friday doesn't work", "i can't do 7").
_FITTING = frozenset(
    {"work", "works", "do", "make", "manage", "suit", "suits", "fit", "come", "go", "be", "want"}
)
_SEPARATOR = re.compile(r"[,;]\s|\s(?:and|plus|also|then|as well as|y|et|und|e)\s", re.IGNORECASE)


@dataclass(frozen=True)
class Reading:
    """One statement's reading towards a request.

    ``values``: per argument name, every place the statement gives it a value
    in a clause that counts (:class:`gate.evidence.forms.Said`). ``denied``:
    argument names whose own value it says no to. ``counts``: its values may
    count for this request (the caller's own words, on this matter). ``about``:
    its closeness in meaning to the action. ``change``: it says a value replaces
    another ("actually", "make it", "instead"). ``agrees`` / ``refuses``: it takes
    up, or turns down, what the agent just said.
    """

    statement: Statement
    stance: str
    rule: str
    about: float = -1.0
    names_action: bool = False
    # Names the action by its meaning or its words, not only as a request of the caller's own in
    # the call ("I'd like to reserve that car we talked about", not "I'd like to take a look").
    names_plainly: bool = False
    # Which task the caller's request turns to: "away" (another thing than the action's, from
    # their next turn), "back" (this action, or a search for its thing), or None (no turn).
    task: str | None = None
    other_action: bool = False
    values: Mapping[str, tuple[forms.Said, ...]] = field(default_factory=dict)
    denied: frozenset[str] = frozenset()
    denies_action: bool = False
    counts: bool = False
    change: bool = False
    agrees: bool = False
    refuses: bool = False
    bare: bool = False
    record: str | None = None
    note: str = ""

    def said(self, name: str) -> tuple[forms.Said, ...]:
        return self.values.get(name, ())


def content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if w not in _STOP]


@lru_cache(maxsize=256)
def _family_pattern(family: frozenset[str]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(re.escape(f) for f in sorted(family, key=len, reverse=True)) + ")")


def shares_word(text: str, wanted: Sequence[str]) -> bool:
    """Whether ``text`` names one of ``wanted``: the same word, its stem, or a word of its family."""
    folded = " ".join(_WORD.findall(text.casefold()))
    mine = set(folded.split()) - _STOP
    for w in wanted:
        for m in mine:
            if m.startswith(w) or (w.startswith(m) and len(m) >= 4) or (len(w) >= 5 and m[:5] == w[:5]):
                return True
        for family in words.FAMILIES:
            if w in family and _family_pattern(family).search(folded):
                return True
    return False


@lru_cache(maxsize=1024)
def _action_words(masked: str) -> tuple[str, ...]:
    return tuple(content_words(masked))


def action_words(request: TraceRequest) -> tuple[str, ...]:
    """The query's own words, values left out (its verb first: queries open with it)."""
    return _action_words(request.masked_query)


def foreign_families(text: str) -> list[frozenset[str]]:
    """The families of the Spanish, French or German words ``text`` says, in the order said
    (:data:`words.FOREIGN_VERBS`)."""
    return list(_foreign_families(text.casefold()))


@lru_cache(maxsize=2)
def _folded_stems(things: bool) -> tuple[tuple[frozenset[str], tuple[str, ...]], ...]:
    """:data:`words.FOREIGN_THINGS` or :data:`words.FOREIGN_VERBS`, their stems folded once."""
    table = words.FOREIGN_THINGS if things else words.FOREIGN_VERBS
    return tuple((english, tuple(fold(s) for s in stems)) for english, stems in table)


def foreign_things(text: str) -> list[frozenset[str]]:
    """The families of the things in Spanish, French or German ``text`` names, in the order said
    (:data:`words.FOREIGN_THINGS`)."""
    return list(_foreign_families(text.casefold(), things=True))


@lru_cache(maxsize=2)
def _stem_index(
    things: bool,
) -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]], tuple[frozenset[str], ...]]:
    """The stems of :func:`_folded_stems` by their words: those of three letters or fewer are
    whole words, longer ones begin words; each names the rows (by position) it belongs to."""
    whole: dict[str, list[int]] = {}
    begins: dict[str, list[int]] = {}
    rows = _folded_stems(things)
    for i, (_, stems) in enumerate(rows):
        for s in stems:
            (whole if len(s) <= 3 else begins).setdefault(s, []).append(i)
    return (
        {s: tuple(v) for s, v in whole.items()},
        {s: tuple(v) for s, v in begins.items()},
        tuple(english for english, _ in rows),
    )


@lru_cache(maxsize=8192)
def _foreign_families(folded: str, things: bool = False) -> tuple[frozenset[str], ...]:
    # kept: a trace asks it of every clause and every thing named, several times a decision
    # accents aside ("cancélala" is "cancelar"'s, as "cancela" is)
    tokens = [fold(t) for t in re.findall(r"[a-zà-ÿß]+", folded)]
    if things:
        # a German compound is a thing of its last part ("Zahnarzttermin" an appointment)
        tokens = [_compound_head(t) for t in tokens]
    whole, begins, english = _stem_index(things)
    # each row at the first word that says one of its stems; a word is looked up by itself and
    # by each of its beginnings of four letters or more, not against every stem of every row
    first: dict[int, int] = {}
    for at, token in enumerate(tokens):
        for row in whole.get(token, ()):
            first.setdefault(row, at)
        for end in range(4, len(token) + 1):
            for row in begins.get(token[:end], ()):
                first.setdefault(row, at)
    return tuple(english[row] for row in sorted(first, key=lambda r: (first[r], r)))


def _compound_head(token: str) -> str:
    """The last part of a compound the language data lists (``compound_heads``: "termin" of
    "zahnarzttermin"), or the token itself."""
    for head in compound_heads():
        # four letters or more: a shorter one ("abo") ends too many words of other things
        if len(head) >= 4 and len(token) > len(head) + 2 and token.endswith(head):
            return head
    return token


def _says_abroad(text: str, wanted: Sequence[str]) -> bool | None:
    """Whether the first foreign verb in ``text`` is of the action's family (True) or of another
    (False: "annuler le virement" cancels, whatever it cancels), or none is said (None).

    A family of verbs goes before one of things (:data:`words.FOREIGN_THING_ROWS`: "alquilar un
    coche", "una mesa"), whatever the order: in German the verb of a wish comes last ("wir
    möchten unseren Tisch stornieren"), and the thing said before it is no verb of the action's."""
    found = foreign_families(text)
    if not found or not wanted:
        return None
    first = next((f for f in found if f.isdisjoint(words.FOREIGN_THING_ROWS)), found[0])
    if shares_word(" ".join(sorted(first)), list(wanted)) or wanted[0] in first:
        return True
    # "cambiar al plan platinum" for an upgrade: a verb that sets a thing to a value, as the
    # action's does (a change of any other class stays another action)
    return words.VERB_CLASSES.get(wanted[0]) == "change" and any(
        words.VERB_CLASSES.get(w) == "change" for w in first
    )


def _verb_of_the_action(part: str, request: TraceRequest) -> bool:
    """Whether the clause asks with the action's own verb, one of its family, or one of the family
    of the action's thing ("could someone come out on thursday" for a home visit: "come out" is
    what a visit is)."""
    verb = asked_verb(part, request)
    if verb is None:
        return False
    wanted = action_words(request)
    if _same_family(verb, wanted):
        return True
    thing = query_thing(request)
    return bool(thing) and _in_one_family(verb, thing[-1])


# "get a technician out", "could you get us a callout": what is got, after whom for and its article.
_GETS = re.compile(
    r"\bget\s+(?:(?:me|us)\s+)?(?:a|an|the|some|someone|somebody|my|our)\s+([a-z]+)\b(?!['’])", re.IGNORECASE
)
# A person named as what the caller gets, then what they are to do ("get the engineer to call
# me") or where they are to go ("get the engineer out of my house"): that is asked for, not them.
_TO_DO_AFTER = re.compile(r"^\W*(?:to|and)\s+[a-z]+|^\s+(?:out\s+of|off|away|rid)\b", re.IGNORECASE)


def _thing_of_the_action(part: str, request: TraceRequest) -> bool:
    """Whether the clause asks for the action's thing by another word of its family ("get a
    technician out", "send an engineer round" for a home visit), for an action that makes or
    books something, with a verb of that class or a wish and no verb ("i need a callout")."""
    if action_class(request) != "create":
        return False
    # "could you squeeze me in for a dental checkup": a visit asked for, whatever its verb
    visit = _IN_FOR.search(part) is not None
    verb = None if visit else asked_verb(part, request) or utterance.command_verb(part)
    if verb is not None and words.VERB_CLASSES.get(verb.split()[0]) != "create":
        return False
    thing, named = query_thing(request), asked_thing(part, request)
    if verb is None and not named:
        # "can you get a technician out": "get", too general a verb for the lists, with its object
        got = _GETS.search(part)
        named = [got.group(1).casefold()] if got is not None else []
    if not thing or not named:
        return False
    head = named[-1]
    # a meeting of another name, qualified as the query's is ("a dental checkup" for "a dentist
    # appointment"), asked for as a visit
    meeting = (
        visit
        and head in words.MEETINGS
        and thing[-1] in words.MEETINGS
        and all(_same_qualifier(q, thing) for q in named[:-1])
    )
    if (head == thing[-1] and not visit) or not (meeting or _in_one_family(head, thing[-1])):
        return False
    at = re.search(rf"\b{re.escape(head)}\b", part.casefold())
    return at is not None and _TO_DO_AFTER.match(part[at.end() :]) is None


def _in_one_family(a: str, b: str) -> bool:
    """Whether some family of :data:`words.FAMILIES` holds both words."""
    return any(a in f and b in f for f in words.FAMILIES)


def _same_family(verb: str, wanted: Sequence[str]) -> bool:
    return shares_word(verb, wanted[:1]) or any(
        verb in family and any(w in family for w in wanted[:1]) for family in words.FAMILIES
    )


# An object that opens a clause ("update where you deliver to ...", "change what i pay") or is
# somebody unnamed ("i need someone to come round"): no thing is named after it.
_CLAUSE_OBJECT = frozenset(
    {"where", "what", "when", "how", "which", "who", "whom", "whose", "why", "whether", "whatever"}
    | {"someone", "somebody", "anyone", "anybody", "everyone", "everybody", "whoever", "wherever"}
)


# Participles of going somewhere: after a thing, they say where or when it goes.
_GOING = frozenset(
    {"going", "leaving", "departing", "arriving", "heading", "coming", "travelling", "traveling", "flying"}
    | {"running", "getting", "stopping", "returning", "headed", "bound"}
)


def object_after(text: str, at: int) -> list[str]:
    """The words naming what is asked for, from ``at`` (at most three; values and determiners out)."""
    if _REMAINDER.match(text[at:]):
        return []
    # a colon ends the thing too ("book a dentist appointment: day {day}"), not one inside a time
    tokens = re.findall(r"[a-zà-ÿ0-9][a-zà-ÿ0-9'\-]*|[,;.!?]|:(?!\d)", text.casefold()[at:])
    named: list[str] = []
    for i, token in enumerate(tokens[:8]):
        if token in _MEASURES and not named[1:]:
            if i + 1 < len(tokens) and tokens[i + 1] == "of":
                named = []  # "a month of sertraline": the thing follows the "of"
                continue
            said_alone = i + 1 >= len(tokens) or tokens[i + 1] in _OBJECT_ENDS or tokens[i + 1] in ",;:.!?"
            if said_alone and not named and i > 0 and tokens[i - 1] in _MORE_OF:
                return []  # "sort another batch": more of what was spoken of
        if token == "of" and not named and i > 0 and tokens[i - 1] in _MEASURES:
            continue
        if token in _HOW_IT_GOES:
            continue
        if token in _OBJECT_ENDS or token in ",;:.!?":
            break
        if token in _CLAUSE_OBJECT:
            break  # "update where you deliver", "i need someone to come": a clause or a person
        if token in _PARTICLES and named:
            if _verb_word(named[-1]):
                # "a dental check up", "a top up": a verb and its particle in the thing's place are
                # one noun, written as such ("check-up"), and the thing ends with it
                named[-1] = f"{named[-1]}-{token}"
            break  # "prescription over the phone": a particle after the thing ends it
        if token in _TIMES_OF_DAY and named:
            break  # "a table saturday evening": when, not what
        if token in ("you", "they", "he", "she") and named:
            break  # "the song you found": who did something to it, not what it is
        if token in ("it", "them") and not named:
            break  # "cancel it outright": the object is a pointer; what follows says how
        if token in _NOT_OBJECT or token in _PARTICLES or token[0].isdigit():
            continue
        if named and ((token.endswith("ed") and len(token) > 4) or token in words.IRREGULAR_PARTICIPLES):
            break  # "the kids add-on removed", "my card ending 4432 frozen": a participle ends the thing
        if token in _GOING and named:
            break  # "a bus going there", "a flight leaving at 5": where it goes, not what it is
        if token in _BARE_NUMBER and named and named[-1] in _NUMBERED:
            continue  # "ship order number B-221": the order, by its number
        named.append(token)
        if len(named) == 3:
            break
    return named


def _verb_word(word: str) -> bool:
    """Whether ``word`` is a verb callers act or ask with ("check", "top", "pick")."""
    return word in forms.acting_verbs() or word in words.INQUIRY or word in words.VERB_CLASSES


# Words that say only that an identifier follows, and the things callers name by their number.
_BARE_NUMBER = frozenset({"number", "no", "id", "nr", "num", "ref", "reference"})
_NUMBERED = frozenset(
    {"order", "invoice", "account", "booking", "ticket", "case", "policy", "flight", "card", "parcel"}
    | {"item", "tracking", "reservation", "claim", "loan", "contract", "subscription", "membership"}
)


def _verb_at(text: str, verb: str) -> int:
    found = re.search(rf"(?<![\w-]){re.escape(verb)}(?![\w-])", text.casefold())
    return found.end() if found else -1


# A past participle: a word in -ed, or one of English's own forms ("frozen", "sent").
_PARTICIPLE = r"[a-z]{3,}ed|" + "|".join(sorted(words.IRREGULAR_PARTICIPLES, key=len, reverse=True))
_CAUSATIVE = re.compile(
    r"\b(?:get|got|have|having|getting)\s+(?:it|that|this|them|(?:the|my|our|this|that)\s+\w+(?:\s+\w+)?)\s+"
    r"(?!(?:sent|delivered|back|off|out|in|on|over|round|through|done|sorted)\b)([a-z]{3,}ed)\b",
    re.IGNORECASE,
)


# A wish for a thing to be done, said with the thing first and the verb as its participle ("i'd
# like the gold plan paused", "i want my card ending 4432 replaced", "we need order b-12 sent",
# "i'd like it to be paused"):
# the participle is the verb asked for. The object stops at a word that opens a clause of its
# own ("the card that i used", "the plan my wife cancelled"), so a participle there says what
# happened, not what is wanted.
_OPENS_ITS_OWN = (
    r"which|who|whom|whose|i|we|you|they|he|she|if|when|because|so|and|but|or|was|were|is|are|been|be|"
    r"has|have|had"
)
_WISH_WITH_PARTICIPLE = re.compile(
    r"\b(?:i|we)(?:'?d| would)?\s+(?:(?:also|really|just|still|now|then|actually|rather)\s+)?"
    r"(?:like|want|need|prefer|love)\s+"
    # the object: not "to" first ("i want to ..." is no object), then up to ten words; the last
    # participle in reach is the one wished for ("the 200 dollars sent to ACC-1234 returned")
    rf"(?!(?:to|{_OPENS_ITS_OWN})\b)[\w'-]+\s+(?:(?!(?:that|it|{_OPENS_ITS_OWN})\b)[\w'-]+\s+){{0,9}}"
    rf"(?:to\s+(?:be|get)\s+)?({_PARTICIPLE})\b",
    re.IGNORECASE,
)


# The same asked or said in the passive ("can the gold plan be paused", "my card needs to be
# replaced", "the order should be checked first"): the participle is the verb asked for.
_PASSIVE_ASKED = re.compile(
    r"\b(?:(?:can|could|would|will|may|might)\s+"
    rf"(?!(?:{_OPENS_ITS_OWN})\b)[\w'-]+\s+(?:(?!(?:that|{_OPENS_ITS_OWN})\b)[\w'-]+\s+){{0,9}}(?:be|get)|"
    r"(?:needs?\s+to|has\s+to|have\s+to|must|should|ought\s+to)\s+be)\s+"
    rf"(?:[a-z]+\s+)?({_PARTICIPLE})\b",
    re.IGNORECASE,
)


# Verbs too general to name an action ("i'd like my limit put up"), and what says where a thing
# goes after one ("put towards a new jacket").
_GENERAL_VERBS = frozenset({"put", "set", "make", "do", "get", "give", "take", "have", "sort", "go"})
_GOES_TOWARDS = re.compile(r"\s+(?:towards?|against|into|onto|in|on)\b", re.IGNORECASE)


def wished_done(text: str) -> str | None:
    """The verb of a wish said with its participle ("i want my card frozen" -> freeze), or asked
    or said in the passive ("can it be paused" -> pause), or None."""
    found = _WISH_WITH_PARTICIPLE.search(text) or _PASSIVE_ASKED.search(text)
    if found is None:
        return None
    verb = _unparticiple(found.group(1).casefold())
    # "i'd like my limit put up", "i want it done": a general verb names no action of its own,
    # unless it says where the thing goes ("the 60 dollars put towards a new jacket")
    if verb in _GENERAL_VERBS and _GOES_TOWARDS.match(text, found.end()) is None:
        return None
    return verb


def _unparticiple(done: str) -> str:
    """The plain verb of a past participle: "fixed" fix, "changed" change, "stopped" stop,
    "tidied" tidy (the form the verb lists know, where one of the candidates is in them)."""
    if done in words.IRREGULAR_PARTICIPLES:
        return words.IRREGULAR_PARTICIPLES[done]
    if done.endswith("ied"):
        return done[:-3] + "y"
    candidates = [done[:-1], done[:-2]]
    if len(done) > 4 and done[-3] == done[-4]:
        candidates.append(done[:-3])
    known = words.VERB_CLASSES.keys() | words.INQUIRY
    return next((c for c in candidates if c in known), done[:-2])


def asked_verb(text: str, request: TraceRequest) -> str | None:
    """The verb the statement asks with: its request form, or the query's own verb said as a command.

    A causative says its verb in the participle: "please get it fixed" asks to fix, "have the
    boiler looked at" to look. A participle of getting something somewhere ("get it sent",
    "get it delivered") or of having it done at all ("get it sorted") says no other verb.
    """
    verb = utterance.requested_verb(text)
    if verb is not None and verb.split()[0] in _STOPPING and _OUT_OF_USE.search(text):
        return "block"  # "stop the card from working", "stop anyone using it": out of use, on hold
    if verb in (None, "get", "have"):
        caused = _CAUSATIVE.search(text)
        if caused is not None:
            return _unparticiple(caused.group(1).casefold())
        wished = wished_done(text)
        if wished is not None:
            return wished
        if _GETS_AWAY.search(text) is not None:
            return "remove"  # "get the engineer out of my house", "get rid of the sports pack"
    if verb is None:
        wanted = action_words(request)
        if wanted and utterance.opens_with(text, wanted[0]):
            return wanted[0]
    return verb


# Getting a thing or a person away from where it is: a removal, whatever the thing.
_GETS_AWAY = re.compile(
    r"\bget\s+(?:rid\s+of|(?:\S+\s+){1,3}?(?:out\s+of|off\s+(?:my|our|the)|away\s+from))\b", re.IGNORECASE
)
# Stopping a thing's use ("stop the card from working", "stop it working", "stop anyone using
# my card", "prevent it being used"): putting it on hold (blocking it), not ending it.
_STOPPING = frozenset({"stop", "prevent"})
_OUT_OF_USE = re.compile(
    rf"\b(?:{'|'.join(sorted(_STOPPING))})\s+"
    r"(?:(?:anyone|anybody|people|someone|somebody|others|them|thieves)\s+"
    r"(?:from\s+)?(?:using|spending on|spending with|withdrawing with|paying with)|"
    r"(?:\S+\s+){1,5}?(?:from\s+)?(?:working|being used|functioning))\b",
    re.IGNORECASE,
)


# Verbs that ask to have a thing done without saying what is done ("sort it out", "take care
# of it", "pop it on my card"): said of what a pointer points to, they ask for that.
_DOING = frozenset(
    {"sort", "handle", "deal", "arrange", "process", "action", "organise", "organize", "do", "get"}
    | {"put", "pop", "stick", "take", "go", "make", "see"}
)
# Verbs of telling, showing, keeping or looking into a thing ("email it to my accountant", "check
# it against the quote", "remind me about it"): another thing done with it, never the action. The
# inquiry and telling verbs are another action anywhere (:func:`known_other`); those of keeping or
# passing a thing on ("log it", "forward it", "call about it") are another only for a pointer,
# which says nothing else of what it asks.
_ABOUT_IT = (
    words.INQUIRY
    | words.TELLING
    | {"forward", "mail", "post", "copy", "share", "read", "note", "log", "record", "file", "save"}
    | {"store", "keep", "track", "query", "confirm", "ring", "call", "phone", "write", "mention"}
)


def asks_it_done(text: str, request: TraceRequest) -> bool:
    """Whether the statement asks with no verb of its own, a verb of having a thing done
    (:data:`_DOING`), the action's own or an unknown one ("knock it on the head"): not with
    another action's, nor one of telling, showing, keeping or looking into it (:data:`_ABOUT_IT`:
    "email it to my accountant", "check it against the quote", "remind me about it")."""
    verb = asked_verb(text, request) or utterance.command_verb(text)
    if verb is None or verb.split()[0] in _DOING:
        return True
    wanted = action_words(request)
    if _same_family(verb, wanted):
        return True
    return verb.split()[0] not in _ABOUT_IT and not known_other(verb, wanted)


def _per_request_text(fn: Callable[[str, TraceRequest], _T]) -> Callable[[str, TraceRequest], _T]:
    """``fn`` of a text and a request, kept on the request by text: a trace asks the same of a
    statement and its clauses again for each rule that weighs them."""

    @wraps(fn)
    def kept(text: str, request: TraceRequest) -> _T:
        memo: dict[Any, Any] = request.__dict__.setdefault("_kept_text", {})
        key = (fn, text)
        if key not in memo:
            memo[key] = fn(text, request)
        return cast(_T, memo[key])

    return kept


def asked_thing(text: str, request: TraceRequest) -> list[str]:
    """What the statement asks for or asks the action on: the words after its verb or its wish.

    Words of a phrase that names the action itself ("my money back") are not a thing.
    """
    return list(_asked_thing(text, request))


# Coming in, or being fitted in, for a thing: "come in for", "pop in for", "fit me in for".
_IN_FOR = re.compile(
    r"\b(?:(?:come|pop|drop|call|stop|get|go|swing)\s+(?:in|by|round|over|down)|"
    r"(?:fit|squeeze|get|book|put)\s+(?:me|us|him|her|them)\s+in)\s+for\b",
    re.IGNORECASE,
)


@_per_request_text
def _asked_thing(text: str, request: TraceRequest) -> tuple[str, ...]:
    named: list[str] = []
    # a command's verb by its grammar too ("rent me a car", "sell my 2 tickets"); one that looks
    # for things is a search, read as one elsewhere
    verb = asked_verb(text, request)
    if verb is None:
        commanded = utterance.command_verb(text)
        verb = commanded if commanded is not None and commanded.split()[0] not in words.INQUIRY else None
    at = _verb_at(text, verb.split()[0]) if verb is not None else -1
    # "could i come in for a dental check-up", "can jade fit me in for a colour": a visit asked
    # for, its thing after the "for"
    visit = _IN_FOR.search(text)
    if visit is not None and visit.end() > at:
        at = visit.end()
    if at < 0:
        wish = _WISH_OBJECT.search(text)
        at = wish.end() if wish is not None else -1
    if at >= 0:
        clean = _without_values(text, request)
        # "look for a dentist", "search for flights": the thing comes after the "for".
        seeking = re.match(r"\s+for\s+", clean[at:], re.IGNORECASE)
        if seeking is not None and verb is not None and verb.split()[0] in words.INQUIRY:
            at += seeking.end()
        named = object_after(clean, at)
        ceased = _ceased_at(clean, at, verb)
        if ceased is not None:
            named = object_after(clean, ceased)  # "stop charging me for the sports package"
        if named and named[0] in _ACTION_NOUNS and not (len(named) > 1 and named[1] not in _ACTION_NOUNS):
            # "make a booking for this bus": the booking is the action; its thing comes after "for".
            # "a replacement part for the washer": the noun says what sort of part, it is no action.
            after = re.search(
                rf"\b{re.escape(named[0])}\s+(?:for|of|on)\s+", clean.casefold()[at:], re.IGNORECASE
            )
            named = object_after(clean, at + after.end()) if after is not None else []
    phrase = _family_phrase_words(text)
    return tuple(w for w in named if w not in phrase)


_GERUND = re.compile(
    r"\s+(?:\w+ly\s+)?([a-z]{3,}ing)\b(?:\s+(?:me|us|you|him|her|them))?"
    r"(?:\s+(?:for|on|to|about|with|from))?",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _ceasing_gerund() -> re.Pattern[str]:
    """A verb that ends what is being done, and what: "stop renewing my plan", or with the thing
    between, "stop my plan from renewing", "prevent it from auto-renewing" (not "from being
    cancelled", which keeps it)."""
    ceasing = "|".join(sorted(lang_data.union_words("ceasing_verbs")))
    return re.compile(
        rf"\b(?:{ceasing})\s+(?:\w+ly\s+)?[a-z]{{3,}}ing\b|"
        rf"\b(?:{ceasing}|prevent|keep)\s+(?:\S+\s+){{1,5}}?from\s+"
        r"(?:auto[- ]?)?(?!being\b|getting\b)[a-z]{3,}ing\b",
        re.IGNORECASE,
    )


# What a verb that hinders keeps from happening: "stop my plan from being cancelled", "prevent
# them cancelling it", "keep it from renewing" (the word after "from", or after the thing).
_HINDERED = re.compile(
    r"\b(?:(?:stop|prevent)\s+(?:[^\s,.;!?]+\s+){0,5}?(?:from\s+)?|keep\s+(?:[^\s,.;!?]+\s+){0,5}?from\s+)"
    r"(?:being\s+|getting\s+)?(?:auto[- ]?)?([a-z]{3,}(?:ing|ed|d))\b",
    re.IGNORECASE,
)


# Said before a participle, these tell what was done ("was charged", "had been billed").
_DONE_BEFORE = frozenset({"was", "were", "been", "got", "had", "already", "wrongly"})


def _opposite_happened(part: str, wanted: Sequence[str]) -> bool:
    """Whether every verb of the clause that asks for the opposite of the action is said as what
    already happened ("i was charged twice", "you billed me for it") or what happens to the thing
    ("my gold membership ends this week"): a reason to do the action, not a wish for its opposite
    (``trace.opposite`` reads a wish)."""
    said = part.casefold()
    found = False
    for word in wanted:
        for other in utterance.opposite_words(word):
            for m in re.finditer(rf"\b{re.escape(other)}([a-z]*)", said):
                found = True
                before = set(said[: m.start()].split()[-2:])
                if m.group(1) not in ("ed", "d", "s", "es") and not before & _DONE_BEFORE:
                    return False
    return found


def _hinders_the_action(part: str, request: TraceRequest) -> bool:
    """Whether the clause asks to keep the action itself from happening: "stop my plan from being
    cancelled", "prevent them cancelling my plan" keep the plan, for cancelling it (a verb of the
    action's class, hindered). "Stop my plan from renewing" hinders another class's verb, and
    asks for the end of the plan."""
    wanted = action_class(request)
    if wanted is None:
        return False
    for m in _HINDERED.finditer(part):
        if words.VERB_CLASSES.get(_base_verb(m.group(1).casefold())) == wanted:
            return True
    return False


def _base_verb(form: str) -> str:
    """The verb of :data:`words.VERB_CLASSES` an inflected form is of ("cancelled", "cancelling",
    "closing", "closed"), or the form itself."""
    for ending in ("ling", "led", "ing", "ed", "d"):
        if form.endswith(ending):
            base = form[: -len(ending)]
            for candidate in (base, base + "l", base + "e"):
                if candidate in words.VERB_CLASSES:
                    return candidate
    return form


def _ceased_at(text: str, at: int, verb: str | None) -> int | None:
    """Where the thing begins after a verb that ends what is being done and its gerund ("stop
    charging me for the sports package", "quit sending us the paper"): the gerund says what is
    being done to the thing, not the thing. None when the verb is no such verb or no gerund
    follows it right away ("stop the cleaning service" names the service)."""
    if verb is None or verb.split()[0] not in lang_data.union_words("ceasing_verbs"):
        return None
    found = _GERUND.match(text, at)
    return found.end() if found is not None else None


# Nouns that name the action itself ("make a booking", "place an order"), not what it is on.
_ACTION_NOUNS = frozenset(
    {
        *("booking", "bookings", "reservation", "reservations", "purchase", "payment", "transfer"),
        *("transaction", "request", "order", "arrangement", "top", "top-up", "topup", "refill"),
        *("renewal", "repeat", "cancellation", "refund", "replacement", "upgrade", "downgrade"),
    }
)


@lru_cache(maxsize=4096)
def _family_phrase_words(text: str) -> frozenset[str]:
    """The words of every several-word family phrase the text says ("money back", "sign me up")."""
    folded = " ".join(_WORD.findall(text.casefold()))
    out: set[str] = set()
    # One pass for every phrase (phrases may overlap: each is looked for from every position).
    for found in _FAMILY_PHRASES.finditer(folded):
        out |= set(found.group(1).split())
    return frozenset(out)


_FAMILY_PHRASES = re.compile(
    r"(?=\b("
    + "|".join(
        re.escape(p)
        for p in sorted({p for f in words.FAMILIES for p in f if " " in p}, key=len, reverse=True)
    )
    + r")\b)"
)


def _per_request(fn: Callable[[TraceRequest], _T]) -> Callable[[TraceRequest], _T]:
    """``fn`` of a request, kept on the request: a trace asks it again for every statement, and
    it reads only the request's query, description and arguments, which never change."""

    @wraps(fn)
    def kept(request: TraceRequest) -> _T:
        memo: dict[Any, Any] = request.__dict__.setdefault("_kept", {})
        if fn not in memo:
            memo[fn] = fn(request)
        return cast(_T, memo[fn])

    return kept


# For the trace's own per-request facts.
per_request = _per_request
same_family = _same_family


def query_thing(request: TraceRequest) -> list[str]:
    """What the query acts on: the words after its verb, else the labels before its values."""
    return list(_query_thing(request))


@_per_request
def _query_thing(request: TraceRequest) -> tuple[str, ...]:
    wanted = action_words(request)
    if not wanted:
        return ()
    masked = request.masked_query
    at = _verb_at(masked, wanted[0])
    named = object_after(masked, at) if at >= 0 else []
    if named:
        return tuple(named)
    labels = re.findall(r"([a-zà-ÿ]+)\s+\{", request.template.casefold())
    return tuple([w for w in labels if w not in _STOP and w != wanted[0]][:2])


@_per_request_text
def _without_values(text: str, request: TraceRequest) -> str:
    for spec in request.arguments:
        for start, end in sorted(forms.value_spans(text, spec, request), reverse=True):
            text = text[:start] + " " * (end - start) + text[end:]
    return text


without_values = _without_values  # the text around the request's own values


def base_texts(request: TraceRequest, statements: Sequence[Statement]) -> list[str]:
    """The texts that say whether a statement bears on the request at all: the action's and each
    statement's own (see :func:`bearing`)."""
    return [*request.action_texts, request.query, *(s.text for s in statements)]


def bearing(request: TraceRequest, statements: Sequence[Statement], meaning: Similarities) -> list[Statement]:
    """The statements a trace reads past their first look, given the vectors of :func:`base_texts`:
    every one but a caller's memory that cannot bear on the request (:func:`read` stops at it).

    The texts of their parts (clauses, what they ask for) are needed only for these, so only
    these are embedded for them: a caller's store holds many memories far from any one action.
    """
    wanted = action_words(request)
    out = []
    for s in statements:
        if s.origin == "memory" and s.speaker == "caller":
            plain, rendered = closeness(s.text, request, meaning)
            if _far_from(s.text, request, plain, rendered, wanted):
                continue
        out.append(s)
    return out


def texts_for(request: TraceRequest, statements: Sequence[Statement]) -> list[str]:
    """Every text a trace of ``statements`` compares in meaning (to prepare them in one batch)."""
    out = [*request.action_texts, request.query]
    thing = " ".join(query_thing(request))
    if thing:
        out.append(thing)
    wanted = query_thing(request)
    if wanted:
        out += [wanted[-1], *wanted[:-1]]
    for s in statements:
        out += _statement_texts(request, s.text, s.speaker == "caller")
    return out


def points_back_to(before: Statement, after: Statement) -> bool:
    """Whether ``after`` is the caller's words that name what they ask about with a pronoun
    ("give him twenty from me", "clear it today") and ``before`` what the caller said just before
    (a memory before a memory; in a call, their turn before, see :func:`pointer_pairs`), which
    the pronoun may point to: the two are read together as well."""
    return (
        after.origin == before.origin
        and after.speaker == "caller"
        and before.speaker == "caller"
        and not after.part
        and not before.part
        and (points_with_pronoun(after.text) or points_to_place(after.text))
    )


# "there" as a place ("get it to me there", "send the engineer over there"), not the "there" of
# being ("is there", "there's a problem") nor of a greeting or a hand-over ("hi there", "there you go")
_PLACE_POINTER = re.compile(
    r"(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bhi )(?<!\bhello )(?<!\bhey )\bthere\b"
    r"(?!\s*(?:is|are|was|were|'s|'re|'ll|will|be|you|we|goes|it is)\b)(?!')",
    re.IGNORECASE,
)
# The pronouns that may stand for a thing named by an identifier ("r102 doesn't fit, send it
# back"); "him", "her" and "there" cannot.
_THING_POINTER = re.compile(r"\b(?:it|that|them|this|those)\b", re.IGNORECASE)


def points_to_place(text: str) -> bool:
    """Whether the text names a place with "there" ("so get h-909 to me there")."""
    return _PLACE_POINTER.search(text) is not None


def points_to_thing(text: str) -> bool:
    """Whether the text has a pronoun that may stand for a thing ("it", "that", "them")."""
    return _THING_POINTER.search(text) is not None


# The agent offering, putting something forward or proposing to do something: a reply that does
# more than acknowledge ("I found 1 leaving at 9am", "There is a table at 8").
_AGENT_OFFERS = re.compile(
    r"\b(?:shall i|should i|would you like|do you want|want me to|i'll|i will|let me|how about|"
    r"what about|i (?:found|have|see|can offer|could offer)|there (?:is|are|'s)|there's|available|"
    r"option|options|instead|alternatively)\b",
    re.IGNORECASE,
)


def _only_acknowledges(text: str) -> bool:
    """Whether the agent's words only acknowledge what the caller said ("Thanks.", "I see that
    account on file."): short, no question, nothing offered or put forward, no value of any kind
    (what a search found, "The search returned 1, at 9am", puts something forward)."""
    return (
        len(_WORD.findall(text.casefold())) <= 10
        and "?" not in text
        and _AGENT_OFFERS.search(text) is None
        and not re.search(r"\d", text)
        and not forms.mentions_in(text, None)
    )


def pointer_pairs(statements: Sequence[Statement]) -> list[tuple[int, int]]:
    """The (earlier, later) positions in ``statements`` that :func:`points_back_to` pairs: two
    memories one after the other, or two turns of the caller's in a call with at most the
    agent's one reply between them ("the gas meter shows 7730" ... "Okay." ... "please pop that
    in for me"), when that reply only acknowledges: one that asks or offers something ("Would you
    like me to set up a direct debit for it?") may be what the pronoun points at. Sentences read
    on their own (``part``) are skipped."""
    out: list[tuple[int, int]] = []
    for i, after in enumerate(statements):
        j = i - 1
        while j >= 0 and statements[j].part:
            j -= 1
        if after.origin == "call" and j >= 0 and statements[j].speaker == "agent":
            if not _only_acknowledges(statements[j].text):
                continue
            j -= 1
            while j >= 0 and statements[j].part:
                j -= 1
        if j >= 0 and points_back_to(statements[j], after):
            out.append((j, i))
    return out


def joined(before: Statement, after: Statement) -> Statement:
    """The two memories as one statement (trusted only when both are)."""
    return dataclasses.replace(
        after, text=f"{before.text.rstrip(' .')}. {after.text}", trusted=after.trusted and before.trusted
    )


def pointer_texts(
    request: TraceRequest, statements: Sequence[Statement], near: Sequence[Statement] | None = None
) -> list[str]:
    """The texts of each pair :func:`points_back_to` finds in ``statements`` (in the order they
    were said), for a later memory among ``near`` when given: a pointer's meaning is what it
    points to, so the pair is compared with the action as one (see
    :func:`gate.evidence.trace.trace`)."""
    kept = None if near is None else {id(s) for s in near}
    out: list[str] = []
    for j, i in pointer_pairs(statements):
        before, after = statements[j], statements[i]
        # a call's turns always bear on the request (``near`` lists memories)
        if kept is None or id(after) in kept or after.origin == "call":
            out += _statement_texts(request, joined(before, after).text, True)
            for _, text in person_pointed(before.text, after.text, request):
                out += _statement_texts(request, text, True)
    return out


# A command said with a no ("don't give him anything", "please never send it"), not one whose
# no asks for the thing ("don't forget to send it", "don't hesitate to book it").
_NEGATED_COMMAND = re.compile(
    r"^\W*(?:(?:so|and|but|then|ok|okay|just|please)\s+)*(?:do not|don'?t|dont|never)\s+"
    r"(?!forget\b|hesitate\b|fail\b|worry\b|bother\b|wait\b|delay\b)[a-z]+\b",
    re.IGNORECASE,
)
# A person named with a pronoun: "give him twenty from me", "can you get it back to her tonight".
_PERSON_POINTER = re.compile(r"\b(?:him|her)\b", re.IGNORECASE)
# A word with a possessive ("jo's"), which may name somebody; not "it's", "that's", "let's".
_WHOSE = re.compile(r"\b([a-zà-ÿ]+)['’]s\b", re.IGNORECASE)
_NOT_WHOSE = frozenset(
    {"it", "that", "what", "there", "here", "who", "let", "he", "she", "where", "how", "today", "tomorrow"}
)
_LISTED_AFTER = re.compile(r"(?:['’]s)?\s*(?:,|&|\band\b|\bor\b|\bwith\b)", re.IGNORECASE)
_LISTED_BEFORE = re.compile(r"(?:,|&|\band\b|\bor\b|\bwith\b)\s*$", re.IGNORECASE)


def points_into_a_list(before: str, after: str, request: TraceRequest) -> bool:
    """Whether ``after`` points at a person with "him" or "her", where ``before`` names the
    request's value among others ("sam and jo are coming over" ... "give him twenty"): which one
    is meant, nothing says. Pure."""
    if _PERSON_POINTER.search(after) is None:
        return False
    for spec in request.bound:
        if spec.kind != "text":
            continue
        if any(_listed(before, start, end) for start, end in forms.value_spans(before, spec, request)):
            return True
    return False


def _listed(text: str, start: int, end: int) -> bool:
    """Whether the name at ``start:end`` is said with another ("sam and jo", "sam, jo")."""
    return _LISTED_AFTER.match(text, end) is not None or _LISTED_BEFORE.search(text[:start]) is not None


def person_pointed(before: str, after: str, request: TraceRequest) -> list[tuple[str, str]]:
    """(argument name, ``after`` with its "him" or "her" put as the argument's value), for each
    text argument whose value ``before`` names and ``after`` does not, when ``after`` has one
    such pronoun and ``before`` names nobody else for the argument. A name whose possessive
    owns a person ("sam's dad") is not the one pointed at. Pure."""
    found = list(_PERSON_POINTER.finditer(after))
    if len(found) != 1:
        return []
    at = found[0]
    out = []
    for spec in request.bound:
        if spec.kind != "text" or forms.value_spans(after, spec, request):
            continue
        spans = forms.value_spans(before, spec, request)
        if len(spans) != 1 or forms.other_value_spans(before, spec, request):
            continue
        start, end = spans[0]
        if _listed(before, start, end):
            continue  # "sam and jo are coming over": which of them "him" is, nothing says
        owned = re.match(r"(['’]s)?\s+(\w+)", before[end:])
        possessive = re.search(r"['’]s$", before[start:end]) is not None or (
            owned is not None and owned.group(1)
        )
        if possessive and owned is not None and utterance.relation_word(owned.group(2)):
            continue  # "sam's dad is in hospital": "him" may be the dad
        if any(
            not utterance.relation_word(m.group(1)) and m.group(1).casefold() not in _NOT_WHOSE
            for m in _WHOSE.finditer(before[:start] + " " * (end - start) + before[end:])
        ):
            continue  # "it's sam's birthday today, and jo's next week": somebody else is named too
        out.append((spec.name, after[: at.start()] + spec.shown + after[at.end() :]))
    return out


_STATEMENT_TEXTS: OrderedDict[tuple[object, ...], tuple[str, ...]] = OrderedDict()
_STATEMENT_TEXTS_LOCK = threading.Lock()  # engines on several threads of one process share it


def _statement_texts(request: TraceRequest, text: str, caller: bool) -> tuple[str, ...]:
    """The texts of one statement that a trace of ``request`` compares (kept: a decision reads
    them ahead, then again; a confirmation decides the same request again)."""
    key = (request.key, text, caller)
    with _STATEMENT_TEXTS_LOCK:
        kept = _STATEMENT_TEXTS.get(key)
        if kept is not None:
            _STATEMENT_TEXTS.move_to_end(key)
            return kept
    wanted = query_thing(request)
    out: list[str] = []
    if wanted:
        out += _qualifiers_said(text, wanted[-1])
    out += _frame_words(text, request)
    out.append(text)
    if caller:
        named = asked_thing(text, request)
        # an identifier's thing is compared by its shape alone (see :func:`_other_thing`)
        if named and not _an_identifier(named[-1]):
            out += [" ".join(named), named[-1]]
            spelt = _as_spelt(named[-1], (*wanted[-1:], *_thing_words(request)))
            if spelt != named[-1]:
                out += [" ".join([*named[:-1], spelt]), spelt]
    found = tuple(out)
    with _STATEMENT_TEXTS_LOCK:
        _STATEMENT_TEXTS[key] = found
        while len(_STATEMENT_TEXTS) > 4096:
            _STATEMENT_TEXTS.popitem(last=False)
    return found


def closeness(text: str, request: TraceRequest, meaning: Similarities) -> tuple[float, float]:
    """(without values, with values): the statement's similarity with the action's texts."""
    plain = max((meaning.sim(text, t) for t in request.action_texts), default=-1.0)
    return plain, meaning.sim(text, request.query)


def _record_of(statement: Statement) -> str | None:
    if statement.memory is None:
        return None
    found = _RECORD.match(statement.text)
    return found.group("query") if found else None


def _closing_only(text: str) -> bool:
    said = _WORD.findall(text.casefold())
    if re.search(r"\d", text) or forms.mentions_in(text, None):
        return False  # "fine, 3 please" gives a value
    return bool(said) and all(w in words.CLOSING or w in words.AGREEMENT for w in said)


def _agrees(text: str) -> bool:
    said = _WORD.findall(without_no_trouble(text).casefold())
    if not said or any(w in words.REFUSAL for w in said):
        return False
    return any(w in words.AGREEMENT and w != "please" for w in said)


@lru_cache(maxsize=1)
def _no_trouble() -> re.Pattern[str]:
    """A "no" that says there is no trouble ("no problem", "not a bother", "no worries"): the
    confirmation lexicon's neutral phrases that open with a no."""
    trouble = re.compile(r"\b(?:problems?|problemo|probs?|bother|worry|worries|dramas?)\b")
    neutral = lang_data.union_words("neutral")
    found = {w for w in neutral if re.match(r"(?:no|not|nae)\b", w) and trouble.search(w)}
    phrases = "|".join(re.escape(w) for w in sorted(found, key=len, reverse=True))
    return re.compile(rf"\b(?:{phrases})\b", re.IGNORECASE)


def without_no_trouble(text: str) -> str:
    """``text`` with each "no problem" read as the "ok" it means."""
    return _no_trouble().sub("ok", text)


# A side matter announced ("i have another question", "one more thing"): no other option asked for.
_SIDE_MATTER = re.compile(
    r"\b(?:another|one more|one other)\s+(?:quick\s+|small\s+)?(?:question|query|thing to ask|thing)\b",
    re.IGNORECASE,
)


def _refuses(text: str) -> bool:
    said = _WORD.findall(_SIDE_MATTER.sub(" ", without_no_trouble(text)).casefold())
    return bool(said) and (
        said[0] in ("no", "nope", "nah", "non", "nein") or "else" in said or "another" in said
    )


@lru_cache(maxsize=4096)
def _phrases(found: frozenset[str]) -> re.Pattern[str]:
    """Any of ``found`` as whole words, in folded text (see :func:`_says`); longest first."""
    return re.compile(
        r"(?<![\w-])(?:"
        + "|".join(re.escape(m) for m in sorted(found, key=len, reverse=True))
        + r")(?![\w-])"
    )


def _says(text: str, pattern: re.Pattern[str]) -> bool:
    return pattern.search(" ".join(_WORD.findall(text.casefold()))) is not None


def _change_marked(text: str) -> bool:
    return _says(text, _CHANGE_MARKED)


def _substitutes(text: str) -> bool:
    return _says(text, _SUBSTITUTE)


_CHANGE_MARKED = _phrases(words.CHANGE_MARKERS)
_SUBSTITUTE = _phrases(words.SUBSTITUTES)


# -- one clause ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Clause:
    start: int
    end: int
    # request | value | question | condition | later | denial | put_off | exception | someone_else
    # | dropped (a command to let go of what it points at)
    stance: str
    denies_action: bool = False
    denied: frozenset[str] = frozenset()
    other: bool = False  # a request for another action, or for this one on another thing
    search: bool = False  # that other action is a search ("find me concerts in Vancouver")
    # Asked as a yes/no question with a modal ("can he come tuesday instead"): a request only
    # when it names the action by its words or meaning, never by its values alone.
    asked: bool = False
    # Wished for only as a preference or a state of a value ("INV-5150 should be 1200", "8pm
    # works for us"): by its values alone it names no action but a change to them.
    prefers: bool = False
    # In a call, a request for this action on a thing that is not the query's by the full reading
    # ("i'd like a paris themed cake for sunday" for a flight): its values still count for the
    # request (a caller opens with a need in their own words), but it does not name the action.
    loose: bool = False


@_per_request
def _moves_from(request: TraceRequest) -> bool:
    """Whether the request itself moves something from a value ("move 300 from current to savings")."""
    return any(a.role == "from" for a in request.bound) or bool(
        re.search(r"\bfrom\s+(?:(?:the|my|our|your)\s+)?\{", request.template, re.IGNORECASE)
    )


def _moves_between(part: str, request: TraceRequest) -> bool:
    """Whether "from X to Y" in ``part`` moves something between two parties or two of the
    request's things (:func:`forms.moved_to_another`: "from my savings account to hers", "from
    my savings to Jerry"), rather than changing one thing from X to Y: then X is the source,
    not a value said no to. "From friday to saturday" still changes the day.
    """
    for found in re.finditer(r"\bfrom\b", part, re.IGNORECASE):
        for spec in request.bound:
            for s, e in forms.value_spans(part, spec, request):
                if (
                    found.end() <= s
                    and s - found.end() <= 20
                    and forms.moved_to_another(part, e, spec, request)
                ):
                    return True
    return False


_DETERMINER_NO = re.compile(r"\b(?:no|without|zero|nor)\s*$", re.IGNORECASE)
_PHRASE_END = re.compile(r"[,;.!?]|\s(?:by|for|on|at|to|in|and|but|so|please|then|because|with|from)\s", re.I)


def _noun_scope(clause: str, denied: str) -> str:
    """A no before a noun denies that noun phrase only: "with no subtitles by renting" denies subtitles.

    A no before a verb ("don't book it") or a whole clause keeps its scope.
    """
    at = clause.casefold().find(denied.strip().casefold()[:20]) if denied.strip() else -1
    if at < 0 or not _DETERMINER_NO.search(clause[:at]):
        return denied
    end = _PHRASE_END.search(denied)
    return denied[: end.start()] if end else denied


def _denial_in(part: str, request: TraceRequest) -> tuple[bool, frozenset[str]]:
    """Whether a denied part says no to the action, and to which values.

    The no must be to the action's own verb, a verb of fitting ("friday doesn't
    work"), or a value with no verb at all ("no deliveries on sunday", "not
    friday"); a no to another verb ("stop charging me", "we don't use it any
    more") says something else.
    """
    wanted = action_words(request)
    verb = wanted[:1]
    # "i don't want to keep it": a no to the opposite; not "don't stop it from renewing", where
    # the opposite is what is stopped (a no to cancelling it)
    if verb and utterance.opposes(part, [verb[0]]) and _ceasing_gerund().search(part) is None:
        return False, frozenset()
    said = content_words(part)
    first = next((w for w in said if w not in _DENIAL_SKIP), "")
    values_here = frozenset(
        spec.name
        for spec in request.arguments
        if spec.kind not in ("bool", "other") and forms.value_spans(part, spec, request)
    )
    if first.endswith("ing") and len(first) > 5 and not shares_word(first, wanted):
        return False, frozenset()  # "stop charging me for the sports package": a no to charging
    if first in _REASON_VERBS and not shares_word(first, wanted):
        return False, frozenset()
    fitting = first in _FITTING or not first
    # the action's verb, or one of its family in the caller's language ("bezahlen Sie sie nicht")
    own_verb = bool(first) and (shares_word(first, wanted[:1]) or _says_abroad(first, wanted) is True)
    names_value = bool(first) and any(
        forms.value_spans(first, spec, request)
        for spec in request.arguments
        if spec.kind not in ("bool", "other")
    )
    cue = bool(first) and any(shares_word(first, a.cues) for a in request.arguments)
    if _of_another_one(part, values_here, request):
        # "don't cancel the silver plan", "not order B-222": a no to the action done to another
        # thing (an identifier or a name this request does not bind), nothing said of this one
        return False, frozenset()
    thing = query_thing(request)
    opening = part.split()[0].casefold() if part.split() else ""
    if (
        first
        and first == opening
        and thing
        and (shares_word(first, thing) or shares_word(first.rstrip("s"), thing))
    ):
        return True, frozenset()  # "no planes to lisbon for me": a no to the thing itself
    if not (fitting or own_verb or names_value or cue or values_here):
        return False, frozenset()
    if re.search(r"\b(?:until|till|til|before)\b", part) and any(
        s.kind in ("time", "date", "weekday") and s.name in values_here for s in request.arguments
    ):
        # "we can't do dinner until the 10th": a no to any day before it, not to the 10th.
        return False, frozenset()
    earliest: set[str] = set()
    # the verb said of the value: "r102 doesn't fit" is a no of fitting, said of r102
    verb_said = next((w for w in content_words(_without_values(part, request)) if w not in _DENIAL_SKIP), "")
    if (first in _FITTING or verb_said in _FITTING) and not own_verb:
        # "r202 doesn't fit", "card 4432 isn't working": said of a thing an identifier names, the
        # no says the thing is at fault; no identifier is a choice that could fail to suit.
        kinds = {a.name: a.kind for a in request.arguments}
        values_here = frozenset(n for n in values_here if kinds.get(n) != "ident")
    action = own_verb or (verb and re.search(rf"(?<![\w-]){re.escape(verb[0])}", part) is not None)
    return bool(action), frozenset(values_here - earliest)


def _of_another_one(part: str, values_here: frozenset[str], request: TraceRequest) -> bool:
    """Whether a denied part names another identifier or name for a bound argument whose own
    value it does not say: what it says no to is that other thing."""
    return any(
        spec.bound
        and spec.kind in ("ident", "text")
        and spec.name not in values_here
        and forms.other_value_spans(part, spec, request)
        for spec in request.arguments
    )


# Words between a no and what it says no to ("never mind about cancelling it", "no longer need it").
_DENIAL_SKIP = frozenset(
    {
        *("want", "need", "like", "wish", "really", "ever", "about", "just", "even", "anymore", "again"),
        *("more", "longer", "going", "gonna", "wanna", "have", "any", "all", "every", "single", "thanks"),
        *("mind", "we", "you", "they", "he", "she", "no", "not", "never", "don't", "dont", "do", "does"),
        *("can't", "cant", "won't", "wont", "isn't", "aren't", "doesn't", "didn't", "i'm", "im", "we're"),
        *("will", "would", "could", "should", "can", "shall", "must", "please", "ever", "whatever"),
        # the same in Spanish, French and German ("no quiero pagar", "je ne veux pas payer", "ich
        # möchte ... nicht bezahlen")
        *("quiero", "quiere", "queremos", "quisiera", "necesito", "necesitamos", "puedo", "puede"),
        *("podemos", "deseo", "voy", "vamos", "ya", "más", "mas", "nunca", "jamás", "jamas"),
        *("veux", "voulons", "voudrais", "voudrions", "souhaite", "dois", "peux", "pouvez", "pas"),
        *("plus", "jamais", "besoin", "möchte", "mochte", "möchten", "mochten", "will", "wollen"),
        *("muss", "brauche", "brauchen", "kann", "können", "konnen", "bitte", "mehr", "noch", "nicht"),
    }
)
# Verbs a no can be about without being about the request ("we don't use it any more, so ...").
_REASON_VERBS = frozenset({"use", "using", "used", "watch", "watching", "travel", "travelling", "traveling"})


_FINE = re.compile(
    r"(?:\b(?:is|are|was|were)|'s|'re)\s+(?:(?:totally|perfectly|absolutely|still|actually|all)\s+)?"
    r"(?:fine|ok|okay|alright|all right|grand|good|great|perfect|brilliant|lovely|excellent|amazing|"
    r"fantastic|wonderful|working|in one piece|no problem)\b(?! to| for| by| with)",
    re.IGNORECASE,
)


def _thing_is_fine(part: str, request: TraceRequest) -> bool:
    """Whether the clause says the action's own thing is fine as it is ("my card is fine", "the
    boiler's working again"), naming no value, for an action that does something to a thing the
    caller has (blocks, ends, changes, refunds it): nothing asked of it. For one that makes a new
    thing, "a table at 8 is fine" takes what was offered."""
    return (
        action_class(request) not in (None, "create")
        and says_fine(part)
        and shares_word(part, query_thing(request))
        and not _names_bound(part, request)
    )


def says_fine(text: str) -> bool:
    """Whether the text says something is fine as it is ("my card is fine", "it's working")."""
    return _FINE.search(text) is not None


# What joins one phrase to another: a value before it is not in the phrase said after it.
_JOINED = re.compile(r"\b(?:and|but|or|plus|then)\b|[,;:]")
_UNIVERSAL = re.compile(r"\b(?:all|every|any|everything|anything|each|whole)\b", re.IGNORECASE)
# A new request inside a clause: "..., and on tuesday cancel my nails", "... and move my account".
_NEW_REQUEST = re.compile(
    r"(?:,\s*|\s)(?:and|then|also|plus)\s+(?=(?:\w+\s+){0,3}?(?:please\s+)?[a-z]+\s)", re.I
)


@lru_cache(maxsize=1)
def _run_on_request() -> re.Pattern[str]:
    verbs = "|".join(sorted(forms.acting_verbs(), key=len, reverse=True))
    return re.compile(
        rf"\s(?=(?:can|could|would|will)\s+you\s+(?:please\s+|just\s+)?(?!not\b)[a-z]+\b|just\s+(?:{verbs})\b"
        # "its our anniversary can we book a table", "the boiler is leaking could he come round":
        # a request put as a question with another subject
        r"|(?P<subject>(?:can|could)\s+(?:i|we|they|he|she)\s+(?!not\b)[a-z]+))",
        re.IGNORECASE,
    )


# What opens reported words or a question put off ("my wife asked can we ...", "i was going to
# ask could he ...", "he wants to know can i ..."): what follows is not the caller's request.
_REPORTING = re.compile(
    r"\b(?:ask|asks|asked|asking|wonder|wonders|wondered|wondering|know|knows|said|says|say|saying|"
    r"told|tell|tells|phoned|rang|called|texted|emailed|messaged|wrote|going to|gonna|meant to|"
    r"thinking|thought|reckon|reckons|reckoned)\b",
    re.IGNORECASE,
)


def _asks_to_know_with(modal: str) -> bool:
    """Whether a question put with another subject asks to know or look into something ("could i
    check the refund", "can we see the menu"): a question, not a request run on."""
    verb = modal.split()[-1].casefold()
    return verb in words.INQUIRY or verb in words.TELLING or verb == "ask"


def _run_on(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A clause split where a request runs on after something said first, as speech-to-text
    writes it without punctuation ("silver isnt worth it for me anymore can you just end it",
    "the premium thing im paying for every month just stop it"). What comes before must be a
    few words of its own, not a question ("what time can you deliver").
    """
    out: list[tuple[int, int]] = []
    cut = start
    for m in _run_on_request().finditer(text, start, end):
        head = text[cut : m.start()]
        if _REPORTING.search(head) is not None or (
            m.group("subject") is not None and _asks_to_know_with(m.group("subject"))
        ):
            continue
        if len(head.split()) >= 3 and not utterance.is_question(head) and not utterance.asks_to_know(head):
            out.append((cut, m.start()))
            cut = m.end()
    out.append((cut, end))
    return out


# A word that may begin a run-on command: a verb the language data knows callers act with, or one
# a request opens with.
_WORD_AT = re.compile(r"(?<=\s)[a-z]+(?=\s)", re.IGNORECASE)
# How a telling can end just before a command run on after it: a pronoun as an object ("talked
# me into it"), a place, person or thing after a preposition ("with my wife", "at the pub", "for
# me"), or a time ("this morning", "anymore").
_TELLING_ENDS = re.compile(
    r"(?:(?<!\bwill )(?<!\bwould )(?<!\bcan )(?<!\bcould )(?<!\bdoes )(?<!\bdid )(?<!\bshould )"
    r"(?<!\bmight )(?<!\bmay )(?<!\bmust )\b(?:it|me|us|them)"
    r"|\b(?:with|into|in|on|at|for|from|about|by|of|after|over|under|through|without|to|up|out|off|down|"
    r"back)\s+"
    r"(?:you|him|her|(?:(?:the|a|an|my|your|our|his|her|their|its|this|that|some)\s+)?(?:[a-z']+\s+)?"
    r"(?P<noun>[a-z']+))"
    r"|\b(?:this|last|yesterday|that)\s+(?:morning|afternoon|evening|night|week|month|year)"
    r"|\b(?:today|yesterday|tonight|now|again|anymore|any more))\s*$",
    re.IGNORECASE,
)
# Words that end no telling before a verb: what links it to more ("than", "who", "and"), gives
# it a subject or asks ("we", "will", "do").
_NO_TELLING_END = frozenset(
    {
        *("who", "which", "that", "what", "where", "when", "whom", "whose", "than", "as", "like"),
        *("i", "you", "we", "they", "he", "she", "to", "not", "and", "or", "but", "then", "so"),
        *("will", "would", "can", "could", "should", "shall", "might", "may", "must", "do", "does"),
        *("did", "rather", "sooner", "better", "just", "please", "also", "only", "even", "never"),
    }
)
# The words a telling needs to be one: a verb of its own, not a subject waiting for its verb ("the
# people in the office cancel it every year" tells what they do).
_TELLS = re.compile(
    r"\b(?:i|we|you|he|she|they|it'?s|its|i'?m|im|there'?s|is|are|was|were|am|has|have|had|"
    r"nobody|no one|someone|somebody|everyone|everybody|anyone|nothing|something|everything|"
    r"got|came|went|left|took|said|told|gave|made|paid|sent|bought|sold|lost|found|broke|kept|"
    r"spent|won|met|felt|knew|ran|wrote|brought|thought|heard|saw|[a-z]+ed)\b",
    re.IGNORECASE,
)
# A verb before the pronoun that makes it the subject of the next verb ("i saw him cancel it",
# "let me pay it"): no telling ends there.
_CAUSATIVE_BEFORE = re.compile(
    r"\b(?:let|lets|help|helps|helped|make|makes|made|have|has|had|see|saw|seen|watch|watched|"
    r"hear|heard|bid|get|got)\s+(?:it|me|us|them|him|her)\s*$",
    re.IGNORECASE,
)


def _ends_telling(head: str) -> bool:
    """Whether ``head`` ends where a command can run on after it (see :data:`_TELLING_ENDS`)."""
    found = _TELLING_ENDS.search(head)
    return found is not None and (found.group("noun") or "").casefold() not in _NO_TELLING_END


def _bare_run_on(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A clause split where a command runs on, its verb bare, after a telling with no stop
    between them ("my mate talked me into it cancel the gold plan", "i checked with my wife
    transfer 200 dollars to acc 1234"). The telling must be a whole one, with a verb of its own
    and an end a command can follow; none that reports another's words ("he told me") on either
    side, asks, or gives the verb a subject ("we transfer 200 every month", "people who cancel").
    """
    out: list[tuple[int, int]] = []
    cut = start
    acting = forms.acting_verbs()
    for m in _WORD_AT.finditer(text, start, end):
        if m.group(0).casefold() not in acting and not utterance.only_command_verb(m.group(0)):
            continue
        head = text[cut : m.start()]
        if (
            len(head.split()) >= 3
            and _ends_telling(head)
            and _CAUSATIVE_BEFORE.search(head) is None
            and _TELLS.search(head) is not None
            and _REPORTING.search(text[cut:end]) is None
            and utterance.opens_command(text[m.start() : end])
            and not utterance.is_question(head)
            and not utterance.asks_to_know(head)
        ):
            out.append((cut, m.start()))
            cut = m.start()
    out.append((cut, end))
    return out


def _spans(text: str) -> list[tuple[int, int]]:
    """The statement's clauses, with a clause split again where a second request begins in it."""
    out: list[tuple[int, int]] = []
    for start, end in [
        r
        for span in utterance.clause_spans(text) or [(0, len(text))]
        for run in _run_on(text, *span)
        for r in _bare_run_on(text, *run)
    ]:
        cut = start
        for m in _NEW_REQUEST.finditer(text, start, end):
            rest = text[m.end() : end].split()
            if any(
                utterance.requested_verb(" ".join(rest[k:])) is not None for k in range(min(4, len(rest)))
            ):
                if text[cut : m.start()].strip():
                    out.append((cut, m.start()))
                cut = m.end()
        if text[cut:end].strip():
            out.append((cut, end))
    return out


def _clause(
    text: str,
    start: int,
    end: int,
    request: TraceRequest,
    meaning: Similarities,
    *,
    previous: _Clause | None,
    in_call: bool = False,
) -> _Clause:
    part = text[start:end]
    lang = request.lang
    if (
        previous is not None
        and _UNIVERSAL.search(text[previous.start : previous.end])
        and re.search(r"\bbut\s*$|\bexcept\s*$", text[previous.start : start], re.IGNORECASE)
    ):
        # "cancel all my plans but the gold one", "deliver any day but friday": what follows
        # the "but" is what is left out.
        named = frozenset(s.name for s in request.arguments if forms.value_spans(part, s, request))
        return _Clause(start, end, "exception", False, named)
    denies_action = False
    denied: set[str] = set()
    removal = _removes(request)
    moves = not (_moves_from(request) or _moves_between(part, request))
    for _, no in utterance.scopes(part, lang, moves=moves):
        if no:
            if removal and (
                utterance.withdraws(part)
                or _no_longer_needed(part)
                or _judged_before_no(no, request)
                or _no_more_of(part, request)
            ):
                # "scrap the premier league thing" asks for the removal itself; "i don't need
                # the sports bit any more" and "gold's no good to me" give the reason for it,
                # and say no to nothing ("not the gold one" still does).
                continue
            if utterance.opposes(_first_denied(no), action_words(request)[:1]):
                continue  # "i won't be renewing the plan": a no to the opposite says no to nothing
            action, values = _denial_in(_noun_scope(part, no), request)
            denies_action = denies_action or action
            denied |= values
    if denies_action or denied:
        return _Clause(start, end, "denial", denies_action, frozenset(denied))
    if _NEGATED_COMMAND.search(part):
        # "don't give him anything", "don't change the booking yet": a command said with a no
        # asks for nothing now, whatever its verb (a no to the action's own verb is a denial,
        # above), and takes back a request said before it in the same breath
        return _Clause(start, end, "put_off")
    if (
        previous is not None
        and _not_this_moment(part)
        and _moment_said(text[previous.start : previous.end], request)
    ):
        return _Clause(start, end, "value")  # "deliver it on monday, not today": which day, no deferral
    if utterance.conditional(part):
        return _Clause(start, end, "condition")
    if not removal and utterance.drops_pointed(part):
        return _Clause(start, end, "dropped")  # "so skip it": let go of what was asked
    if removal and _goes(part, request) and not utterance.is_question(part, lang):
        return _Clause(start, end, "request")  # "the golf channel can go now"
    if (
        removal
        and (_no_longer_wanted(part) or _no_more_of(part, request))
        and _names_bound(part, request)
        and not utterance.is_question(part, lang)
    ):
        return _Clause(start, end, "request")  # "i no longer want the movies bundle"
    masked = _without_values(part, request)
    if [
        m
        for m in _LATER.finditer(masked)
        if _puts_off_to(_later_phrase(masked, m), request) and not _happened_after(masked, m)
    ]:
        return _Clause(start, end, "later")
    # "someone nicked my card ending 4432": what another did to the caller's own thing names it
    if _someone_else(part, request) and not utterance.done_to_mine(part):
        return _Clause(start, end, "someone_else")
    # "is it possible for d330 to come saturday instead": for a change, asking whether a value
    # can take another's place asks for it, as a modal question does ("can d330 come saturday
    # instead"); otherwise it asks whether something would suit
    possible_change = (
        (utterance.asks_if_possible(part) or _IS_IT_POSSIBLE.search(part) is not None)
        and action_class(request) == "change"
        and _substitutes(part)
        and _names_bound(part, request)
        and _TO_LEARN.search(part) is None  # "is it possible to see friday's slots instead"
    )
    if utterance.asks_if_possible(part) and not possible_change:
        return _Clause(start, end, "question")  # "would wednesday work for the engineer visit"
    if utterance.asks_for_details(part) and not _names_bound(part, request):
        return _Clause(start, end, "question")  # "can i have more details of it?": to know about it
    if _LEFT_AS_IT_IS.search(part):
        return _Clause(start, end, "put_off")  # "keep saturday at 8pm for 4 as it is": nothing new
    wish = (
        utterance.states_wish(part)
        or _opens_with_action(part, request)
        or utterance.opens_command(part)
        or _will_do_action(part, request)
    )
    if not _opens_with_action(part, request) and _fine_as_it_is(part, request):
        return _Clause(start, end, "put_off")  # "the jacket from order F-301 is fine": nothing asked for it
    asked = previous is not None and previous.stance == "request"
    if asked and not wish and not _gives_other(part, request):
        own = _names_bound(part, request)
        if (own and _value_first(part, request) and utterance.defers(part)) or (
            not own and utterance.takes_back_after(part, 0)
        ):
            return _Clause(start, end, "put_off")
    modal = not wish and (utterance.asks_with_modal(part) or possible_change)
    if utterance.is_question(part, lang) and not wish and not modal:
        return _Clause(start, end, "question")
    if not wish and not modal:
        return _Clause(start, end, "value")
    another = _another_moment(part, request)
    if another:
        # "can they come another day": the day said beside it is the one turned down
        return _Clause(start, end, "denial", False, another)
    # "i'd sooner freeze the card than cancel it": the side not wanted asks for nothing
    other = _asks_other(utterance.preferred_part(part), request, meaning, strong_only=in_call)
    # Where the call's reading found no other action, the full reading differs from it only in
    # the thing (see _asks_other): read that alone.
    loose = (
        in_call
        and not other
        and _other_thing(part, request, meaning)
        and not _kind_said_by_value(part, request)
    )
    prefers = (
        wish
        and utterance.prefers_only(part)
        # "that won't work for me": a no to what was offered, read as before
        and not utterance.says_no(part, lang)
        and not _opens_with_action(part, request)
        and not utterance.opens_command(part)
        and not _will_do_action(part, request)
    )
    return _Clause(
        start,
        end,
        "request",
        other=other,
        search=other and _searches(part, request),
        asked=modal,
        prefers=prefers,
        loose=loose,
    )


_ANOTHER_MOMENT = re.compile(
    r"\b(?:another|a different|some other|a later|an earlier|other)\s+(?P<kind>day|date|days|dates|week|"
    r"weekend|time|times|hour|slot|slots|morning|afternoon|evening|night)\b",
    re.IGNORECASE,
)
_MOMENT_KINDS = {
    **dict.fromkeys(("day", "date", "days", "dates", "week", "weekend", "night"), ("date", "weekday")),
    **dict.fromkeys(("time", "times", "hour", "slot", "slots", "morning", "afternoon", "evening"), ("time",)),
}


def _another_moment(part: str, request: TraceRequest) -> frozenset[str]:
    """The arguments a request clause asks another moment for ("can they come another day", "is
    there a different time") without saying which: the values of their kind said beside it are
    turned down."""
    found = _ANOTHER_MOMENT.search(part)
    if found is None:
        return frozenset()
    kinds = _MOMENT_KINDS[found.group("kind").casefold()]
    # "book it for another day, the 14th" says the day it wants
    return frozenset(
        a.name
        for a in request.bound
        if a.kind in kinds
        and not forms.value_spans(part, a, request)
        and not forms.other_value_spans(part, a, request)
    )


def _phrasal(text: str, verb: str) -> str:
    """The verb with a particle said within three words after it ("drop the parcel off": "drop off")."""
    if " " in verb:
        return verb
    found = re.search(
        rf"(?<![\w-]){re.escape(verb)}\s+(?:\S+\s+){{0,3}}?(off|up|down|back|out|in|over|round)\b",
        text.casefold(),
    )
    return f"{verb} {found.group(1)}" if found else verb


_REVERSED = {"on": "off", "off": "on", "in": "out", "out": "in", "up": "down", "down": "up"}
# Verbs that switch a thing on or off, any of which reverses another's switch.
_TOGGLING = frozenset({"turn", "switch", "flip", "put", "shut", "cut", "flick"})


def _reverses(part: str, request: TraceRequest) -> bool:
    """Whether the clause says the action's own verb with the particle that reverses it ("turn
    off roaming" for "turn on roaming for {country}", "sign me out" for "sign in")."""
    wanted = action_words(request)
    if not wanted:
        return False
    verb = re.escape(wanted[0])
    if not wanted[0].startswith("un") and re.search(rf"(?<![\w-])un-?{verb}", part.casefold()):
        return True  # "unpause the plan" for pausing it
    particle = r"\s+(?:\S+\s+){0,2}?(on|off|in|out|up|down)\b"
    # The query's own particle follows its verb, or a pronoun after it ("sign me in"): "pay
    # dollars on invoice" has a preposition, not a particle.
    own = rf"(?<![\w-]){verb}\s+(?:(?:me|us|it|them)\s+)?(on|off|in|out|up|down)\b"
    mine = re.search(own, request.masked_query.casefold())
    if mine is None:
        return False
    if wanted[0] in _TOGGLING and mine.group(1) in ("on", "off"):
        # "desactiva el roaming", "schalten Sie Roaming aus" for turning it on: the other switch
        # in the caller's language
        found = foreign_families(utterance.join_separated(part))
        if found and _REVERSED[mine.group(1)] in {
            w.split()[-1] for w in found[0] if w.startswith(("turn ", "switch "))
        }:
            return True
    # The same verb, or, for a switch, any verb that switches ("switch autopay off" for "turn on").
    verbs = {wanted[0]} | (_TOGGLING if wanted[0] in _TOGGLING else set())
    said = re.search(rf"(?<![\w-])(?:{'|'.join(sorted(verbs))}){particle}", part.casefold())
    return said is not None and said.group(1) == _REVERSED[mine.group(1)]


# A thing wished back in use ("i want my card back working", "the gold plan active again",
# "get it up and running"): the undoing of a hold or an end.
_BACK_IN_USE = re.compile(
    r"\bback\s+(?:on|working|open|active|in\s+use|in\s+action|up\s+and\s+running|to\s+normal)\b|"
    r"\b(?:working|active|usable|open|live|on)\s+again\b|\bup\s+and\s+running\b",
    re.IGNORECASE,
)


def _restores(part: str, request: TraceRequest) -> bool:
    """Whether the clause wishes the thing back in use now, for an action that holds or ends it
    ("pause it, i'll want it back on in june" says when the hold ends, no no to it)."""
    return (
        action_class(request) in ("pause", "remove")
        and _BACK_IN_USE.search(part) is not None
        and _LATER.search(part) is None
        and re.search(r"\b(?:i'?ll|we'?ll|i will|we will|until|till|when)\b", part, re.IGNORECASE) is None
    )


def _in_its_place(part: str, request: TraceRequest) -> bool:
    """Whether the clause puts something in the place of the action itself: "can booking xk7 stay
    on friday instead of moving", "keep it rather than cancelling it" (its own verb or one of its
    family after "instead of" or "rather than", with at most a pronoun after it). "instead of
    moving it to thursday" names another value, a change of this request, not its refusal."""
    wanted = action_words(request)
    if not wanted:
        return False
    for m in _IN_PLACE_OF.finditer(part.casefold()):
        verb = m.group("verb")
        forms_ = {verb}
        if verb.endswith("ing") and len(verb) > 5:
            stem = verb[:-3]  # "moving" is "move", "cancelling" "cancel", "shipping" "ship"
            forms_ |= {stem, stem + "e", stem[:-1] if stem[-1:] == stem[-2:-1] else stem}
        if any(_same_family(f, wanted) for f in forms_):
            return True
    return False


# "instead of moving", "rather than cancelling it": a verb, and nothing after it but a pronoun
_IN_PLACE_OF = re.compile(
    r"\b(?:instead of|rather than)\s+(?P<verb>[a-z]+)(?:\s+(?:it|them|that|this))?\s*(?:[,.;!?]|$)"
)


# A general verb that sets a thing to a value ("set the party size to {party}", "make the
# limit {amount}") changes it, whatever the verb's class alone.
_SETS_TO = re.compile(r"^\W*(?:set|make|put|turn|get)\b[^{}]*?\b(?:to|at)\s*\{[^{}]+\}", re.IGNORECASE)


@_per_request
def action_class(request: TraceRequest) -> str | None:
    """The class of what the action does (:data:`words.VERB_CLASSES`): its verb's, or "change"
    for a general verb that sets its thing to a value."""
    wanted = action_words(request)
    if not wanted:
        return None
    if _SETS_TO.search(request.template):
        return "change"
    return words.VERB_CLASSES.get(_noun_verb(wanted[0], query_thing(request)))


def _noun_verb(verb: str, named: Sequence[str]) -> str:
    """The verb that says what is done: ``verb``, or after a light verb the action its one-word
    object names ("arrange a return" returns, "make a payment" pays; "arrange a return flight"
    arranges a flight)."""
    if verb.split()[0] in words.LIGHT_VERBS and len(named) == 1:
        return words.ACTION_NOUN_VERBS.get(named[0], verb)
    return verb


def said_action_verb(part: str, verb: str) -> str:
    """The verb a clause asks with, read past a light verb to the action its object names ("can
    you set up the return" returns; "reorder it" reorders)."""
    if verb.split()[0] not in words.LIGHT_VERBS:
        return verb
    at = _verb_at(part, verb.split()[-1])
    return _noun_verb(verb, object_after(part, at) if at >= 0 else [])


def known_other(verb: str, wanted: Sequence[str], theirs: str | None = None) -> bool:
    """Whether ``verb`` is known to name another action than the query's.

    Known: a verb of a family the query's verb is not in, or one that asks for
    its opposite. A verb gate has no family for ("ditch", "knock me down") is not
    known to be another action: its meaning and the values it carries decide.
    """
    if not wanted or shares_word(verb, wanted) or _same_family(verb, wanted):
        return False
    if verb in words.ARRIVING:
        return False  # "i want to end up in SF" says where, not what to do
    first = verb.split()[0]
    if first in words.INQUIRY or first in words.TELLING:
        return True  # "find me a restaurant": to know, not to book; "remind tom": to tell him
    if first in utterance.opposite_words(wanted[0]) or verb in utterance.opposite_words(wanted[0]):
        return True
    mine = words.VERB_CLASSES.get(first)
    theirs = theirs or words.VERB_CLASSES.get(wanted[0])
    if verb in ("drop off", "send out", "put in", "sign up", "set up", "top up", "pick up"):
        mine = "create"
    if verb in ("call back", "ring back", "phone back"):
        mine = "contact"  # "please call me back on monday": a call to the caller, nothing booked
    if theirs in words.OTHER_SENSES.get(verb, words.OTHER_SENSES.get(first, frozenset())):
        return False
    return mine is not None and theirs is not None and mine != theirs


_REMOVAL = frozenset(
    {"cancel", "remove", "end", "stop", "terminate", "drop", "close", "delete", "unsubscribe"}
)


_POINTER = re.compile(r"\b(?:it|that|them|this|those|him|her)\b", re.IGNORECASE)
_NO_LONGER_NEEDED = re.compile(
    r"\b(?:don'?t|dont|do not|doesn'?t|no longer|never)\s+(?:really\s+|even\s+)?"
    # "i don't want to cancel it" is a no to the verb after it, no reason to remove anything
    r"(?:need|want|use|require)s?\b(?!\s+to\b)",
    re.IGNORECASE,
)


_NO_WORD = re.compile(r"\b(?:no|not|never|nothing|none|isnt|dont|doesnt|aint)\b|n't\b", re.IGNORECASE)


def _judged_before_no(denied: str, request: TraceRequest) -> bool:
    """Whether a no judges one of the request's values said before it, as its subject ("gold's
    no good to me", "silver isn't worth it"), not the value said after it ("not the gold one")."""
    no = _NO_WORD.search(denied)
    if no is None:
        return False
    return any(
        e <= no.start() for spec in request.bound for _, e in forms.value_spans(denied, spec, request)
    ) and not shares_word(denied[no.start() :], action_words(request)[:1])


def points_with_pronoun(text: str) -> bool:
    """Whether the text names something with a pronoun ("shut it down", "give him twenty")."""
    return _POINTER.search(text) is not None


# Wanting something no more, said outright ("i no longer want the movies bundle", "we don't want
# the sports pack any more"): for an action that takes it away, asking for that.
_NO_LONGER_WANTED = re.compile(
    # wanting, not needing: "i don't need the racing add-on any more" is a reason, and asks nothing
    r"\bno longer\s+(?:really\s+)?wants?\b|"
    r"\b(?:do not|don'?t|dont)\s+(?:really\s+)?want\b[^.!?]*\bany ?more\b",
    re.IGNORECASE,
)


# "no more netflix for me": the thing named right after, wanted no more. Not "no more than",
# nor a no to what comes of it ("no more emails about netflix" names emails first).
_NO_MORE = re.compile(
    r"(?:^|[,;.!?]\s*|\b(?:so|and|ok|okay|right|then|just)\s+)no more\s+"
    r"(?:of\s+)?(?:the\s+|my\s+|this\s+|that\s+)?",
    re.IGNORECASE,
)


def _no_more_of(part: str, request: TraceRequest) -> bool:
    """Whether the clause says "no more" of a value of the request, named right after it."""
    found = _NO_MORE.search(part)
    if found is None:
        return False
    rest = part[found.end() :]
    return any(start == 0 for spec in request.bound for start, _ in forms.value_spans(rest, spec, request))


def _no_longer_wanted(part: str) -> bool:
    """Whether the clause says the caller wants the thing no more; not when what they no longer
    want is its going ("i no longer want the sports add-on removed")."""
    found = _NO_LONGER_WANTED.search(part)
    if found is None:
        return False
    gone = lang_data.union_words("gone_states")
    return not any(w in gone for w in re.findall(r"[a-zà-ÿß']+", part[found.end() :].casefold()))


_BY_THEMSELVES = re.compile(
    r"\b(?:myself|ourselves|on my own|on our own|online|on(?: the)? (?:app|website|web|site|portal)|"
    r"in the app|in (?:the )?(?:store|shop|branch))\b",
    re.IGNORECASE,
)


def _will_do_action(part: str, request: TraceRequest) -> bool:
    """Whether the caller says they will do the action, in its own verb ("I'll accept the loyalty
    offer", "we're going to renew the gold plan"): a decision put to the agent, as a request."""
    wanted = action_words(request)
    if not wanted or _BY_THEMSELVES.search(part) is not None:
        return False  # "I'll cancel it myself online": the caller will do it, not the agent
    verb = re.escape(wanted[0])
    return (
        re.search(
            rf"\b(?:i|we)(?:'ll| will| shall|'m going to| am going to|'re going to| are going to)\s+"
            rf"(?:just\s+|now\s+|then\s+|definitely\s+)?{verb}\b",
            part,
            re.IGNORECASE,
        )
        is not None
    )


def _no_longer_needed(part: str) -> bool:
    """Whether the clause says the caller no longer needs or wants something (a reason to remove it)."""
    return _NO_LONGER_NEEDED.search(part) is not None


@lru_cache(maxsize=1)
def _away_verbs() -> re.Pattern[str]:
    verbs = {"get"} | lang_data.union_words("taking_away_verbs")
    away = lang_data.union_words("away_particles")
    return re.compile(
        rf"\b(?:{'|'.join(sorted(verbs))})\w*\s+(?:\S+\s+){{0,3}}?(?:{'|'.join(sorted(away))})\b",
        re.IGNORECASE,
    )


def _acts_as_action(part: str, request: TraceRequest) -> bool:
    """Whether a request clause asks with the action's own verb: the query's verb, a verb of its
    family ("shut it down" for "cancel"), or, for an action that takes something away, a verb
    with an away particle ("take me off it") or one that withdraws."""
    wanted = action_words(request)
    verb = asked_verb(part, request) or utterance.command_verb(part)
    if not wanted:
        return False
    if verb is not None and (shares_word(_phrasal(part, verb), wanted[:1]) or _same_family(verb, wanted)):
        return True
    if verb is not None and action_class(request) == "change" == words.VERB_CLASSES.get(verb.split()[0]):
        return True  # "we're six now, please update it", for "set the party size to {party}"
    return _removes(request) and (
        _away_verbs().search(part) is not None or utterance.withdraws(part) or _wished_gone(part)
    )


@lru_cache(maxsize=1)
def _wished_gone_pattern() -> re.Pattern[str]:
    gone = sorted(lang_data.union_words("gone_states"))
    return re.compile(
        r"\b(?:want|wanted|need|needs|like|have|get)\s+(?:it|that|this|them|those)\s+"
        rf"(?:(?:all|just|completely|totally)\s+)?(?:{'|'.join(gone)})\b",
        re.IGNORECASE,
    )


_GOES = re.compile(
    r"\b(?:can|could|has to|have to|needs? to|must|should|will have to|is going to have to)\s+"
    r"(?:(?:just|now|all|definitely|really)\s+)?"
    r"(?:go|come off|be removed|be cancelled|be canceled|be dropped)\b"
    # gone for good, not gone somewhere: "can go on the big screen" says where it is shown
    r"(?=\s*(?:$|[,.!;]|(?:now|too|as well|please|then|today|for good|altogether|completely|asap)\b))",
    re.IGNORECASE,
)


def _goes(part: str, request: TraceRequest) -> bool:
    """Whether the clause says one of the request's values has to go ("the golf channel can go
    now", "gold needs to go"): for an action that takes it away, asking for it."""
    found = _GOES.search(part)
    if found is None:
        return False
    return any(
        e <= found.start() for spec in request.bound for _, e in forms.value_spans(part, spec, request)
    )


def _wished_gone(part: str) -> bool:
    """Whether the clause wishes the thing it points at gone ("i want it gone", "i'd like that
    removed", "get them off"): for an action that takes something away, that is asking for it."""
    return _wished_gone_pattern().search(part) is not None


def _leading(clauses: Sequence[_Clause], told: Sequence[_Clause]) -> list[_Clause]:
    """The clauses that only state something before the first request of a statement ("the boots
    from r5512 fell apart, i want the 89.99 back"): what the request is about, said first."""
    if not told:
        return []
    first = min(c.start for c in told)
    return [c for c in clauses if c.end <= first and c.stance == "value"]


def _pointing_back(
    text: str,
    clauses: Sequence[_Clause],
    ours: Sequence[_Clause],
    values: Mapping[str, tuple[forms.Said, ...]],
    request: TraceRequest,
) -> bool:
    """Whether the statement asks for the action with a request that points back at what it said
    before (``trace.points_back``): "i'm done with the gold one, get me off it", "the basic tier
    is pointless now. so please just shut it down".

    The request clause says no value of its own and names its object with a pronoun; the
    clauses before it carry every value the action binds; and the request's own verb is the
    action's (:func:`_acts_as_action`). Meaning alone never makes a pointer the action: "my
    gold card keeps getting declined, can you look into it" asks for something else.
    """
    for c in ours:
        part = text[c.start : c.end]
        if not _POINTER.search(part) or _names_bound(part, request) or not _acts_as_action(part, request):
            continue
        before = [b for b in clauses if b.end <= c.start and b.stance in ("value", "request") and not b.other]
        if before and _carries_all(_within(values, [*before, c]), request):
            return True
    return False


@_per_request
def _removes(request: TraceRequest) -> bool:
    """Whether the action itself takes something away (so "scrap it" asks for it)."""
    wanted = action_words(request)
    return bool(wanted) and any(wanted[0] in family and family & _REMOVAL for family in words.FAMILIES)


_THEIR_OTHER = re.compile(r"\b(?:my|our)\s+other\s+(?!half\b)[a-zà-ÿ]+", re.IGNORECASE)


def _asks_other(
    part: str, request: TraceRequest, meaning: Similarities, *, strong_only: bool = False
) -> bool:
    """Whether a request clause asks for another action, or for this one on another thing."""
    if _THEIR_OTHER.search(part):
        return True  # "move my other booking to the 14th": one the caller has besides this
    wanted = action_words(request)
    verb = asked_verb(part, request) or utterance.command_verb(part)
    if verb is not None and _meets_whom_it_is_with(part, verb, request):
        return _other_thing(part, request, meaning, strong_only=strong_only)
    if _acts_on_their_own(part, request):
        return True
    if verb is not None and wanted and _CAUSATIVE.search(part) and not _same_family(verb, wanted):
        if action_class(request) != "create" or lang_data.family_of(wanted[0]) != "book":
            # "please get it fixed", "can i have it checked first" for shipping it: something
            # done to the thing, not its removal or its sending
            return True
        verb = None  # "get the boiler looked at", for a booking: what the booking is for
    if verb is None and _KEEPS.search(part) is not None and action_class(request) != "keep":
        # "keep what's left in account ACC-1234", "leave the 200 dollars where it is": a command to
        # keep a thing as it is (a verb too general for the request forms) asks for nothing done
        return True
    if _other_action_noun(part, request):
        return True  # "request a replacement for order b-77" for "request a refund for order ..."
    if _undoes_the_action(part, verb, request):
        return True  # "stop the cancellation of my gold plan", "put the transfer on hold"
    if verb is None and _wants_the_thing_itself(part, request):
        return True  # "i need the invoice F-22 of 200 euros": the invoice, not its payment
    light = _light_object(part)
    if (
        verb is None
        and light in words.ACTION_NOUN_VERBS
        and known_other(words.ACTION_NOUN_VERBS[light], _unlabelled(request), action_class(request))
        # "can you make the booking for five people instead": the request in hand, a new value
        and not (action_class(request) == "change" and (_substitutes(part) or _to_value(part, request)))
        and not _changes_it_to_value(part, request)
    ):
        return True  # "make a payment for order r-310": no verb of its own but the payment's
    if (
        verb is not None
        and wanted
        and known_other(
            said_action_verb(part, _phrasal(part, verb)), _unlabelled(request), action_class(request)
        )
        # "replace my blue bin" for "order a replacement {bin} bin": the act the query's noun names
        and not _named_by_its_noun(verb.split()[0], request)
        # "drop the monthly to 28": whatever the verb, it sets the thing to the value
        and not (action_class(request) == "change" and _to_value(part, request))
        # "can you change it to one day", "let's change that to the 12th": the request in hand,
        # given a new value, not another action
        and not _changes_it_to_value(part, request)
        and not _extends_an_argument(part, verb, request)
        and _stem(verb.split()[0]) not in _named_moments(request)
    ):
        # A verb an argument's name speaks of is this action's detail ("leave at 8:15" for
        # leaving_time); a word of its description is not ("check the balance" is no "checking").
        return True

    if _gives_away(part, request) or _comes_to_take_away(part, request):
        return True
    # The words of a value ("Reservation at The Shuckery" as an event's title) say no verb.
    foreign_verb = (
        verb is not None and lang_data.family_of(verb.split()[0]) is None and bool(foreign_families(verb))
    )
    if (verb is None or foreign_verb) and _says_abroad(_without_values(part, request), wanted) is False:
        # "quiero anular ...", "cancela la tarjeta": a verb of another family, in the caller's
        # language (the verb found may be that word itself)
        return True
    if verb is None and _wishes_another_verb(_without_values(part, request), request):
        return True  # "necesito mover mi cita", "quiero cerrar mi cuenta": another verb, or one unknown
    return _other_thing(part, request, meaning, strong_only=strong_only)


# A command that opens with keeping a thing ("keep the 200 dollars in my account", "please leave
# the booking at 4"), not one to keep the caller informed, nor "leave it" alone (a take-back).
_KEEPS = re.compile(
    r"^\W*(?:(?:please|just|so|ok|okay|and|then|can you|could you|would you|will you|i want you to|"
    r"i'?d like you to)\s+)*(?:keep|leave|retain)\s+(?!(?:me|us)\s+(?:posted|updated|informed|in the loop)\b)"
    r"(?!(?:it|that|them|this)\s*(?:[.,!?]|$|please\b|for now\b|then\b))",
    re.IGNORECASE,
)


# Coming to the caller to take something away ("can you come over thursday to pick up the old
# router"): a collection, whatever the visit it takes.
_TO_TAKE_AWAY = re.compile(
    r"\b(?:come|pop|nip|drop|swing)\s+(?:over|round|around|out|by)\b[^.?!]*?\bto\s+"
    r"(pick\s+up|collect|take\s+away|fetch|remove|get rid of|take back)\b",
    re.IGNORECASE,
)


def _comes_to_take_away(part: str, request: TraceRequest) -> bool:
    """Whether the clause asks somebody to come and take something away, for an action that is no
    taking away of things (a home visit, a repair)."""
    found = _TO_TAKE_AWAY.search(part)
    return (
        found is not None
        and not shares_word(found.group(1), action_words(request)[:1])
        and not _removes(request)
    )


# A clause that opens with a light verb (after the words that ask) and its object.
_LIGHT_OPENING = re.compile(
    r"^\W*(?:(?:please|pls|just|so|ok|okay|and|can you|could you|would you|will you|can i|could i|"
    r"i want to|i'?d like to|i need to|i wanna|i'?d like|i want|i need)\s+)*"
    rf"(?:{'|'.join(sorted(words.LIGHT_VERBS))})(?:\s+(?:up|out|through|in))?\s+(?:me\s+|us\s+)?"
    r"(?:(?:a|an|the|my|our|another|some)\s+)?([a-z][a-z-]*)",
    re.IGNORECASE,
)


def _light_object(part: str) -> str | None:
    """The action noun a clause opening with a light verb names ("make a payment" -> payment)."""
    found = _LIGHT_OPENING.match(part)
    if found is None:
        return None
    noun = found.group(1).casefold()
    return noun if noun in words.ACTION_NOUN_VERBS or noun in _ACTION_NOUNS else None


@_per_request
def _query_action_noun(request: TraceRequest) -> str | None:
    """The action noun the query's light verb names ("request a refund for ..." -> refund)."""
    wanted = action_words(request)
    thing = query_thing(request)
    if not wanted or wanted[0] not in words.LIGHT_VERBS or len(thing) != 1:
        return None
    return thing[0] if thing[0] in words.ACTION_NOUN_VERBS or thing[0] in _ACTION_NOUNS else None


def _other_action_noun(part: str, request: TraceRequest) -> bool:
    """Whether a query and a clause that both ask with a light verb name other actions by their
    nouns ("request a replacement" for "request a refund"; "a payment" and "a repayment" pay)."""
    theirs = _query_action_noun(request)
    mine = _light_object(part)
    if theirs is None or mine is None or mine == theirs:
        return False
    verbs = words.ACTION_NOUN_VERBS
    return not (mine in verbs and theirs in verbs and verbs[mine] == verbs[theirs]) and not _in_one_family(
        mine, theirs
    )


@_per_request
def _unlabelled(request: TraceRequest) -> tuple[str, ...]:
    """The query's words without those that only label a value ("order" of "for order
    {order_id}"): a caller's verb that is such a label ("order r-310 again") is not the action's."""
    wanted = action_words(request)
    labels = {m.casefold() for m in re.findall(r"([a-zà-ÿ]+)\s+\{", request.template)}
    return (*wanted[:1], *(w for w in wanted[1:] if w not in labels))


# A clause that hands something to somebody: one of these verbs, first or after the words that ask.
_HANDS = re.compile(
    r"^\W*(?:(?:please|pls|just|so|ok|okay|and|can you|could you|would you|will you|i want to|i'?d like to|"
    r"i need to|i wanna)\s+)*(transfer|give|send|pass|hand|gift|forward|sell)\b",
    re.IGNORECASE,
)


def _gives_away(part: str, request: TraceRequest) -> bool:
    """Whether the clause hands a thing to a person ("transfer 2 tickets for hamilton to my
    sister", "give my 2 hamilton tickets to my brother") for an action that makes something and
    has nobody to send it to (buying tickets): giving away what the caller has, not the action."""
    found = _HANDS.match(part)
    if found is None or not utterance.to_someone(part) or action_class(request) != "create":
        return False
    if shares_word(found.group(1), action_words(request)[:1]):
        return False  # "send flowers to my mum" for sending flowers
    return not any(spec.role == "to" or set(spec.cues) & words.RECIPIENT_WORDS for spec in request.arguments)


def _extends_an_argument(part: str, verb: str, request: TraceRequest) -> bool:
    """Whether the clause makes one of the request's values longer, more or less ("extend the date
    to the 10th", "reduce the number of seats"): a new value for the request in hand. Making the
    request's thing last longer or shorter ("extend the car rental", "shorten my hotel booking")
    is another action."""
    if words.VERB_CLASSES.get(verb.split()[0]) not in ("extend", "reduce"):
        return False
    named = asked_thing(part, request)
    if not named or named[-1] in query_thing(request):
        return False
    return any(named[-1] in a.cues for a in request.bound)


def _meets_whom_it_is_with(part: str, verb: str, request: TraceRequest) -> bool:
    """Whether the clause asks to see, meet or visit the one the action's meeting is with ("i
    need to see the dentist" for "book a dentist appointment"): having that meeting, not an
    inquiry. Only for an action that makes one (:data:`words.MEETINGS`), and only when what is
    seen is the word the query names the meeting by ("see the dentist's notes" sees notes)."""
    if verb.split()[0] not in words.MEETING_VERBS or action_class(request) != "create":
        return False
    thing = query_thing(request)
    if len(thing) < 2 or thing[-1] not in words.MEETINGS:
        return False
    named = asked_thing(part, request)
    whom = {_without_possessive(w) for w in thing[:-1]}
    return bool(named) and _without_possessive(named[-1]) in whom


# A verb that opens a clause, after the words a request opens with ("can you", "please", "i'd
# like to"), and what follows it.
_OPENING_VERB = re.compile(
    r"^\W*(?:(?:so|and|also|then|ok|okay|yeah|right|now|just|please|kindly)\s+)*"
    r"(?:(?:can|could|would|will)\s+(?:you|we|i)\s+(?:please\s+)?|"
    r"i(?:'d| would)\s+like\s+(?:you\s+)?to\s+|i\s+(?:want|need)\s+(?:you\s+)?to\s+|"
    r"(?:please|kindly)\s+)?"
    r"(?P<verb>[a-z]+)\b(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
# Where an addition goes ("add two nights onto my room"): to one the caller has.
_ONTO_THEIRS = re.compile(
    r"\b(?:to|onto|on to|into|on)\s+(?:my|our)\s+(?P<rest>.*)$", re.IGNORECASE | re.DOTALL
)
_THEIRS = re.compile(r"^\s*(?:(?:\S+\s+){0,3}?)(?:my|our)\s+(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)


def _named_by_its_noun(verb: str, request: TraceRequest) -> bool:
    """Whether the query names ``verb``'s act by its noun ("order a replacement card": replace)."""
    return any(
        words.ACTION_NOUN_VERBS.get(w) == verb for w in (*action_words(request)[1:], *query_thing(request))
    )


def _acts_on_their_own(part: str, request: TraceRequest) -> bool:
    """Whether the clause does something other than making one to one of the request's things the
    caller already has, for an action that makes one ("move my physio session to friday", "add
    two nights onto my hotel room", for a booking): its verb is of another class, or adds to
    theirs. What the caller owns of the thing is its head word or a word of its family, within
    three words of "my" or "our"."""
    if action_class(request) != "create":
        return False
    found = _OPENING_VERB.match(part)
    if found is None:
        return False
    verb, rest = found.group("verb").casefold(), found.group("rest")
    if _same_family(_phrasal(part, verb), action_words(request)):
        return False  # "drop my package round": with its particle, the action's own verb
    if _named_by_its_noun(verb, request):
        return False  # "replace my card" for ordering a replacement: the act the query names
    kind = words.VERB_CLASSES.get(verb)
    if kind is not None and kind not in ("create", "keep"):
        owned = _THEIRS.match(rest)
    elif verb in ("add", "put", "stick", "tack"):
        owned = _ONTO_THEIRS.search(rest)
    else:
        return False
    if owned is None:
        return False
    thing = query_thing(request)
    if not thing:
        return False
    named = re.findall(r"[a-zà-ÿ][a-zà-ÿ'\-]*", owned.group("rest").casefold())[:4]
    return any(w == thing[-1] or _in_one_family(w, thing[-1]) for w in named)


def _without_possessive(word: str) -> str:
    return re.sub(r"(?:['’]s|s['’])$", "", word)


_TO_BEFORE = re.compile(r"\b(?:down|up|back|right)?\s*(?:to|at)\s+(?:just\s+|only\s+)?$", re.IGNORECASE)


def _to_value(part: str, request: TraceRequest) -> bool:
    """Whether the clause sets something to a value of the request ("drop the monthly to 28",
    "knock it down to 40 a month"), the value said right after "to"."""
    return any(
        _TO_BEFORE.search(part[:start]) is not None
        for spec in request.bound
        if spec.kind == "number"
        for start, _ in forms.value_spans(part, spec, request)
    )


_CHANGE_IT_TO = re.compile(
    r"\b(?:change|changing|switch|move|make|push|bring|update|set)\s+(?:it|that|this|them)\s+(?:to|for|at)\s+$",
    re.IGNORECASE,
)


def _changes_it_to_value(part: str, request: TraceRequest) -> bool:
    """Whether the clause gives the request in hand a new value with a pointer to it ("change it
    to one day", "move that to the 12th"); "move my booking to friday" names another thing."""
    return any(
        _CHANGE_IT_TO.search(part[:start]) is not None
        for spec in request.bound
        for start, _ in forms.value_spans(part, spec, request)
    )


@_per_request
def _named_moments(request: TraceRequest) -> frozenset[str]:
    """The stems of the words of the arguments' names and of the verbs callers use for the moments
    they name ("leaving_time": "leav"; "dropoff_date": "return", "bring", "drop")."""
    # An identifier's name says what it identifies, no moment: "order" of order_id is no verb of
    # the action ("order r-310 again" for a return).
    named = {
        w for a in request.arguments if a.kind != "ident" for w in re.findall(r"[a-zà-ÿ]+", a.name.casefold())
    }
    named |= {v for w in named for v in words.EVENT_VERBS.get(w, ())}
    # The query's own verb for a value's moment ("departing at {time}"), and the other verbs for
    # the same end ("leave", "set off").
    own = {
        m.group(1)
        for m in re.finditer(
            r"([a-zà-ÿ]+ing)\s+(?:at|on|by|from|until|till)\s*\{", request.template.casefold()
        )
    }
    ends = {forms.moment_of(w) for w in own} - {None}
    named |= own | {w for w in forms.MOMENT_VERBS if forms.moment_of(w) in ends}
    return frozenset(_stem(w) for w in named)


def _stem(word: str) -> str:
    """A word without its inflection ("leaving", "leave" and "leaves" are "leav")."""
    for ending in ("ing", "ed", "es", "e", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


stem = _stem  # for the trace's reading of a turn's words


def _about_information(part: str, request: TraceRequest) -> bool:
    """Whether the clause speaks of a thing one only asks to know (:data:`words.INFORMATION_THINGS`:
    the weather, the traffic) that the request does not speak of: its values are that thing's."""
    said = set(re.findall(r"[a-zà-ÿ]+", part.casefold())) & words.INFORMATION_THINGS
    if not said:
        return False
    own = set(re.findall(r"[a-zà-ÿ]+", f"{request.template} {request.description}".casefold()))
    return not (said & own)


def _searches(part: str, request: TraceRequest) -> bool:
    """Whether a request clause asks to find or look for something ("look for concerts around
    Vancouver"), or to change what is being looked for ("change the search to three star hotels")."""
    verb = asked_verb(part, request) or utterance.command_verb(part)  # as _asks_other reads it
    if verb is not None and verb.split()[0] in words.INQUIRY:
        return True
    return asked_thing(part, request)[:1] in (["search"], ["results"], ["criteria"], ["filters"])


_PUT_LATER = re.compile(
    r"\b(?:next (?:week|month|year|time)|later (?:on|today|this week)|another (?:day|time)|"
    r"some other (?:day|time)|in a (?:few|couple of) (?:days|weeks)|after the (?:weekend|holidays))\b",
    re.IGNORECASE,
)


def puts_later(text: str, request: TraceRequest | None = None) -> bool:
    """Whether the statement moves the matter to a later time ("she'll take it in next week").

    A later time that is a value the request binds ("one for later today" when the
    appointment is today) says when it is wanted, not that it is put off.
    """
    if _PUT_LATER.search(text) is not None:
        return True
    return any(
        (request is None or _puts_off_to(_later_phrase(text, m), request)) and not _happened_after(text, m)
        for m in _LATER.finditer(text)
    )


# What a request stops or heads off, said right before a later time: "from renewing", "from
# auto-renewing", "before it renews", "before the plan rolls over" (not "when it renews": a
# request to act then is put off to then).
_STOPPED_EVENT = re.compile(
    r"(?:\bfrom\s+(?:auto[- ]?)?[a-z]{3,}ing|\bbefore\s+(?:it|they|the\s+\w+|my\s+\w+)\s+[a-z]+s?"
    r"(?:\s+(?:over|up|out|in|on))?)\s*$",
    re.IGNORECASE,
)
# A verb in the past said right before "after a week" ("it broke after a week", "the parcel
# arrived after three weeks").
_DONE_THEN = re.compile(
    r"\b([a-z]+ed|broke|came|went|fell|froze|tore|wore|quit|split|began|got|ran|stood|left|gave|took)"
    r"(?:\s+(?:up|down|out|off|working|again|apart))?\s*$",
    re.IGNORECASE,
)
# ... unless it is the participle of a wish ("i'd like it delivered", "have it sent", "to be paid").
_WISHED_DONE = re.compile(
    r"\b(?:like|want|need|have|get|got|be|been|being)\s+(?:it|them|this|that|him|her)?\s*$", re.IGNORECASE
)


def _happened_after(text: str, later: re.Match[str]) -> bool:
    """Whether "after a week" says when something happened ("the blender broke after a week"),
    not when something is to be done: said right after a verb in the past; or whether the later
    time is when what the request stops would happen ("stop it from renewing next month",
    "cancel it before it renews next month"), not when the caller wants it done."""
    if _STOPPED_EVENT.search(text[: later.start()]) is not None:
        return True
    if not later.group(0).casefold().startswith("after"):
        return False
    before = text[: later.start()]
    done = _DONE_THEN.search(before)
    return done is not None and _WISHED_DONE.search(before[: done.start()]) is None


def _later_phrase(text: str, later: re.Match[str]) -> str:
    """A later time said, with the two words after it ("later this evening", "later on today")."""
    rest = re.match(r"(?:\s+[^\W\d_]+){0,2}", text[later.end() :])
    return text[later.start() : later.end() + (rest.end() if rest else 0)]


def _puts_off_to(later: str, request: TraceRequest) -> bool:
    """Whether a later time said ("later today", "in two weeks") puts the request off: not when
    it is a value the request binds, nor when it gives a moment argument another value ("later
    today" for a bus on the 5th is the caller's own day for it, not a put-off)."""
    if _names_bound(later, request):
        return False
    return not any(
        spec.kind in ("date", "weekday", "time") and forms.other_value_spans(later, spec, request)
        for spec in request.arguments
    )


# Leaving a thing as it is asks for nothing new: "keep saturday at 8pm for 4 as it is".
_LEFT_AS_IT_IS = re.compile(
    r"\b(?:keep|leave)\b.{0,60}?\b(?:as it is|as is|as they are|unchanged|where it is)\b",
    re.IGNORECASE,
)


def _fine_as_it_is(part: str, request: TraceRequest) -> bool:
    """Whether a clause says the thing with a value needs nothing ("the green bin's fine", "the jacket
    from order F-301 is fine"); "friday is fine" and "18 pounds a month is fine" accept a value."""
    fine = _FINE.search(part)
    if fine is None:
        return False
    for spec in request.bound:
        for _, end in forms.value_spans(part, spec, request):
            if end > fine.start() or _JOINED.search(part[end : fine.start()]):
                # "the cab is for two people and a shared ride is fine": what is fine is the
                # phrase after the "and", not the one the value is in.
                continue
            if spec.kind in ("ident", "text"):
                return True
            if spec.kind == "bool":
                continue  # "a shared ride is good": the flag said by its name, and taken
            between = content_words(part[end : fine.start()])
            if 0 < len(between) <= 3 and shares_word(" ".join(between), query_thing(request)):
                return True  # "the green bin's fine": the thing itself needs nothing
    return False


def _value_first(text: str, request: TraceRequest) -> bool:
    """Whether the clause opens with a value of the request ("the sertraline one can wait")."""
    starts = [s for spec in request.bound for s, _ in forms.value_spans(text, spec, request)]
    lead = text[: min(starts)] if starts else text
    return bool(starts) and len(content_words(lead)) == 0


def _names_bound(text: str, request: TraceRequest) -> bool:
    return any(forms.value_spans(text, spec, request) for spec in request.bound)


def _gives_values(text: str, request: TraceRequest) -> bool:
    return any(x.fits for spec in request.arguments for x in forms.said_in(text, spec, request))


_NOT_OPENING = re.compile(r"^\W*(?:and\s+|but\s+)?(?:not|no|rather than|instead of)\b", re.IGNORECASE)


_NOT_THIS_MOMENT = re.compile(
    r"^\W*(?:but\s+|and\s+)?not\s+(?:today|tonight|tomorrow|now|right now|this week|this weekend)\W*$",
    re.IGNORECASE,
)


def _not_this_moment(part: str) -> bool:
    """Whether the clause only says "not today", "not now" and the like."""
    return _NOT_THIS_MOMENT.match(part) is not None


def _moment_said(part: str, request: TraceRequest) -> bool:
    """Whether the clause names a day, a date or a time of the request's: a "not today" after it
    says which moment, not that the request waits."""
    return any(
        spec.kind in ("weekday", "date", "time") and forms.value_spans(part, spec, request)
        for spec in request.bound
    )


def _courtesy_only(part: str) -> bool:
    """Whether the clause is a phrase of courtesy and nothing else ("por favor", "please"): the
    language data's ``politeness``."""
    return " ".join(_WORDS_OF.findall(fold(part))) in _courtesies()


_WORDS_OF = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


@lru_cache(maxsize=1)
def _courtesies() -> frozenset[str]:
    return frozenset(" ".join(_WORDS_OF.findall(p)) for p in lang_data.union_phrases("politeness"))


def _opposite_denied(part: str, wanted: Sequence[str], lang: str | None) -> bool:
    """Whether what opposes the action in ``part`` is what a no says no to, right after it ("i
    won't be renewing it", "i don't want to keep it"): the same as asking for the action, no
    opposite of it. ("disregard the thursday change, i'll keep the dates" keeps them.)"""
    return any(no and utterance.opposes(_first_denied(no), wanted) for _, no in utterance.scopes(part, lang))


# A no's own word, after which comes what it says no to.
_NO_WORD = re.compile(r"\b(?:not|never|no longer|no|\w+n'?t)\b", re.IGNORECASE)


def _first_denied(no: str) -> str:
    """The first three words a no's scope says no to: those right after its no word, if it holds
    one ("i won't be renewing it": "be renewing it"), else its first three."""
    found = _NO_WORD.search(no)
    return " ".join((no[found.end() :] if found else no).split()[:3])


def _not_the_other(part: str, request: TraceRequest) -> bool:
    """Whether a clause only says no to another value of the request's kind ("not four")."""
    return (
        _NOT_OPENING.match(part) is not None
        and _gives_other(part, request)
        and not _names_bound(part, request)
    )


def _opposite_of_another(
    text: str, clause: _Clause, clauses: Sequence[_Clause], request: TraceRequest
) -> bool:
    """Whether an opposing clause is about another thing than the one another clause of the same
    statement asks the action for ("keep the gold plan and cancel the silver one", for cancelling
    silver): it names none of the request's values and points at nothing, and a sibling request
    names them."""
    part = text[clause.start : clause.end]
    if _names_bound(part, request) or _POINTER.search(part):
        return False
    return any(
        c is not clause and c.stance == "request" and _names_bound(text[c.start : c.end], request)
        for c in clauses
    )


def _gives_other(text: str, request: TraceRequest) -> bool:
    """Whether ``text`` says another value of the request's kind in its part, or one it puts
    aside ("five, not four": the four is what the change replaces)."""
    return any(
        (x.fits or x.rule == "trace.value.replaced") and not x.same
        for spec in request.arguments
        for x in forms.said_in(text, spec, request)
    )


def _opens_with_action(text: str, request: TraceRequest) -> bool:
    wanted = action_words(request)
    return bool(wanted) and utterance.opens_with(text, wanted[0])


def _not_asked_yet(text: str, clauses: list[_Clause], request: TraceRequest) -> list[_Clause]:
    """The clauses with each request that is not yet one made a question (the statement is then
    read as ``trace.question``) or put off (its values given, nothing asked: ``trace.value``):

    - asked in theory: "hypothetically, could you refund 40 dollars on order B-221", "just out of
      curiosity, could you cancel the gold plan over the phone" (the sentence the frame is in);
    - said back as a question and answered with anything but a yes, read as the confirmation
      reader reads an answer: "cancel the gold plan? i'd be mad to", "book a table for 4 on
      friday? nah we'll get a takeaway" ("cancel it? yes, please do" stays a request);
    - said with doubt, or after a step of the caller's own not yet taken: "maybe move my
      appointment", "let me look at my diary and then move it", "we'll see about sending it".
    """
    theory = utterance.asked_in_theory(text)
    if theory is not None:
        ends = [m.end() for m in re.finditer(r"[.!?;]", text) if m.start() >= theory]
        until = ends[0] if ends else len(text)
        starts = [m.end() for m in re.finditer(r"[.!?;]", text[:theory])]
        since = starts[-1] if starts else 0
        clauses = [
            _Clause(c.start, c.end, "question") if c.stance == "request" and since <= c.start < until else c
            for c in clauses
        ]
    echoed = _echo_not_answered_yes(text, request)
    if echoed is not None:
        clauses = [
            _Clause(c.start, c.end, "question") if c.stance == "request" and c.start < echoed else c
            for c in clauses
        ]
    clauses = [
        _Clause(c.start, c.end, "put_off")
        if c.stance in ("request", "value") and utterance.hedged(text[: c.start], text[c.start : c.end])
        else c
        for c in clauses
    ]
    # "let me look at my diary | and then maybe move it": the caller's own step before what is
    # put off asks the agent for nothing either
    return [
        _Clause(c.start, c.end, "put_off")
        if c.stance == "request"
        and utterance.own_step(text[c.start : c.end])
        and any(d.stance == "put_off" and d.start >= c.end for d in clauses)
        else c
        for c in clauses
    ]


_ECHO = re.compile(r"^[^?.!]{3,}\?")


def _echo_not_answered_yes(text: str, request: TraceRequest) -> int | None:
    """Where a request said back as a question ends, when the caller goes on to answer it with
    anything but a yes ("transfer 200 dollars to ACC-1234? not likely"), else None."""
    said = _ECHO.search(text)
    if said is None:
        return None
    first, rest = text[: said.end()], text[said.end() :]
    if not re.search(r"\w", rest):
        return None
    if not (utterance.opens_command(first) or _opens_with_action(first, request)):
        return None
    from gate.confirm import read_answer

    answer = read_answer(rest.strip(), question=first, lang=request.lang or "en").answer
    return None if answer == "yes" else said.end()


# The end of a sentence: what follows it is said anew.
_SENTENCE_END = re.compile(r"[.!?]\s")


def _contrasted(text: str, clauses: list[_Clause], request: TraceRequest) -> list[_Clause]:
    """``clauses``, with a no to the action on another thing of the query's kind read as that
    thing's: "don't cancel the silver plan, cancel the gold one" says no
    to cancelling the silver plan, and asks for the gold one. The other thing is named in the
    query's own frame around a name it takes ("the silver plan" for "cancel the {plan} plan"),
    and another clause of the same statement asks for the action with the request's own name in
    that frame ("the gold plan", "the gold one"); a no that names the request's own name, or
    another thing in other words ("don't cancel the whole thing"), still says no to it."""
    denials = [c for c in clauses if c.stance == "denial" and c.denies_action]
    if not denials:
        return clauses
    frames = [f for spec in request.bound if spec.kind == "text" and (f := _name_frame(request, spec))]
    if not frames:
        return clauses
    asked = [
        c
        for c in clauses
        if c.stance == "request"
        and not c.other
        and any(_in_frame(text[c.start : c.end], f, own=True) for f in frames)
    ]
    if not asked:
        return clauses
    return [
        # "my husband says don't cancel the silver plan, ...": whose words the no is, they stay
        _Clause(c.start, c.end, "someone_else" if _someone_else(text[c.start : c.end], request) else "value")
        if c in denials
        and any(_in_frame(text[c.start : c.end], f, own=False) for f in frames)
        and not any(_in_frame(text[c.start : c.end], f, own=True) for f in frames)
        else c
        for c in clauses
    ]


def _name_frame(request: TraceRequest, spec: ArgumentSpec) -> tuple[str, str, str] | None:
    """The query's word right before a name's slot and right after it, with the name ("the",
    "plan", "gold" for "cancel the {plan} plan"), or None when the slot has no word on either side."""
    found = re.search(
        r"([a-zà-ÿ]+)\s+\{" + re.escape(spec.name) + r"\}\s+([a-zà-ÿ]+)", request.template, re.IGNORECASE
    )
    if found is None:
        return None
    return found.group(1).casefold(), found.group(2).casefold(), spec.shown.casefold()


def _in_frame(part: str, frame: tuple[str, str, str], *, own: bool) -> bool:
    """Whether ``part`` puts the request's own name (``own``) or another word or two in the name's
    place in its frame ("the gold plan"; "the gold one" also, "one" standing for the thing)."""
    before, after, name = frame
    for m in re.finditer(
        rf"\b{re.escape(before)}\s+([a-zà-ÿ0-9]+(?:\s+[a-zà-ÿ0-9]+)?)\s+(?:{re.escape(after)}|one)\b",
        part.casefold(),
    ):
        said = m.group(1)
        if (said == name) is own and said not in _STOP:
            return True
    return False


def _reason_then_request(clauses: Sequence[_Clause], text: str, request: TraceRequest) -> bool:
    """A no said as a reason before the request that refers back to it ("we don't use it, so cancel it")."""
    wanted = action_words(request)
    seen_no = False
    for c in clauses:
        if c.stance == "denial":
            if _NOT_OPENING.search(text[c.start : c.end]) and not c.denies_action:
                # "not the gold plan, it's the silver plan i want cancelled": a choice between
                # values, no reason for the request
                return False
            seen_no = True
            if c.denies_action:
                return False
            continue
        if c.stance != "request" or not seen_no:
            continue
        part = text[c.start : c.end]
        if (
            wanted
            and shares_word(part, wanted[:1])
            and (
                _names_bound(part, request)
                or re.search(r"\b(?:it|that|them|this|those|one)\b", part.casefold())
            )
        ):
            return True
    return False


# -- the statement -------------------------------------------------------------------------


def _inside_another(
    text: str, values: dict[str, tuple[forms.Said, ...]], request: TraceRequest
) -> dict[str, tuple[forms.Said, ...]]:
    """The agent's offers without a value said inside another argument's longer one when the same
    words name another value of its kind: "Bottega Napa Valley is a restaurant in Yountville"
    offers the restaurant in Yountville, not a table in Napa ("AC Hotel Chicago Downtown", with
    no other town said, still offers Chicago)."""
    longer = [(x.start, x.end) for said in values.values() for x in said]
    out = {}
    for name, said in values.items():
        spec = request.spec(name)
        kept = []
        for x in said:
            around = [(a, b) for a, b in longer if a <= x.start and x.end <= b and (a, b) != (x.start, x.end)]
            if around and spec is not None:
                others = [
                    o
                    for o in forms.other_value_spans(text, spec, request, offered=True)
                    if not any(a <= o[0] and o[1] <= b for a, b in around)
                ]
                if others:
                    continue
            kept.append(x)
        out[name] = tuple(kept)
    return out


def read(statement: Statement, request: TraceRequest, meaning: Similarities) -> Reading:
    """How ``statement`` bears on ``request`` (see the module docstring for the rules)."""
    text = statement.text
    if statement.speaker == "agent":
        # The agent offers a value only in its part: "the bus from San Francisco to Long Beach"
        # offers no hotel in San Francisco, "2 nights" no table for 2.
        values = {
            spec.name: tuple(
                forms.Said(spec.name, s, e, True, "trace.offer", text[s:e])
                for s, e in forms.agent_offers(text, spec, request)
                if not _offered_elsewhere(text, s, e, spec, request) and _offered_for(text, s, spec, request)
            )
            for spec in request.arguments
        }
        values = _inside_another(text, values, request)
        return Reading(
            statement, "agent", "trace.speaker", closeness(text, request, meaning)[0], values=values
        )
    if statement.speaker != "caller":
        return Reading(statement, "ignored", "trace.speaker", note="not the caller's own words")
    memory = statement.memory
    if (memory is not None and memory.injection_suspect) or utterance.looks_like_instruction(text):
        return Reading(statement, "ignored", "trace.instruction", note="tries to instruct the agent")
    record = _record_of(statement)
    if record is not None:
        if not statement.trusted:
            return Reading(statement, "ignored", "trace.instruction", note="imitates the gate's own record")
        return Reading(statement, "record", "trace.record", record=record, note="the gate's own record")
    if utterance.spoken_by_agent(text):
        return Reading(statement, "ignored", "trace.speaker", note="labelled as another source's words")
    if utterance.sarcastic(text):
        return Reading(statement, "ignored", "trace.sarcasm", note="said in sarcasm")
    plain, rendered = closeness(text, request, meaning)
    near = max(plain, rendered - (CLEAR_RENDERED - CLEAR))
    change = _change_marked(text)
    agrees, refuses = _agrees(text), _refuses(text)
    if _closing_only(text):
        return Reading(statement, "closing", "trace.closing", plain, agrees=agrees, change=change)
    wanted = action_words(request)
    if statement.origin == "memory" and _far_from(text, request, plain, rendered, wanted):
        # A memory far from the action in meaning that says none of its words or values and
        # no yes, no or change of mind cannot bear on it: read no further (a caller's store
        # holds many of these, and each would be read clause by clause on every decision).
        return Reading(statement, "value", "trace.other", plain, note="not about this action")
    clauses: list[_Clause] = []
    for start, end in _spans(text):
        clauses.append(
            _clause(
                text,
                start,
                end,
                request,
                meaning,
                previous=clauses[-1] if clauses else None,
                in_call=statement.origin == "call",
            )
        )
    if _reason_then_request(clauses, text, request):
        clauses = [c if c.stance != "denial" else _Clause(c.start, c.end, "value") for c in clauses]
    clauses = _contrasted(text, clauses, request)
    clauses = _not_asked_yet(text, clauses, request)
    # An argument whose own value is an absence ("None" subtitles) is given by a no ("as for
    # subtitles, i want none"), never denied by one.
    absent = frozenset(a.name for a in request.bound if a.norm is not None and a.norm.key in words.ABSENCE)
    denied = frozenset(
        n for c in clauses if c.stance in ("denial", "exception") for n in c.denied if n not in absent
    )
    denies_action = any(c.denies_action for c in clauses)
    opposite = (
        bool(wanted)
        and any(
            (
                (
                    utterance.opposes(text[c.start : c.end], wanted[:1])
                    # "stop renewing my plan": ending the opposite of cancelling is cancelling
                    and _ceasing_gerund().search(text[c.start : c.end]) is None
                    # "i won't be renewing the plan": the opposite said with a no
                    and not _opposite_denied(text[c.start : c.end], wanted[:1], request.lang)
                    # "i was charged twice for order b221": what happened, the reason to refund
                    and not (c.stance != "request" and _opposite_happened(text[c.start : c.end], wanted[:1]))
                )
                or _reverses(text[c.start : c.end], request)
                or _restores(text[c.start : c.end], request)
                or _hinders_the_action(text[c.start : c.end], request)
                or _in_its_place(text[c.start : c.end], request)
            )
            and not _opposite_of_another(text, c, clauses, request)
            for c in clauses
            if c.stance in ("request", "value", "denial")
            and (c.stance == "request" or _names_bound(text[c.start : c.end], request))
        )
    )
    # "..., por favor": a clause of courtesy alone asks for nothing of its own
    requests = [c for c in clauses if c.stance == "request" and not _courtesy_only(text[c.start : c.end])]
    ours = [c for c in requests if not c.other]
    kinds = {c.stance for c in clauses}
    whole_question = utterance.is_question(text, request.lang) and not requests
    other_action = bool(requests) and not ours
    # A search's values say what the caller wants found: they count for the action asked for
    # later on what was found ("concerts around Vancouver", then "get me tickets").
    searching = other_action and all(c.search for c in requests)
    if (whole_question or requests) and (
        _other_qualifier(text, request, meaning)
        or _frame_clash(text, request, meaning)
        or (whole_question and _other_thing(text, request, meaning))
    ):
        other_action = True
        searching = False
        ours = []
    if ours and all(_points_at_another(text, c, clauses, request) for c in ours):
        # "the meeting at work was moved, can it be friday instead": "it" is the meeting
        other_action = True
        searching = False
        ours = []
    values = _corrected(text, _counted_values(text, clauses, request), request)
    carried = _carries_all(values, request)
    points_back = _pointing_back(text, clauses, ours, values, request)
    told = [c for c in ours if not c.asked]  # asked outright, not as a modal question
    stated = [*told, *_leading(clauses, told)]
    # "can q4410 come on monday instead": for a change, a modal question that puts a value in
    # another's place asks for it as plainly as a command
    asked_change = (
        [c for c in ours if c.asked] if _substitutes(text) and action_class(request) == "change" else []
    )
    substituted = [*stated, *asked_change]
    # Wished for only as what a value is to be ("INV-5150 should be 1200"): its values and their
    # likeness to the action's words name no action; only the action's own meaning does.
    valued_only = (
        bool(told)
        and len(told) == len(ours)
        and all(c.prefers for c in told)
        and not _state_is_the_action(text, request)
    )
    only_values = _only_values(text, request)
    # In a call, "A-1001 please" answers a question: values alone ask for nothing there.
    answers_only = statement.origin == "call" and only_values
    plainly = (
        bool(ours or whole_question)
        and not other_action
        and (not valued_only or points_back or plain >= CLEAR)
        and not answers_only
        and (
            points_back
            or plain >= CLEAR
            or rendered >= CLEAR_RENDERED
            or ((plain >= ABOUT or rendered >= ABOUT_RENDERED) and shares_word(text, wanted))
            or (carried and _distinctive(_within(values, substituted), request, text) and near >= FLOOR)
            # "could someone come out to the house on thursday": the verb of the action's thing,
            # with every value of it
            or (
                carried
                and near >= RELATED
                and any(_verb_of_the_action(text[c.start : c.end], request) for c in told)
            )
            # "can you get a technician out on monday" for a home visit: the thing by another
            # word of its family, asked for with a verb of getting or a wish, with every value
            or (carried and any(_thing_of_the_action(text[c.start : c.end], request) for c in ours))
            # "quiero pagar la factura F-22019": the action's verb in the caller's language,
            # with a value of it.
            or (
                any(_says_abroad(text[c.start : c.end], wanted) for c in ours)
                and any(x.fits for v in values.values() for x in v)
            )
            # "quiero pagar una factura", "Ich möchte ein Konto eröffnen": asked outright with the
            # thing in the caller's language instead, in a call whose later turns give the values
            # ("¿puedo pagar la factura con tarjeta?" asks how, not for it)
            or (
                any(_says_abroad(text[c.start : c.end], wanted) for c in told)
                and _thing_said_abroad(text, request)
            )
            # "Ich brauche einen Zahnarzttermin am Montag um halb zehn", "necesito una cita con el
            # dentista el lunes": for an action that books or makes its thing, a wish for that
            # thing in the caller's language, with no verb of its own and every value
            or (
                carried
                and not utterance.is_question(text, request.lang)  # "¿necesito un técnico el jueves?"
                and any(_wishes_thing_abroad(text[c.start : c.end], request) for c in told)
            )
        )
    )
    names = (plainly and not (ours and all(c.loose for c in ours))) or (
        statement.origin == "call"
        and any(
            not c.loose and not _thing_is_fine(text[c.start : c.end], request)
            for c in [*told, *(c for c in asked_change if _THING_ASKED.search(text[c.start : c.end]))]
        )
        and not other_action
        # in a call, a value said to be something ("ACC-1234 should be 200 dollars in credit")
        # or said to suit ("saturday at 8pm is fine for us to meet") names no action; "this
        # sounds good", with no value, is read as before
        # "wednesday would be better" for a request with no day: a value of any kind said to suit
        and not (valued_only and (gives_value(values) or bool(forms.mentions_in(text, request.lang))))
        and not answers_only
        and near >= CALL_FLOOR
        # "can you email it over to my accountant": a pointer asking for another thing done
        # with what it points at names no action (one asking to have it done still does)
        and (gives_value(values) or not points_with_pronoun(text) or asks_it_done(text, request))
    )
    bare = only_values and not statement.trusted
    task = _task(text, requests, request, meaning, plainly=plainly, names=names)
    gives = gives_value(values)
    counts = (not other_action or searching) and (
        near >= RELATED
        or _bare_values(text, request)
        or names
        or (gives and (change or _distinctive(values, request, text)))
        # "how about a small car picked up at 4:30 pm": the caller puts its values forward
        or (gives and utterance.proposes(text))
    )
    base = {
        "about": plain,
        "values": values,
        "change": change,
        "agrees": agrees,
        "refuses": refuses,
        "bare": bare,
        "denied": denied,
    }
    if (
        memory is not None
        and memory.negated
        and not denied
        and not denies_action
        and _names_bound(text, request)
        and utterance.says_no(text, request.lang)  # "I don't mind a shared ride" is a yes
        # "we'll be five, not four": the no is to the other value, this one is the correction
        and not any(_not_the_other(text[c.start : c.end], request) for c in clauses)
        # "i don't need the isa any more": for a removal, the reason for it, not a no to it
        and not (_removes(request) and (_no_longer_needed(text) or utterance.withdraws(text)))
    ):
        denies_action = not requests  # the engine read a no the clause reading could not place
    first_request = ours[0].start if ours else len(text)
    fronted = [
        c
        for c in clauses
        if ours
        and c.stance == "someone_else"
        and c.start <= first_request
        and (
            _for_another(text[c.start : c.end], request)
            # "my husband says don't cancel the silver plan, cancel the gold one": his commands
            or (
                utterance.relays_command(text[c.start : c.end])
                and not _SENTENCE_END.search(text, c.end, first_request)
            )
        )
    ]
    carrying_other = any(
        c.stance == "someone_else" and _names_bound(text[c.start : c.end], request) for c in clauses
    )
    if (
        fronted
        or (carrying_other and not ours)
        or (ours and all(_someone_else(text[c.start : c.end], request) for c in ours))
    ):
        return Reading(statement, "ignored", "trace.someone_else", **base)  # type: ignore[arg-type]
    if _REFUSED_LAST.search(text) and (gives_value(values) or shares_word(text, wanted[:1])):
        # "premium please no", "saturday at 8 - no, please": a no said last, after what it refuses
        return Reading(
            statement,
            "denial",
            "trace.refused",
            denies_action=True,
            counts=True,
            note="said no after it",
            **base,  # type: ignore[arg-type]
        )
    # "i want it back working": wished back in use, said of it by name or pointer, whatever else
    restores = any(
        _restores(text[c.start : c.end], request)
        and (_names_bound(text[c.start : c.end], request) or points_with_pronoun(text[c.start : c.end]))
        for c in clauses
        if c.stance in ("request", "value")
    )
    if (opposite and (near >= RELATED or any(values.values()))) or restores:
        return Reading(statement, "denial", "trace.opposite", denies_action=True, counts=True, **base)  # type: ignore[arg-type]
    if denies_action or (denied and not ours):
        return Reading(statement, "denial", "trace.denied", denies_action=denies_action, counts=True, **base)  # type: ignore[arg-type]
    if (
        utterance.retracts(without_corrections(text, request))
        and not ours
        and not _gives_other(text, request)
        # "can he come tuesday instead": a change to this request's own value, not a withdrawal
        and not (_mentions_own(values) and _substitutes(text) and not utterance.withdraws(text))
        # "let's look for asian fusion instead": a new search, what it finds is asked for next
        and not (searching and not utterance.withdraws(text))
    ):
        return Reading(statement, "retraction", "trace.withdrawn", counts=True, **base)  # type: ignore[arg-type]
    if "dropped" in kinds and not ours:
        return Reading(
            statement,
            "retraction",
            "trace.withdrawn",
            counts=True,
            note="lets go of what it points at",
            **base,  # type: ignore[arg-type]
        )
    put_off = [c for c in clauses if c.stance == "put_off"]
    if ours and (
        _taken_back(text, ours[-1], request) or (put_off and not _gives_after(text, put_off[0].end, request))
    ):
        return Reading(
            statement,
            "retraction",
            "trace.withdrawn",
            counts=True,
            note="taken back in the same breath",
            **base,  # type: ignore[arg-type]
        )
    if "condition" in kinds or (utterance.conditional(text) and not ours):
        return Reading(statement, "ignored", "trace.condition", **base)  # type: ignore[arg-type]
    if "later" in kinds:
        return Reading(statement, "ignored", "trace.later", **base)  # type: ignore[arg-type]
    if whole_question or (not requests and "question" in kinds):
        return Reading(statement, "question", "trace.question", counts=counts, **base)  # type: ignore[arg-type]
    if requests:
        rule = "trace.other_action"
        if ours:
            rule = "trace.points_back" if points_back else "trace.request"
        return Reading(
            statement,
            "request",
            rule,
            names_action=names,
            names_plainly=plainly,
            task=task,
            other_action=other_action,
            counts=counts,
            **base,  # type: ignore[arg-type]
        )
    # "we'll be six now but don't change the booking yet": a new value stated, then held back
    if _states_new_value(text, change, carried, values, request) and not put_off:
        # "actually we'll be five, not four", "we'll be six now": for an action that sets a
        # value, the new value stated as a change asks for it
        return Reading(
            statement,
            "request",
            "trace.request.new_value",
            names_action=True,
            names_plainly=True,
            counts=True,
            note="states the new value as a change",
            **base,  # type: ignore[arg-type]
        )
    return Reading(statement, "value", "trace.value" if counts else "trace.other", counts=counts, **base)  # type: ignore[arg-type]


# A change asked of the thing itself ("can it come friday instead", "could that be monday
# instead"): in a call, where the thing was named before, as plain as a command; one asked of a
# person ("can the fitter come friday instead", "can i collect it friday instead") is not.
_THING_ASKED = re.compile(r"\b(?:can|could|would|will)\s+(?:it|that|this)\b(?!\s+have\b)", re.IGNORECASE)


# The thing a telling opens with as its subject, before its verb: "the meeting at work was
# moved", "my dentist appointment clashes".
_SUBJECT_THING = re.compile(
    r"^\W*(?:(?:so|and|but|well|ok|okay|um|uh|yeah|right|also|oh)\s+)*"
    r"(?:the|my|our|this|his|her|their)\s+((?:[a-z'-]+\s+){0,2}?[a-z'-]+)"
    r"(?:\s+(?:at|in|for|on|with|of|from)\s+(?:[a-z'-]+\s+){0,2}?[a-z'-]+)?\s+"
    r"(?:is|was|were|are|has|had|got|keeps|kept|clashes|clashed|isn'?t|wasn'?t|hasn'?t)\b",
    re.IGNORECASE,
)
# A pointer a request puts in its thing's place.
_THING_POINTER = re.compile(r"\b(?:it|that|this)\b", re.IGNORECASE)


def _points_at_another(text: str, c: _Clause, clauses: Sequence[_Clause], request: TraceRequest) -> bool:
    """Whether the request clause ``c`` points with "it" or "that" at a thing of another kind that
    an earlier clause of the same statement opens with ("the meeting at work was moved, can it be
    friday instead"; "my taxi is booked for 7, can it be 8 instead"): the request is that
    thing's. A person is never "it" ("the driver texted, can it come friday instead")."""
    part = text[c.start : c.end]
    if not _THING_POINTER.search(part) or asked_thing(part, request):
        return False
    thing = query_thing(request)
    mine = [*thing, *_thing_words(request)]
    for b in reversed([b for b in clauses if b.end <= c.start]):
        found = _SUBJECT_THING.match(text[b.start : b.end])
        if found is None:
            continue
        named = found.group(1).casefold().split()
        head = named[-1]
        # a meeting of another name is another meeting, unless the query's own words qualify it
        # ("my dental checkup" for a dentist appointment; "the meeting at work" is not one)
        return _known_other_thing(head, mine) or (
            head in words.MEETINGS
            and bool(thing)
            and head != thing[-1]
            and not any(_same_qualifier(q, thing[:-1]) for q in named[:-1])
        )
    return False


def _states_new_value(
    text: str,
    change: bool,
    carried: bool,
    values: Mapping[str, tuple[forms.Said, ...]],
    request: TraceRequest,
) -> bool:
    """Whether a statement that asks for nothing gives, as a change ("actually", "now", "not
    four"), every value of an action that sets a value, each one that cannot come up by chance
    (a count said with what it counts, "we'll be five"; an identifier; a name): the request to
    set it. Said in the past ("we were five") it tells what was."""
    return (
        change
        and carried
        and action_class(request) == "change"
        and not _TOLD_AS_PAST.search(text)
        and all(_distinctive({a.name: values.get(a.name, ())}, request, text) for a in request.bound)
    )


# A statement about what was ("we were five last time", "there had been nine of us").
_TOLD_AS_PAST = re.compile(r"\b(?:was|were|had been|used to be|last time|before)\b", re.IGNORECASE)


# A no said last, alone but for a please or thanks ("premium please no", "friday - no, please",
# "the gold one, please never"); not a question ("cancel it, no?").
_REFUSED_LAST = re.compile(
    r"(?:^|[\s,.;:!-])(?:please\s*,?\s*)?(?:no|nope|nah|never|not|no way|no thanks|no thank you|"
    r"don'?t|do not)(?:\s*,?\s*(?:please|thanks|thank you))?\s*[.!]*\s*$",
    re.IGNORECASE,
)


def gives_value(values: Mapping[str, tuple[forms.Said, ...]]) -> bool:
    """Whether a value of the request is said in a clause that counts."""
    return any(x.fits for said in values.values() for x in said)


def _kind_said_by_value(part: str, request: TraceRequest) -> bool:
    """Whether the thing asked for is named with one of the request's own words for its kind
    right before it ("a compact model", "a compact motor" for a car of class compact): a value of
    an argument that takes one of a few (a Literal, an Enum, a policy's allowed list), not a name
    ("a paris themed cake" is no flight to Paris)."""
    named = asked_thing(part, request)
    if not named:
        return False
    head = re.escape(named[-1])
    lowered = part.casefold()
    return any(
        re.match(rf"[\s-]+(?:[a-z]+\s+)?{head}\b", lowered[end:]) is not None
        for spec in request.bound
        if spec.kind == "text" and spec.choices
        for _, end in forms.value_spans(part, spec, request)
    )


def _state_is_the_action(text: str, request: TraceRequest) -> bool:
    """Whether a value wished for as a state ("my address should be 14 rowan close", "the party
    is now 6") asks for the action: one that changes a thing to its value, or one the words name
    by its thing or verb as a whole ("a table for 4 on friday would be perfect"). What a thing's
    value is to be ("INV-5150 should be 1200", "the gas bill will be 60") asks for no payment."""
    if action_class(request) == "change":
        return True
    return _VALUE_IS_TO_BE.search(text) is None and (
        shares_word(text, query_thing(request)) or shares_word(text, action_words(request)[:1])
    )


_VALUE_IS_TO_BE = re.compile(
    r"\b(?:should|needs? to|has to|must|will|is going to) be\b|\bis now\b", re.IGNORECASE
)


def _task(
    text: str,
    requests: Sequence[_Clause],
    request: TraceRequest,
    meaning: Similarities,
    *,
    plainly: bool,
    names: bool,
) -> str | None:
    """The task the statement's last request turns the caller to (see :attr:`Reading.task`).

    Away: another action, or a search for a thing of another known kind ("can you help me
    find an apartment there?" in a call about a hire car). Back: this action in its own
    words or meaning ("book the car we talked about"), or a search for its own thing ("I
    also need to find a bus" for bus tickets). A search for something to do the action on
    ("find me somewhere to eat") turns nowhere.
    """
    if not requests:
        return None
    verb_and_thing = [*action_words(request)[:1], *query_thing(request)]
    if plainly or (names and shares_word(text, verb_and_thing)):
        return "back"
    last = requests[-1]
    if not last.other:
        return None
    part = text[last.start : last.end]
    wanted = query_thing(request)
    named = asked_thing(part, request)
    if (
        named
        and shares_word(named[-1], wanted)
        and not _qualified_as_other(named, [*wanted, *_thing_words(request)])
    ):
        return "back" if last.search else None  # this action's own thing
    if not last.search:
        return "away"
    verb = asked_verb(part, request) or utterance.command_verb(part)
    if verb is None or verb.split()[0] not in words.SEEKING:
        return None  # "can you tell me the name of the station?": about this task, not another
    if named and _known_other_thing(named[-1], [*wanted, *action_words(request)]):
        return "away"
    if named and wanted and _an_identifier(named[-1]):
        return "away"  # "can you find order a-1002" in a call about a-1001
    if named and wanted and -1.0 < meaning.sim(named[-1], wanted[-1]) < SAME_HEAD:
        return "away"  # "look for a dentist near there" in a call about a hire car
    return None


_GENERIC_CUES = frozenset({"date", "time", "day"})
_START_WORDS = frozenset({"from", "starting", "beginning"})
_END_WORDS = frozenset({"until", "till", "til", "through", "to"})


def _offered_for(text: str, start: int, spec: ArgumentSpec, request: TraceRequest) -> bool:
    """Whether a day or time the agent names at ``start`` is offered for ``spec`` when the request
    has more than one argument of its kind (a pick-up and a drop-off date): the one whose own
    words (``pick up``, ``return``) or whose end of the span ("from", "until") come last before
    it in the sentence; with none said, the start and not the end of the span ("a car available
    next Friday" is picked up then, not brought back)."""
    if spec.kind not in ("date", "time", "weekday"):
        return True
    kin = [a for a in request.bound if a.kind == spec.kind]
    if len(kin) < 2 or spec not in kin:
        return True
    own = {
        a.name: {stem(c) for c in a.cues if c not in _GENERIC_CUES}
        - {stem(c) for b in kin if b is not a for c in b.cues}
        for a in kin
    }
    sentence_start = max(text.rfind(p, 0, start) for p in (". ", "? ", "! ", "; "))
    before = [w.strip(".,;:!?'\"") for w in text[max(0, sentence_start) : start].casefold().split()]
    for back, word in enumerate(reversed(before)):
        owners = [a for a in kin if stem(word) in own[a.name]]
        # "from", "until" right before the day ("to the 9th"), not a verb's "to" further back
        if not owners and back < 2 and word in _START_WORDS:
            owners = [a for a in kin if a.role == "from"]
        if not owners and back < 2 and word in _END_WORDS:
            owners = [a for a in kin if a.role == "to" or forms.ends(a)]
        if len(owners) == 1:
            return owners[0] is spec
    # No words for either: a span's start, where the others are its end ("a car available next
    # Friday" is picked up then); otherwise nothing tells them apart.
    ending = [a for a in kin if a.role == "to" or forms.ends(a)]
    if not ending or len(ending) == len(kin):
        return True
    return spec not in ending


# Words after a count that leave it a count of the argument's own unit ("4 of us", "2 at 8pm").
_COUNT_FOLLOWERS = frozenset(
    {"and", "for", "the", "at", "on", "in", "to", "of", "from", "with", "please", "then", "by", "this"}
    | {"that", "are", "was", "were", "will", "would", "can", "could", "total", "altogether", "all"}
)
# Words right before a place that say which end of a journey it is.
_PLACE_END_OF = {
    **dict.fromkeys(("from", "leaving", "departing", "depart", "leave", "out"), "from"),
    **dict.fromkeys(("to", "for", "into", "towards", "toward", "heading", "arriving", "arrive"), "to"),
}


# "the bus station is ", "the hotel was ": what a thing is called, said right before its name.
_NAMED_AS = re.compile(
    r"\bthe\s+((?:[a-zà-ÿ]+\s+){0,2}[a-zà-ÿ]+)\s+(?:is|was|will be|would be)\s+$", re.IGNORECASE
)


# The last word of a venue's name ("Napa Valley Performing Arts Center", "Leeds Grand Theatre").
_VENUE_WORDS = frozenset(
    {
        *("center", "centre", "theatre", "theater", "hall", "arena", "stadium", "auditorium", "museum"),
        *("gallery", "pavilion", "amphitheatre", "amphitheater", "ballroom", "coliseum", "colosseum"),
        *("bowl", "field", "garden", "gardens", "playhouse", "opera", "club", "lounge", "church"),
    }
)
_NAME_GOES_ON = re.compile(r"(?:\s+(?:[A-Z][\w'&-]*|of|the|and|&)){1,6}")


def _starts_a_venues_name(text: str, end: int, spec: ArgumentSpec) -> bool:
    """Whether a place the agent says is the start of a venue's name written after it ("at Napa
    Valley Performing Arts Center"): the venue's, not the town put forward. A hotel's, an
    airport's or a station's name that holds its town does put the town forward."""
    if spec.kind != "text" or not (forms.PLACE_CUES & set(spec.cues)):
        return False
    found = _NAME_GOES_ON.match(text, end)
    if found is None:
        return False
    last = re.findall(r"[A-Za-z][\w'-]*", found.group(0))
    return bool(last) and last[-1].casefold() in _VENUE_WORDS


def _offered_elsewhere(text: str, start: int, end: int, spec: ArgumentSpec, request: TraceRequest) -> bool:
    """Whether the agent's words give the value at ``start:end`` another part than ``spec``'s: a
    count of another unit or label, or of a thing with no unit in the lists ("1 restaurant"); the
    other end of a journey ("leaving San Francisco for San Diego"), or one end of a journey the
    agent names from end to end."""
    rule = forms.judge_span(text, start, end, spec, request, same=True).rule
    if rule in ("trace.value.unit", "trace.value.label", "trace.value.currency"):
        return True
    if rule == "trace.value.name" and _starts_a_venues_name(text, end, spec):
        return True
    if spec.kind == "number" and spec.unit is not None:
        # "There's 1 restaurant meeting your criteria", "1 transfer": a count of another thing
        # the lists hold no unit for; the agent offers a count only with its own unit, or bare.
        after = re.match(r"\s+([a-zà-ÿ][a-zà-ÿ'-]{2,})", text[end:], re.IGNORECASE)
        if after is not None:
            word = after.group(1).casefold()
            if words.UNIT_OF.get(word) != spec.unit and word not in _COUNT_FOLLOWERS:
                return True
    journey_ends = {a.role for a in request.bound if a.kind == "text" and a.role in ("from", "to")}
    if spec.kind == "text" and spec.role in ("from", "to") and journey_ends == {"from", "to"}:
        # "leaving San Francisco for San Diego": the word right before a place says which end.
        lead = [w.casefold() for w in re.findall(r"[a-zà-ÿ]+", text[:start])[-2:]]
        said = next((_PLACE_END_OF[w] for w in reversed(lead) if w in _PLACE_END_OF), None)
        if said is not None and said != spec.role:
            return True
    if spec.kind == "text":
        named_as = _NAMED_AS.search(text[:start])
        if named_as is not None:
            # "The bus station is Fresno Station": the name of another thing's place (the bus's),
            # not one put forward for this request's thing (a car's pick-up)
            thing = named_as.group(1).casefold()
            wanted = [*query_thing(request), *_thing_words(request)]
            # the words that say whose it is ("bus" of "the bus station"), not the word for what
            # it is: "the address is 2455 Bennett Valley Road" names a place for any thing
            whose = thing.split()[:-1]
            if not shares_word(thing, wanted) and any(_known_other_thing(w, wanted) for w in whose):
                return True
    journey = re.search(r"\bfrom\s+(?:\S+\s+){0,4}$", text[:start], re.IGNORECASE) and re.match(
        r"\s+(?:to|into)\s", text[end:], re.IGNORECASE
    )
    return rule == "trace.value.role" and journey is not None


@lru_cache(maxsize=4096)
def _takes_a_stance(text: str, lang: str | None) -> bool:
    """Whether the words take up, turn down, negate or change anything (asked of a memory on each
    decision that reads it, and again by :func:`bearing` before its parts are embedded)."""
    if (
        _agrees(text)
        or _refuses(text)
        or _change_marked(text)
        or utterance.retracts(text)
        or utterance.drops_pointed(text)
    ):
        return True
    return any(denied.strip() for _, denied in utterance.scopes(text, lang))


def _far_from(text: str, request: TraceRequest, plain: float, rendered: float, wanted: Sequence[str]) -> bool:
    """Whether a statement cannot bear on the request: far in meaning, none of its words or values,
    and nothing that takes up, turns down, negates or changes anything."""
    if plain >= RELATED or rendered >= RELATED or shares_word(text, wanted):
        return False
    if _takes_a_stance(text, request.lang):
        return False
    if _POINTED_OBJECT.search(text) and (utterance.states_wish(text) or utterance.opens_command(text)):
        return False  # "please put that in for me": its meaning is what it points at
    return not any(
        forms.value_spans(text, spec, request) or forms.other_value_spans(text, spec, request)
        for spec in request.arguments
    )


# A pronoun that is what a request acts on ("put that in", "pay it", "sort them out"), not a
# "that" opening a clause ("can you note that the boiler needs looking at").
_POINTED_OBJECT = re.compile(
    r"\b(?:it|them|him|her|(?:that|this)(?=\s*(?:$|[.,;!?]|(?:in|on|out|off|up|through|for|to|"
    r"over|back|away|down|from|with|into|onto|at|by|against|as|now|today|please|then)\b)))\b",
    re.IGNORECASE,
)


def _within(
    values: Mapping[str, tuple[forms.Said, ...]], clauses: Sequence[_Clause]
) -> dict[str, tuple[forms.Said, ...]]:
    """The values said inside these clauses."""
    return {
        n: tuple(x for x in v if any(c.start <= x.start < c.end for c in clauses)) for n, v in values.items()
    }


def _carries_all(values: Mapping[str, tuple[forms.Said, ...]], request: TraceRequest) -> bool:
    """Whether every bound argument not at its default has its own value said in its part."""
    needed = [a for a in request.bound if not a.at_default]
    return bool(needed) and all(any(x.same and x.fits for x in values.get(a.name, ())) for a in needed)


def _mentions_own(values: Mapping[str, tuple[forms.Said, ...]]) -> bool:
    return any(x.same and x.fits for said in values.values() for x in said)


def _distinctive(values: Mapping[str, tuple[forms.Said, ...]], request: TraceRequest, text: str = "") -> bool:
    """Whether a value said is one that does not come up by chance: an identifier or a name, or a
    count said with what it counts where the argument counts that ("6 people" for a party size,
    "3 nights" for a stay)."""
    return any(
        any(
            x.same
            and x.fits
            and (
                a.kind in ("ident", "text")
                or (a.unit is not None and forms.unit_at(text, x.end) == a.unit)
                or (a.unit == "people" and forms.counts_us(text, x.start))
            )
            for x in values.get(a.name, ())
        )
        for a in request.bound
    )


def _someone_else(part: str, request: TraceRequest) -> bool:
    if _to_another(request) or _names_the_other(part, request):
        # The action is for another party: their account, their name are its values. Only
        # someone else asking ("my brother wants to send ...") is not the caller's request.
        return utterance.by_someone_else(part)
    return utterance.about_someone_else(part) or utterance.for_someone_else(part)


def _names_the_other(part: str, request: TraceRequest) -> bool:
    """Whether the other person the words speak of is named by one of the request's values ("add a
    line for my daughter Priya", for a line in the name Priya): what the action does for them is
    its own value, and only their own asking is not the caller's request."""
    for spec in request.bound:
        if spec.kind != "text":
            continue
        for start, end in forms.value_spans(part, spec, request):
            if utterance.relation_beside(part, start, end):
                return True
    return False


def _for_another(part: str, request: TraceRequest) -> bool:
    """Whether the words are for somebody else's benefit, when that is not what the action does:
    a transfer "into their savings account" is the caller's own, to the recipient it names."""
    return utterance.for_someone_else(part) and not _to_another(request)


@_per_request
def _to_another(request: TraceRequest) -> bool:
    """Whether the action is for another party: an argument named for the recipient, or money
    sent to an account the query does not call the caller's own ("to account {to_account}")."""
    if any(set(a.cues) & words.RECIPIENT_WORDS for a in request.arguments):
        return True
    sends = shares_word(" ".join(action_words(request)[:1]), ["pay"])  # pay, send, transfer, wire
    return sends and any(
        # the role its name gives it ("to_account") or the query's words before it ("to account {account}")
        forms.role_of(request, a) == "to"
        and a.kind == "ident"
        and not re.search(rf"\bmy\s+(?:\w+\s+)?\{{{a.name}\}}", request.template)
        for a in request.bound
    )


def _taken_back(text: str, clause: _Clause, request: TraceRequest) -> bool:
    """Whether words after the request's values take it back ("book it for 4pm, or actually, let me ring").

    A correction of a value is no take-back ("..., actually make it 3 people"; see :func:`corrections`).
    """
    ends = [
        e
        for spec in request.bound
        for _, e in forms.value_spans(text[clause.start : clause.end], spec, request)
    ]
    at = clause.start + (max(ends) if ends else 0)
    if _gives_after(text, at, request):
        return False
    return utterance.takes_back_after(without_corrections(text, request), at)


# Kinds of value one correction may put in each other's place ("on the 5th, actually friday").
_KINDS_OF_A_DAY = frozenset({"date", "weekday"})


@dataclass(frozen=True)
class Correction:
    """A value corrected in the same breath (see :func:`corrections`)."""

    marker: int  # where the marker of correction starts
    at: int  # where the new value starts
    end: int  # where the correction ends
    arguments: frozenset[str]  # the request's arguments the new value may be for


@_per_request_text
def corrections(text: str, request: TraceRequest) -> tuple[Correction, ...]:
    """The values the caller corrects in the same breath (rule ``trace.value.corrected``).

    A marker of correction ("actually", "sorry", "or rather", "make that", "i mean") followed at
    once, past at most a verb of putting it in place ("make it", "change it to"), by a value (a
    number, time, date, amount or identifier, or a value of one of the request's arguments or
    of their kind), and by no more than a word or two of its own before its sentence ends: "...,
    actually make it 3 people", "at 5am, sorry, 6am", "or rather thursday". The request stands;
    the new value is for every argument it may be a value of (said as one of theirs, or a value
    of their kind), and replaces what was said for them before the marker (:func:`_corrected`):
    a value that could be for two of them ("for 2 at 8pm, actually make it 3") leaves neither
    as it was. A marker followed by anything else ("actually, let me ring", "actually 4 might
    not work") is no correction, and takes back what was asked as before.
    """
    openings = utterance.correction_openings(text)
    if not openings:
        return ()
    starts: dict[int, int] = {}
    kinds: dict[int, set[str]] = {}
    named: dict[int, set[str]] = {}
    for m in find_mentions(text, request.lang, today=request.today):
        starts[m.start] = max(starts.get(m.start, m.end), m.end)
        kinds.setdefault(m.start, set()).add(m.value.kind)
    for spec in request.arguments:
        for s, e in [*forms.value_spans(text, spec, request), *forms.other_value_spans(text, spec, request)]:
            starts[s] = max(starts.get(s, e), e)
            named.setdefault(s, set()).add(spec.name)
    out: list[Correction] = []
    for marker, at in openings:
        end = starts.get(at)
        if end is None:
            continue
        closes = utterance.correction_ends(text, end)
        if closes is None:
            continue
        said = kinds.get(at, set())
        if said & _KINDS_OF_A_DAY:
            said = said | _KINDS_OF_A_DAY
        arguments = named.get(at, set()) | {a.name for a in request.arguments if a.kind in said}
        out.append(Correction(marker, at, closes, frozenset(arguments)))
    return tuple(out)


@_per_request_text
def without_corrections(text: str, request: TraceRequest) -> str:
    """``text`` with each of its :func:`corrections` blanked (same length)."""
    for c in reversed(corrections(text, request)):
        text = text[: c.marker] + " " * (c.end - c.marker) + text[c.end :]
    return text


def _corrected(
    text: str, values: Mapping[str, tuple[forms.Said, ...]], request: TraceRequest
) -> dict[str, tuple[forms.Said, ...]]:
    """``values`` with what a correction replaced left out: an argument a correction may be for
    (:func:`corrections`) keeps only what was said for it from that correction on ("at 5am,
    actually make it 6am" says 6am; "to ACC-1234, actually make it ACC-5678" no longer says
    ACC-1234, whether or not the new one counts); an argument it is not for keeps its values ("a
    cab at 6am, actually make it 3 people" still says 6am)."""
    out = dict(values)
    for c in corrections(text, request):
        for name in c.arguments & out.keys():
            said = out[name]
            out[name] = tuple(
                dataclasses.replace(x, rule="trace.value.corrected")
                if c.at <= x.start < c.end and x.rule == "trace.value" and _replaces(x, said, c.marker)
                else x
                for x in said
                if x.start >= c.marker
            )
    return out


def _replaces(x: forms.Said, said: Sequence[forms.Said], marker: int) -> bool:
    """Whether a value said in a correction replaces another said for its argument before it."""
    return any(y.start < marker and (y.words.casefold() != x.words.casefold()) for y in said)


def _gives_after(text: str, at: int, request: TraceRequest) -> bool:
    """Whether the words after ``at`` name the request's values again ("actually yes, friday at 4")."""
    rest = text[at:]
    return bool(request.bound) and all(forms.value_spans(rest, spec, request) for spec in request.bound)


def _counted_values(
    text: str, clauses: Sequence[_Clause], request: TraceRequest
) -> dict[str, tuple[forms.Said, ...]]:
    """Every value said in a clause that asks for this, gives values or asks about them.

    Not in a clause that puts it off, asks on a condition or asks for another action
    (a search aside: what the caller asks to find is what they want).
    When a statement names two things of a kind the request is about ("refund 40 on x-19
    and 300 on x-20"), only the part that names the request's own thing counts for it.
    """
    counted = [
        c
        for c in clauses
        if (
            c.stance in ("value", "question", "denial", "exception")
            or (c.stance == "request" and (not c.other or c.search))
        )
        # "make it seven, not six": six is what it is not
        and not _not_the_other(text[c.start : c.end], request)
    ]
    # "could you tell me the weather for March 13th?": the day is the weather's. The request's own
    # value said there still counts (the caller's yes confirms it); another is no change to it.
    weather = [c for c in counted if _about_information(text[c.start : c.end], request)]
    parts = _own_parts(text, request)
    out: dict[str, tuple[forms.Said, ...]] = {}
    for spec in request.arguments:
        found = []
        for said in forms.said_in(text, spec, request):
            if not any(c.start <= said.start < c.end for c in counted):
                continue
            if not said.same and any(c.start <= said.start < c.end for c in weather):
                continue
            if parts is not None and not any(a <= said.start < b for a, b in parts):
                continue
            found.append(said)
        out[spec.name] = tuple(found)
    return out


def _own_parts(text: str, request: TraceRequest) -> list[tuple[int, int]] | None:
    """The parts of a statement with two requests that name the request's own identifier.

    None when the statement names no other identifier (all of it counts).
    """
    keys = [a for a in request.bound if a.kind == "ident"]
    if not keys or not any(forms.other_idents(text, spec, request) for spec in keys):
        return None
    bounds = [0]
    for m in _SEPARATOR.finditer(text):
        bounds += [m.start(), m.end()]
    bounds.append(len(text))
    pieces = [(a, b) for a, b in zip(bounds[::2], bounds[1::2], strict=False) if a < b]
    return [
        (a, b) for a, b in pieces if all(forms.value_spans(text[a:b], spec, request) for spec in keys)
    ] or [(0, 0)]


_WISHING = frozenset(
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


def _only_values(text: str, request: TraceRequest) -> bool:
    """Whether ``text`` is the request's values and words of wanting only ("thursday please")."""
    if utterance.is_question(text, request.lang) or not _names_bound(text, request):
        return False
    rest = _without_values(text, request)
    return all(w in _WISHING for w in content_words(rest))


def _bare_values(text: str, request: TraceRequest) -> bool:
    """Whether ``text`` is little more than values ("at 11:45", "for two please", "Lotus")."""
    rest = _without_values(text, request)
    for m in forms.mentions_in(rest, request.lang):
        rest = rest[: m.start] + " " * (m.end - m.start) + rest[m.end :]
    left = [w for w in content_words(rest) if w not in words.CLOSING and w not in words.AGREEMENT]
    return len(left) <= 3


def _other_thing(
    text: str, request: TraceRequest, meaning: Similarities, *, strong_only: bool = False
) -> bool:
    """Whether the request asks for the action on another thing than the query's own.

    The thing it names (the words after its verb or its wish) must be the query's
    thing: a word of it, of its family or of the arguments' own words, or close in
    meaning, head word to head word. Where both qualify the same head word, the
    qualifiers must agree ("billing address" is not "delivery address", "a vet
    visit" not "a home visit"); where the query qualifies its thing and the
    statement does not, the statement must not tie it to something else ("an
    overpayment on my car loan" is not a mortgage overpayment). A fixed place or
    party in the query ("at the vet") must not be another in the statement ("at
    the groomers").

    ``strong_only``: only a clash of place, party or qualifier counts (for the turns of a
    call, where the caller opens with a need in their own words: "i need wheels in
    phoenix" is the hire car the rest of the call books).
    """
    if _frame_clash(text, request, meaning) or _other_qualifier(text, request, meaning):
        return True
    if _foreign_other_thing(text, request):
        return True
    wanted = query_thing(request)
    named = asked_thing(text, request)
    if named and (
        _of_the_other_sense(named[-1], request) or _said_in_another_sense(text, named[-1], request)
    ):
        return True
    if _the_other_way(text, request):
        return True
    # "two seats on the bus to hamilton": had on, in or at a known thing of another kind (not on
    # what the caller holds, which carries every extra: "the movies extra on my account")
    if wanted and any(
        _known_other_thing(m.group(1).casefold(), [*wanted, *_thing_words(request)])
        and m.group(1).casefold() not in _HOLDERS
        for m in _HAD_IN.finditer(_without_values(text, request))  # not a word of a value's name
    ):
        return True
    if strong_only:
        # In a call, only a thing known to be of another kind: "book a visit" in a call that
        # also rents a car is not the car.
        if not wanted:
            return False
        # the arguments' own words too: "transfer some money" moves the amount, whatever the query
        # says it goes to ("transfer {amount} dollars to account {to_account}")
        mine = [*wanted, *_thing_words(request)]
        # a word of several kinds ("seats": at a table, on a flight, on a bus) is another thing
        # only against a thing of a known kind: "3 seats" may be a show's ("buy 3 tickets")
        if (
            named
            and _known_other_thing(named[-1], mine)
            and (_kinds_of(named[-1]) < 2 or any(_of_a_known_kind(w) for w in wanted))
        ):
            return True
        # "a bus ride", "a train ticket" in a call that rents a car or buys bus tickets: the
        # thing qualified by a known thing of another kind, of that kind only and not the name
        # of an action, is that thing's ("a return ticket" is a bus ticket)
        if _qualified_as_other(named, mine):
            return True
        # "refund the 40 delivery fee on my gym membership": what it names (a thing no family of
        # the request's knows, or nothing), said to be a known thing's of another kind, is that's.
        return (not named or _unknown_thing(named[-1], mine)) and _owned_by_other_kind(text, request, mine)
    if len(wanted) >= 2 and not shares_word(text, wanted[:-1]) and _tied_elsewhere(text, request):
        return True
    if not named or not wanted:
        return False
    values = {w for a in request.arguments for w in re.findall(r"[a-zà-ÿ0-9]+", a.shown.casefold())}
    if values & set(named):
        return False  # the thing is named by a value of the request ("a convertible in nice")
    known = _thing_words(request)
    head, wanted_head = named[-1], wanted[-1]
    said = " ".join(named)
    if any(
        _names_foreign(f, (wanted_head, *known)) for f in [*foreign_families(said), *foreign_things(said)]
    ):
        return False  # "una mesa" is a table: the English model cannot say so, the word lists can
    if _kind_named_by_value(text, head, wanted_head, request):
        return False
    if (
        head in words.KINDS_OF_ITEM
        and wanted_head in words.KINDS_OF_ITEM
        and values & set(_WORD.findall(text.casefold()))
    ):
        return False  # "mi suscripción de netflix": a word for what a caller holds, with its name
    head = _as_spelt(head, (wanted_head, *known))
    if (
        head in words.MEETINGS
        and wanted_head in words.MEETINGS
        and all(_same_qualifier(q, (*wanted, *known)) for q in named[:-1])
    ):
        # "a dental check-up" for "a dental appointment": a meeting of another name, qualified
        # by nothing the query's is not (a "grooming session" is no vet appointment)
        head = wanted_head
    named = [*named[:-1], head]  # "an appintment": the appointment it misspells
    if head != wanted_head and not shares_word(head, [wanted_head]) and not shares_word(head, known):
        if _an_identifier(head):
            # "order a-1002" in a call about a-1001: another one of the kind, whatever its letters
            # (an identifier names one thing, never a kind: no sentence encoder reads it)
            return True
        if meaning.sim(head, wanted_head) < SAME_HEAD:
            return True
    if shares_word(" ".join(named), known):
        return False
    return meaning.sim(" ".join(named), " ".join(wanted)) < SAME_THING


def _same_qualifier(word: str, mine: Sequence[str]) -> bool:
    """Whether ``word`` qualifies a thing as one of ``mine`` does: the word, its stem or its
    family, or the same first four letters ("dental" for "dentist", "physio" for
    "physiotherapy")."""
    return shares_word(word, mine) or any(len(w) >= 4 and w[:4] == word[:4] for w in mine if len(word) >= 4)


def _qualified_as_other(named: Sequence[str], mine: Sequence[str]) -> bool:
    """Whether the thing named is qualified by a known thing of another kind than ``mine``, of
    that kind only and not the name of an action ("a bus ride" for a hire car: a ride is also a
    car's, but this one is the bus's; "a return ticket" is still a bus ticket)."""
    return len(named) >= 2 and any(
        _known_other_thing(q, mine) and _kinds_of(q) == 1 and q not in words.ACTION_NOUN_VERBS
        for q in named[:-1]
    )


def _an_identifier(word: str) -> bool:
    """Whether a word is an identifier ("a00063", "inv-220", "r102"): it names one thing of a kind,
    never a kind, so no sentence encoder can say what it is."""
    found = forms.mentions_in(word, None)
    return (
        len(found) == 1
        and found[0].value.kind == "ident"
        and (found[0].start, found[0].end) == (0, len(word))
    )


@_per_request
def _thing_words(request: TraceRequest) -> tuple[str, ...]:
    """The words the request is known by besides its thing: its verb's and its arguments'."""
    return (*action_words(request), *(w for a in request.arguments for w in a.cues))


def _as_spelt(said: str, wanted: Sequence[str]) -> str:
    """``said`` as the word it misspells ("appintment" → "appointment"), when it is one letter from
    one of ``wanted`` or of the words gate knows things by (:data:`words.FAMILIES`)."""
    if said in _known_set():
        return said
    for word in (*wanted, *_known_near(len(said))):
        if _misspelt(said, word):
            return word
    return said


@lru_cache(maxsize=1)
def _known_set() -> frozenset[str]:
    return frozenset(_known_things())


@lru_cache(maxsize=64)
def _known_near(length: int) -> tuple[str, ...]:
    """The known things a word of ``length`` letters may misspell (see :func:`_misspelt`), in order."""
    return tuple(w for w in _known_things() if len(w) >= 8 and abs(len(w) - length) <= 1)


@lru_cache(maxsize=1)
def _known_things() -> tuple[str, ...]:
    """The one-word things of :data:`words.FAMILIES`, in order (a misspelling maps to one word)."""
    return tuple(sorted({w for family in words.FAMILIES for w in family if " " not in w}))


def _misspelt(said: str, word: str) -> bool:
    """Whether ``said`` is ``word`` with one letter left out, added or changed ("appintment",
    "resevation"): a typed or transcribed slip of a long word (eight letters or more; short words
    one letter apart are often other words: "hostel", "fight")."""
    if len(word) < 8 or abs(len(said) - len(word)) > 1 or said == word:
        return False
    if len(said) == len(word):
        return sum(a != b for a, b in zip(said, word, strict=True)) == 1
    short, long_ = sorted((said, word), key=len)
    return any(long_[:k] + long_[k + 1 :] == short for k in range(len(long_)))


def _kind_named_by_value(text: str, head: str, wanted_head: str, request: TraceRequest) -> bool:
    """Whether the statement names the query's thing by its value and a word for its kind ("the
    sports package" for "the {addon} add-on"): both head words say only what sort of thing it
    is, and a value of the request is said right before the statement's."""
    if head not in words.KINDS_OF_ITEM or wanted_head not in words.KINDS_OF_ITEM:
        return False
    lowered = text.casefold()
    for spec in request.bound:
        for _, end in forms.value_spans(text, spec, request):
            if re.match(rf"[\s-]+{re.escape(head)}\b", lowered[end:]):
                return True
    return False


def _of_a_known_kind(word: str) -> bool:
    """Whether a family of :data:`words.FAMILIES` holds ``word`` (or the word it is the plural of)."""
    return _kinds_of(word) > 0


def _kinds_of(word: str) -> int:
    """How many families of :data:`words.FAMILIES` hold ``word`` (or the word it is the plural of)."""
    single = word[:-1] if word.endswith("s") and len(word) > 3 else word
    return sum(1 for f in words.FAMILIES if word in f or single in f)


def _known_other_thing(head: str, wanted: Sequence[str]) -> bool:
    """Whether ``head`` is a thing of a family none of ``wanted`` is in (a visit, not a car)."""
    mine = [f for f in words.FAMILIES if head in f]
    if not mine or shares_word(head, wanted):
        return False
    theirs = [f for f in words.FAMILIES if any(w in f for w in wanted)]
    return bool(theirs) and not any(f in theirs for f in mine)


@_per_request
def _other_senses(request: TraceRequest) -> tuple[frozenset[str], ...]:
    """The families of the request's thing word that the request's other words rule out.

    A word may be of several families: "car" is a hire car and a ride, "seat" is at a table and
    on a flight. Where the request's other words (its verb, the rest of its query, its
    description) name one of them ("rent a car": a rental), the others are
    another sense of the word, and a thing of only those ("a taxi") is another thing.
    """
    thing = query_thing(request)
    if not thing:
        return ()
    # the query's and the description's own words (not the arguments' cues, which add the thing's
    # other names: "tour" and "view" for a visit's date)
    said = {
        w
        for w in (*action_words(request), *_WORD.findall(request.description.casefold()))
        if len(w) >= 4 and w not in thing
    }
    senses = [f for f in words.FAMILIES if thing[-1] in f]
    named = [f for f in senses if _family_named(f, said)]
    if not named or len(named) == len(senses):
        return ()
    return tuple(f for f in senses if f not in named)


def _family_named(family: frozenset[str], said: set[str]) -> bool:
    """Whether one of the words ``said`` is, or starts, a word of ``family`` ("rent" of "rental",
    "hire" of "hire car"); words of fewer than four letters name none."""
    return any(x.startswith(w) or w.startswith(x) for w in said for x in family if len(x) >= 4)


def _of_the_other_sense(head: str, request: TraceRequest) -> bool:
    """Whether ``head`` is a thing only of a sense of the request's thing word that the request
    rules out ("a taxi" for "rent a car"; see :func:`_other_senses`)."""
    other = _other_senses(request)
    thing = query_thing(request)[-1] if other else ""
    if not other or head == thing:
        return False
    mine = [f for f in words.FAMILIES if head in f]
    # of a ruled-out sense, and of none the request keeps ("van" is a hire car's as well)
    return any(f in other for f in mine) and not any(thing in f for f in mine if f not in other)


def _said_in_another_sense(text: str, head: str, request: TraceRequest) -> bool:
    """Whether the statement's own words give ``head`` a sense the request's thing is not of
    ("hire me a car" for "book a taxi": a car one hires is a hire car, not a ride). A word of
    several families whose other words name none of them says no sense."""
    senses = [f for f in words.FAMILIES if head in f]
    thing = query_thing(request)
    if len(senses) < 2 or not thing:
        return False
    said = {w for w in _WORD.findall(text.casefold()) if len(w) >= 4 and w != head}
    # a family of the action's own verbs ("schedule an appointment") says what is done, not which
    # thing
    picked = [f for f in senses if f.isdisjoint(words.VERB_CLASSES) and _family_named(f, said)]
    if not picked or len(picked) == len(senses):
        return False
    kept = [f for f in words.FAMILIES if thing[-1] in f and f not in _other_senses(request)]
    return bool(kept) and not any(f in kept for f in picked)


def _the_other_way(text: str, request: TraceRequest) -> bool:
    """Whether the statement says the other way of what the query says the action is for ("for
    collection" for "order a {size} pizza for delivery"). A query that names both ways ("pickup
    location ..., dropoff date ...") says neither is another thing."""
    said = text.casefold()
    query = request.masked_query.casefold()
    for word in re.findall(r"\bfor\s+([a-zà-ÿ]+)", query):
        ways = [*utterance.opposite_words(word), *utterance.opposite_words(_verb_stem(word))]
        if any(w.replace(" ", "") in query.replace(" ", "") for w in ways):
            continue
        if (
            ways
            and word not in said
            and _verb_stem(word) not in said
            and any(re.search(rf"\b{re.escape(w)}", said) for w in ways)
        ):
            return True
    return False


def _verb_stem(noun: str) -> str:
    """The verb a noun of doing is made from ("delivery" -> "deliver", "collection" -> "collect")."""
    for ending in ("ies", "ion", "y"):
        if noun.endswith(ending) and len(noun) - len(ending) >= 4:
            return noun[: -len(ending)]
    return noun


def _foreign_other_thing(text: str, request: TraceRequest) -> bool:
    """Whether the statement names in Spanish, French or German a thing the word lists know to be
    of another kind than the request's ("ein Zimmer", "un coche" for a table): the English
    sentence model reads neither word."""
    wanted = [*query_thing(request), *_thing_words(request)]
    clean = _without_values(text, request)
    if any(
        not _names_foreign(family, wanted)
        and family.isdisjoint(words.VERB_CLASSES)  # a verb of another action is read as one
        and any(_known_other_thing(w, wanted) for w in family)
        for family in foreign_families(clean)
    ):
        return True
    # "necesitamos un taxi ... para ir al dentista", "ich brauche einen Mietwagen": a word the
    # languages share with English, after a Spanish, French or German article
    return any(_known_other_thing(m.group(1).casefold(), wanted) for m in _FOREIGN_ARTICLED.finditer(clean))


# A Spanish, French or German article (none that is also an English word) and the word after it.
_FOREIGN_ARTICLED = re.compile(
    r"\b(?:un|una|unos|unas|el|los|las|une|des|du|ein|eine|einen|einem|einer|das|dem)\s+([a-zà-ÿ]+)",
    re.IGNORECASE,
)


def _thing_said_abroad(text: str, request: TraceRequest) -> bool:
    """Whether ``text`` names the query's thing in Spanish, French or German ("una factura" for a
    bill, "ein Konto" for an account)."""
    wanted = query_thing(request)
    return bool(wanted) and any(_names_foreign(f, wanted[-1:]) for f in foreign_things(text))


# Verbs that stop, undo, delay or look into something under way: said of the action by its own
# noun ("stop the cancellation", "reverse the payment", "chase the refund") they ask for that.
_UNDOING = frozenset(
    {"stop", "halt", "cancel", "undo", "reverse", "revoke", "withdraw", "retract", "recall", "block"}
    | {"freeze", "pause", "suspend", "delay", "postpone", "defer", "hold", "dispute", "query", "check"}
    | {"chase", "investigate", "track", "trace", "follow", "abort", "scrap", "drop", "void", "rescind"}
)
# "put the transfer on hold", "keep the payment on hold": holding it, whatever the verb.
_ON_HOLD = re.compile(r"\b(?:put|place|keep|leave|have)\s+(?:\S+\s+){1,6}?on\s+hold\b", re.IGNORECASE)


def _undoes_the_action(part: str, verb: str | None, request: TraceRequest) -> bool:
    """Whether the clause stops, undoes, delays or looks into the action itself, named by its own
    noun after the verb ("stop the cancellation of my gold plan", "undo the gold plan cancellation",
    "put the 200 dollar transfer on hold"): another action, done to this one."""
    wanted = action_words(request)
    if not wanted:
        return False
    own = _noun_verb(wanted[0], query_thing(request))
    held = _ON_HOLD.search(part)
    said = "hold" if held is not None else (verb.split()[0] if verb else None)
    if said is None or said not in _UNDOING:
        return False
    clean = _without_values(part, request).casefold()
    if held is not None:
        named = _WORD.findall(clean[held.start() : held.end()])[1:]
    else:
        at = _verb_at(clean, said)
        if at < 0:
            return False
        named = _WORD.findall(clean[at:])[:8]
    # one under way is named as known ("the transfer", "my payment"): "withdraw a transfer of
    # $640 and send it to Srinivas" asks for a new one
    if not named or named[0] not in _KNOWN_ONE:
        return False
    done = [words.ACTION_NOUN_VERBS[w] for w in named if w in words.ACTION_NOUN_VERBS]
    return any(v == own or _same_family(v, [own]) for v in done)


_KNOWN_ONE = frozenset({"the", "my", "our", "this", "that", "your", "his", "her", "their", "these", "those"})


# Classes of actions done to a thing the caller has (cancel, block, refund), and verbs of paying:
# wanting that thing ("i want my card ending 4432", "i need the invoice") asks for the thing.
_DONE_TO_WHAT_IS_HAD = frozenset({"remove", "pause", "refund"})
_PAYING = frozenset({"pay", "settle"})
# Words a wish for a thing may say around it besides the thing's own and its values: determiners,
# possessives, prepositions, units of money and politeness, in the four languages.
_AROUND_A_THING = frozenset(
    {"the", "my", "our", "a", "an", "this", "that", "of", "for", "with", "on", "please", "thanks"}
    | {"number", "no", "ref", "reference", "ending", "euros", "euro", "pounds", "dollars", "quid"}
    | {"el", "la", "los", "las", "un", "una", "mi", "mis", "de", "del", "por", "favor", "con"}
    | {"le", "les", "une", "ma", "mon", "mes", "du", "des", "pour", "avec", "plait", "plaît", "vous"}
    | {"der", "die", "das", "den", "dem", "ein", "eine", "einen", "meine", "meinen", "mein", "von"}
    | {"über", "uber", "für", "fur", "mit", "bitte", "número", "numero", "numéro", "nummer", "libras"}
    | {"livres", "dólares", "dolares"}
)


def _wants_the_thing_itself(part: str, request: TraceRequest) -> bool:
    """Whether a clause with no verb only wishes for the action's own thing, for an action done to
    a thing the caller has or pays (:data:`_DONE_TO_WHAT_IS_HAD`, :data:`_PAYING`): "i need the
    invoice F-22 of 200 euros", "je voudrais ma carte 4432" ask for the thing, not its payment or
    its blocking. Nothing else may be said of it: "i want the membership cancelled", "my 60
    dollars back for R-5521", "a refund on order A-1" ask for the action."""
    wanted, thing = action_words(request), query_thing(request)
    if not wanted or not thing:
        return False
    verb = _noun_verb(wanted[0], thing)
    if words.VERB_CLASSES.get(verb) not in _DONE_TO_WHAT_IS_HAD and verb not in _PAYING:
        return False
    clean = _without_values(part, request).casefold()
    wish = _WISH_OBJECT.search(clean) or utterance.wish_at(clean)
    if (
        wish is None
        or len(_WORD.findall(clean[: wish.start()])) > 3
        or _says_abroad(clean, wanted) is not None
    ):
        return False  # "Pausieren Sie bitte meinen Plan": a verb before the "please"
    said = [fold(w) for w in _WORD.findall(clean[wish.end() :])]
    own = {fold(w) for w in (*thing, *_thing_words(request))} - {fold(wanted[0])}
    if any(
        w not in own and (w in _ACTION_NOUNS or w in words.ACTION_NOUN_VERBS or _same_family(w, wanted))
        for w in said
    ):
        return False  # "a refund on order A-1", "the cancellation of my plan": the action by name
    abroad = {fold(w) for w in said if any(_names_foreign(f, thing[-1:]) for f in foreign_things(w))}
    if not any(w in own or w in abroad for w in said):
        return False
    # "can i have my card ending 4432 back": the thing again, the opposite of stopping it (for a
    # refund, "my money back" is the refund itself)
    again = {"back", "again"} if words.VERB_CLASSES.get(verb) in ("remove", "pause") else set()
    return all(w in own or w in abroad or w in _AROUND_A_THING or w in again for w in said)


def _thing_or_kin_abroad(part: str, request: TraceRequest) -> bool:
    """Whether the first thing ``part`` names in Spanish, French or German is the query's thing or
    one of its family ("un technicien" for a home visit, as "a technician" is in English)."""
    thing = query_thing(request)
    found = foreign_things(part)
    if not thing or not found:
        return False
    return any(w == thing[-1] or _in_one_family(w, thing[-1]) for w in found[0])


def _wishes_thing_abroad(part: str, request: TraceRequest) -> bool:
    """Whether a clause asking outright names the action's thing in Spanish, French or German with
    no verb said (:func:`_says_abroad`) and no no, for an action that brings its thing about
    (:data:`words.OBTAINING`): wanting an appointment is having one booked; wanting an invoice is
    not paying it."""
    wanted = action_words(request)
    return (
        _noun_verb(wanted[0], query_thing(request)) in words.OBTAINING
        and _says_abroad(part, wanted) is None
        and not utterance.says_no(part, request.lang)
        and _FRENCH_NO.search(part) is None  # "je n'ai plus besoin d'un rendez-vous"
        and _thing_or_kin_abroad(part, request)
        and _thing_wished(_without_values(part, request))
    )


_FRENCH_NO = re.compile(r"\bn['’]|\bne\b", re.IGNORECASE)
# After a wish, what opens a thing: an article, a possessive or a number word ("una cita", "einen
# Termin", "mon rendez-vous"); "quiero cerrar mi cuenta" wishes a verb, whatever it is.
_OPENS_A_THING = re.compile(
    r"\s+(?:(?:de|d['’]|du|zu)\s*)?(?:un|una|unos|unas|el|la|los|las|mi|mis|nuestra|nuestro|le|les|une|"
    r"des|mon|ma|mes|notre|nos|ein|eine|einen|einem|der|die|das|den|dem|mein|meine|meinen|unseren|"
    r"unsere|unser|otra|otro|autre|noch)\b",
    re.IGNORECASE,
)
# A German verb said last, after what it acts on ("... Konto schließen", "... Termin absagen"):
# a lower-case word ending as infinitives do, with nothing but a full stop after it.
_GERMAN_VERB_LAST = re.compile(r"\b[a-zäöüß]{3,}(?:en|ern|eln)\s*[.!]?\s*$")


# A Spanish or French infinitive right after a wish ("quiero cerrar", "j'ai besoin de fermer"),
# with a pronoun it may carry ("cambiarla").
_INFINITIVE_AFTER = re.compile(
    r"\s+(?:(?:de|d['’])\s*)?([a-záéíóúàâçèêëîïôûñ]{3,}?(?:ar|er|ir|re|ír)(?:la|le|lo|las|los|me|nos|se)?)\b",
    re.IGNORECASE,
)
# Verbs that say only that something is done or had, in the three languages: the thing after them
# says what ("hacer una reserva", "faire une réservation", "pedir una cita").
_FOREIGN_LIGHT = frozenset(
    {"hacer", "tener", "pedir", "conseguir", "obtener", "dar", "poner", "sacar", "coger", "tomar"}
    | {"faire", "avoir", "obtenir", "prendre", "demander", "donner", "mettre", "passer", "être"}
)


def _wishes_another_verb(clean: str, request: TraceRequest) -> bool:
    """Whether a Spanish, French or German wish is for a verb of another family than the action's
    ("necesito mover mi cita" for a booking) or one no list knows ("quiero cerrar mi cuenta", "ich
    möchte mein Konto schließen"): it asks for that, never for the thing it acts on. A light verb
    ("hacer una reserva") says nothing by itself."""
    wish = utterance.wish_at(clean)
    if wish is None or not utterance.wished_abroad(wish):
        return False
    found = _INFINITIVE_AFTER.match(clean[wish.end() :])
    word = found.group(1).casefold() if found is not None else None
    if word is None and _in_german(wish):
        last = _GERMAN_VERB_LAST.search(clean)
        word = last.group(0).strip(" .!").casefold() if last is not None else None
    if word is None or word in _FOREIGN_LIGHT:
        return False
    family = lang_data.family_of(word)
    if family is not None:
        # "quiero enviar 500" for a transfer: a verb of the action's class says it
        wanted = action_words(request)
        own = lang_data.family_of(wanted[0]) if wanted else None
        return own is not None and family != own and words.VERB_CLASSES.get(family) != action_class(request)
    return not foreign_families(word)


def _in_german(wish: re.Match[str]) -> bool:
    """Whether a wish is German ("ich möchte", "wir brauchen"): its verb may come last."""
    return wish.group(0).casefold().startswith(("ich ", "wir "))


def _thing_wished(clean: str) -> bool:
    """Whether the wish in a clause (values out) is followed by a thing, not a verb of any kind."""
    wish = utterance.wish_at(clean)
    if wish is None or _OPENS_A_THING.match(clean[wish.end() :]) is None:
        return False
    return not _in_german(wish) or _GERMAN_VERB_LAST.search(clean) is None


def _names_foreign(family: frozenset[str], wanted: Sequence[str]) -> bool:
    """Whether the family of a foreign word is a thing of ``wanted``'s ("una mesa" of a table's)."""
    return family.isdisjoint(words.VERB_CLASSES) and not family.isdisjoint(wanted)


def _unknown_thing(head: str, wanted: Sequence[str]) -> bool:
    """Whether ``head`` is none of ``wanted`` and no family knows it ("fee", "thingy")."""
    return not shares_word(head, wanted) and not any(head in f for f in words.FAMILIES)


# "on my gym membership", "of our car loan": whose the thing named before it is.
_OWNED_BY = re.compile(r"\b(on|of)\s+(?:my|our|the)\s+([a-zà-ÿ]+(?:\s+[a-zà-ÿ]+)?)", re.IGNORECASE)


def _owned_by_other_kind(text: str, request: TraceRequest, wanted: Sequence[str]) -> bool:
    """Whether the statement says what it names is a known thing's of another kind, in the words
    the query ties the action to its own thing with ("the delivery fee on my gym membership" for
    "refund {amount} on order {order_id}"; "the deposit on my flat", for a transfer to an
    account, ties nothing the query ties)."""
    thing = query_thing(request)[-1]
    clean = _without_values(text, request)
    return any(
        re.search(rf"\b{m.group(1)}\s+(?:the\s+|my\s+|an?\s+)?{re.escape(thing)}\b", request.template, re.I)
        and _known_other_thing(m.group(2).split()[-1].casefold(), wanted)
        for m in _OWNED_BY.finditer(clean)
    )


# What a caller holds, on which any extra is had ("on my account", "in my package").
_HOLDERS = words.KINDS_OF_ITEM | {"account", "accounts", "card", "policy", "contract"}
# A question of whether something can be done ("is it possible for d330 to come saturday"), not
# whether something was ("is it possible kt4 was moved").
_IS_IT_POSSIBLE = re.compile(
    r"^\W*(?:is|would|will)\s+(?:it|that|this)\s+(?:be\s+)?possible\s+(?:for\s+\S+(?:\s+\S+)?\s+)?to\b",
    re.IGNORECASE,
)
# A verb of learning or looking (:data:`words.INQUIRY`), what a question of what is possible may
# ask to do instead.
_TO_LEARN = re.compile(
    "|".join(rf"\b{re.escape(w)}\b" for w in sorted(words.INQUIRY | words.SEEKING)), re.IGNORECASE
)
# Where a thing is had: on, in or at another thing ("seats on the bus", "seats at the restaurant").
_HAD_IN = re.compile(
    r"\b(?:on|in|at|aboard|onto)\s+(?:the|a|an|my|our|this|that)\s+([a-zà-ÿ]+)", re.IGNORECASE
)

# Words that add a thing, against words that replace one: "an additional bin" is no replacement.
_ADDING = frozenset({"additional", "extra", "second", "another", "spare", "more"})
_REPLACING = frozenset({"replacement", "replacing", "substitute"})


def _qualifiers_said(text: str, head: str) -> list[str]:
    return [m.group(1) for m in re.finditer(rf"\b([a-zà-ÿ]+)\s+{re.escape(head)}\b", text.casefold())]


def _other_qualifier(text: str, request: TraceRequest, meaning: Similarities | None = None) -> bool:
    """Whether the statement names the query's thing with another qualifier ("work address" for
    "delivery address", "a vet visit" for "a home visit", "an extra bin" for a replacement)."""
    wanted = query_thing(request)
    if len(wanted) < 2:
        return False
    head, qualifiers = wanted[-1], wanted[:-1]
    clean = _without_values(text, request).casefold()
    if _REPLACING & set(qualifiers) and _ADDING & set(_WORD.findall(clean)):
        return True
    for m in re.finditer(rf"\b([a-zà-ÿ]+)\s+{re.escape(head)}\b", clean):
        word = m.group(1)
        if word in qualifiers or word in _STOP or word in words.BESIDE_NAME or word in _NOT_OBJECT:
            continue
        if word in _DOERS:
            continue  # "can someone visit me at home": who does it, said before the verb
        if shares_word(word, qualifiers) or word.endswith(("'s", "s'")):
            continue
        if word in _KIND_WORDS or any(word == c.casefold() for a in request.arguments for c in a.choices):
            continue  # "a small car", "a standard car": a kind of the thing, a value's word, not another

        if meaning is not None and any(meaning.sim(word, q) >= SAME_QUALIFIER for q in qualifiers):
            continue  # "dental appointment" for "dentist appointment"
        return True
    return False


# Somebody not named, who does the thing ("can someone visit"): a subject, never a kind of it.
_DOERS = frozenset({"someone", "somebody", "anyone", "anybody", "everyone", "everybody", "nobody"})

# One-word kinds a booking offers (sizes, classes of car or seat): said before the thing's head
# word, they pick a kind of it ("a small car" for a rental car), not another thing.
_KIND_WORDS = frozenset(w for group in words.ALTERNATIVES for w in group if " " not in w)

# Head words (the thing's last word) this close in meaning name the same thing ("cab", "taxi");
# qualifiers of the same head must be closer ("dental" and "dentist", not "guitar" and "piano").
SAME_HEAD = 0.5
SAME_QUALIFIER = 0.7
_TIED = re.compile(
    r"\b(?:on|for|to|towards|toward|against|off)\s+(?:the|my|our|a|an)\s+([a-zà-ÿ]+(?:\s+[a-zà-ÿ]+)?)", re.I
)


def _tied_elsewhere(text: str, request: TraceRequest) -> bool:
    """Whether the statement ties the action to a thing the request never names ("on my car loan")."""
    known = [*action_words(request), *(w for a in request.arguments for w in a.cues)]
    clean = _without_values(text, request)
    # "come in for a check-up": the thing asked for itself (see :func:`asked_thing`), not a tie
    asked_for = {v.end() - len("for") for v in _IN_FOR.finditer(clean)}
    for m in _TIED.finditer(clean):
        if m.start() in asked_for:
            continue
        said = m.group(1).split()
        while len(said) > 1 and said[-1] in _STOP:
            said.pop()  # "to the coast on thursday": the coast
        noun = said[-1]
        if noun in _STOP or noun in words.BESIDE_NAME or noun in words.UNIT_OF:
            continue
        if not shares_word(m.group(1), known):
            return True
    return False


# "at the vet", "to the user's calendar" (whose it is aside: the calendar is the place).
_FRAME = re.compile(
    r"\b(at|with|from|to|for|in)\s+(?:the|a|an|my)\s+(?:[a-zà-ÿ]+['’]s\s+)?([a-zà-ÿ]+(?:\s+[a-zà-ÿ]+){0,2})",
    re.IGNORECASE,
)


@_per_request
def _query_frames(request: TraceRequest) -> dict[str, tuple[str, float | None]]:
    """The query's frames, by preposition: the word after it and how close in meaning another
    word must be to stand for it: None when it names one place or party ("at the vet"), or
    :data:`KIND_OF` for a kind of thing ("for an event"), :data:`SAME_HEAD` for one of a kind
    picked out ("with a specific doctor": "the doctor", not "the plumber")."""
    fixed: dict[str, tuple[str, float | None]] = {}
    for m in _FRAME.finditer(request.template):
        kind = re.match(r"\S+\s+(?:a|an)\s", m.group(0), re.IGNORECASE) is not None
        thing = _frame_thing(m.group(2))
        picked = thing != m.group(2).casefold().split()[0]
        fixed[m.group(1).casefold()] = (thing, (SAME_HEAD if picked else KIND_OF) if kind else None)
    return fixed


def _frame_thing(phrase: str) -> str:
    """The word of a frame's phrase that says what it is: "doctor" of "specific doctor for"."""
    said = phrase.casefold().split()
    return next((w for w in said if w not in words.PICKING_WORDS), said[0])


def _frame_words(text: str, request: TraceRequest) -> list[str]:
    """The words a trace compares for :func:`_frame_clash` (to embed them with the rest)."""
    fixed = _query_frames(request)
    if not fixed:
        return []
    out = [word for word, _ in fixed.values()]
    out += [_frame_thing(m.group(2)) for m in _FRAME.finditer(_without_values(text, request))]
    return out


_THANKS_BEFORE = re.compile(
    r"\b(?:thanks|thank you|thank u|cheers|grateful|sorry|apologies)\s*$", re.IGNORECASE
)


def _frame_clash(text: str, request: TraceRequest, meaning: Similarities | None = None) -> bool:
    """Whether the query names a fixed place or party ("at the vet") and the statement another.

    Where the query names a kind of thing ("tickets for an event"), the statement clashes only
    with a thing far from that kind in meaning ("for the bus"), not with one of its kind ("for
    the game").
    """
    fixed = _query_frames(request)
    if not fixed:
        return False
    clean = _without_values(text, request)
    for m in _FRAME.finditer(clean):
        prep, phrase = m.group(1).casefold(), m.group(2).casefold().split()
        if prep not in fixed or _THANKS_BEFORE.search(clean[: m.start()]):
            continue  # "thanks for the details": what the caller thanks for, not the request's
        phrase = phrase[phrase.index(_frame_thing(m.group(2))) :]
        word, near = fixed[prep]
        if word in phrase or shares_word(" ".join(phrase), [word]):
            continue
        if phrase[0] in _STOP or phrase[0] in words.BESIDE_NAME:
            continue
        if near is not None and (meaning is None or meaning.sim(phrase[0], word) >= near):
            continue
        return True
    return False


# A thing said is of the kind the query names ("the game" of "an event") from this similarity.
KIND_OF = 0.3
