"""A value the caller never said, for the negative replay.

For one required argument of a transaction (chosen from the dialogue id, so the same
run picks the same one), another value of the same kind: another valid value of a
categorical slot, a date a few days off, a time a few hours off, another number, or
another value the same slot takes elsewhere in the split. Every candidate is checked
against everything the caller said in the dialogue, in the forms a caller says it, and
against SGD's own labels of the caller's acts (a value the caller gave in any form, "San
Fran" for San Francisco, for any service), so the replaced value is not the caller's.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import date, timedelta

from bench.sgd import data
from bench.sgd.tools import IntentTool, Param

_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_ORDINAL = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
Pools = dict[tuple[str, str], list[str]]


def pools(transactions: Iterable[data.Transaction]) -> Pools:
    """Every value each (service, slot) takes in the split's service calls, sorted."""
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for tx in transactions:
        for slot, value in tx.parameters.items():
            seen[(tx.intent.service, slot)].add(value)
    return {k: sorted(v) for k, v in seen.items()}


def caller_words(tx: data.Transaction) -> str:
    """Everything the caller said in the dialogue up to the service call, folded."""
    turns = (*tx.before, tx.answer, *tx.after)
    return _fold(" ".join(t.text for t in turns if t.speaker == "caller"))


def _fold(text: str) -> str:
    return " " + re.sub(r"[^a-z0-9:$]+", " ", text.lower()).strip() + " "


def _said(phrase: str, words: str) -> bool:
    folded = _fold(phrase)
    return folded.strip() != "" and folded in words


def choose(
    tx: data.Transaction, spec: IntentTool, values: dict[str, str], found: Pools, *, seed: int = 1
) -> tuple[str, str] | None:
    """(argument, value) to put in place of one required argument's, or None when none can be replaced.

    ``values``: what the tool is about to be called with (slot -> SGD text).
    """
    words = caller_words(tx)
    required = [p for p in spec.params if p.required and p.name in values]
    if not required:
        return None
    digest = hashlib.sha256(f"{seed}:{tx.dialogue_id}:{spec.name}".encode()).digest()
    start = digest[0] % len(required)
    rng = random.Random(digest)
    for param in required[start:] + required[:start]:
        other = _other(
            param,
            values[param.name],
            words,
            found.get((spec.intent.service, param.name), []),
            rng,
            tx.caller_values,
        )
        if other is not None:
            return param.name, other
    return None


def _other(
    param: Param,
    value: str,
    words: str,
    pool: Sequence[str],
    rng: random.Random,
    said: frozenset[str] = frozenset(),
) -> str | None:
    if param.slot.categorical and param.slot.values:
        candidates = [v for v in param.slot.values if v != value and not _said_value(param, v, words)]
    elif param.form == "date":
        candidates = _dates(value, words)
    elif param.form == "time":
        candidates = _times(value, words)
    elif re.fullmatch(r"\d+", value):
        candidates = _numbers(int(value), words)
    else:
        candidates = [
            v for v in pool if v.lower() != value.lower() and not _said(v, words) and not _same_name(v, value)
        ]
    candidates = [c for c in candidates if c.casefold() not in said]
    return rng.choice(candidates) if candidates else None


_TITLES = frozenset({"dr", "mr", "mrs", "ms", "miss", "prof", "the", "a", "an"})


def _same_name(a: str, b: str) -> bool:
    """Whether two of a slot's values name the same thing in two forms ("Dr. Andrei Simel" and
    "Andrei Simel , Family & Cosmetic Dentisry"): the words of one, titles aside, at least two of
    them, are all in the other."""
    wa, wb = (set(re.findall(r"[a-z0-9]+", x.lower())) - _TITLES for x in (a, b))
    small, large = sorted((wa, wb), key=len)
    return len(small) >= 2 and small <= large


def _said_value(param: Param, value: str, words: str) -> bool:
    if param.kind == "bool":
        return False  # a flag has no word of its own: the other value is never "said"
    if param.kind == "int":
        n = int(value)
        return _said(value, words) or (n < len(_WORDS) and _said(_WORDS[n], words))
    return _said(value, words)


def _numbers(n: int, words: str) -> list[str]:
    steps = (1, 2, 3) if n < 20 else (n // 2, n, n + n // 4)
    out = []
    for step in steps:
        m = n + step
        forms = [str(m), f"{m:,}"] + ([_WORDS[m]] if m < len(_WORDS) else [])
        if not any(_said(f, words) for f in forms):
            out.append(str(m))
    return out


def _dates(value: str, words: str) -> list[str]:
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return []
    out = []
    for shift in (2, 3, 4, 5, 6, 8, 9, 10):
        other = day + timedelta(days=shift)
        n = other.day
        forms = [
            f"{n}{_ORDINAL.get(n, 'th')}",
            f"{_MONTHS[other.month - 1]} {n}",
            f"{n} {_MONTHS[other.month - 1]}",
            _WEEKDAYS[other.weekday()],
            other.isoformat(),
        ]
        if not any(_said(f, words) for f in forms):
            out.append(other.isoformat())
    return out


def _times(value: str, words: str) -> list[str]:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})", value)
    if m is None:
        return []
    hour, minute = int(m.group(1)), int(m.group(2))
    out = []
    for shift in (2, 3, -2, -3, 4, 5):
        h = (hour + shift) % 24
        h12 = h % 12 or 12
        half = "pm" if h >= 12 else "am"
        forms = [f"{h}:{minute:02d}", f"{h12}:{minute:02d}", f"{h12} {half}", f"{h12}{half}"]
        if minute == 0:
            forms += [f"{h12} o clock", f"{_WORDS[h12]} {half}", f"{_WORDS[h12]} o clock"]
        if minute == 30:
            forms += [f"half past {h12}", f"half past {_WORDS[h12]}"]
        if not any(_said(f, words) for f in forms):
            out.append(f"{h:02d}:{minute:02d}")
    return out
