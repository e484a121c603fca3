"""Where a text says an argument's value, and whether it says it in the argument's part.

A value is found as a value (:mod:`gate.values`: "fifteen hundred" is 1500,
"thu" is Thursday, identifiers exact), a date also as the caller says it
relative to the call ("next Tuesday", "tomorrow", "the 13th"), and a name
as a name (case, punctuation and a leading article aside). Then it must be
said in the argument's part, each check a named rule:

``trace.value.role``      "from Leeds" is not a journey to Leeds
``trace.value.unit``      "2 nights" is not a table for 2
``trace.value.ordinal``   "the 3rd" is a day, not 3 of anything
``trace.value.currency``  "500 dollars" is not 500 pounds
``trace.value.period``    "85 a quarter" is not 85 a month
``trace.value.bound``     "any time after 2pm" is not 2pm
``trace.value.label``     "order 4471" is not 4471 pounds
``trace.value.clause``    "the booking I made on Monday" says when something else happened
``trace.value.name``      "Gold Plus" is another name than "Gold"
``trace.value.head``      "the 8 o'clock show" is the time of something the request is not about
``trace.value.moment``    "arriving at 7:15" is not "departing at {time}"
``trace.value.replaced``  "friday instead of thursday", "friday, not thursday": thursday is the
                          value put aside
``trace.value.another``   "a taxi at seven, and another one back at six": six is the second one's

Nothing here raises on odd text.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from functools import lru_cache

from gate import lang as lang_data
from gate import utterance
from gate.evidence import words
from gate.evidence.in_language import value_spans_in_language, words_for
from gate.evidence.request import ArgumentSpec, TraceRequest
from gate.lang.text import fold
from gate.parts import said_as_parts
from gate.values import Mention, Value, currencies, currency_of, find_mentions, locate

_WORD = re.compile(r"[a-zà-ÿß]+")
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


@dataclass(frozen=True)
class Said:
    """One place a text gives an argument a value.

    ``same``: the argument's own value (else another value of its kind).
    ``rule``: ``trace.value`` when it is said in the argument's part, else the
    rule that says why not (see the module docstring).
    """

    arg: str
    start: int
    end: int
    same: bool
    rule: str
    words: str

    @property
    def fits(self) -> bool:
        # "there" taken for the place the caller said just before (see trace._place_pointed_at);
        # a value put in place of another in the same breath (see reading.corrections)
        # a person the caller's next words point at with "him" or "her" (trace._person_pointed_at)
        return self.rule in (
            "trace.value",
            "trace.value.there",
            "trace.value.corrected",
            "trace.value.pointed",
        )

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end


# -- finding values ------------------------------------------------------------------


def _fold_token(token: str) -> str:
    # accents dropped as the language data drops them: "Hôtel" is the "Hotel" of a name
    folded = fold(token.casefold().replace("’", "'"))
    if folded.endswith("'s"):
        folded = folded[:-2]  # "amelia's school trip" names Amelia
    elif folded.endswith("s'"):
        folded = folded[:-1]
    return folded.replace("'", "")


# A French or Italian elision glued to the word after it ("l'Hôtel Lumière", "d'Orsay"): no part of
# the name that follows.
_ELISION = re.compile(r"^(?:l|d|qu|dell|all|nell)['’](?=[^\W\d_])", re.IGNORECASE)


def _folded_tokens(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _TOKEN.finditer(text):
        start, token = m.start(), m.group()
        elided = _ELISION.match(token)
        if elided is not None:
            start, token = start + elided.end(), token[elided.end() :]
        out.append((_fold_token(token), start, m.end()))
    return out


@lru_cache(maxsize=8192)
def name_spans(text: str, name: str) -> tuple[tuple[int, int], ...]:
    """Where ``text`` says ``name`` as a name: words in order, case, punctuation and "the" aside."""
    wanted = [t for t, _, _ in _folded_tokens(name)]
    if wanted[:1] in (["the"], ["a"], ["an"]) and len(wanted) > 1:
        wanted = wanted[1:]
    if not wanted:
        return ()
    tokens = _folded_tokens(text)
    out = []
    for i in range(len(tokens) - len(wanted) + 1):
        if all(tokens[i + k][0] == w for k, w in enumerate(wanted)):
            out.append((tokens[i][1], tokens[i + len(wanted) - 1][2]))
    return tuple(out)


def _plain_spans(text: str, value: object) -> list[tuple[int, int]]:
    try:
        return locate(text, value)
    except (ValueError, TypeError):
        return []


_PLURAL_DAY = re.compile(r"\b(\w+day)s\b", re.IGNORECASE)
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@lru_cache(maxsize=4096)
def _mentions(text: str, lang: str | None) -> tuple[Mention, ...]:
    try:
        return tuple(find_mentions(text, lang))
    except Exception:
        return ()


def mentions_in(text: str, lang: str | None) -> tuple[Mention, ...]:
    """Every value the text mentions (cached)."""
    return _mentions(text, lang)


def other_idents(text: str, spec: ArgumentSpec, request: TraceRequest) -> list[tuple[int, int]]:
    """Where ``text`` names another identifier than ``spec``'s own ("order A-1002" for A-1001)."""
    if spec.kind != "ident" or spec.norm is None:
        return []
    return [
        (m.start, m.end)
        for m in _mentions(text, request.lang)
        if m.value.kind == "ident" and not m.means(spec.norm)
    ]


def _relative_day_spans(text: str, today: date) -> list[tuple[int, int, date]]:
    folded = text.casefold()
    out: list[tuple[int, int, date]] = []
    for phrase, days in sorted(words.RELATIVE_DAYS.items(), key=lambda kv: -len(kv[0])):
        for m in re.finditer(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", folded):
            if any(s <= m.start() < e for s, e, _ in out):
                continue
            out.append((m.start(), m.end(), today + timedelta(days=days)))
    return out


def _weekday_dates(mention: Mention, text: str, today: date) -> list[date]:
    """The dates a weekday names from the call's date: the coming one, and with "next" the one after."""
    day = _WEEKDAYS.index(mention.value.key)
    ahead = (day - today.weekday()) % 7
    coming = today + timedelta(days=ahead or 7)
    out = [coming]
    if ahead == 0:
        out.append(today)
    before = _WORD.findall(text[: mention.start].casefold())[-1:]
    if before and before[0] in words.WEEK_AFTER:
        out.append(coming + timedelta(days=7))
    return out


def _day_of_month_dates(day: int, today: date) -> list[date]:
    """The next date with that day of the month (this month or the next)."""
    out = []
    year, month = today.year, today.month
    for _ in range(2):
        try:
            candidate = date(year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and candidate >= today:
            out.append(candidate)
            break
        month += 1
        if month > 12:
            year, month = year + 1, 1
    return out


def _as_date(value: object) -> date | None:
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        return None


def date_readings(text: str, today: date | None, lang: str | None) -> list[tuple[int, int, list[date]]]:
    """Every date the text names relative to ``today``: weekdays, "tomorrow", "the 13th"."""
    if today is None:
        return []
    out: list[tuple[int, int, list[date]]] = []
    for m in _mentions(_PLURAL_DAY.sub(r"\1", text), lang):
        if m.value.kind == "weekday":
            out.append((m.start, m.end, _weekday_dates(m, text, today)))
        elif m.value.kind == "date" and m.value.key.startswith("---"):
            out.append((m.start, m.end, _day_of_month_dates(int(m.value.key[3:]), today)))
        elif m.value.kind == "date" and m.value.key.startswith("--"):
            month, day = int(m.value.key[2:4]), int(m.value.key[5:7])
            dates = []
            for year in (today.year, today.year + 1):
                try:
                    dates.append(date(year, month, day))
                except ValueError:
                    continue
            out.append((m.start, m.end, dates))
        elif m.value.kind == "date":
            found = _as_date(m.value.key)
            if found is not None:
                out.append((m.start, m.end, [found]))
    for start, end, when in _relative_day_spans(text, today):
        if not any(s <= start < e for s, e, _ in out):
            out.append((start, end, [when]))
    for ahead in _AHEAD.finditer(text.casefold()):
        n = ahead.group("n")
        count = int(n) if n.isdigit() else _AHEAD_COUNT.get(n)
        if count is None or any(s <= ahead.start() < e for s, e, _ in out):
            continue
        days = count * (7 if ahead.group("unit").startswith("week") else 1)
        out.append((ahead.start(), ahead.end(), [today + timedelta(days=days)]))
    for week in _WEEK_FROM.finditer(text.casefold()):
        base = 0 if week.group("base") == "today" else 1
        out.append((week.start(), week.end(), [today + timedelta(days=7 + base)]))
    # "later today", "later on this week": the day is the value; "later" does not put it off.
    leads = [_LATER_LEAD.search(text, 0, start) for start, _, _ in out]
    out = [
        (lead.start() if lead is not None else start, end, when)
        for lead, (start, end, when) in zip(leads, out, strict=True)
    ]
    return sorted(out, key=lambda r: r[0])


_LATER_LEAD = re.compile(r"\blater(?:\s+on)?\s+$", re.IGNORECASE)


# "in two weeks", "in 3 days": a date that far from the call's; "a week tomorrow" is 8 days on.
_AHEAD = re.compile(r"\bin\s+(?P<n>a|one|two|three|four|five|six|\d+)\s+(?P<unit>days?|weeks?)\b")
_AHEAD_COUNT = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_WEEK_FROM = re.compile(r"\ba\s+week\s+(?P<base>today|tomorrow)\b")


def value_spans(text: str, spec: ArgumentSpec, request: TraceRequest) -> list[tuple[int, int]]:
    """Where ``text`` says this argument's own value, in any of its forms.

    A trace asks this of every statement for every argument, several times over
    (each rule that weighs a value); the answer depends only on the text, the
    argument and the call's date and language, so it is kept.
    """
    try:
        return list(_value_spans(text, spec, request.today, request.lang))
    except TypeError:  # a value that cannot be a key (a list, a dict): read it afresh
        return _read_value_spans(text, spec, request.today, request.lang)


@lru_cache(maxsize=8192)
def _value_spans(
    text: str, spec: ArgumentSpec, today: date | None, lang: str | None
) -> tuple[tuple[int, int], ...]:
    return tuple(_read_value_spans(text, spec, today, lang))


def _choice_words(spec: ArgumentSpec) -> tuple[str, ...]:
    """The words of the argument's value that no other of its choices has: where the values it may
    take are known ("TV", "Kitchen speaker", "Bedroom speaker"), "the kitchen one" names one."""
    own = spec.shown.casefold()
    others = [c.casefold() for c in spec.choices if c.casefold() != own]
    if not others or own not in {c.casefold() for c in spec.choices}:
        return ()
    theirs = {w for c in others for w in _WORD.findall(c)}
    # A word the value shares with the values known to exclude it is no part that names it: "size"
    # of "Full-size" is also "mid-size"'s ("a small size car" names no full-size car).
    theirs |= {w for c in alternatives_of(spec.shown) for w in _WORD.findall(c.casefold())}
    mine = _WORD.findall(own)
    if len(mine) < 2:
        return ()  # a one-word value is matched as itself
    return tuple(w for w in mine if w not in theirs and len(w) > 2 and w not in words.BESIDE_NAME)


# A name and a comma right before a word: the word is that place's region or country ("Toronto,
# Canada", "Portland, Oregon").
_PLACE_BEFORE_COMMA = re.compile(r"\b[A-Z][\w'.-]*,\s*$")


def _describes_another(text: str, end: int, spec: ArgumentSpec) -> bool:
    """Whether the word of a choice ending at ``end`` describes another thing said right after it
    ("the full cost", "a standard fee" name no full-size or standard car): the next word, in the
    same phrase, is none of the value's own words, the argument's, "one", or a word that stands
    beside names."""
    if re.match(r"\s*[,;:.!?]", text[end:]):
        return False
    after = _after_words(text, end, 1)
    if not after:
        return False
    word = after[0]
    mine = set(_WORD.findall(spec.shown.casefold())) | set(spec.cues) | {"one", "ones"}
    return not (word in mine or word in words.BESIDE_NAME or _is_small(word) or word in words.KINDS_OF_ITEM)


def _other_choice_words(spec: ArgumentSpec) -> set[str]:
    own = spec.shown.casefold()
    return {w for c in spec.choices if c.casefold() != own for w in _WORD.findall(c.casefold())}


# Words for a work (a song, a film, a book) and for who made one: a work's title is never the
# name said after "by", its maker's is.
_WORK_CUES = frozenset(
    {
        "song",
        "track",
        "tune",
        "album",
        "record",
        "movie",
        "film",
        "book",
        "novel",
        "title",
        "episode",
        "podcast",
    }
)
_MAKER_CUES = frozenset(
    {"artist", "author", "band", "singer", "director", "composer", "writer", "performer", "musician", "actor"}
)


def _names_a_work(spec: ArgumentSpec) -> bool:
    """Whether the argument is the title of a work and not who made it (``song_name``, ``title``)."""
    cues = set(spec.cues)
    return bool(cues & _WORK_CUES) and not cues & _MAKER_CUES


def _read_value_spans(
    text: str, spec: ArgumentSpec, today: date | None, lang: str | None
) -> list[tuple[int, int]]:
    if spec.kind == "other":
        return []
    if spec.kind == "text":
        spans = list(name_spans(text, spec.shown))
        core = _without_kind(spec)
        if not spans and core:
            # "a table at Royal Rangoon" for "Royal Rangoon Restaurant": the name without the
            # word for its kind of place is the same name; "I prefer it in Belmont" names the
            # area, not "Belmont Apartment Homes".
            spans = [
                (a, b) for a, b in name_spans(text, core) if not _AREA_BEFORE.search(text[max(0, a - 12) : a])
            ]
        person = person_core(spec.shown)
        if not spans and person:
            # "Dr. Andrew Sorenson" for "Dr. Andrew L. Sorenson, MD": a person's name without
            # the title, the letters after it and the middle initials is the same name.
            spans = list(name_spans(text, person))
        for other in words.PLACE_NAMES.get(" ".join(spec.shown.casefold().split()), ()):
            spans += [s for s in name_spans(text, other) if not any(_overlaps(s, o) for o in spans)]
        # "la factura del agua" for water, "die Gasrechnung" for gas: the value in the caller's language
        spans += [
            s for s in value_spans_in_language(text, spec.shown) if not any(_overlaps(s, o) for o in spans)
        ]
        theirs = _other_choice_words(spec)
        for word in _choice_words(spec):
            spans += [
                s
                for s in name_spans(text, word)
                if not any(_overlaps(s, o) for o in spans)
                # "a standard size car": the word goes with another value beside it, not with "Full-size"
                and not (set(_before_words(text, s[0], 1) + _after_words(text, s[1], 1)) & theirs)
                # "go to Toronto, Canada": the country of a place named before it, not "Air Canada"
                and _PLACE_BEFORE_COMMA.search(text[: s[0]]) is None
                and not _describes_another(text, s[1], spec)
            ]
        if _names_a_work(spec):
            # "Rats by Ghost", "something by adele": the name after "by" is who made the work,
            # not its title.
            spans = [sp for sp in spans if _before_words(text, sp[0], 1)[:1] != ["by"]]
        return sorted(spans)
    if spec.kind == "bool":
        return [(s, e) for s, e, said in flag_spans(text, spec) if said == bool(spec.value)]
    spans = _plain_spans(text, spec.value)
    if spec.kind == "number":
        # "nine fifty" is 9.50 or 950: neither the nine nor the fifty alone is the value.
        pairs = _spoken_pairs(text, lang)
        spans = [s for s in spans if not any(p[0] <= s[0] and s[1] <= p[1] and s != p for p in pairs)]
        if spec.unit is not None:
            # "the stadium is on 1 Blue Jays Way": a house number counts no people or nights; "I
            # found 1 in Dublin" counts what a search found.
            spans = [
                s for s in spans if not _house_number(text, s[1]) and not _results_count(text, s[0], s[1])
            ]
    if not spans and spec.kind in ("number", "ident") and spec.norm is not None:
        spans = _spoken_spans(text, spec.norm, lang)
    if not spans and spec.kind == "ident":
        spans = _sized_spans(text, spec, lang)
    if not spans and spec.kind == "number" and spec.unit == "stay" and spec.norm is not None:
        spans = _week_spans(text, spec.norm.key, lang)
    if not spans and spec.kind == "weekday":
        spans = _plain_spans(_PLURAL_DAY.sub(r"\1", text), spec.value)
    if spec.kind == "date":
        wanted = _as_date(spec.value)
        if wanted is not None:
            for start, end, dates in date_readings(text, today, lang):
                if wanted in dates and not any(s <= start < e for s, e in spans):
                    spans.append((start, end))
    if spec.kind == "number":
        spans = [s for s in spans if not _pronoun_one(text, *s)]
    if spec.kind == "time":
        # "9 in the night at 1 embarcadero center": a house number is no hour
        spans = [s for s in spans if not _house_number(text, s[1], places=True)]
    return sorted(set(spans))


# "a shared one", "the cheaper one", "that one": "one" standing for a thing after a determiner.
_ONE_AFTER = re.compile(
    r"\b(?:a|an|the|this|that|which|another|each|any|every|no|either|neither)\s+"
    # what describes it, never a preposition: "a table for one" counts one
    r"(?:(?!(?:for|to|of|with|at|in|on|by|from|per|but|just|only)\b)[a-z'-]+\s+){0,2}$",
    re.IGNORECASE,
)


def _pronoun_one(text: str, start: int, end: int) -> bool:
    """Whether "one" at ``start:end`` stands for a thing ("How about a shared one?"), not a count:
    after a determiner and what describes it, with no word of what it counts after it."""
    return (
        text[start:end].casefold() in ("one", "ones")
        and _ONE_AFTER.search(text[:start]) is not None
        and unit_at(text, end) is None
    )


# A stay said in weeks ("a week", "another week", "two weeks", "a fortnight"), not a rate ("85
# a week" counts money, and a number said with it is no stay).
_WEEKS = re.compile(
    r"\b(?:(?P<one>an?|another|one more|one extra|an extra)\s+)?(?P<unit>weeks?|fortnights?)\b", re.I
)


def _week_spans(text: str, key: str, lang: str | None) -> list[tuple[int, int]]:
    """Where a stay of ``key`` days or nights is said in weeks: seven a week, fourteen a fortnight."""
    try:
        wanted = Decimal(key)
    except ArithmeticError:
        return []
    mentions = find_mentions(text, lang)
    out = []
    for m in _WEEKS.finditer(text):
        size = 14 if m.group("unit").casefold().startswith("fortnight") else 7
        start = m.start()
        count: Decimal | None = Decimal(1) if m.group("one") else None
        if count is None:
            before = [
                x for x in mentions if x.value.kind == "number" and text[x.end : m.start()].strip() == ""
            ]
            if not before:
                continue
            count, start = Decimal(before[-1].value.key), before[-1].start
        rate = m.group("one") in ("a", "an") and _RATE_BEFORE.search(text[:start]) is not None
        if count * size == wanted and not rate:
            out.append((start, m.end()))
    return out


# What makes "a week" a rate: a number or a frequency right before it ("85 a week", "twice a week").
_RATE_BEFORE = re.compile(r"(?:\d|\b(?:once|twice|times|hours?|pounds|dollars|euros|quid|bucks))\s*$", re.I)


_SIZED = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]+)")


