"""Values in an answer: the pending ones said again, in any form, and the new ones.

A pending value said back is neutral ("yes, the 900"); so is the same value in another form:
a day of the month alone ("the 16th"), a weekday the pending date falls on, a time or an amount
said in parts ("two forty five", "three twenty"), digits one by one ("five oh nine"), an
identifier spelled out ("x seventy seven"), a part of the day that holds the pending time. Any
other value is new.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date

from gate import lang as lang_data
from gate.confirm.lexicon import AFF, DEFER, NEG, NEWTIME, WIDE, Table, answer_tokens
from gate.confirm.lexicon import words as W
from gate.confirm.tagging import Tagged, bare, question_terms
from gate.lang.text import fold, stem_match
from gate.values import Value, currency_of, locate, normalise

_WEEKDAY_KEYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def pending_values(pending: Mapping[str, object] | None, lang: str) -> list[Value]:
    values: list[Value] = []
    for raw in (pending or {}).values():
        for value in raw if isinstance(raw, list | tuple) else (raw,):
            try:
                values.append(normalise(value, lang))
            except (ValueError, TypeError):
                continue  # a value that cannot be a value can never be restated
    return values


def pronoun_one(tagged: list[Tagged], covered: list[Tagged]) -> bool:
    """English "one" after a determiner (perhaps with one word between) names a thing, not 1.

    A pending value between them does not count as the word: "the 3 pm one", "that 9:30 one".
    """
    if len(covered) != 1 or covered[0].tok.key not in W().pronoun_one:
        return False
    k = tagged.index(covered[0])
    before = [t.tok.key for t in tagged[:k] if t.tag != "value"][-2:]
    return any(w in W().which_determiners for w in before)


def is_duration(tagged: list[Tagged], covered: list[Tagged]) -> bool:
    """A number followed by a unit of waiting ("two minutes", "cinq secondes") is a deferral."""
    last = tagged.index(covered[-1])
    if last + 1 < len(tagged) and tagged[last + 1].tok.key in W().durations:
        for t in covered:
            t.tag = DEFER
        tagged[last + 1].tag = DEFER
        return True
    return False


def part_of_pending(words: str, pending: tuple[Value, ...], lang: str, tagged: list[Tagged]) -> str:
    """ "yes, just Tuesdays" to "every Tuesday and Thursday?": some of the pending values of one
    kind, and not the others, is a change (unless the caller says "both" or "all")."""
    if any(t.tag == WIDE for t in tagged):
        return ""
    for kind in ("weekday", "date", "time"):
        group = {v for v in pending if v.kind == kind}
        if len(group) < 2:
            continue
        said = {v for v in group if locate(words, v, lang)}
        said |= {v for v in group for t in tagged if W().short_days.get(t.tok.key) == v.key}
        if said and said != group:
            return "only " + ", ".join(sorted(v.key for v in said))
    return ""


def day_of(said: Value, pending: Value) -> bool:
    """ "Thursday" for a pending 2026-05-21, which is a Thursday: the same day, said another way."""
    if said.kind != "weekday" or pending.kind != "date" or pending.key.startswith("-"):
        return False
    try:
        return _WEEKDAY_KEYS[date.fromisoformat(pending.key).weekday()] == said.key
    except ValueError:
        return False


def short_days(tagged: list[Tagged], pending: tuple[Value, ...]) -> None:
    """ "mon wed fri" to "Monday, Wednesday and Friday?": short days are the pending days (alone,
    "mon", "wed", "sat" and "sun" are ordinary words and not read as days)."""
    days = {v.key for v in pending if v.kind == "weekday"}
    for t in tagged:
        if t.tag == "unknown" and W().short_days.get(t.tok.key) in days:
            t.tag = "value"


def only_part(tagged: list[Tagged], question: str, lexicon: Table) -> str:
    """What the answer names when it agrees to only one of two things the question puts together.

    "yes, the gym" to "cancel your gym membership and your magazine subscription?" is a change:
    the caller named one of the two. Only the two things' own words count, not the verb.
    """
    # The two things are asked together in one question ("... and your magazine subscription?"),
    # not two details stated one after the other ("... at 3 pm and the appointment is on the 12th.").
    asked = [s for s in re.split(r"(?<=[.!?])\s+", " ".join(question.split())) if s.endswith("?")]
    found = next((m for m in (W().two_things.match(fold(s)) for s in asked) if m is not None), None)
    if found is None:
        return ""
    thing_a = W().last_determiner.sub(
        "", found.group("a")
    )  # "Shall I cancel both your gym membership" -> "gym membership"
    # German puts the verb last ("... und das Zeitschriften-Abo kündigen?"): it is no thing.
    words = [t.key for t in answer_tokens(question) if t.key not in ("?", "¿")]
    last = words[-1] if words and lang_data.language(lexicon.lang).flag("verb_last") else ""
    table = lexicon.phrases
    a, b = question_terms(thing_a, table) - {last}, question_terms(found.group("b"), table) - {last}
    only_a, only_b = frozenset(a - b), frozenset(b - a)
    said = {bare(t.tok.key) for t in tagged if t.tag not in (AFF, NEG)}
    named_a = {w for w in said if stem_match(w, only_a)}
    named_b = {w for w in said if stem_match(w, only_b)}
    if bool(named_a) != bool(named_b) and not any(t.tag == WIDE for t in tagged):
        return "only " + " ".join(sorted(named_a or named_b))
    return ""


def daypart_hours(key: str) -> range | None:
    """The hours a part of the day covers ("evening", "Montagabend"), or None."""
    span = W().daypart_hours.get(key)
    if span is not None:
        return span
    for day in W().compound_days:
        if key.startswith(day) and len(key) > len(day):
            return W().compound_dayparts.get(key[len(day) :].removesuffix("s"))
    return None


def compound_dayparts(tagged: list[Tagged]) -> None:
    """ "Montagabend" is a day and a time of day: a new time unless the pending time is in it."""
    if not W().compound_days:
        return
    for t in tagged:
        if t.tag == "unknown" and t.tok.key not in W().daypart_hours and daypart_hours(t.tok.key):
            t.tag = NEWTIME


def resolve_dayparts(tagged: list[Tagged], pending: tuple[Value, ...]) -> None:
    """A part of the day restates the pending time when it holds it; for a window ("between 8 am
    and 1 pm") it must hold the window's start: "afternoon" is not that morning slot."""
    hours = (
        {min(int(v.key[:2]) for v in pending if v.kind == "time")}
        if any(v.kind == "time" for v in pending)
        else set()
    )
    if not hours:
        return
    consistent: set[int] = set()
    for k, t in enumerate(tagged):
        span = daypart_hours(t.tok.key)
        if t.tok.key in W().article_dayparts and k > 0 and tagged[k - 1].tok.key in W().articles:
            span = W().article_dayparts[t.tok.key]  # "por la mañana"; "mañana" alone is tomorrow
        today = k > 0 and tagged[k - 1].tok.key in W().this_words
        if t.tag in (NEWTIME, "unknown") and span is not None and not today and any(h in span for h in hours):
            consistent.add(t.phrase)
    for t in tagged:
        if t.phrase in consistent:
            t.tag = "value"


def closes_value(tagged: list[Tagged], k: int) -> bool:
    """Whether the word at ``k`` comes right after a pending value, or after it and its unit
    ("299 only", "299 rupees only")."""
    before = tagged[k - 1] if k > 0 else None
    if before is not None and before.tag == "value":
        return True
    unit = before is not None and (before.tag == "qterm" or currency_of(before.tok.key) is not None)
    return unit and k > 1 and tagged[k - 2].tag == "value"
