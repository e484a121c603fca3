"""Values said in parts, the way speech-to-text writes them, read for one value at a time.

"two forty five" is 14:45, "six fifty" 6.50 or 650, "four eight two one three" 48213, "five oh
nine" and "double oh four" digits with zeros and repeats, "x seventy seven" X-77, "fourteen c"
14C. Only a value asked about is read this way (a pending value to confirm, a bound argument to
trace): numbers that make no such value stay what they are. Confirmation and evidence both read
parts here, so a form one of them understands the other does too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from gate import lang as lang_data
from gate.lang.text import fold
from gate.values import Mention, Value


@dataclass(frozen=True)
class _Words:
    zero_words: frozenset[str]
    repeat_words: dict[str, int]
    clock_joiners: dict[str, str]


@lru_cache(maxsize=1)
def W() -> _Words:
    return _Words(
        zero_words=lang_data.union_words("zero_words"),
        repeat_words={k: int(v) for k, v in lang_data.union_table("repeat_words").items()},
        clock_joiners={k: str(v) for k, v in lang_data.union_table("clock_joiners").items()},
    )


def said_as_parts(
    words: str, fresh: list[Mention], pending: tuple[Value, ...]
) -> tuple[list[Mention], list[tuple[int, int]]]:
    """Numbers that together say a pending value: a time ("two forty five" for 14:45, "nine 15",
    "2.45"), an amount ("three twenty" for 320, "six fifty" for 6.50 or 650), digits one by one
    ("four eight two one three" for 48213), or a number and a letter ("fourteen c" for seat 14C).
    Only a pending value is read this way; numbers that make no pending value stay new values.
    Returns the mentions that are parts of a pending value, and the spans of letters that are.
    """
    if not pending:
        return [], []
    found: list[Mention] = []
    letters: list[tuple[int, int]] = []
    keys = {v.key for v in pending if v.kind in ("number", "ident")}
    k = 0
    while k < len(fresh):
        a = fresh[k]
        run, digits = _digit_run(words, fresh, k)
        lead = _lead_start(words, run[0].start) if len(run) >= 2 else 0
        spelled = _letters_before(words, lead, digits, keys) if len(run) >= 2 else None
        if len(run) >= 2 and (spelled or digits in keys or digits.lstrip("0") in keys):
            found.extend(run)
            if spelled is not None:
                letters.append(spelled)  # "h c" of "h c three oh four"
            letters.append((lead, run[-1].end))  # with "oh", "double" and "triple" inside it
            k += len(run)
            continue
        b = fresh[k + 1] if k + 1 < len(fresh) else None
        joiner = fold(words[a.end : b.start].strip()) if b is not None else "-"
        if (
            b is not None
            and (joiner == "" or joiner in W().clock_joiners)
            and any(_parts_mean(a.value, b.value, v, joiner) for v in pending)
        ):
            found.extend((a, b))
            k += 2
            continue
        before = _letters_before(words, a.start, a.value.key, keys) if a.value.kind == "number" else None
        if before is not None:
            found.append(a)  # "x seventy seven" for X-77, "hc 30418"
            letters.append(before)
            k += 1
            continue
        letter = re.match(r"\s+([a-z])\b", words[a.end :], re.IGNORECASE)
        if letter is not None and a.value.kind == "number" and a.value.key.isdigit():
            ident = a.value.key + letter.group(1).lower()
            if any(v.kind == "ident" and v.key == ident for v in pending):
                found.append(a)
                letters.append((a.end + letter.start(1), a.end + letter.end(1)))
                k += 1
                continue
        if a.value.kind == "number" and re.fullmatch(r"\d{1,2}[.,]\d{2}", words[a.start : a.end].strip()):
            hour, minute = re.split(r"[.,]", words[a.start : a.end].strip())
            as_time = [Value("number", str(int(hour))), Value("number", str(int(minute)))]
            if any(_parts_mean(as_time[0], as_time[1], v) for v in pending if v.kind == "time"):
                found.append(a)
        k += 1
    return found, letters


def _digit_run(words: str, fresh: list[Mention], k: int) -> tuple[list[Mention], str]:
    """Single digits said one after another from ``fresh[k]`` ("four eight two one three", "five
    oh nine", "double oh four five"), and what they spell: "oh" is a zero, "double" and "triple"
    repeat the digit after them. Letters spelled before the digits are read by the caller
    (:func:`_letters_before`)."""
    run: list[Mention] = []
    digits = ""
    for m in fresh[k:]:
        if m.value.kind != "number" or len(m.value.key) != 1 or not m.value.key.isdigit():
            break
        start = run[-1].end if run else _lead_start(words, m.start)
        spelled = _spelled_digits(words[start : m.start].split(), m.value.key)
        if spelled is None:
            if run:
                break
            spelled = m.value.key
        run.append(m)
        digits += spelled
    return run, digits


def _lead_start(words: str, end: int) -> int:
    """Where the zeros and repeats said right before position ``end`` begin ("double oh ")."""
    start = end
    for found in reversed(list(re.finditer(r"[^\W\d_]+", words[:end]))):
        if words[found.end() : start].strip() or fold(found.group()) not in (
            W().zero_words | set(W().repeat_words)
        ):
            break
        start = found.start()
    return start


def _spelled_digits(gap: list[str], digit: str) -> str | None:
    """The digits a gap of zero and repeat words and the digit after it say, or None for other words."""
    out = ""
    times = 1
    for word in (fold(w.strip(",.")) for w in gap):
        if word in W().repeat_words:
            times = W().repeat_words[word]
        elif word in W().zero_words:
            out += "0" * times
            times = 1
        else:
            return None
    return out + digit * times


def _letters_before(words: str, end: int, digits: str, keys: set[str]) -> tuple[int, int] | None:
    """The span of letters spelled right before position ``end`` ("h c " or "hc ", at most three)
    when with ``digits`` they make a pending identifier, else None."""
    found = re.search(r"(?:(?<![\w'])[a-z]\s+){1,3}$|(?<![\w'])[a-z]{2,3}\s+$", words[:end], re.IGNORECASE)
    if found is None or re.sub(r"\s+", "", found.group()).lower() + digits not in keys:
        return None
    return found.start(), found.end()


def _parts_mean(a: Value, b: Value, target: Value, joiner: str = "") -> bool:
    if a.kind != "number" or b.kind != "number" or not (a.key.isdigit() and b.key.isdigit()):
        return False
    first, second = int(a.key), int(b.key)
    meaning = W().clock_joiners.get(joiner, "")
    if target.kind == "time":
        hour, minute = int(target.key[:2]), int(target.key[3:])
        if meaning == "minus":
            first, second = first - 1, 60 - second  # "doce menos veinte": 11:40
        elif meaning == "past":
            first, second = second, first  # "zwanzig nach vier": 4:20
        elif meaning == "to":
            first, second = second - 1, 60 - first  # "zehn vor neun": 8:50
        elif second < 10 and meaning != "oh":
            return False
        return second == minute and 0 <= second < 60 and first in (hour, hour - 12) and 0 < first <= 23
    if target.kind == "number" and 10 <= second < 100 and joiner == "":
        return target.key in (str(first * 100 + second), _decimal(first, second))
    return False


def _decimal(whole: int, cents: int) -> str:
    return f"{whole}.{cents:02d}".rstrip("0").rstrip(".")