def _sized_spans(
    text: str, spec: ArgumentSpec, lang: str | None, *, other: bool = False
) -> list[tuple[int, int]]:
    """Where a size or speed ("10GB", "500Mb") is said with its number in any form and a spoken
    unit of the same scale right after it ("ten gig", "500 meg", "ten gigabytes"); with
    ``other``, where another size of the same scale is ("twenty gig" for 10GB)."""
    sized = _SIZED.fullmatch(spec.shown.strip().casefold())
    if sized is None or sized.group(2) not in words.DATA_UNIT_OF:
        return []
    number, scale = Decimal(sized.group(1)), words.DATA_UNIT_OF[sized.group(2)]
    out = []
    for m in find_mentions(text, lang):
        if m.value.kind != "number" or (Decimal(m.value.key) == number) is other:
            continue
        after = re.match(r"[\s-]*([a-z]+)", text[m.end :].casefold())
        if after and words.DATA_UNIT_OF.get(after.group(1)) == scale:
            out.append((m.start, m.end + after.end()))
    return out


_STREET = frozenset(
    {
        *("street", "st", "road", "rd", "avenue", "ave", "av", "boulevard", "blvd", "way", "drive"),
        *("dr", "lane", "ln", "court", "ct", "place", "pl", "square", "sq", "terrace", "close"),
        *("crescent", "parkway", "pkwy", "highway", "hwy", "circle", "alley", "row", "plaza"),
        *("calle", "avenida", "rue", "straße", "strasse", "gasse", "weg", "platz"),
    }
)


def _is_street_address(shown: str) -> bool:
    return any(w in _STREET for w in _WORD.findall(shown.casefold())) or any(ch.isdigit() for ch in shown)


def _in_street_address(text: str, start: int, end: int) -> bool:
    """Whether the name at ``start:end`` is part of a street address: a house number right before
    it and a street word after it within the address ("2005 San Jose Drive"). Pure."""
    number = re.search(r"\b\d+[a-z]?\s+(?:[A-Za-z][\w'’.-]*\s+){0,2}$", text[:start])
    if number is None:
        return False
    after = re.findall(r"[a-zà-ÿß]+", text[end:].casefold())[:2]
    return bool(after) and (after[0] in _STREET or (len(after) > 1 and after[1] in _STREET))


# What a search found, said before its count: "I found 1 in Dublin", "the search returned 3".
_FOUND_BEFORE = re.compile(
    r"\b(?:found|returned|matched|got back)\s+(?:about\s+|around\s+|over\s+|only\s+|just\s+)?$", re.I
)


def _results_count(text: str, start: int, end: int) -> bool:
    """Whether the number at ``start:end`` says how many things a search found ("I found 1 in
    Dublin", "found 3 results"): unless what it counts is said and is the argument's kind ("I
    found 2 seats" is left to the unit's own check)."""
    return _FOUND_BEFORE.search(text[max(0, start - 30) : start]) is not None and unit_at(text, end) is None


def _house_number(text: str, end: int, *, places: bool = False) -> bool:
    """Whether the number ending at ``end`` opens a street address: a street word (or with
    ``places``, a word that ends a place's name) follows within four words, with no other number
    and no preposition or article between ("1 Blue Jays Way", "40 king street"; "1 embarcadero
    center" is no hour; not "at 7 at the station"). ``places`` is for an hour only: "three hotel
    rooms" counts rooms."""
    # an address goes on without a stop or a comma ("at 1pm, wenn noch Platz ist" names no square)
    rest = re.split(r"[,;:!?]|\.(?!\w)", text[end:], maxsplit=1)[0]
    for word in re.findall(r"[a-zà-ÿß]+|\d+", rest.casefold())[:4]:
        if word in _STREET or (places and word in _FACILITY):
            return True
        if word.isdigit() or word in words.UNIT_OF or word in _NOT_IN_AN_ADDRESS:
            return False
    return False


# Words that never stand between a house number and its street ("at 7 at the station").
_NOT_IN_AN_ADDRESS = frozenset(
    {"at", "the", "a", "an", "from", "to", "in", "on", "near", "by", "for", "and", "or", "with"}
    | {"am", "pm", "o'clock", "oclock", "please", "then", "tonight", "today", "tomorrow"}
    # an hour's own word, in any language ("um 13 Uhr, wenn noch Platz ist")
    | {"uhr", "heure", "heures", "h", "hora", "horas", "hours", "hrs"}
)


# Words right before a name that make it the area something is in ("I prefer it in Belmont").
_AREA_BEFORE = re.compile(r"\b(?:in|around|near|within)\s+(?:the\s+)?$", re.IGNORECASE)
# Words that say what kind of place a name is ("Restaurant", "Cafe", "Apartments"): a name said
# without them is the same name.
_KIND_OF_PLACE = frozenset(
    {
        *("restaurant", "cafe", "café", "bistro", "grill", "diner", "eatery", "brasserie", "trattoria"),
        *("pizzeria", "steakhouse", "hotel", "inn", "motel", "suites", "apartments", "apartment"),
        *("homes", "condos", "residences", "clinic", "salon", "spa", "theater", "theatre", "cinema"),
    }
)


_HONORIFIC = re.compile(r"^\s*(?:dr|doctor|mr|mrs|ms|miss|mx|prof|professor)\.?\s+", re.IGNORECASE)
_CREDENTIALS = re.compile(
    r"(?:,?\s+(?:m\.?\s?d|d\.?d\.?s|d\.?m\.?d|ph\.?\s?d|d\.?o|r\.?n|n\.?p|d\.?c|o\.?d|psy\.?d|"
    r"lcsw|lmft|mft|pa-c|jr|sr|ii|iii)\.?)+\s*$",
    re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def person_core(shown: str) -> str:
    """A person's name without its title, the letters after it and its middle initials ("Andrew
    Sorenson" of "Dr. Andrew L. Sorenson, MD"), or "" when the value has none of these or what is
    left is not a given name and a family name."""
    names = _CREDENTIALS.sub("", _HONORIFIC.sub("", shown)).split()
    if len(names) < 2:
        return ""
    names = names[:1] + [n for n in names[1:-1] if len(n.strip(".")) > 1] + names[-1:]
    core = " ".join(names)
    if core == " ".join(shown.split()) or any(len(n.strip(".")) < 2 for n in names):
        return ""
    return core


@lru_cache(maxsize=4096)
def _core_of(shown: str, cues: tuple[str, ...]) -> str:
    words_of = shown.split()
    kinds = _KIND_OF_PLACE | set(cues)
    while len(words_of) > 1 and words_of[-1].casefold().strip(".,") in kinds:
        words_of.pop()
    core = " ".join(words_of)
    own = [w for w in _WORD.findall(core.casefold()) if w not in ("the", "a", "an")]
    # Something of the name must be left that is more than a word or two letters.
    if core == shown or not own or len("".join(own)) < 4:
        return ""
    return core


def _without_kind(spec: ArgumentSpec) -> str:
    """The argument's name value without the words after it that say its kind of place
    ("Royal Rangoon" of "Royal Rangoon Restaurant"), or "" when it has none to drop."""
    return _core_of(spec.shown, spec.cues) if spec.shown.strip() else ""


def _spoken_pairs(text: str, lang: str | None) -> list[tuple[int, int]]:
    """Two numbers said in words one right after the other that make one amount ("nine fifty",
    "twenty five fifty", "nineteen ninety nine"): a number under 100, then one from 10 to 99,
    nothing between them, and no word after that says what the second one counts ("four
    twenty minutes" is two values)."""
    found = [m for m in mentions_in(text, lang) if m.value.kind == "number"]
    pairs: list[tuple[int, int]] = []
    for a, b in itertools.pairwise(found):
        if (
            text[a.end : b.start].strip()
            or any(ch.isdigit() for ch in text[a.start : b.end])
            or not (a.value.key.isdigit() and b.value.key.isdigit())
            or not (0 < int(a.value.key) < 100 and 10 <= int(b.value.key) < 100)
            or words.UNIT_OF.keys() & _after_words(text, b.end, 1)
        ):
            continue
        pairs.append((a.start, b.end))
    return pairs


def _spoken_spans(text: str, value: Value, lang: str | None) -> list[tuple[int, int]]:
    """Where the words say ``value`` in parts, the way speech-to-text writes it: an amount in two
    numbers ("nine fifty" for 9.50 or 950, "nineteen ninety nine"), digits one by one ("oh seven
    seven oh oh nine", "three double oh three"), an identifier spelled ("e twelve" for E-12, "inv
    three double oh three" for INV-3003). Read only for this value (the confirmation's reader of
    parts), so numbers that make no such value stay what they are.
    """
    found, letters = said_as_parts(text, list(mentions_in(text, lang)), (value,))
    pieces = sorted([(m.start, m.end) for m in found] + letters)
    spans: list[tuple[int, int]] = []
    for start, end in pieces:
        if spans and not text[spans[-1][1] : start].strip(" ,-"):
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans


def other_value_spans(
    text: str, spec: ArgumentSpec, request: TraceRequest, *, offered: bool = False
) -> list[tuple[int, int]]:
    """Where ``text`` says another value of this argument's kind (a later value may replace it).

    ``offered``: the words are the agent's, read for what they put forward instead of what
    stands offered; any place they name after the argument's preposition counts ("Would you like
    to pick it up from Sacramento?"), a town as well as a spot in it.
    """
    if spec.kind == "ident":
        own = value_spans(text, spec, request)
        sized = [
            s
            for s in _sized_spans(text, spec, request.lang, other=True)
            if not any(_overlaps(s, o) for o in own)
        ]
        return sorted({*other_idents(text, spec, request), *sized})
    if spec.kind == "bool":
        return [(s, e) for s, e, said in flag_spans(text, spec) if said != bool(spec.value)]
    if spec.kind == "text":
        others = _other_names(text, spec, request, offered=offered)
        own = value_spans(text, spec, request)
        others += [
            span for span in _named_as(text, spec) if not any(_overlaps(span, o) for o in own + others)
        ]
        if offered and _takes_names(spec):
            others += [
                span for span in _put_forward(text) if not any(_overlaps(span, o) for o in own + others)
            ]
        for word in alternatives_of(spec.shown):
            for span in name_spans(text, word):
                if not any(_overlaps(span, o) for o in own + others):
                    others.append(span)
        for choice in spec.choices:
            if choice.casefold() == spec.shown.casefold():
                continue
            for span in name_spans(text, choice):
                if not any(_overlaps(span, o) for o in own + others):
                    others.append(span)
        return sorted(others)
    if spec.kind in ("bool", "other") or spec.norm is None:
        return []
    own = value_spans(text, spec, request)
    out = []
    if spec.kind == "date":
        wanted = _as_date(spec.value)
        for start, end, dates in date_readings(text, request.today, request.lang):
            if wanted is not None and dates and wanted not in dates:
                out.append((start, end))
        return [s for s in out if not any(_overlaps(s, o) for o in own)]
    for m in _mentions(text, request.lang):
        if m.value.kind != spec.kind or m.means(spec.norm):
            continue
        if any(_overlaps((m.start, m.end), o) for o in own):
            continue
        if spec.kind == "time" and _house_number(text, m.end, places=True):
            continue  # "at 1 embarcadero center": a house number, no other hour
        out.append((m.start, m.end))
    if spec.kind == "time":
        out += [
            s for s in _hour_changes(text, spec, request.lang) if not any(_overlaps(s, o) for o in own + out)
        ]
    return out


# A change said with a bare hour ("make it seven", "change it to 8"): for a time, another time,
# whichever half of the day.
_CHANGE_TO = re.compile(
    r"\b(?:make (?:it|that)|change (?:it|that) to|move (?:it|that) to|switch (?:it|that) to|"
    r"push (?:it|that) to|bring (?:it|that) forward to)\s+$",
    re.IGNORECASE,
)


def _hour_changes(text: str, spec: ArgumentSpec, lang: str | None) -> list[tuple[int, int]]:
    """Where a change to another hour is said with a bare number ("make it seven" for 6am)."""
    hour = _hour_of(spec.norm.key) if spec.norm is not None else None
    out = []
    for m in _mentions(text, lang):
        if m.value.kind != "number" or _CHANGE_TO.search(text[: m.start]) is None:
            continue
        if unit_at(text, m.end) is not None or _currency_at(text, m.start, m.end) is not None:
            continue  # "make it 3 people", "make it 40 dollars": a count or a sum, no hour
        try:
            said = int(Decimal(m.value.key))
        except (ArithmeticError, ValueError):
            continue
        if 1 <= said <= 12 and said != hour:
            out.append((m.start, m.end))
    return out


def _hour_of(key: str) -> int | None:
    """The hour on the clock face (1 to 12) of a time's key ("18:30" is 6), or None."""
    found = re.match(r"(\d{1,2}):", key)
    if found is None:
        return None
    return int(found.group(1)) % 12 or 12


@lru_cache(maxsize=4096)
def alternatives_of(shown: str) -> tuple[str, ...]:
    """The values that exclude this one ("economy" for "business"), from :data:`words.ALTERNATIVES`.

    A value in several groups ("standard": a hire car, a delivery) has the others of each:
    reading a change where there is none only makes the gate ask.
    """
    groups = {n for n, group in enumerate(words.ALTERNATIVES) for w in group if name_spans(shown, w)}
    found = [w for n in sorted(groups) for w in words.ALTERNATIVES[n]]
    return tuple(dict.fromkeys(w for w in found if not name_spans(shown, w) and not name_spans(w, shown)))


_NAME_AFTER = re.compile(r"([^\W\d_][\w'’&.-]*(?:\s+[^\W\d_][\w'’&.-]*){0,2})")


def _other_names(
    text: str, spec: ArgumentSpec, request: TraceRequest, *, offered: bool = False
) -> list[tuple[int, int]]:
    """Another name said where the query puts this one ("ship it to York" for "to {city}").

    Only after the word the query puts right before the placeholder, when that
    word is a preposition, or after the preposition of the argument's role where the
    query says none ("from location {from_location}": "March 1st from Vancouver, BC"):
    a name said anywhere else is not read as this argument.
    """
    at = request.template.find("{" + spec.name + "}")
    before = [w for w in _before_words(request.template, at, 3) if w not in _ARTICLES][-1:] if at >= 0 else []
    # Only a name written as one follows the role's word: "is admission to this attraction free?"
    # A place something is picked up from is a spot in a town ("Clayton Valley"): the town said
    # for it ("I will pick it up from Concord") is where it is, not another place.
    by_role = (
        (not before or before[0] not in _FRAME_WORDS)
        and spec.role in ("from", "to")
        and (offered or _SPOT_CUES.isdisjoint(spec.cues))
    )
    # The same for a town with no role where the query names the part without a preposition
    # ("city {city}"): "any dates where they perform in NYC?" names another city.
    by_town = (
        (not before or before[0] not in _FRAME_WORDS)
        and spec.role is None
        and not _TOWN_CUES.isdisjoint(spec.cues)
        and _SPOT_CUES.isdisjoint(spec.cues)
        # a street address or a spot in a town is not another town: "in San Jose" for 1546
        # Maurice Lane says where it is
        and not any(ch.isdigit() for ch in spec.shown)
        and not _facility(spec.shown)
    )
    # A spot in a town named by the argument's part alone ("location {location}" for "Leeds
    # Station"): the agent's "a Cooper at York Station" puts another spot forward; a town said
    # for it ("at York") says where it is, and is no other spot.
    by_spot = (
        offered
        and (not before or before[0] not in _FRAME_WORDS)
        and spec.role is None
        and not _TOWN_CUES.isdisjoint(spec.cues)
        and _facility(spec.shown)
    )
    if by_spot:
        if text == text.casefold():
            return []
        before = ["at", "from"]
    elif by_role or by_town:
        if text == text.casefold():
            return []
        before = [str(spec.role) if by_role else "in"]
        if by_role and offered and spec.role == "from" and not _SPOT_CUES.isdisjoint(spec.cues):
            # The agent puts a pick-up spot forward at or in it: "a Camry available next Tuesday
            # at SAN International Airport".
            before = [*before, "at", "in"]
    if not before or before[0] not in _FRAME_WORDS:
        return []
    own = value_spans(text, spec, request)
    out = []
    for m in re.finditer(
        rf"(?<![\w-])(?:{'|'.join(before)})\s+(?:(?:the|a|an|another|my|our|some|this|that)\s+)?", text, re.I
    ):
        lead = _before_words(text, m.start(), 1)
        if m.group().split()[0].casefold() == "to" and lead and lead[0] in _TO_VERB:
            continue  # "i'm going to compare prices": a verb, not a place
        name = _NAME_AFTER.match(text, m.end())
        if name is None or ((by_role or by_town) and not name.group()[:1].isupper()):
            continue
        shown = name.group()
        # A town is its words written as a name: "in New York on March 2nd" names New York.
        run = _CAPITALISED.match(shown) if by_town else None
        shown = run.group() if run is not None else shown
        words_said = [w.casefold().strip(".,;:!?") for w in shown.split()]
        if words_said and (words_said[0] in _DAYPARTS or words_said[0] in _ADVERBIAL):
            continue  # "in the evening" says when, "in total" how much: not where
        # "LA", "NYC": letters written as capitals name a place, whatever the word in lower case
        initials = len(shown.split()[0]) > 1 and shown.split()[0].isupper()
        while words_said[int(initials) :] and (
            words_said[-1] in words.BESIDE_NAME or words_said[-1] in _SMALL
        ):
            words_said.pop()
        if not words_said or (
            not initials
            and not (run is not None and len(words_said) > 1)
            and (words_said[0] in words.BESIDE_NAME or words_said[0] in _SMALL)
        ):
            continue
        span = (name.start(), name.start() + len(" ".join(shown.split()[: len(words_said)])))
        if _mentions(text[span[0] : span[1]], request.lang):
            continue
        if any(_overlaps(span, o) for o in own):
            continue
        if (by_spot or (by_role and not offered and _facility(spec.shown))) and not _facility(
            text[span[0] : span[1]]
        ):
            continue  # "I want it from Philadelphia" for the Intercity Terminal: the area it is in
        out.append(span)
    return out


# Giving the thing its name: "title it House", "call the event Team lunch", "an event called
# Yoga": the name that follows is this argument's, wherever the query puts it.
_GIVES_NAME = re.compile(
    r"\b(?:call|name|title|label|rename|retitle)\s+(?:it|this|that|this one|that one|them)\s+"
    r"(?:as\s+)?[\"'“‘]?",
    re.IGNORECASE,
)
_NAMING_WORDS = r"(?:called|named|titled|entitled)"
_NAMED = rf"\s+{_NAMING_WORDS}\s+[\"'“‘]?"


# The words an agent puts a thing forward with, at the start of a sentence: "There is Missing
# Link.", "How about Hackers?", "I found Dogman."; the name after them is the one put forward.
_PUT_FORWARD = re.compile(
    r"(?:^|[.!?]\s+)(?:(?:then|also|and|or|ok|okay|sure|well|so)\s*,?\s+)*"
    r"(?:there(?:'s| is| are)|how about|what about|i (?:found|have|see|recommend|suggest)|we have|try)\s+"
    r"(?:(?:also|the|a|an)\s+)?",
    re.IGNORECASE,
)


def _put_forward(text: str) -> list[tuple[int, int]]:
    """Where the agent's words put a name forward: a run of capitalised words after the words that
    offer, at the start of a sentence ("There is Missing Link."). Pure."""
    out = []
    for m in _PUT_FORWARD.finditer(text):
        run = _CAPITALISED.match(text, m.end())
        if run is not None and not _mentions(run.group(), None):
            out.append((run.start(), run.end()))
    return out


def _takes_names(spec: ArgumentSpec) -> bool:
    """Whether the argument holds a thing's name: not a place, not one of a set of values."""
    named = re.search(r"name|title", spec.name, re.IGNORECASE) is not None
    return named or not (spec.role is not None or spec.choices or (PLACE_CUES | _TOWN_CUES) & set(spec.cues))


def names_the_thing(text: str) -> bool:
    """Whether ``text`` gives the thing in hand a name ("call it House", "title that one Yoga"). Pure."""
    return _GIVES_NAME.search(text) is not None


def _named_as(text: str, spec: ArgumentSpec) -> list[tuple[int, int]]:
    """Where ``text`` gives the thing a name with a naming verb: after "call it", "title it", or
    after the argument's own word and "called" ("an event called Yoga"), for an argument that is
    a name or a title (``event_name``, ``title``), or any other that is no place and no choice of
    a set (``event``, ``song``). Pure."""
    if not _takes_names(spec):
        return []  # a place, or one of a set: naming gives none of these
    leads = [m.end() for m in _GIVES_NAME.finditer(text)]
    for cue in spec.cues:
        leads += [m.end() for m in re.finditer(rf"\b{re.escape(cue)}s?{_NAMED}", text, re.IGNORECASE)]
    out = []
    for at in leads:
        name = _NAME_AFTER.match(text, at)
        if name is None:
            continue
        said = name.group().split()
        # the name ends at a word that goes on with the sentence ("House and set it for 10")
        kept: list[str] = []
        for w in said:
            if w.casefold().strip(".,;:!?") in _NAME_ENDS:
                break
            kept.append(w)
        while kept and kept[-1].casefold().strip(".,;:!?") in words.BESIDE_NAME:
            kept.pop()
        # "call it off", "call it quits", "call it a day": no name
        if kept and kept[0].casefold() not in _ARTICLES and kept[0].casefold() not in _NOT_A_NAME:
            out.append((name.start(), name.start() + len(" ".join(kept).rstrip(".,;:!?"))))
    return out


_NAME_ENDS = frozenset({"and", "or", "but", "for", "on", "at", "please", "then", "so", "because", "if"})
_NOT_A_NAME = frozenset({"off", "quits", "even", "done", "in", "back", "up", "out", "over", "now", "instead"})


_SPOT_CUES = frozenset({"pickup", "dropoff"})
# A run of capitalised words: a name, with the small words a title keeps in lower case inside it
# ("Mets vs Cubs", "Lord of the Rings"), never at its end.
_CAPITALISED = re.compile(
    r"[A-ZÀ-Þ][\w'’&.-]*(?:\s+(?:(?:vs\.?|v\.|versus|of|the|de|du|del|la|le)\s+)*[A-ZÀ-Þ][\w'’&.-]*){0,2}"
)
# Words that name an argument as the town or area something is in.
_TOWN_CUES = frozenset({"city", "town", "area", "location"})
# Words that end the name of a place inside a town ("Intercity Terminal", "SFO International
# Airport"): a town said for one is where it is, not another place.
_FACILITY = frozenset(
    {"station", "terminal", "airport", "port", "depot", "stadium", "arena", "center", "centre", "hall"}
    | {"mall", "plaza", "pier", "harbour", "harbor", "hotel", "street", "avenue", "road", "square"}
)


def _facility(name: str) -> bool:
    return not _FACILITY.isdisjoint(_WORD.findall(name.casefold()))


_FRAME_WORDS = frozenset({"to", "at", "with", "from", "in", "for", "into", "near"})
# Words after which "to" opens a verb, not a place: "going to compare", "want to keep".
_TO_VERB = frozenset(
    {
        *("going", "gonna", "want", "wants", "wanted", "need", "needs", "needed", "have", "has", "had"),
        *("like", "love", "try", "trying", "able", "got", "used", "ought", "about", "plan", "planning"),
        *("hoping", "hope", "decided", "prefer", "rather", "tend", "happy", "ready", "due", "supposed"),
    }
)
_DAYPARTS = frozenset(
    {
        *("morning", "afternoon", "evening", "night", "midday", "noon", "lunchtime", "daytime", "week"),
        *("weekend", "month", "year", "future", "meantime", "end", "middle", "beginning", "case", "time"),
        *("mañana", "tarde", "noche", "matin", "soir", "après-midi", "morgen", "abend", "nachmittag"),
    }
)
_ARTICLES = frozenset({"the", "a", "an", "my", "our", "your"})
# Nouns that make an adverb with the word before them ("in total", "at least", "for sure",
# "from scratch"): said after a frame word, they name no place, party or thing.
_ADVERBIAL = frozenset(
    {
        *("total", "all", "general", "advance", "cash", "person", "full", "fact", "particular"),
        *("addition", "detail", "short", "brief", "turn", "charge", "mind", "stock", "order"),
        *("least", "most", "first", "last", "once", "best", "worst", "sure", "real", "free", "now"),
        *("scratch", "date", "pleasure", "example", "instance", "sale", "rush", "hurry", "use"),
        *("touch", "line", "question", "return", "exchange", "favour", "favor", "good", "ages"),
    }
)


_FLAG_NO = re.compile(
    r"\b(?:no|not|don'?t|do not|doesn'?t|won'?t|without|never|nothing|zero|none|neither|nor|skip)\b"
    r"(?:\s+\w+){0,3}\s*$",
    re.IGNORECASE,
)
# Words of an argument's name too general to say the flag ("number", "type", "is", "has").
_FLAG_FILLER = frozenset(
    {"number", "type", "is", "has", "have", "with", "want", "needs", "need", "allow", "allowed"}
)


def flag_spans(text: str, spec: ArgumentSpec) -> list[tuple[int, int, bool]]:
    """Where the text says a yes/no argument, and which: "a shared ride is fine" says ``shared_ride``
    True, "no extra luggage" says ``additional_luggage`` False. The flag is said by the distinctive
    words of its name (and description): the first of them found, with a no before it saying False."""
    if spec.kind != "bool":
        return []
    name_words = [w for w in re.findall(r"[a-z]+", spec.name.casefold()) if w not in _FLAG_FILLER]
    if not name_words:
        return []
    folded = text.casefold()
    out: list[tuple[int, int, bool]] = []
    lead = name_words[0]
    forms_of_lead = _FLAG_SAME.get(lead, (lead,))
    pattern = "|".join(rf"{re.escape(w[:5])}\w*" for w in forms_of_lead)
    for m in re.finditer(rf"\b(?:{pattern})", folded):
        # "I do not mind a shared ride" says yes to it.
        window = utterance.without_idioms_of_yes(folded[max(0, m.start() - 30) : m.start()])
        negated = _FLAG_NO.search(window) is not None
        out.append((m.start(), m.end(), not negated))
    if not out and len(name_words) > 1:
        # "I have no luggage" says there is no additional luggage; "luggage" alone says nothing.
        for m in re.finditer(rf"\b{re.escape(name_words[-1])}\b", folded):
            if _FLAG_NO.search(folded[max(0, m.start() - 30) : m.start()]):
                out.append((m.start(), m.end(), False))
    return out


# Words a flag's name may use for the same thing ("additional luggage" is "extra luggage").
_FLAG_SAME = {
    "additional": ("additional", "extra", "more"),
    "extra": ("extra", "additional", "more"),
    "shared": ("shared", "share", "sharing", "pool"),
}


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


# -- the argument's part ----------------------------------------------------------------

_BOUNDS = frozenset({"after", "before", "until", "till", "til", "by", "than", "past", "latest", "earliest"})
_END_POINT = frozenset({"till", "til", "until"})
_ID_LABELS = frozenset(
    {
        *("order", "invoice", "account", "acct", "ref", "reference", "number", "no", "booking"),
        *("ticket", "case", "policy", "room", "seat", "flight", "table", "platform", "gate", "item"),
        *("code", "pin", "card", "ending", "extension", "unit", "flat", "apartment", "parcel"),
    }
)
_TOWARDS = frozenset({"to", "into", "onto", "towards", "toward", "hacia", "vers", "nach", "a"})
_AWAY = frozenset({"from", "out", "off", "desde", "depuis", "von", "vom", "ab", "de"})
_SKIP_FOR_ROLE = frozenset(
    {"account", "acct", "the", "my", "our", "city", "number", "no", "downtown"}
    # the same words in the other languages read ("desde la cuenta", "auf das Konto")
    | {"la", "el", "le", "les", "los", "las", "das", "dem", "den", "der", "die", "mi", "mon", "ma"}
    | {"mein", "meine", "meinem", "cuenta", "compte", "konto"}
)
_PERIOD = re.compile(
    r"^\W*(?:(?:pounds?|dollars?|euros?|quid|bucks|gbp|usd|eur)\W+)?"
    r"(?:(?:a|an|per|each|every|/)\s*(?P<unit>day|week|fortnight|month|quarter|year|annum)\b|"
    r"(?P<adverb>daily|weekly|fortnightly|monthly|quarterly|yearly|annually))",
    re.IGNORECASE,
)
_PERIOD_OF = {"daily": "day", "weekly": "week", "fortnightly": "fortnight", "monthly": "month",
              "quarterly": "quarter", "yearly": "year", "annually": "year", "annum": "year"}  # fmt: skip
_RELATIVE_BEFORE = re.compile(
    r"\b(?:i|we|you|he|she|they|gp|doctor|one|that|which|who)\s+(?:\w+\s+){0,2}?"
    r"(?P<verb>made|met|mentioned|viewed|saw|seen|said|had|got|bought|ordered|used|did|went|was|were|"
    r"told|recommended|suggested|visited|called|rang|emailed|booked|spoke|talked|sent|paid)"
    r"(?:\s+(?:it|them|him|her|to|with|about|me|us|you))?\s+(?:on|at|in|last|this|back on|for)?\s*$",
    re.IGNORECASE,
)


# "an alarm called Cleaning", "a playlist named Chill": the name a thing is given, not a call made.
_NAMING = re.compile(
    rf"\b(?!(?:i|we|you|he|she|they|who|that|which)\b)[a-z]+\s+{_NAMING_WORDS}\s*$",
    re.IGNORECASE,
)


def _one_of_a_closed_set(spec: ArgumentSpec) -> bool:
    """Whether the argument takes one of a few known values none of which holds this one ("English"
    among "English", "Spanish", "Mandarin"): a word said beside it ("english subs") cannot make it
    another value. A set with "Gold" and "Gold Plus" can."""
    shown = spec.shown.casefold().strip()
    return bool(spec.choices) and not any(
        c.casefold() != shown and shown in c.casefold() for c in spec.choices
    )


def _before_words(text: str, at: int, n: int = 3) -> list[str]:
    return _WORD.findall(text[:at].casefold())[-n:]


def _counts_unknown(text: str, end: int) -> bool:
    """Whether the number ending at ``end`` counts a thing the unit lists do not know ("two
    popcorns"): a plural noun right after it, not a word of politeness or a function word."""
    after = _after_words(text, end, 1)
    if not after:
        return False
    word = after[0]
    return (
        len(word) > 3
        and word.endswith("s")
        and not word.endswith(("ss", "us", "'s"))
        and word not in words.UNIT_OF
        and word not in words.BESIDE_NAME
        and word not in words.CLOSING
        and word not in words.AGREEMENT
    )


def _after_words(text: str, at: int, n: int = 3) -> list[str]:
    return _WORD.findall(text[at:].casefold())[:n]


# The word that says whose a thing is, after it ("la cuenta de Ana", "das Konto von Anna").
_OWNED_BY = frozenset({"de", "del", "du", "des", "von", "of"})


def role_at(text: str, start: int, *, place: bool = True) -> str | None:
    """``to`` or ``from`` when a directional word stands before the value (labels skipped).

    ``place``: whether the value can be a place. Spanish "a" is a direction only before one
    ("voy a Madrid"); before a time it is "at" ("a las seis"), and in English it is the
    article ("around a quarter to 4").
    """
    before = _before_words(text, start)
    if before[-2:] in (["out", "of"], ["away", "from"]):
        return "from"
    if len(before) >= 2 and before[-1] in _OWNED_BY and before[-2] in words.MONEY_HOLDERS:
        # "a la cuenta de Ana", "sur le compte de Marie": whose account, not where from; the
        # account's own direction is the name's
        before = _before_words(text, start, 5)[:-2]
    for word in reversed(before):
        if word == "a" and not place:
            return None
        if word in _TOWARDS:
            return "to"
        if word in _AWAY:
            return "from"
        if word not in _SKIP_FOR_ROLE:
            return None
    return None


def unit_at(text: str, end: int) -> str | None:
    """The family of what the number at ``end`` counts ("2 people" -> people), if it says."""
    for word in _after_words(text, end, 3):
        if word in words.UNIT_FILLERS:
            continue
        family = words.UNIT_OF.get(word)
        if word == "of":
            after = _after_words(text, end, 3)
            return "people" if after[1:2] in (["us"], ["them"], ["you"]) else None
        return family
    return None


# A count said of the speakers themselves ("we're four", "there will be 6 of us" is read after it):
# people. The past ("we were four") says what was, and nothing of a request.
_WE_ARE = re.compile(
    r"\b(?:we|there)\s*(?:['’]re|\s+are|['’]ll be|\s+will be|['’]d be|\s+would be|\s+are going to be)"
    r"\s+(?:just\s+|only\s+|about\s+|around\s+)?$",
    re.IGNORECASE,
)


def counts_us(text: str, start: int) -> bool:
    """Whether the number at ``start`` is how many the speakers are ("we're four", "we'll be 6")."""
    return _WE_ARE.search(text[max(0, start - 40) : start]) is not None


_UNIT_BEFORE = re.compile(
    r"([a-zà-ÿ]+)\s*(?::|=|\b(?:is|are|was|were|must be|should be|will be|would be|needs to be|has to be))"
    r"\s*(?:just\s+|only\s+|about\s+|around\s+)?$",
    re.IGNORECASE,
)


def unit_before(text: str, start: int) -> str | None:
    """The family of what the number at ``start`` counts when the words before name it ("the
    number of bedrooms must be three", "guests: 4"), if they do."""
    found = _UNIT_BEFORE.search(text[max(0, start - 60) : start])
    if found is None or found.group(1).casefold() in ("of", "us", "them"):
        return None
    return words.UNIT_OF.get(found.group(1).casefold())


def _currency_at(text: str, start: int, end: int) -> str | None:
    before = currency_of(text[:start].rstrip()[-1:])
    if before is not None:
        return before
    said = currencies(text[start:end])
    if said:
        return sorted(said)[0]
    after = _after_words(text, end, 1)
    return currency_of(after[0]) if after else None


def _period_at(text: str, end: int) -> str | None:
    found = _PERIOD.match(text[end:])
    if found is None:
        return None
    unit = (found.group("unit") or found.group("adverb")).casefold()
    return _PERIOD_OF.get(unit, unit)


_LABEL_BEFORE = re.compile(r"([a-zà-ÿß]+)[\s#:\-]*$")
# A label said as what a number is: "the pin is 4432" ("the order was 35 pounds" is its price).
_LABEL_IS = re.compile(r"([a-zà-ÿß]+)\s+(?:is|was|=)[\s#:\-]*$")


def _label_at(text: str, start: int, end: int) -> str | None:
    """The label right before a number ("order 4471", "table #4"), or said as what it is when no
    sum of money follows ("the pin is 4432"); a comma between ("a table, 4 people") ends it."""
    before = text[:start].casefold()
    found = _LABEL_BEFORE.search(before)
    if (found is None or found.group(1) not in _ID_LABELS) and _currency_at(text, start, end) is None:
        found = _LABEL_IS.search(before)
    return found.group(1) if found and found.group(1) in _ID_LABELS else None


# The two ends of a journey, a stay or a hire, as the verbs that name them: a time said for one
# is no time for the other ("arriving at 7:15" for "departing at {time}").
_MOMENT_OF = {
    **dict.fromkeys(("depart", "departing", "departs", "leave", "leaving", "leaves", "start", "starting",
                     "starts", "begin", "beginning", "begins"), "start"),
    **dict.fromkeys(("arrive", "arriving", "arrives", "arrival", "land", "landing", "lands", "end",
                     "ending", "ends", "finish", "finishing", "finishes"), "end"),
}  # fmt: skip


MOMENT_VERBS = frozenset(_MOMENT_OF)


def moment_of(verb: str) -> str | None:
    """Which end ("start" or "end") a verb of moment names ("departing": start), if it is one."""
    return _MOMENT_OF.get(verb)


def _other_moment(text: str, start: int, slot: _Slot | None) -> bool:
    """Whether the value is said for the other end of what the query's placeholder times: the
    verb right before it (its preposition aside) and the query's own are of opposite ends."""
    if slot is None:
        return False
    wanted = next((_MOMENT_OF[w] for w in reversed(slot.before) if w in _MOMENT_OF), None)
    before = [
        w for w in _before_words(text, start, 3) if w not in ("at", "by", "on", "around", "about", "for")
    ]
    said = _MOMENT_OF.get(before[-1]) if before else None
    return wanted is not None and said is not None and said != wanted


def _bound_at(text: str, start: int) -> str | None:
    before = _before_words(text, start, 1)
    return before[0] if before and before[0] in _BOUNDS else None


@dataclass(frozen=True)
class _Slot:
    """How the query frames an argument's placeholder."""

    unit: str | None
    bound: str | None
    ends_at: bool
    period: str | None
    currency: str | None
    label: str | None
    role: str | None
    before: tuple[str, ...] = ()  # the template's words just before the placeholder


_MORE_AFTER = re.compile(r"\s+(?:more|extra|additional|fewer|less)\b", re.IGNORECASE)
_MORE_BEFORE = re.compile(r"\b(?:another|an extra|extra|additional|further)\s+$", re.IGNORECASE)


# Labels that say only that an identifier follows: the word before them names what of.
_BARE_LABELS = frozenset({"number", "no", "ending", "id"})
# Short forms of a label: the same label.
_LABEL_FORMS = {"acct": "account", "acc": "account", "ref": "reference", "apt": "apartment"}


def _labelled_as_another(text: str, start: int, spec: ArgumentSpec, slot: _Slot | None) -> bool:
    """Whether the identifier at ``start`` is said as another kind of thing's: the label right
    before it (through "number", "is" and the like: "order number 4471", "the reference is
    4471") is a known label (:data:`_ID_LABELS`) that neither the argument's own words nor the
    query's words before its placeholder say ("refund 40 dollars on invoice B-221" for an order;
    "for order 12345678" or "reference 12345678" for the account money goes to)."""
    said = _LABEL_WORDS.search(text[:start].casefold())
    if said is None:
        return False
    last, first = said.group(2), said.group(1)
    label = first if last in _BARE_LABELS and first in _ID_LABELS else last
    if label not in _ID_LABELS or label in _BARE_LABELS:
        return False
    known = {_LABEL_FORMS.get(w, w) for w in (*spec.cues, *(slot.before if slot else ()))}
    return _LABEL_FORMS.get(label, label) not in known


# The two words before a value, through "is", "was", "=", "#" or ":" ("order number is B-221").
_LABEL_WORDS = re.compile(r"(?:([a-zà-ÿß]+)\s+)?([a-zà-ÿß]+)(?:\s+(?:is|was|=))?[\s#:\-]*$")


def _labels_before(before: tuple[str, ...]) -> tuple[str, ...]:
    """The labels the query says right before a value ("card ending" in "my card ending {last4}";
    none in "a table for {party}", where "for" stands between)."""
    run: list[str] = []
    for word in reversed(before):
        if word not in _ID_LABELS:
            break
        run.append(word)
    return tuple(run)


def _difference_at(text: str, start: int, end: int) -> bool:
    """Whether the number at ``start:end`` says by how much something changes ("two more",
    "another 3"), not what it comes to."""
    return _MORE_AFTER.match(text, end) is not None or _MORE_BEFORE.search(text[:start]) is not None


def _counted_before(before: list[str]) -> str | None:
    """What a placeholder counts when the query names it right before it, as a service's schema
    does: "number of tickets {count}", "travellers {count}" ("bill of {amount}": the "of" that
    counts people in "two of us" names nothing before a value)."""
    if not before or before[-1] in ("of", "us", "them"):
        return None
    return words.UNIT_OF.get(before[-1])


@lru_cache(maxsize=1024)
def _slot(template: str, name: str) -> _Slot | None:
    at = template.find("{" + name + "}")
    if at < 0:
        return None
    end = at + len(name) + 2
    plain = template[:at] + "\x00" * (end - at) + template[end:]
    before = _before_words(plain, at)
    return _Slot(
        # what the value counts, said after it ("{count} tickets") or right before it ("number of
        # tickets {count}", as a service's schema names it)
        unit=unit_at(plain, end) or _counted_before(before),
        bound=before[-1] if before and before[-1] in _BOUNDS else None,
        ends_at=bool(before) and before[-1] == "to",
        period=_period_at(plain, end),
        currency=_currency_at(plain, at, at),
        label=before[-1] if before and before[-1] in _ID_LABELS else None,
        role=role_at(plain, at),
        before=tuple(before),
    )


_NAME_BESIDE = re.compile(r"[a-zà-ÿß0-9£$€][a-zà-ÿß0-9'’.,-]*")


# Two capitalised words right after a name, in written text, the first a word of the name's kind:
# the name goes on ("Americana Apartment Homes" is not "Americana" and its kind; "Look What God
# Gave Her By Thomas Rhett" is the song and who sings it).
_LONGER_NAME_AFTER = re.compile(r"[ \t]+([A-Z][\w'’-]*)[ \t]+[A-Z][a-z]")


# Words for a town or an area, which a town's name may take or leave ("New York City").
_PLACE_KINDS = frozenset(
    {"city", "town", "county", "state", "village", "borough", "district", "area", "region", "island"}
)
# A capitalised word right after a name written with capitals, not starting a sentence.
_KIND_WRITTEN_AFTER = re.compile(r"[ \t]+([A-Z][a-z][\w'’-]*)\b")


def _whole_name(text: str, start: int, end: int, request: TraceRequest, *, titles: bool = True) -> bool:
    """Whether the name at ``start:end`` stands alone: no other word of a longer name beside it.

    A word beside it is not part of it when the lists know it for a word of another kind: a
    function word, politeness, a verb callers act with ("3 bay view stick that on my account")
    or a contraction said without its apostrophe ("silver isnt worth it"); after a possessive
    ("amelia's class outing"), the thing it names within two words.
    """
    cues = {w for a in request.arguments for w in a.cues} | set(_WORD.findall(request.template.casefold()))
    cues |= set(_WORD.findall(request.description.casefold()))
    before = [w.rstrip(".,'’") for w in _NAME_BESIDE.findall(text[:start].casefold())[-1:]]
    rest = text[end:]
    # The possessive is said after the name, or inside the words found for it ("amelia's"),
    # unless the name itself ends in it ("Gallo's" is the name, not Gallo's something).
    outside = re.match(r"['’]s\b|s['’]", rest)
    inside = outside is None and re.search(r"(?<![\s'’])['’]s$", text[start:end]) is not None
    possessive = outside is not None or (inside and not _ends_in_s(request, text[start:end]))
    after_possessive = rest[outside.end() :] if outside is not None else rest
    after = [
        w.rstrip(".,'’") for w in _NAME_BESIDE.findall(after_possessive.casefold())[: 2 if possessive else 1]
    ]
    if possessive and (not after or after[0] in words.BESIDE_NAME):
        possessive = False  # "biscuit's been limping": "'s" is "has" or "is", not whose
        after = after[:1]
    gap_before = text[:start].rstrip()
    for word in before:
        if titles and not _kind_word(word, cues) and _title_word_before(text, start):
            return False  # "Would you like All Night": a capital mid-sentence is the title's own
        if _beside(word, cues) or _verb_before(gap_before) or _opening_verb(text, start):
            continue
        if re.search(r"(?:s['’]|['’]s)$", gap_before):
            continue  # "Matt Simons' Open Up", "Adele's Hello": whose it is, not part of it
        if gap_before[-1:] in ',;:.!?()"':
            continue  # "Not Lotus, Sapori": punctuation ends a name
        # A capitalised word before a name in written text is part of it ("Rose Gold"), a
        # lower-case one in written text is not; in lower-case speech only the lists tell.
        if _written_lower(text, start, word):
            continue
        return False
    gap_after = after_possessive.lstrip()
    if possessive:
        # "amelia's class outing", "priya's savings" (a value the request gives another argument)
        valued = {
            w
            for a in request.arguments
            for said in (a.shown, *a.choices)
            for w in _WORD.findall(str(said).casefold())
        }
        if re.search(r"['’]s$", after[0]) or utterance.relation_word(after[0]):
            return False  # "priya's husband's account": somebody of hers, and theirs
        if after[0] in words.MONEY_HOLDERS and any(_money(a, None) for a in request.arguments):
            return True  # "into maria's account": money sent where she keeps it goes to her
        return after[0] in valued or any(w in cues or _family_word(w, cues) for w in after)
    longer = _LONGER_NAME_AFTER.match(rest)
    if longer is not None and (
        longer.group(1).casefold() in cues or _family_word(longer.group(1).casefold(), cues)
    ):
        return False  # "Americana Apartment Homes": a word of the kind, then the name goes on
    if _DOES_TO_SOMEONE.match(rest):
        return True  # "can jade fit me in", "could sophie squeeze us in": a verb, then whom
    kind = _KIND_WRITTEN_AFTER.match(rest)
    if (
        kind is not None
        and text[start:end][:1].isupper()
        and kind.group(1).casefold() not in _PLACE_KINDS
        and _family_word(kind.group(1).casefold(), cues)
    ):
        return False  # "Americana Apartments is a nice property": its kind written as part of it
    if (
        titles
        and outside is None
        and after
        and not _kind_word(after[0], cues)
        and _title_word_after(text, end)
    ):
        return False  # "Night Of The Hunter": a function word in capitals goes on with the title
    for word in after:
        if _beside(word, cues):
            continue
        if gap_after[:1] in ',;:.!?()"':
            continue
        if _written_lower(text, end, word, after=True):
            continue
        return False
    return True


# A word written with a capital wherever it stands: no mark of a name.
_ALWAYS_CAPITAL = frozenset(
    {"i", "i'm", "i'd", "i'll", "i've", "sie", "ihnen", "ihr", "ihre", "ihrem", "ihren"}
)
# A capitalised word right after ``end`` (spaces alone between; before a name: _CAPITAL_BEFORE).
_CAPITAL_WORD_AFTER = re.compile(r"[ \t]+([A-Z][\w'’-]*)")
_LOWER_WORD = re.compile(r"(?<![\w'’])[a-zà-ÿß][a-zà-ÿß'’]+")


def _a_place(spec: ArgumentSpec) -> bool:
    """Whether the argument is a place: it has a role, or a word of a place or a town."""
    return spec.role is not None or not (PLACE_CUES | _TOWN_CUES).isdisjoint(spec.cues)


def _kind_word(word: str, cues: set[str]) -> bool:
    """Whether ``word`` says what kind of thing the request is about ("Hotel Lumière", "the
    Grange Hotel"): a word of the request's own, not one of its function words."""
    return (
        (word in cues or _family_word(word, cues)) and word not in words.BESIDE_NAME and not _is_small(word)
    )


def _capitals_mark_names(text: str) -> bool:
    """Whether capitals in ``text`` set names apart: some word of it is written in lower case
    (in "Book A Table At Lotus" every word has one, and none marks anything)."""
    return _LOWER_WORD.search(text) is not None


def _marks_title(word: str) -> bool:
    folded = word.casefold().rstrip("'’")
    return (
        folded not in _ARTICLES
        and folded not in _ALWAYS_CAPITAL
        and not re.search(r"['’]s$", folded)
        and _HONORIFIC.match(folded + " ") is None  # "see Dr Smith": a title of the person
    )


def _title_word_before(text: str, start: int) -> bool:
    """Whether a word written with a capital in the middle of a sentence stands right before the
    name at ``start`` ("Would you like All Night"): a title's own word, even a function word (an
    article, "I", a person's title and a possessive excepted: "the Grange", "Dr Smith",
    "Luigi's Lotus"). Pure."""
    found = _CAPITAL_BEFORE.search(text[max(0, start - 80) : start])
    if found is None or not _capitals_mark_names(text):
        return False
    if found.group(1).casefold() in _ARTICLES:
        # "Dancing In The Night": an article after another title word is the title's too
        start = max(0, start - 80) + found.start(1)
        found = _CAPITAL_BEFORE.search(text[max(0, start - 80) : start])
    return found is not None and _marks_title(found.group(1))


# Words of a closed class (prepositions, conjunctions, determiners, pronouns): after a name and
# written with a capital, they carry a title on ("Night Of The Hunter"); a capitalised word of a
# kind ("New York City", "Union Station") is read as before (see _whole_name).
_CLOSED_CLASS = frozenset(
    {
        *("of", "in", "on", "at", "to", "for", "from", "with", "without", "by", "into", "onto", "over"),
        *("under", "through", "about", "after", "before", "around", "across", "against", "up", "down"),
        *("out", "off", "and", "or", "nor", "but", "so", "yet", "if", "than", "as", "all", "any", "some"),
        *("every", "each", "both", "no", "my", "your", "his", "her", "its", "our", "their", "me", "you"),
        *("him", "us", "them", "we", "they", "he", "she", "it", "this", "that", "these", "those", "is"),
        *("are", "was", "were", "be", "do", "don't", "can't", "won't", "will", "can", "never", "not"),
    }
)


def _title_word_after(text: str, end: int) -> bool:
    """Whether a function word written with a capital follows the name ending at ``end``
    ("Night Of The Hunter"): the title goes on. Pure."""
    found = _CAPITAL_WORD_AFTER.match(text, end)
    if found is None or not _capitals_mark_names(text):
        return False
    word = found.group(1).casefold()
    return _marks_title(word) and word in _CLOSED_CLASS


# After a name, a word and then an object pronoun: the word is what they do to someone ("jade
# fit me in", "marco to see me"), never a word of a longer name.
_DOES_TO_SOMEONE = re.compile(r"\s+(?:to\s+)?[a-z]+\s+(?:me|us|him|her|them)\b", re.IGNORECASE)


# A subject pronoun or the words that ask for something ("can you", "please"): the word after
# them is a verb ("i owe maria 50", "can you lend maria 50"), never the first word of a name.
_ASKS_OR_SUBJECT = re.compile(
    r"(?:^|[\s,;.!?])(?:i|we|you|they|he|she|please|pls|plz|(?:can|could|would|will) you)\s+\S+$",
    re.IGNORECASE,
)


def _opening_verb(text: str, start: int) -> bool:
    """Whether the only words of the sentence before ``start`` are the verb a request opens with
    ("give maria fifty dollars"): the name is its object."""
    opening = max(text.rfind(mark, 0, start) for mark in ".,;:!?") + 1
    return utterance.only_command_verb(text[opening:start])


def _verb_before(before: str) -> bool:
    """Whether the last word of ``before`` stands where a verb does (see :data:`_ASKS_OR_SUBJECT`)."""
    return _ASKS_OR_SUBJECT.search(before) is not None


def _ends_in_s(request: TraceRequest, said: str) -> bool:
    """Whether a value of the request ends in the possessive the words found for it end in."""
    tail = said.casefold()[-2:].replace("’", "'")
    return any(a.shown.casefold().replace("’", "'").endswith(tail) for a in request.arguments)


@lru_cache(maxsize=1)
def _courtesy_words() -> frozenset[str]:
    """Thanks, politeness and fillers said as one word in any language read ("gracias",
    "merci", "danke"): said after a name, no part of it."""
    found = (
        *lang_data.union_phrases("politeness"),
        *lang_data.union_phrases("fillers"),
        *lang_data.union_words("thanks"),
    )
    # four letters or more: a shorter one may be a name's own part ("ben", "sie")
    return frozenset(p for p in found if " " not in p and len(p) > 3)


def _beside(word: str, cues: set[str]) -> bool:
    """Whether ``word`` may stand beside a name without being part of it."""
    contractions = _spoken_contractions()
    return (
        word in contractions  # a contraction is a pronoun or an auxiliary with its "not"
        or word in contractions.values()
        or word in words.BESIDE_NAME
        or word in _courtesy_words()
        or word in cues
        or _is_small(word)
        or _family_word(word, cues)
        or word in acting_verbs()
        # "the sports package" for "the {addon} add-on": a word for the kind of thing it is
        or (word in words.KINDS_OF_ITEM and not cues.isdisjoint(words.KINDS_OF_ITEM))
    )


@lru_cache(maxsize=1)
def _spoken_contractions() -> dict[str, str]:
    """Contractions as speech-to-text writes them, without the apostrophe ("isnt" -> "isn't")."""
    return {str(k): str(v) for k, v in lang_data.union_table("contractions").items()}


@lru_cache(maxsize=1)
def acting_verbs() -> frozenset[str]:
    """Every verb the language data knows callers act with, in its plain form: a verb is no part
    of a name in lower-case speech."""
    out: set[str] = set()
    for family in lang_data.verb_families().values():
        out |= family
    for lang in lang_data.languages():
        out |= lang.words("action_verbs") | lang.words("phrasal_verbs") | lang.words("taking_away_verbs")
    return frozenset(w for w in out if " " not in w)


def _family_word(word: str, cues: set[str]) -> bool:
    """Whether ``word`` is of a family of the request's own words ("subscription" for "plan")."""
    if _mentions(word, None):
        return True  # a day, a time or a number beside a name is not part of it
    single = word[:-1] if word.endswith("s") and len(word) > 3 else word  # "channels" is a channel
    for family in words.FAMILIES:
        if (word in family or single in family) and any(c in family for c in cues):
            return True
    return any(len(c) >= 4 and (word.startswith(c) or c.startswith(word)) for c in cues if len(word) >= 4)


# A change that goes on with one of these proposes a time, a place or a count, not a name.
_NOT_A_NAME_START = frozenset(
    {
        *("in", "on", "at", "for", "by", "to", "from", "around", "about", "before", "after", "until"),
        *("till", "morning", "afternoon", "evening", "night", "tonight", "noon", "midday", "lunch"),
    }
)
_SMALL = frozenset(
    {
        *("please", "thanks", "now", "today", "tomorrow", "tonight", "too", "also", "then", "one"),
        *("so", "because", "but", "or", "if", "when", "right", "instead", "again", "it", "that", "i", "we"),
        *("you", "for", "on", "at", "in", "to", "of", "with", "is", "are", "was", "and", "the", "a", "an"),
        *("this", "next", "sounds", "works", "would", "will", "good", "great", "fine", "ok", "okay"),
        # A pronoun with its verb run on after a name ("San Diego it's for 2"): a new clause.
        *("it's", "its", "that's", "i'm", "i'll", "i'd", "we're", "we'll", "we'd", "there's"),
        *("they're", "he's", "she's", "you're", "which", "who", "where"),
    }
)


def _is_small(word: str) -> bool:
    return word in _SMALL or len(word) <= 2


def _written_lower(text: str, at: int, word: str, *, after: bool = False) -> bool:
    """Whether ``word`` beside a capitalised name is written in lower case (so not part of it)."""
    if text == text.casefold():
        return False
    region = text[at : at + 40] if after else text[max(0, at - 40) : at]
    found = [m for m in re.finditer(r"[^\W\d_]+", region) if m.group().casefold() == word]
    if not found:
        return False
    token = (found[0] if after else found[-1]).group()
    return token[:1].islower()


def _value_head(
    text: str, end: int, spec: ArgumentSpec, request: TraceRequest, start: int | None = None
) -> str | None:
    """The thing a time or a date is of, when the words right after it name one ("the 8 o'clock
    show"), or the thing it is said of right before it ("my flight is at six am", "the film
    finishes at 8"; given ``start``)."""
    if spec.kind not in ("time", "date", "weekday"):
        return None
    heads = []
    said_of = _SAID_OF.search(text[:start]) if start is not None else None
    if said_of is not None:
        heads.append(said_of.group("head").casefold())
    after = _after_words(text, end, 2)
    if after:
        heads.append(after[1] if after[0] in ("o", "clock", "oclock") and len(after) > 1 else after[0])
    known = set(_WORD.findall(f"{request.template} {request.description}".casefold()))
    known |= {w for a in request.arguments for w in a.cues}
    for head in heads:
        if head in _SMALL or head in words.BEFORE_NAME or len(head) <= 3:
            continue
        if head in known or head.rstrip("s") in known:
            continue
        if head in _THINGS:
            return head
    return None


# A thing and what it does at a moment, said right before the moment: "my flight is at",
# "the film finishes at", "our train gets in at".
_SAID_OF = re.compile(
    r"\b(?:my|our|the|his|her|their|your)\s+(?P<head>[a-z]+)\s+"
    r"(?:is|was|'s|are|were|leaves|departs|starts|begins|lands|arrives|gets in|finishes|ends|opens|"
    r"closes|kicks off)\s+(?:at|on|from|around|about|by)?\s*$",
    re.IGNORECASE,
)
# Things a time or a date can be of, besides the request's own: read right after the value, or
# said of before it.
_THINGS = frozenset(
    {
        *("show", "showing", "screening", "performance", "concert", "match", "game", "film", "movie"),
        *("train", "bus", "flight", "ferry", "class", "lesson", "meeting", "appointment", "session"),
        *("call", "shift", "service", "mass", "tour", "slot", "delivery", "collection", "pickup"),
        *("booking", "reservation", "table", "visit", "event", "party", "one"),
    }
)


# Whose a thing is, when it is not the caller's: "to hers", "to someone else's account".
_THIRD_PARTY = re.compile(
    r"\b(?:hers|his|theirs|him|her|them|their|someone else'?s?|somebody else'?s?|"
    r"another (?:person|user|customer|account)'?s?)\b",
    re.IGNORECASE,
)
# What "to" names after a "from" part, up to a clause's break or the next preposition.
_TO_PART = re.compile(
    r"\s*(?:\w+\s+){0,3}?(?:to|into|onto)\s+(.{1,60}?)(?=[,;.!?]|\s(?:from|for|on|at|by|in|and|but)\s|$)",
    re.IGNORECASE,
)


def moved_to_another(text: str, at: int, spec: ArgumentSpec, request: TraceRequest) -> bool:
    """Whether the "to" part after ``at`` (the end of what came "from") names another party
    ("from my savings account to hers") or a value of another of the request's arguments ("from
    my savings to Jerry"): something moved between two things, not one thing changed from an
    old value to a new one ("from platinum to silver").
    """
    found = _TO_PART.match(text, at)
    if found is None:
        return False
    if _THIRD_PARTY.search(found.group(1)):
        return True
    lo, hi = found.span(1)
    return any(
        lo <= s and e <= hi
        for other in request.bound
        if other.name != spec.name
        for s, e in value_spans(text, other, request)
    )


def role_of(request: TraceRequest, spec: ArgumentSpec) -> str | None:
    """The argument's role ("from", "to", ...): the one its name or cues give it, else the one the
    query's words before its slot give it ("to account {account}")."""
    if spec.role is not None:
        return spec.role
    slot = _slot(request.template, spec.name)
    return slot.role if slot else None


def judge_span(
    text: str, start: int, end: int, spec: ArgumentSpec, request: TraceRequest, *, same: bool
) -> Said:
    """Whether the value said at ``start:end`` is said in ``spec``'s part (``Said.rule``)."""
    shown = text[start:end]

    def said(rule: str) -> Said:
        return Said(spec.name, start, end, same, rule, shown)

    slot = _slot(request.template, spec.name)
    wanted_role = role_of(request, spec)
    placed = role_at(text, start, place=spec.kind not in ("time", "date", "weekday", "number"))
    found_role = placed
    if (
        re.match(r"\s+to\s+(?!the\b|a\b|my\b|me\b|us\b|\d)[a-z]+", text[end:], re.IGNORECASE)
        and spec.kind == "text"
    ):
        found_role = found_role or "from"  # "get bob hale to send me the 200": the one who acts
    if wanted_role is not None and found_role is not None and found_role != wanted_role:
        return said("trace.value.role")
    if (
        wanted_role is None
        and placed == "from"  # not the one who acts ("i'd like marco to see me")
        and re.match(r"\s+(?:to|into|onto)\s+(?:the\s+|a\s+|an\s+)?[^\W_]", text[end:], re.IGNORECASE)
        and not (role_at(text, start) == "from" and moved_to_another(text, end, spec, request))
    ):
        return said("trace.value.role")  # "knock me down from platinum to silver": where a change starts
    if spec.kind == "ident" and _labelled_as_another(text, start, spec, slot):
        return said("trace.value.label")  # "refund 40 on invoice B-221" for order B-221
    if spec.kind == "number":
        if re.match(r"(?:st|nd|rd|th)\b", text[end : end + 3], re.IGNORECASE) or re.search(
            r"\d(?:st|nd|rd|th)\b", text[start:end], re.IGNORECASE
        ):
            return said("trace.value.ordinal")  # "the 3rd" is a day, not three of anything
        unit = unit_at(text, end) or unit_before(text, start)
        if unit is not None and unit != (spec.unit or (slot.unit if slot else None)):
            return said("trace.value.unit")
        if unit is None and (spec.unit or (slot.unit if slot else None)) and _counts_unknown(text, end):
            return said("trace.value.unit")  # "dune please, two popcorns": not two tickets
        if (spec.unit or (slot.unit if slot else None)) and re.search(r"\d[.,]\d", text[start:end]):
            return said("trace.value.unit")  # "a rating of 4.1": a fraction counts nothing whole
        currency = slot.currency if slot else None
        if currency is not None and _currency_at(text, start, end) not in (currency, None):
            return said("trace.value.currency")
        if (spec.unit or (slot.unit if slot else None)) and _currency_at(text, start, end) is not None:
            return said("trace.value.currency")  # "40 pounds a head" counts no people
        if _period_at(text, end) not in ((slot.period if slot else None), None):
            return said("trace.value.period")
        if slot is not None and slot.ends_at and _difference_at(text, start, end):
            # "two more are joining, so we're six": what it grows by, not what it is set to
            return said("trace.value.difference")
        label = slot.label if slot else None
        said_label = _label_at(text, start, end)
        if not same and label is not None and said_label != label:
            return said("trace.value.label")
        # "card 4821" for "my card ending {last4}": a label the query says right before it
        query_before = _labels_before(slot.before if slot else ())
        known = (*spec.cues, *query_before)
        if label is None and said_label is not None and said_label not in known:
            return said("trace.value.label")
        if label is not None and said_label not in (label, None) and said_label not in query_before:
            return said("trace.value.label")
        if label is not None and said_label is None and _currency_at(text, start, end) is not None:
            return said("trace.value.label")
        if _money(spec, slot) and _counts_a_thing(text, start, end, request.lang):
            return said("trace.value.unit")  # "send 50 flowers to tom": fifty flowers, no money
    if spec.kind in ("time", "date", "weekday"):
        bound = _bound_at(text, start)
        wanted = slot.bound if slot else None
        end_point = (
            (slot is not None and slot.ends_at) or spec.role == "to" or ends(spec)
        ) and bound in _END_POINT
        earliest = bound in _END_POINT and _after_negation(text, start)
        # "leave by 7:45", "check in by monday": the latest the caller will have it, which the
        # value itself meets (unless another value is said for it as well: :func:`said_in`).
        latest = wanted is None and (
            bound == "by"
            or re.search(r"\b(?:no|not) later than\s*$", text[:start], re.IGNORECASE) is not None
        )
        if bound != wanted and not end_point and not earliest and not latest:
            return said("trace.value.bound")
        if _value_head(text, end, spec, request, start) is not None:
            return said("trace.value.head")
        if _other_moment(text, start, slot):
            return said("trace.value.moment")
    before = text[max(0, start - 60) : start]
    relative = _RELATIVE_BEFORE.search(before)
    if (
        relative is not None
        and not _NAMING.search(before)
        and not _story_of_the_thing(relative, spec, request)
    ):
        return said("trace.value.clause")
    if (
        (spec.kind == "text" or (spec.kind == "ident" and " " in spec.shown.strip()))
        and not _one_of_a_closed_set(spec)
        # a place's name has no title words around it ("what's going on In NYC?")
        and not _whole_name(text, start, end, request, titles=not _a_place(spec))
        # a word the language lists for the value ("compteur électrique") is that word, no name's part
        and (start, end) not in value_spans_in_language(text, spec.shown)
    ):
        return said("trace.value.name")
    return said("trace.value")


def _story_of_the_thing(relative: re.Match[str], spec: ArgumentSpec, request: TraceRequest) -> bool:
    """Whether an identifier said in what the caller tells of it ("i ordered A-1001 last week and it
    arrived broken", "the account we opened, ACC-1234") is still the thing asked about.

    A clause of what was done says when and where that was, not what is asked for now ("the
    dentist i saw on tuesday"); but an identifier names one thing whatever is told of it. Not
    when what was done is the action itself ("i paid INV-88 last week": that payment is made, and
    a request for "the invoice" is not for it again), so the verb must be of another family.
    """
    if spec.kind != "ident":
        return False
    verb = relative.group("verb").casefold()
    action = next(iter(re.findall(r"[a-zà-ÿ]+", request.masked_query.casefold())), None)
    if action is None:
        return False
    # "ordered", "used", "paid": the verb's own form, without its ending, or the one it is the past of
    bases = {verb, verb[:-1], verb[:-2], words.IRREGULAR_PARTICIPLES.get(verb, verb)}
    return not any(
        b == action or any(b in family and action in family for family in words.FAMILIES) for b in bases
    )


# Words of an argument that holds a sum of money.
_MONEY_CUES = frozenset(
    {"amount", "price", "cost", "fee", "payment", "sum", "money", "balance", "total", "fare", "rent"}
    | {"deposit", "charge", "bill", "credit", "debit", "refund", "overpayment", "salary", "tip"}
)
# Words said right after a sum that name no other thing: a sum's own nouns and adjectives.
_OF_A_SUM = frozenset(_MONEY_CUES | {"outstanding", "owed", "due", "remaining", "left", "extra"})


def _money(spec: ArgumentSpec, slot: _Slot | None) -> bool:
    """Whether the argument is a sum of money: its query says a currency, or its words a sum's."""
    return (slot is not None and slot.currency is not None) or not _MONEY_CUES.isdisjoint(spec.cues)


def _counts_a_thing(text: str, start: int, end: int, lang: str | None) -> bool:
    """Whether the number at ``start:end`` counts a thing said right after it ("50 flowers", "a 50
    word message"), not money: a plural noun, or a word and then another, neither a currency,
    a sum's word, a period, a scale or a word that stands beside any value."""
    if _currency_at(text, start, end) is not None:
        return False
    after = _WORD.findall(text[end : end + 40].casefold())[:2]
    if not after or not re.match(r"\s+[a-zà-ÿ]", text[end:], re.IGNORECASE):
        return False

    def plain_noun(word: str) -> bool:
        return (
            len(word) >= 3
            and word not in words.BESIDE_NAME
            and word not in _SMALL
            and word not in _OF_A_SUM
            and word not in _PERIOD_WORDS
            and word not in _NO_NOUN
            and not _mentions(word, lang)
            and word not in _spoken_contractions()
        )

    first = after[0]
    if not plain_noun(first) or _MORE_AFTER.match(text, end) or not _OF_A_SUM.isdisjoint(after):
        return False  # "my 48 gas bill": the sum of the bill named after it
    plural = first.endswith("s") and not first.endswith("ss")  # "is", "was", "this" stand beside values
    return plural or (len(after) > 1 and plain_noun(after[1]))


# Words after a number that are no noun, some of them ending like a plural.
_NO_NOUN = frozenset(
    {"towards", "toward", "afterwards", "always", "perhaps", "plus", "minus", "upwards", "besides"}
    | {"across", "unless", "whereas", "yes", "thanks", "please", "tops", "max", "odd", "ish"}
)
# The periods a sum is said per, as a noun or an adverb ("a month", "monthly"), and its words.
_PERIOD_WORDS = frozenset(_PERIOD_OF) | frozenset(_PERIOD_OF.values()) | {"each", "per", "every"}


def ends(spec: ArgumentSpec) -> bool:
    """Whether the argument is where a span of time ends (a return, a drop-off, a check-out)."""
    return bool(set(spec.cues) & {"dropoff", "return", "end", "until", "checkout", "out", "back", "last"})


_NEG_BEFORE = re.compile(r"\b(?:not|can'?t|cannot|won'?t|don'?t|no sooner|isn'?t|aren'?t)\b[^.?!]*$", re.I)


def _after_negation(text: str, start: int) -> bool:
    """ "I can't go until the 10th": the 10th is the earliest the caller can, not a denial of it."""
    return _NEG_BEFORE.search(text[max(0, start - 50) : start]) is not None


def said_in(text: str, spec: ArgumentSpec, request: TraceRequest) -> list[Said]:
    """Every place ``text`` gives ``spec`` a value: its own, then others of its kind, each judged."""
    out = [judge_span(text, s, e, spec, request, same=True) for s, e in value_spans(text, spec, request)]
    out += [
        judge_span(text, s, e, spec, request, same=False) for s, e in other_value_spans(text, spec, request)
    ]
    if spec.kind in ("time", "date", "weekday") and any(
        x.fits for x in out if _bound_at(text, x.start) is None
    ):
        # "be in rome by friday, so fly me out on thursday": a value said outright, not the
        # latest it may be, is the one the caller gives.
        out = [
            dataclasses.replace(x, rule="trace.value.bound")
            if x.fits and _bound_at(text, x.start) == "by"
            else x
            for x in out
        ]
    out = _of_another_one(text, _put_aside(text, out))
    slot = _slot(request.template, spec.name)
    if spec.kind == "number" and (spec.unit == "people" or (slot is not None and slot.unit == "people")):
        counted = people_counts(text)
        out = [x for x in out if not any(a <= x.start < b for a, b, _ in counted)]
        for a, b, n in counted:
            same = spec.norm is not None and spec.norm.key == str(n)
            out.append(Said(spec.name, a, b, same, "trace.value", text[a:b]))
    if spec.kind == "number":
        # "the half seven one", "this one": a pronoun, not a number of anything; "one seat"
        # counts what follows it.
        out = [
            x
            for x in out
            if x.same or x.words.casefold() not in ("one", "ones") or unit_at(text, x.end) is not None
        ]
    return sorted(out, key=lambda s: s.start)


# Words that put the value after them aside for another ("friday instead of thursday"); "not"
# does so only after another value of the argument in the same sentence ("friday, not thursday";
# "not thursday" alone is a no to it, read as one).
_ASIDE_BEFORE = re.compile(
    r"\b(?P<words>instead of|rather than|in place of|and not|but not|not)\s+"
    r"(?:(?:on|at|for|in|by|to|from|the|a|an)\s+){0,2}$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?;]")


def _put_aside(text: str, out: list[Said]) -> list[Said]:
    """``out`` with every value said as the one another takes the place of marked
    ``trace.value.replaced``: after "instead of", "rather than" or "in place of", or after "not"
    that follows another value of the argument in the same sentence."""
    marked = []
    for x in out:
        found = _ASIDE_BEFORE.search(text[max(0, x.start - 40) : x.start])
        if found is not None:
            plain_not = found.group("words").casefold() in ("not", "and not", "but not")
            before = text[: x.start - (len(found.group(0)))]
            if not plain_not or any(
                y is not x and y.end <= len(before) and _SENTENCE_END.search(text[y.end : x.start]) is None
                for y in out
            ):
                x = dataclasses.replace(x, rule="trace.value.replaced")
        marked.append(x)
    return marked


# A second one of the thing, asked for after the first in the same sentence ("a taxi at seven,
# and another one back at six").
_ANOTHER_ONE = re.compile(
    r"\b(?:and|plus|also|then|with)\s+(?:another|a second)\s+(?:one|of (?:those|them|these))\b", re.IGNORECASE
)


def _of_another_one(text: str, out: list[Said]) -> list[Said]:
    """``out`` with every value said for a second one of the thing, after a value of the
    argument said for the first in the same sentence, marked ``trace.value.another``: it is the
    second one's, and changes nothing of the first's."""
    marked = []
    for x in out:
        if any(
            y is not x
            and y.end <= x.start
            and _SENTENCE_END.search(text[y.end : x.start]) is None
            and _ANOTHER_ONE.search(text[y.end : x.start]) is not None
            for y in out
        ):
            x = dataclasses.replace(x, rule="trace.value.another")
        marked.append(x)
    return marked


_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10,
}  # fmt: skip
_COUNT = r"(\d+|one|two|three|four|five|six|seven|eight|nine|ten)"


def _count(word: str) -> int | None:
    return int(word) if word.isdigit() else _NUMBER_WORDS.get(word.casefold())


def people_counts(text: str) -> list[tuple[int, int, int]]:
    """How many people the caller counts, where they say it: "just me" 1, "me and my wife" 2,
    "me and three friends" 4, "me, my husband and our two kids" 4."""
    folded = text.casefold()
    out: list[tuple[int, int, int]] = []
    partners = "|".join(sorted(words.PARTNERS))
    people = "|".join(sorted(words.PEOPLE))
    patterns: list[tuple[str, int]] = [
        (
            rf"\b(?:me|myself)\s*,?\s+(?:my|our)\s+(?:{partners})\s*,?\s+and\s+(?:our|my)\s+{_COUNT}\s+(?:{people})\b",
            2,
        ),
        (rf"\b(?:me|myself|i)\s+and\s+{_COUNT}\s+(?:\w+\s+)?(?:{people}|others|more)\b", 1),
        (r"\b(?:just|only)\s+(?:me|myself)\b(?!\s*(?:,\s*)?and\b)|\bon my own\b|\bby myself\b", -1),
        (r"\bboth of us\b|\bthe two of us\b|\bme and you\b", -2),
        # "a group of one", "a party of three": the people counted
        (
            rf"\b(?:group|party)\s+of\s+{_COUNT}\b(?!\s+(?:\w+\s+)?(?:days?|nights?|hours?|weeks?|bags?|rooms?))",
            0,
        ),
        # "a cab for one to get there", "a table for one please": one, counting nothing named
        (
            r"\bfor one(?:\s+person)?\b(?=\s*(?:[,.!?;]|$|(?:to|please|only|and|at|on|in|from|"
            r"tonight|today|tomorrow|now)\b))",
            -1,
        ),
        (rf"\b(?:me|myself|i)\s*,?\s+(?:and\s+)?(?:my|our|a|an)\s+(?:{partners})\b", -2),
        (rf"\b(?:my|our)\s+(?:{partners})\s+and\s+(?:i|me|myself)\b", -2),
    ]
    for pattern, value in patterns:
        for m in re.finditer(pattern, folded):
            if any(a <= m.start() < b or a < m.end() <= b for a, b, _ in out):
                continue
            if value >= 0:  # a count said, plus the people it leaves out ("me and three friends")
                n = _count(m.group(1))
                if n is not None:
                    out.append((m.start(), m.end(), n + value))
            else:
                out.append((m.start(), m.end(), -value))
    return out


_PROPOSED = re.compile(
    r"\b(?:i meant|i mean|make it|make that|change it to|switch (?:it |me )?to|rather)\s+"
    r"(?:(?:the|a|an|my)\s+)?([^\W\d_][\w'’&-]*(?:\s+[^\W\d_][\w'’&-]*){0,2})",
    re.IGNORECASE,
)


# "I'd rather go somewhere with 5 stars": a place of some kind, no name.
_SOME_PLACE = frozenset(
    {"somewhere", "something", "someplace", "anywhere", "anything", "elsewhere", "go", "have", "get"}
)


def proposed_names(text: str) -> list[str]:
    """The names a change proposes ("sorry, I meant the vet", "make it Premium Plus").

    A number, a day or a time is a value, not a name ("make it four").
    """
    out = []
    for m in _PROPOSED.finditer(text):
        if _mentions(m.group(1), None) or m.group(1).split()[0].casefold() in _NOT_A_NAME_START:
            continue  # "make it in the evening", "make it for two": when or how many, not a name
        said = [
            w
            for w in m.group(1).split()
            if w.casefold() not in words.BESIDE_NAME
            and w.casefold() not in _SMALL
            and w.casefold() not in _SOME_PLACE
        ]
        if said:
            out.append(" ".join(said))
    return out


# The kinds of business or home whose written name may start with a town's ("Belmont Apartment
# Homes"), unlike a hotel's, an airport's or a station's, which holds the town it is in.
_NAMED_AFTER_A_TOWN = _KIND_OF_PLACE - {"hotel", "inn", "motel", "suites"}
_WRITTEN_KIND = re.compile(r"[ \t]+(?:[A-Z][\w'’&-]*[ \t]+)?([A-Z][a-zé]+)\b")


_DETERMINERS = _ARTICLES | {"this", "that", "his", "her", "their"}


def _kind_of_thing(word: str) -> bool:
    """Whether ``word`` is a word for a kind of thing the lists know ("appointment", "visit")."""
    return word in words.MEETINGS or word in words.KINDS_OF_ITEM or any(word in f for f in words.FAMILIES)


def _names_a_business(text: str, end: int) -> bool:
    """Whether a capitalised word of a business's or a home's kind follows a name ending at
    ``end`` in written words, at most one other capitalised word between ("Belmont Apartment
    Homes", "Napa Valley Grill")."""
    kind = _WRITTEN_KIND.match(text, end)
    return kind is not None and kind.group(1).casefold() in _NAMED_AFTER_A_TOWN


def agent_offers(text: str, spec: ArgumentSpec, request: TraceRequest) -> list[tuple[int, int]]:
    """Where the agent's words name this argument's value (an offer the caller may take up).

    A time the agent says without a part of the day offers only its own reading ("9:30"
    offers 09:30, not 21:30): the caller taking it up cannot have meant the other.
    """
    if spec.kind == "time" and spec.norm is not None:
        return [(m.start, m.end) for m in _mentions(text, request.lang) if m.value == spec.norm]
    spans = value_spans(text, spec, request)
    if spec.kind != "text":
        return spans
    # A short form inside a longer name offers nothing ("Seattle Vs La Angels" is no trip to Los
    # Angeles); the full name does, even inside a longer one ("Los Angeles Union Station",
    # "Gynecologist Carla Stelling, MD"), unless it is a title that goes on ("the album After
    # Laughter" offers no film called "After"): a place or a value of a known set always does.
    full = " ".join(spec.shown.casefold().split())
    # A place, or a value of a known set ("a nice standard Accord"), is itself inside a longer name.
    whole_anyway = spec.role is not None or bool(PLACE_CUES & set(spec.cues)) or bool(spec.choices)
    # A word of a known set the argument does not list ("night" of the parts of a day, for a song)
    # is a value alone, not when it opens a longer name ("the album Night Visions").
    known_word = not whole_anyway and bool(alternatives_of(spec.shown))
    written = any(ch.isupper() for ch in text)
    core = " ".join(_without_kind(spec).casefold().split())
    # The name without the word for its kind, followed by another such word ("the hair stylist"
    # for "Hair salon"), is the name of another thing.
    spans = [
        (s, e)
        for s, e in spans
        if not (core and " ".join(text[s:e].casefold().split()) == core and _another_word_after(text, e))
    ]
    if whole_anyway and not _is_street_address(spec.shown):
        # A town inside a street address is the street's name: "located at 2005 San Jose Drive"
        # offers nothing in San Jose; nor does a town that starts the written name of a business
        # or a home named after it ("Belmont Apartment Homes", "the Belmont Grill"), which a
        # hotel's, an airport's or a station's name holding its town does.
        spans = [
            (s, e) for s, e in spans if not _in_street_address(text, s, e) and not _names_a_business(text, e)
        ]
    # A word in lower case where a verb goes ("Can I help with anything else?") is that verb,
    # not the one-word title "Help".
    spans = [(s, e) for s, e in spans if not (" " not in full and _as_a_verb(text, s, e))]
    if not whole_anyway:
        # A word of a longer item of a list read out offers nothing, whatever its capitals ("A
        # madea Family funeral, Auntie mame, and dr. strangelove" offers no film "Family").
        spans = [(s, e) for s, e in spans if not _inside_listed_item(text, s, e)]
        if spec.shown[:1].isupper() and " " not in full and _kind_of_thing(full):
            # A word for a kind of thing, in lower case after a determiner, speaks of one: "Your
            # appointment has been made." offers no event called "Appointment" (a name may be
            # written in lower case: "a psychologist called bert epstein").
            spans = [
                (s, e)
                for s, e in spans
                if not (text[s : s + 1].islower() and set(_before_words(text, s, 1)[:1]) & _DETERMINERS)
            ]
    return [
        (s, e)
        for s, e in spans
        if (
            " ".join(text[s:e].casefold().split()) == full
            # in words written without capitals nothing shows where a title ends: one word of it
            # after another unknown word ("a madea family funeral") offers no film "Family"
            and (
                whole_anyway
                or (
                    known_word
                    and not (text[s : s + 1].isupper() and _NAME_GOES_ON.match(text, e))
                    and not _name_comes_before(text, s)
                )
                or (
                    written
                    and _NAME_GOES_ON.match(text, e) is None
                    # one word after a longer name's words is its last ("Blue Jean Night"); a
                    # name of more words keeps what comes before it ("the Family Counselor
                    # Leininger Anne")
                    and not (" " not in full and _name_comes_before(text, s))
                )
                or (not written and (" " in full or _opens_a_name(text, s)))
            )
        )
        or _whole_name(text, s, e, request)
    ]


# A capitalised word right before a name (spaces alone between), itself not the first word of its
# sentence nor a possessive: the name is the end of a longer one ("his Barefoot Blue Jean Night").
_CAPITAL_BEFORE = re.compile(r"(?:^|[^\s.!?:;,\"(])\s+([A-Z][\w'’-]*)[ \t]+$")


_VERB_BEFORE = frozenset(
    # not "to": "go to alice's" names a place
    {"can", "could", "may", "might", "shall", "should", "will", "would", "must", "i", "we", "you"}
    | {"they", "let's", "lets", "please", "do", "does", "did", "not", "don't", "dont", "also", "just"}
)


def _as_a_verb(text: str, start: int, end: int) -> bool:
    """Whether the word at ``start:end``, written in lower case, stands where a verb does: right
    after a modal or a subject pronoun ("can I help", "we'll love it"). Pure."""
    word = text[start:end]
    if word != word.casefold():
        return False
    before = re.findall(r"[a-z']+", text[max(0, start - 30) : start].casefold())
    return bool(before) and before[-1] in _VERB_BEFORE


def _name_comes_before(text: str, start: int) -> bool:
    """Whether a longer name's earlier words come right before ``start`` ("off of his Barefoot
    Blue Jean Night" offers no song "Night", nor "Jean Night"). Pure."""
    found = _CAPITAL_BEFORE.search(text[max(0, start - 80) : start])
    if found is None:
        return False
    word = found.group(1)
    return not (re.search(r"['’]s?$", word) or word in ("I", "I'm", "I'd", "I'll"))


def _another_word_after(text: str, end: int) -> bool:
    """Whether a word that may belong to a name follows ``end`` (not punctuation, not a function
    word: "Royal Rangoon is", "at Royal Rangoon?")."""
    if re.match(r"\s*[,;:.!?()]", text[end:]) or not text[end:].strip():
        return False
    after = _after_words(text, end, 1)
    return (
        bool(after)
        and after[0] not in words.BESIDE_NAME
        and after[0] not in _SMALL
        and after[0] not in _ARTICLES
    )


def _opens_a_name(text: str, start: int) -> bool:
    """Whether the word before ``start`` is one a name does not take ("a blueface concert")."""
    before = _before_words(text, start, 1)
    return not before or before[0] in _ARTICLES or before[0] in words.BESIDE_NAME


# A capitalised word right after a name in written words: the name goes on ("After Laughter").
_NAME_GOES_ON = re.compile(r"[ \t]+[A-Z][a-z]")


# A list of three or more names read out after a lead (the start of a sentence, a colon, "there's",
# "i found"): items of one to four words, no digits, to the end of the sentence. The items' words
# are the items' own, in whatever case they were written.
_LIST_ITEM = r"[^\W\d_][\w'’&-]*(?:\s+[^\W\d_][\w'’&-]*){0,3}"
LIST_LEAD = (
    r"(?:^|[:.!?]\s*|\b(?:there(?:'s| is| are)|i (?:have|found)|we have|found|how about|what about|"
    r"options are|including|either)\s+)"
)
READ_OUT_LIST = rf"(?:{_LIST_ITEM},\s+)+(?:{_LIST_ITEM},?\s+)?(?:and|or)\s+{_LIST_ITEM}"
_LIST_LEAD = re.compile(LIST_LEAD, re.IGNORECASE)
_LIST_BODY = re.compile(rf"{READ_OUT_LIST}(?=\s*(?:[.?!]|$))", re.IGNORECASE)
_ITEM_SEPARATOR = re.compile(r",\s+(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)


def _listed_items(text: str, start: int, end: int) -> list[str]:
    """The other items of the list read out that ``start:end`` is in (none when it is in none):
    "Auntie mame" and "dr. strangelove" beside "A madea Family funeral". Pure."""
    lists = (_LIST_BODY.match(text, lead.end()) for lead in _LIST_LEAD.finditer(text, 0, start + 1))
    spans = [m.span() for m in lists if m is not None and m.start() <= start and end <= m.end()]
    if not spans:
        return []
    first, last = max(spans)
    cuts = [x for sep in _ITEM_SEPARATOR.finditer(text, first, last) for x in sep.span()]
    bounds = [first, *cuts, last]
    out = []
    for a, b in zip(bounds[::2], bounds[1::2], strict=False):
        said = [w for w in text[a:b].split() if w.casefold() not in _ARTICLES]
        if not said or said[0].casefold().strip(".,?!") in words.BESIDE_NAME:
            # "Sakura, on Park Row, with a terrace and a bar", "To whom, and from which account,
            # checking or savings?": a phrase that opens with a word of the sentence around names
            # (on, with, to, from) makes the list a description, not names to choose from
            return []
        if not (a <= start and end <= b):
            out.append(text[a:b])
    return out


def _inside_listed_item(text: str, start: int, end: int) -> bool:
    """Whether ``start:end`` is an item's later word in a list read out: another word of the item,
    not an article, comes before it ("A madea Family funeral" has "madea" before "Family"). A
    value that opens its item ("I also found Sakura, on Park Row, ...") is the item's name.

    The list is read from the lead nearest before the value ("found", not the sentence's start,
    whose first item would hold "I also found"). Pure.
    """
    lists = (_LIST_BODY.match(text, lead.end()) for lead in _LIST_LEAD.finditer(text, 0, start + 1))
    spans = [m.span() for m in lists if m is not None and m.start() <= start and end <= m.end()]
    if not spans:
        return False
    first, last = max(spans)
    cuts = [x for sep in _ITEM_SEPARATOR.finditer(text, first, last) for x in sep.span()]
    bounds = [first, *cuts, last]
    for a, b in zip(bounds[::2], bounds[1::2], strict=False):
        if a <= start and end <= b:
            return any(w not in _ARTICLES for w in _WORD.findall(text[a:start].casefold()))
    return False


# The words of an argument that holds a place.
PLACE_CUES = frozenset(
    {"location", "city", "address", "place", "airport", "station", "destination", "origin", "venue", "where"}
)


_ALTERNATIVE_AFTER = re.compile(
    r"^\s*,?\s*or\s+(?:(?:the|a|an|maybe|perhaps)\s+)?([^\W\d_][\w'’&-]*(?:\s+[^\W\d_][\w'’&-]*){0,2})", re.I
)
_ALTERNATIVE_BEFORE = re.compile(
    r"(?:^|[,:]\s*|\b(?:have|offer|do|got|either)\s+)(?:(?:the|a|an)\s+)?([^\W\d_][\w'’&-]*(?:\s+[^\W\d_][\w'’&-]*){0,2})\s+or\s*$",
    re.I,
)


# A list of two names ("Hotel Mumbai and Pet Sematary"): each side a name, capitalised.
_NAME_WORDS = r"((?-i:[A-Z])[\w'’&-]*(?:\s+(?:of|the|de|la|le|von|van|(?-i:[A-Z])[\w'’&-]*)){0,3})"
_NAMED_AFTER = re.compile(rf"^\s*,?\s*and\s+(?:the\s+)?{_NAME_WORDS}")
_NAMED_BEFORE = re.compile(rf"(?:^|[,:;–—-]\s*|\s){_NAME_WORDS}\s*,?\s+and\s*$")


def alternatives(text: str, start: int, end: int) -> list[str]:
    """The options the agent names beside a value ("compact or a people carrier"; "Lotus or Sapori";
    "Hotel Mumbai and Pet Sematary", when the value is itself a name)."""
    out = []
    after = _ALTERNATIVE_AFTER.match(text[end:])
    if after is not None:
        out.append(after.group(1))
    before = _ALTERNATIVE_BEFORE.search(text[:start])
    if before is not None:
        out.append(before.group(1))
    if text[start:end][:1].isupper():
        for found in (_NAMED_AFTER.match(text[end:]), _NAMED_BEFORE.search(text[:start])):
            if found is not None and found.group(1).casefold() not in words.BEFORE_NAME:
                out.append(found.group(1))
    # A list of three or more read out, whatever the value's own case ("A madea Family funeral"
    # is found without its article): the list's other items.
    out += [item for item in _listed_items(text, start, end) if item.casefold() not in words.BEFORE_NAME]
    cleaned = []
    for option in out:
        said = [w for w in option.split() if w.casefold().strip(".,?!") not in words.BESIDE_NAME]
        while said and said[-1].casefold().strip(".,?!") in _SMALL:
            said.pop()
        if said:
            cleaned.append(" ".join(w.strip(".,?!") for w in said))
    return cleaned


def picks(caller_text: str, offered: str, agent_text: str) -> bool:
    """Whether the caller names the offered name by a word only it has ("Sapori" for "Sapori
    Trattoria" when the agent also offered "Lotus Garden"; not "Unlimited Max" for "Unlimited Max
    Plus" when the agent offered both)."""
    name = [t for t, _, _ in _folded_tokens(offered) if t not in ("the", "a", "an")]
    said = {t for t, _, _ in _folded_tokens(caller_text)}
    at = agent_text.casefold().find(offered.casefold())
    rest = agent_text[:at] + agent_text[at + len(offered) :] if at >= 0 else agent_text
    elsewhere = {t for t, _, _ in _folded_tokens(rest)}
    unique = [
        t
        for t in name
        if len(t) > 2 and t not in elsewhere and t not in words.BESIDE_NAME and not _word_of_a_kind(t)
    ]
    return any(t in said for t in unique)


def _word_of_a_kind(token: str) -> bool:
    """Whether a word of a name is a word the lists know for a kind of thing ("Apartments" of
    "Clayton Creek Apartments"): a caller who says it ("can you find me apartments with 1 bed
    room?") names the kind, not the one offered."""
    singular = token[:-1] if token.endswith("s") else token
    return any(token in f or singular in f for f in words.FAMILIES)


def shorter_form(caller_text: str, offered: str) -> bool:
    """Whether the caller names an offered name by a distinctive part ("Sapori" for "Sapori Trattoria")."""
    name = [t for t, _, _ in _folded_tokens(offered) if t not in ("the", "a", "an")]
    said = {t for t, _, _ in _folded_tokens(caller_text)}
    distinctive = [t for t in name if len(t) > 3 and t not in words.BEFORE_NAME and t not in _SMALL]
    return bool(distinctive) and distinctive[0] in said


def kinds_in(text: str, lang: str | None) -> set[str]:
    return {m.value.kind for m in _mentions(text, lang)}


def names_value_of_kind(text: str, kinds: Sequence[str], lang: str | None) -> bool:
    return bool(kinds_in(text, lang) & set(kinds))


_KEY_MIN = 4  # a shorter key ("mon", "gym"'s stem) is inside too many other words to search by


def search_keys(request: TraceRequest) -> tuple[str, ...]:
    """Words that a statement giving one of the request's values must hold, in some form: what
    finds the caller's memories that state a value when their meaning is far from the query's
    (another language, a pointer: "the basic tier is pointless for me now").

    An identifier as said and without its separators; a name and its longest word; a number of
    two digits or more; a weekday's name and a listed value's words in every language (folded:
    accents are matched by :func:`search_pattern`). Other kinds (times, dates, small numbers)
    have too many spoken forms to search by, and give no key. Lower case.
    """
    out: set[str] = set()
    digits: set[str] = set()
    for spec in request.bound:
        if spec.at_default or spec.norm is None:
            continue
        shown = spec.shown.strip().casefold()
        if spec.kind == "ident":
            out |= {shown, re.sub(r"[\s\-_./]", "", shown)}
        elif spec.kind == "text":
            out.add(shown)
            longest = max(_WORD.findall(shown), key=len, default="")
            out.add(longest)
            out |= set(words_for(shown))  # "agua", "Wasserrechnung": the value in another language
        elif spec.kind == "number" and spec.norm.key.split(".")[0].lstrip("-").isdigit():
            whole = spec.norm.key.split(".")[0].lstrip("-")
            if len(whole) >= 2:
                digits.add(whole)
        elif spec.kind == "weekday":
            out |= _weekday_names(spec.norm.key)
    return tuple(sorted({k for k in out if len(k) >= _KEY_MIN} | digits))


@lru_cache(maxsize=16)
def _weekday_names(key: str) -> frozenset[str]:
    return frozenset(
        str(name).casefold()
        for lang in lang_data.languages()
        for name, day in lang.table("weekdays").items()
        if day == key
    )


def search_pattern(key: str) -> str:
    """A SQL ``LIKE`` pattern (escaped with ``!``) for a search key, any letter standing for itself
    or its accented forms: the language data is folded ("miercoles"), a memory is not
    ("miércoles"). A vowel matches any one character."""
    escaped = key.casefold().replace("!", "!!").replace("%", "!%").replace("_", "!_")
    return "%" + re.sub(r"[aeiouy]", "_", escaped) + "%"
