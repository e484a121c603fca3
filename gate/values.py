"""Values as values: numbers, weekdays, times, dates and identifiers in the forms people use.

A tool receives ``amount=1500`` and ``day="thursday"``; a caller, an agent or a memory says
"$1,500.00", "fifteen hundred", "1.5k", "Thurs", "jeudi", "7 p.m." or "19 Uhr". This module turns
both sides into one canonical :class:`Value` so that they can be compared as values, never as
words: 500 is not in "1,500", and "A-10011" is not "A-1001".

What is understood (English, Spanish, French, German):

- **numbers**: digits with thousands groups ("1,500", "1.500" and "1 500" in the language's
  convention), decimals ("49.50", "49,50"), currency symbols and words before or after ("$",
  "€", "£", "dollars", "euros", "pesos", "Euro"), "k" and "grand", "thousand" / "mil" /
  "mille" / "tausend" and "million" multipliers, "%" and "percent", negative numbers ("-50",
  "minus 50"), and cardinal words up to the millions ("fifteen hundred", "two thousand and five",
  "mil quinientos", "quatre-vingt-dix", "zweitausendfünfhundert", "one point five").
- **weekdays**: full names in the four languages, English abbreviations ("thu", "Thurs").
  "mon", "wed", "sat" and "sun" are ordinary words too, so they count as weekdays only when
  capitalised ("Sat") or after "on", "next", "this", "every", "by", "until", "from".
- **times**: "19:00", "7pm", "7 p.m.", "7.30 pm", "seven thirty pm", "seven in the evening",
  "half past seven", "19 h", "19h30", "sept heures du soir", "19 Uhr", "halb acht", "las siete
  de la tarde", "noon", "midnight". An hour said without a part of the day ("7 o'clock",
  "at seven", "a las siete", "7:30") is ambiguous: it is read as written ("07:00") and also
  matches the afternoon reading ("19:00"); "07:30" with its leading zero is the morning only.
  A value given with an ambiguous hour (``"7 o'clock"``) is the hour as written.
- **dates**: ISO ("2026-03-04"), "March 4", "4th of March", "4 de marzo", "4 mars",
  "4. März", "am vierten März", with or without a year, "4.3.2026"; a date without a year
  matches that day of any year. A day of the month said alone ("the 4th", "on the fourth", "el
  cuatro", "le quatre", "am vierten", "zum 4.") is ``---04``: that day of any month, and the
  number 4 (a ``day_of_month=4`` argument); "the first one" and "the second card" name things.
- **spoken clock forms**: "ten to seven", "twenty five past eight", British "half eight"
  (8:30), "quarter of nine", "dreiviertel drei" (2:45), "zwanzig nach vier", "zehn vor neun",
  "diez y cuarto", "doce menos veinte", "midi moins vingt"; "from ten to seven" and "ten to
  twelve bags" are numbers. A value before "'s" is read ("nine's fine", "the third's").
- **a span of one**: "for a week", "por una semana", "für einen Monat" count 1.
- **identifiers**: a token with letters and digits ("A-1001", "INV77"), or digits with a
  leading zero ("0042"). Compared exactly, case-insensitive; the only tolerance is a separator
  ("-", "_", a space, or none) where letters meet digits: "A-1001", "a1001" and "a 1001" are one
  identifier, "A-10011" and "A-100" are others.

Ambiguity is resolved one way and the other reading is kept: with no language, a single group
of three digits after a separator ("1,500", "1.500") is read as thousands and also matches the
decimal reading; in English "1.500" is 1.5; in Spanish, French and German "1,5" is 1.5 and
"1.500" is 1500.

Not understood (a text with these forms does not mention the value): numbers said as pairs
("forty-nine fifty", "nineteen ninety-nine" read as two numbers), fractions ("half a thousand"),
cents and minor units ("fifty dollars and twenty cents" is 50 and 20), Spanish and French
ordinal words beyond "primero" and "premier" (the cardinal after "el" or "le" is read instead),
relative days ("tomorrow"), numeric dates with slashes (month and day order differ), and Spanish,
French or German abbreviations of weekdays ("mié", "jeu.", "Do").

With ``lang=None`` the four languages are read together, except words that are common English
words in the text of an English speaker ("once", "elf", "null", "cent" are not numbers then).
With a language, that language and English are read (callers mix them).

Everything is deterministic, offline and cached; the functions never raise on odd text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Literal

from gate import lang as lang_data
from gate.lang import Language
from gate.lang.record import Record
from gate.lang.text import Token, fold, fold_with_positions, tokens

__all__ = [
    "CURRENCY_NAMES",
    "Lang",
    "Mention",
    "Value",
    "currencies",
    "currency_of",
    "find_mentions",
    "find_values",
    "is_finite_number",
    "locate",
    "mentions",
    "normalise",
]

Lang = Literal["en", "es", "fr", "de"]
Kind = Literal["number", "weekday", "time", "date", "ident", "text"]


@dataclass(frozen=True)
class Value:
    """A canonical value.

    ``key`` by kind: number -> normalised decimal string ("1500", "49.5", "-20"); weekday ->
    "mon".."sun"; time -> "HH:MM" (24 h); date -> "YYYY-MM-DD", or "--MM-DD" without a year;
    "---DD" for a day of the month said alone ("the 16th", "el dieciséis", "am sechzehnten");
    ident -> casefolded, with separators between letters and digits dropped ("a1001");
    text -> casefolded, whitespace collapsed.
    """

    kind: Kind
    key: str


@dataclass(frozen=True)
class Mention:
    """One value found in a text: where it is, and any other reading the same words allow."""

    value: Value
    start: int
    end: int
    also: frozenset[str] = field(default_factory=frozenset)

    def means(self, value: Value) -> bool:
        """Whether these words can stand for ``value`` (same kind; same key or another reading).

        A day of the month said alone ("the 16th") also stands for that number (a
        ``day_of_month=16`` argument).
        """
        if self.value.kind == "date" and self.value.key.startswith("---") and value.kind == "number":
            return value.key == str(int(self.value.key[3:]))
        if self.value.kind == "weekday" and value.kind == "date":
            return value.key in self.also  # the weekday's date, read with the call's clock
        if self.value.kind == "date" and value.kind == "weekday" and _is_iso(self.value.key):
            return _WEEKDAY_KEYS[date.fromisoformat(self.value.key).weekday()] == value.key
        if value.kind != self.value.kind:
            return False
        return any(_same_key(value.kind, key, value.key) for key in (self.value.key, *self.also))


def _same_key(kind: str, a: str, b: str) -> bool:
    if a == b:
        return True
    # A day of the month said alone ("the 16th", "---16") is that day in any month.
    if kind == "date" and (a.startswith("---") or b.startswith("---")):
        return a[-2:] == b[-2:]
    # A date without a year is that day in any year.
    if kind == "date" and (a.startswith("--") or b.startswith("--")):
        return a[-6:] == b[-6:]
    return False


# ---------------------------------------------------------------------------------------------
# Lexicons: every word comes from the languages' folders (gate/lang/<code>/values.toml)
# ---------------------------------------------------------------------------------------------

_W = dict[str, tuple[int, str]]  # word -> (value, role)
_CURRENCY_SYMBOLS = frozenset("$€£¥")
_SYMBOL_CODES = {"$": "usd", "€": "eur", "£": "gbp", "%": "%", "¥": "jpy"}
_Phrases = tuple[tuple[str, ...], ...]


def _phrase_tokens(phrases: Iterable[str]) -> _Phrases:
    """Phrases as the token keys the scanner compares ("a.m." -> ("a", ".", "m", "."))."""
    return tuple(tuple(t.key for t in tokens(p)) for p in phrases)


def _numbers_of(lang: Language) -> _W:
    return {w: (int(v[0]), str(v[1])) for w, v in lang.table("numbers").items()}


class _Common(Record):
    """What is read whatever the language: every language's words of these kinds together."""

    all_numbers: frozenset[str]
    ordinals: dict[str, int]
    ordinal_suffixes: frozenset[str]
    day_leads: frozenset[str]
    ordinal_leads: frozenset[str]  # "the": an ordinal word follows ("the sixteenth")
    cardinal_leads: frozenset[str]  # "el", "le": a cardinal follows ("el dieciséis")
    inflected_leads: frozenset[str]  # "am", "den": an inflected ordinal follows ("am sechzehnten")
    day_followers: frozenset[str]
    of_words: frozenset[str]
    of_month: frozenset[str]
    ordinal_stems: dict[str, int]
    compound_parts: _W
    compound_order: tuple[str, ...]
    compound_cardinals: _W  # numbers of the languages that write them as one word
    currency_codes: dict[str, str]  # currency word -> code
    currency_words: frozenset[str]  # one-word currency names
    percent: _Phrases
    half_after: _Phrases  # "and a half", "y medio": two and a half is 2.5
    half_before: _Phrases  # "half a", "medio": half a million is 500000
    minus_words: frozenset[str]
    not_minus_before: frozenset[str]
    ambiguous_days: frozenset[str]
    day_cues: frozenset[str]
    weekdays_en: frozenset[str]
    span_articles: frozenset[str]
    for_words: frozenset[str]
    span_units: frozenset[str]
    one_after_and: frozenset[str]
    one_hour: frozenset[str]
    durations: frozenset[str]
    noon: frozenset[str]
    midnight: frozenset[str]
    not_time_after: frozenset[str]
    minute_phrases: tuple[tuple[tuple[str, ...], str], ...]
    clock_minus: frozenset[str]  # "menos", "moins": minutes before the hour
    minute_joiners: frozenset[str]  # "y", "et", "menos", "moins" after a number word
    zero_words: frozenset[str]
    year_leads: frozenset[str]
    time_leads: frozenset[str]
    range_words: frozenset[str]
    range_links: frozenset[str]  # "to", "until": "the 10th to the 14th" is two days
    tens_twenty_thirty: dict[str, int]  # "twenty", "thirty" before an ordinal ("twenty first")
    vigesimal_numbers: _W  # numbers of the languages that count in twenties
    articles: frozenset[str]
    daypart_words: frozenset[str]  # "mañana", "Morgen": also a part of the day after an article
    number_languages: dict[str, frozenset[str]]  # number word -> the languages that have it
    daypart_languages: dict[tuple[str, ...], frozenset[str]]  # part of the day -> its languages


@lru_cache(maxsize=1)
def _common() -> _Common:
    langs = lang_data.languages()
    words = lang_data.union_words
    ordinal_leads: set[str] = set()
    cardinal_leads: set[str] = set()
    inflected_leads: set[str] = set()
    for lang in langs:
        after = lang.setting("after_day_lead")
        target = {"ordinal": ordinal_leads, "cardinal": cardinal_leads, "inflected_ordinal": inflected_leads}
        target.get(after, set()).update(lang.words("day_leads"))
    currency_codes: dict[str, str] = {}
    for code, names in lang_data.union_table("currencies").items():
        for name in names:
            currency_codes[name] = code
    for lang in langs:
        for code, names in lang.table("currencies").items():
            for name in names:
                currency_codes.setdefault(name, code)
    compound = {w: (int(v[0]), str(v[1])) for w, v in lang_data.union_table("compound_parts").items()}
    compound_cardinals: _W = {}
    vigesimal: _W = {}
    for lang in langs:
        if lang.flag("compound_numbers"):
            compound_cardinals.update(_numbers_of(lang))
        if lang.flag("vigesimal_numbers"):
            vigesimal.update(_numbers_of(lang))
    en = lang_data.language("en")
    minute_phrases = tuple(
        (tuple(t.key for t in tokens(p)), str(v)) for p, v in lang_data.union_table("minute_phrases").items()
    )
    joiners = lang_data.union_table("clock_joiners")
    clock_minus = frozenset(w for w, meaning in joiners.items() if meaning == "minus")
    return _Common(
        all_numbers=frozenset(w for lang in langs for w in lang.table("numbers")),
        ordinals={w: int(n) for w, n in lang_data.union_table("ordinals").items()},
        ordinal_suffixes=words("ordinal_suffixes"),
        day_leads=words("day_leads"),
        ordinal_leads=frozenset(ordinal_leads),
        cardinal_leads=frozenset(cardinal_leads),
        inflected_leads=frozenset(inflected_leads),
        day_followers=words("day_followers"),
        of_words=words("of_words"),
        of_month=words("of_month_words"),
        ordinal_stems={w: int(n) for w, n in lang_data.union_table("ordinal_stems").items()},
        compound_parts=compound,
        compound_order=tuple(sorted(compound, key=len, reverse=True)),
        compound_cardinals=compound_cardinals,
        currency_codes=currency_codes,
        currency_words=frozenset(w for w in currency_codes if " " not in w),
        percent=_phrase_tokens(lang_data.union_phrases("percent")),
        half_after=_phrase_tokens(lang_data.union_phrases("half_after")),
        half_before=_phrase_tokens(lang_data.union_phrases("half_before")),
        minus_words=words("minus_words"),
        not_minus_before=words("not_minus_before"),
        ambiguous_days=words("ambiguous_weekdays"),
        day_cues=words("weekday_cues"),
        weekdays_en=frozenset(en.table("weekdays")),
        span_articles=words("span_articles"),
        for_words=words("for_words"),
        span_units=words("span_units"),
        one_after_and=words("one_after_and"),
        one_hour=words("one_hour"),
        durations=words("durations"),
        noon=words("noon_words"),
        midnight=words("midnight_words"),
        not_time_after=words("not_time_after"),
        minute_phrases=minute_phrases,
        clock_minus=clock_minus,
        minute_joiners=clock_minus | frozenset(p[0] for p, _ in minute_phrases),
        zero_words=words("zero_words"),
        year_leads=words("year_leads"),
        time_leads=words("time_leads"),
        range_words=words("range_words"),
        range_links=words("range_links"),
        tens_twenty_thirty={
            w: v for w, (v, role) in _numbers_of(en).items() if role == "tens" and v in (20, 30)
        },
        vigesimal_numbers=vigesimal,
        articles=lang_data.union_words("articles"),
        daypart_words=frozenset(
            w
            for field in ("daypart_hours", "compound_dayparts", "article_dayparts")
            for w in lang_data.union_table(field)
        ),
        number_languages=_languages_of(lambda lang: lang.table("numbers")),
        daypart_languages={
            tuple(t.key for t in tokens(phrase)): codes
            for phrase, codes in _languages_of(lambda lang: lang.table("dayparts")).items()
        },
    )


def _languages_of(read: Callable[[Language], Iterable[str]]) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for lang in lang_data.languages():
        for word in read(lang):
            out.setdefault(word, set()).add(lang.code)
    return {word: frozenset(codes) for word, codes in out.items()}


class _CurrencyNames(Mapping[str, tuple[str, ...]]):
    """Currencies and units by code, read from the languages' folders on first use (not at import)."""

    def __getitem__(self, code: str) -> tuple[str, ...]:
        return _currency_names()[code]

    def __iter__(self) -> Iterator[str]:
        return iter(_currency_names())

    def __len__(self) -> int:
        return len(_currency_names())


CURRENCY_NAMES: Mapping[str, tuple[str, ...]] = _CurrencyNames()


@lru_cache(maxsize=1)
def _currency_names() -> dict[str, tuple[str, ...]]:
    """Currencies and units by the code they stand for ("usd" -> ("dollar", ...)); "%" is never money."""
    names: dict[str, list[str]] = {}
    for lang in lang_data.languages():
        for code, words in lang.table("currencies").items():
            names.setdefault(code, []).extend(w for w in words if w not in names.get(code, []))
    names["%"] = list(lang_data.union_phrases("percent"))
    return {code: tuple(words) for code, words in names.items()}


@lru_cache(maxsize=1)
def _currency_name_re() -> re.Pattern[str]:
    alternatives = sorted({w for ws in _currency_names().values() for w in ws}, key=len, reverse=True)
    return re.compile(r"(?<![\w])(" + "|".join(re.escape(w) for w in alternatives) + r")(?![\w])")


def currency_of(word: str) -> str | None:
    """The code of a currency word or symbol ("quid" -> "gbp", "€" -> "eur"), or None."""
    return _currency_word_codes().get(fold(word))


@lru_cache(maxsize=1)
def _currency_word_codes() -> dict[str, str]:
    return {w: code for code, ws in _currency_names().items() for w in ws} | _SYMBOL_CODES


def currencies(text: str) -> set[str]:
    """The currencies and units a text names, as codes ("85 euros" -> {"eur"}, "$85" -> {"usd"})."""
    codes = _currency_word_codes()
    found = {codes[m.group(1)] for m in _currency_name_re().finditer(fold(text))}
    found |= {code for symbol, code in _SYMBOL_CODES.items() if symbol in text}
    return found


@dataclass(frozen=True)
class _Lex:
    """What the scanner reads for one language setting (a code, or None for all of them)."""

    numbers: _W
    weekdays: dict[str, str]
    months: dict[str, int]
    lang: str | None
    dayparts: tuple[tuple[tuple[str, ...], str], ...]
    hour_marks: tuple[tuple[tuple[str, ...], str], ...]
    time_cues: tuple[tuple[tuple[str, ...], str], ...]
    leading_dayparts: tuple[tuple[tuple[str, ...], str], ...]
    clock_phrases: tuple[tuple[tuple[str, ...], int], ...]
    clock_links: dict[str, int]
    vigesimal: bool  # "quatre-vingt-dix": counting in twenties is read
    compound: bool  # "zweihundertfünfzig": numbers written as one word are read
    inflected_months: frozenset[str]  # months after which an inflected ordinal is read
    cardinal_days: bool  # "el dieciséis", "le seize": a cardinal after a day lead is a day
    inflected_days: bool  # "am sechzehnten": an inflected ordinal after a day lead is a day
    day_after_weekday: bool  # "el jueves dieciséis": a cardinal after a weekday is a day
    tens_then_unit: frozenset[str]  # "veinte y cinco", "vingt et un"
    unit_then_tens: frozenset[str]  # "fünfundzwanzig" written apart: "fünf und zwanzig"
    decimal_comma: bool | None  # None: either convention
    relative_days: tuple[tuple[tuple[str, ...], int], ...]
    next_weekday: _Phrases
    this_weekday: _Phrases


def _read(lang: str | None) -> tuple[Language, ...]:
    if lang is None:
        return lang_data.languages()
    if lang == "en":
        return (lang_data.language("en"),)
    return (lang_data.language("en"), lang_data.language(lang))  # later wins: the caller's language


def _pairs(table: dict[str, object]) -> tuple[tuple[tuple[str, ...], str], ...]:
    return tuple((tuple(t.key for t in tokens(p)), str(v)) for p, v in table.items())


@lru_cache(maxsize=8)
def _lexicon(lang: str | None) -> _Lex:
    read = _read(lang)
    numbers: _W = {}
    weekdays: dict[str, str] = {}
    months: dict[str, int] = {}
    # Parts of the day, hour marks and fixed clock forms are read in every language: an agent's
    # "19 Uhr" or "de la tarde" is a time whatever the caller speaks.
    dayparts = dict(lang_data.union_table("dayparts"))
    clock_phrases = {p: int(v) for p, v in lang_data.union_table("clock_phrases").items()}
    clock_links: dict[str, int] = {}
    relative: dict[str, int] = {}
    for language in read:
        numbers.update(_numbers_of(language))
        weekdays.update({w: str(k) for w, k in language.table("weekdays").items()})
        months.update({w: int(n) for w, n in language.table("months").items()})
        clock_phrases.update({p: int(v) for p, v in language.table("clock_phrases").items()})
        clock_links.update({w: int(v) for w, v in language.table("clock_links").items()})
        relative.update({p: int(v) for p, v in language.table("relative_days").items()})
    en = lang_data.language("en")
    if lang is None:
        # Number words of other languages that are common English words are not numbers then.
        english = _numbers_of(en)
        for word in lang_data.union_words("english_clashes"):
            if word in numbers and word not in english:
                del numbers[word]
        numbers.update({k: v for k, v in english.items() if v[1] in ("article", "conn")})
    flags = [language.flag("decimal_comma") for language in read if language.code != "en" or lang == "en"]
    return _Lex(
        numbers=numbers,
        weekdays=weekdays,
        months=months,
        lang=lang,
        dayparts=_pairs(dayparts),
        hour_marks=tuple((p, "") for p in _phrase_tokens(lang_data.union_phrases("hour_marks"))),
        time_cues=tuple((p, "cue") for p in _phrase_tokens(lang_data.union_phrases("time_cues"))),
        leading_dayparts=_pairs(
            {p: v for language in read for p, v in language.table("leading_dayparts").items()}
        ),
        clock_phrases=tuple((tuple(t.key for t in tokens(p)), v) for p, v in clock_phrases.items()),
        clock_links=clock_links,
        vigesimal=any(x.flag("vigesimal_numbers") for x in read),
        compound=any(x.flag("compound_numbers") for x in read),
        inflected_months=frozenset(
            w for x in read if x.setting("after_day_lead") == "inflected_ordinal" for w in x.table("months")
        ),
        cardinal_days=any(x.setting("after_day_lead") == "cardinal" for x in read),
        inflected_days=any(x.setting("after_day_lead") == "inflected_ordinal" for x in read),
        day_after_weekday=lang is not None and any(x.flag("day_after_weekday") for x in read),
        tens_then_unit=frozenset(w for x in read for w in x.words("tens_then_unit")),
        unit_then_tens=frozenset(w for x in read for w in x.words("unit_then_tens")),
        decimal_comma=None if lang is None else any(flags),
        relative_days=tuple((tuple(t.key for t in tokens(p)), v) for p, v in relative.items()),
        next_weekday=_phrase_tokens(w for x in read for w in x.phrases("next_weekday")),
        this_weekday=_phrase_tokens(w for x in read for w in x.phrases("this_weekday")),
    )


@lru_cache(maxsize=8)
def _starters(lang: str | None) -> frozenset[str]:
    """Every word that can open a value in this language's lexicon."""
    lex = _lexicon(lang)
    common = _common()
    words: set[str] = set(lex.numbers) | set(lex.weekdays) | set(lex.months) | set(common.ordinals)
    words |= {cue[0][0] for cue in lex.time_cues} | common.noon | common.midnight
    words |= {lead[0][0] for lead in lex.leading_dayparts}
    words |= {p[0][0] for p in lex.clock_phrases} | set(lang_data.union_table("currencies"))
    words |= common.day_leads | common.minus_words | {p[0] for p in common.half_before if p}
    words |= (
        {p[0][0] for p in lex.relative_days}
        | {p[0] for p in lex.next_weekday}
        | {p[0] for p in lex.this_weekday}
    )
    return frozenset(words)


@lru_cache(maxsize=2048)
def _compound_number(word: str) -> int | None:
    """The value of a number written as one word ("zweihundertfünfundzwanzig"), or None."""
    if len(word) < 7 or not word.isalpha():
        return None
    common = _common()
    parts: list[tuple[int, str]] = []
    i = 0
    while i < len(word):
        for morpheme in common.compound_order:
            if word.startswith(morpheme, i):
                parts.append(common.compound_parts[morpheme])
                i += len(morpheme)
                break
        else:
            return None
    if len(parts) < 2:
        return None
    # "fünfundzwanzig": a unit, "und", tens -> one two-digit group.
    merged: list[tuple[int, str]] = []
    k = 0
    while k < len(parts):
        if (
            k + 2 < len(parts)
            and parts[k][1] == "unit"
            and parts[k + 1][1] == "und"
            and parts[k + 2][1] == "tens"
        ):
            merged.append((parts[k][0] + parts[k + 2][0], "done"))
            k += 3
            continue
        if parts[k][1] == "und":
            return None
        merged.append(parts[k])
        k += 1
    composer = _Composer(french=False)
    for value, role in merged:
        if not composer.add(Decimal(value), role):
            return None
    result = composer.result()
    return int(result) if result is not None else None


@lru_cache(maxsize=1024)
def _inflected_ordinal(word: str) -> int | None:
    """An inflected ordinal day 1..31 ("ersten", "dritte", "sechzehnten", "einundzwanzigsten")."""
    stems = _common().ordinal_stems
    for ending in ("en", "er", "em", "es", "e"):
        if not word.endswith(ending) or len(word) < len(ending) + 4:
            continue
        base = word[: -len(ending)]
        if base in stems:
            return stems[base]
        if base.endswith("st"):
            tens = _compound_cardinal(base[:-2])
            if tens is not None and 20 <= tens <= 31:
                return tens
        if base.endswith("t"):
            small = _compound_cardinal(base[:-1])
            if small is not None and 2 <= small <= 19:
                return small
        return None
    return None


def _compound_cardinal(word: str) -> int | None:
    entry = _common().compound_cardinals.get(word)
    if entry is not None and entry[1] in ("unit", "teen", "tens"):
        return entry[0]
    return _compound_number(word)


class _Composer:
    """Builds one number from cardinal pieces in reading order; refuses an impossible next piece.

    Pieces that cannot continue the number ("seven fifty": a tens after a unit) end it, so a
    pair of numbers is read as two numbers rather than summed.
    """

    __slots__ = ("french", "group", "last", "last_scale", "last_value", "started", "total")

    def __init__(self, *, french: bool) -> None:
        self.french = french
        self.total = Decimal(0)
        self.group = Decimal(0)
        self.last = ""
        self.last_value = 0
        self.last_scale = Decimal("Infinity")
        self.started = False

    def add(self, value: Decimal, role: str) -> bool:
        group, last = self.group, self.last
        after_group = last in ("", "hundred", "hundreds", "scale")
        if role == "digit":
            if self.started:
                return False
            self.group = value
        elif role == "unit":
            if not (after_group or last == "tens"):
                return False
            self.group = group + value
        elif role == "teen":
            french_tens = last == "tens" and self.french and self.last_value in (60, 80)
            if not (after_group or french_tens):
                return False
            self.group = group + value
            if french_tens and value == 10:
                role = "tens"  # "soixante-dix-sept": seventy, then a unit may follow
        elif role in ("tens", "done"):
            if not after_group:
                return False
            self.group = group + value
        elif role == "hundreds":
            if group != 0 or last not in ("", "scale"):
                return False
            self.group = value
        elif role == "hundred":
            if group == 0 and last in ("", "scale", "article"):
                self.group = Decimal(100)
            elif 0 < group < 100 and last in ("unit", "teen", "tens", "done", "digit", "article"):
                self.group = group * 100
            else:
                return False
        elif role == "dozen":
            # "a dozen", "two dozen": twelve of whatever the group counts.
            if group == 0 and last in ("", "scale", "article"):
                self.group = Decimal(12)
            elif 0 < group < 100 and last in ("unit", "teen", "tens", "digit"):
                self.group = group * 12
            else:
                return False
        elif role == "pair":
            # "a couple", "a pair": two, only after its article ("the couple" counts nothing).
            if last != "article" or group != 0:
                return False
            self.group = value
            role = "unit"  # "a couple hundred": then it is multiplied as a unit is
        elif role in ("scale", "scale_after"):
            if role == "scale_after" and not self.started:
                return False
            if value >= self.last_scale or last == "point":
                return False
            self.total += (group if group != 0 else Decimal(1)) * value
            self.group = Decimal(0)
            self.last_scale = value
            role = "scale"
        elif role == "block":
            # A German number written as one word, e.g. "zweitausend" then "fünfhundert".
            if value >= 1000:
                if self.started:
                    return False
                self.total = value
                self.last_scale = Decimal(1000) if value < 1_000_000 else Decimal(1_000_000)
                role = "scale"
            elif group == 0 and last in ("", "scale"):
                self.group = value
                role = "done"
            else:
                return False
        elif role == "article":
            if self.started:
                return False
        else:
            return False
        self.started = True
        self.last = role
        self.last_value = int(value)
        return True

    def result(self) -> Decimal | None:
        if not self.started or self.last == "article":
            return None
        return self.total + self.group


# ---------------------------------------------------------------------------------------------
# Tokens
# ---------------------------------------------------------------------------------------------


def _tokenise(text: str) -> list[Token]:
    out: list[Token] = []
    for tok in tokens(text):
        if tok.kind == "word" and tok.key.endswith("'s") and _possessive_value(tok.key[:-2]):
            # "nine's fine", "the third's", "thirty quid's": the value, then "'s".
            end = tok.end
            out.append(Token("word", tok.key[:-2], tok.raw[:-2], tok.start, end - 2))
            out.append(Token("sym", "'s", tok.raw[-2:], end - 2, end))
            continue
        out.append(tok)
    return out


def _possessive_value(word: str) -> bool:
    common = _common()
    return (
        word in common.all_numbers
        or word in common.ordinals
        or word in common.weekdays_en
        or word in common.currency_words
        or word in common.noon
        or word in common.midnight
    )


def _decimal_key(number: Decimal) -> str:
    if number == 0:
        return "0"
    text = format(number.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _parse_digits(raw: str, lang: str | None) -> tuple[Decimal, Decimal | None]:
    """A digit literal and, when its separators allow another reading, that reading."""
    s = re.sub(r"[ \u00a0\u202f]", "", raw)
    european = _lexicon(lang).decimal_comma
    if "," in s and "." in s:
        if s.rfind(",") > s.rfind("."):
            return Decimal(s.replace(".", "").replace(",", ".")), None
        return Decimal(s.replace(",", "")), None
    for sep in (",", "."):
        if sep not in s:
            continue
        parts = s.split(sep)
        if len(parts) > 2:
            return Decimal("".join(parts)), None
        head, tail = parts
        thousands = Decimal(head + tail)
        decimal = Decimal(f"{head}.{tail}")
        if len(tail) != 3:
            return decimal, None
        if european is False:
            return (thousands, None) if sep == "," else (decimal, None)
        if european:
            return (decimal, thousands) if sep == "," else (thousands, decimal)
        return thousands, decimal
    return Decimal(s), None


# ---------------------------------------------------------------------------------------------
# The scanner
# ---------------------------------------------------------------------------------------------


class _Scanner:
    """Reads values from tokens left to right; each reader returns a Mention and the next index."""

    def __init__(self, tokens: list[Token], lex: _Lex, text: str, today: date | None) -> None:
        self.t = tokens
        self.lex = lex
        self.c = _common()
        self.text = text
        self.today = today

    @property
    def joiners(self) -> frozenset[str]:
        return self.lex.tens_then_unit | self.lex.unit_then_tens

    def word(self, i: int) -> str:
        if 0 <= i < len(self.t) and self.t[i].kind in ("word", "sym"):
            return self.t[i].key
        return ""

    def phrase(self, i: int, options: Iterable[tuple[tuple[str, ...], str]]) -> tuple[str, int] | None:
        best: tuple[str, int] | None = None
        for words, meaning in options:
            j = i
            for w in words:
                if self.word(j) != w:
                    break
                j += 1
            else:
                if best is None or j > best[1]:
                    best = (meaning, j)
        return best

    def scan(self) -> list[Mention]:
        found: list[Mention] = []
        i = 0
        starters = _starters(self.lex.lang)
        compound = self.lex.compound
        while i < len(self.t):
            tok = self.t[i]
            if (
                tok.kind == "word"
                and tok.key not in starters
                and not (compound and _compound_number(tok.key) is not None)
                and not (compound and _inflected_ordinal(tok.key) is not None)
            ):
                i += 1  # most words cannot open a value: skip the readers
                continue
            for reader in (self.relative_date, self.date, self.time, self.weekday, self.number, self.ident):
                got = reader(i)
                if got is not None:
                    mention, nxt = got
                    found.append(mention)
                    i = nxt
                    break
            else:
                i += 1
        return found

    def same_language(self, hour: Token, j: int, end: int) -> bool:
        """Whether a part of the day at tokens [j, end) can follow the hour ``hour``: after digits
        any can; after a number word, only a part of the day of a language that has that word."""
        if hour.kind != "word":
            return True
        words = tuple(self.word(k) for k in range(j, end))
        spoken = self.c.number_languages.get(hour.key, frozenset())
        return not spoken or bool(spoken & self.c.daypart_languages.get(words, frozenset()))

    def span(self, i: int, j: int) -> tuple[int, int]:
        return self.t[i].start, self.t[j - 1].end

    # -- numbers --------------------------------------------------------------------------

    def cardinal(self, i: int) -> tuple[Decimal, Decimal | None, int] | None:
        """A number starting at token i: digits or words, with multipliers and decimals."""
        composer = _Composer(french=self.lex.vigesimal)
        alt: Decimal | None = None
        j = i
        end = i
        while j < len(self.t):
            tok = self.t[j]
            if tok.kind == "num":
                value, other = _parse_digits(tok.key, self.lex.lang)
                if not composer.add(value, "digit"):
                    break
                alt = other
                j += 1
                end = j
                continue
            if tok.kind != "word":
                # "forty-nine", "dix-sept": the hyphen joins parts of one number.
                if (
                    tok.key == "-"
                    and composer.started
                    and self.number_word(j + 1)
                    and tok.start == self.t[j - 1].end
                ):
                    j += 1
                    continue
                break
            entry = self.number_word(j)
            if entry is None:
                compound = _compound_number(tok.key) if self.lex.compound else None
                if compound is None or not composer.add(Decimal(compound), "block"):
                    break
                j += 1
                end = j
                continue
            word_value, role = entry
            if tok.key in ("cent", "cents") and self.lex.lang is None and not self.french_cent(j):
                break
            if role == "scale_after" and tok.key == "k" and j > i and self.t[j - 1].end != tok.start:
                break
            if role == "conn":
                # "and" / "y" / "et" / "und" only joins when a piece follows.
                nxt = self.number_word(j + 1)
                if nxt is None or not composer.started:
                    break
                j += 1
                continue
            if role == "point":
                frac = self.fraction(j + 1)
                if frac is None or not composer.started or composer.last_scale != Decimal("Infinity"):
                    break
                digits, j = frac
                composer.group += Decimal("0." + digits)
                end = j
                break
            if role == "article" and composer.started and self.word(j - 1) in self.joiners:
                role = "unit"  # "treinta y una", "vingt et un"
            elif role == "article":
                nxt = self.number_word(j + 1)
                if nxt is None or nxt[1] not in ("hundred", "scale", "dozen", "pair") or composer.started:
                    break
            # "quatre-vingt": four twenties.
            if (
                tok.key in ("vingt", "vingts")
                and composer.last == "unit"
                and composer.last_value == 4
                and self.lex.vigesimal
            ):
                composer.group -= 4
                composer.last = ""
                composer.add(Decimal(80), "tens")
                j += 1
                end = j
                continue
            if not composer.add(Decimal(word_value), role):
                break
            j += 1
            if role != "article":
                end = j
        result = composer.result()
        if result is None or end == i:
            return None
        if alt is not None and composer.last != "digit":
            alt = None  # the other reading of "1.500" does not survive "1.500 million"
        return result, alt, end

    def scale_at(self, j: int) -> Decimal | None:
        """The scale word at token ``j`` ("thousand", "grand", "million"), as its value."""
        entry = self.number_word(j)
        if entry is None or entry[1] not in ("scale", "scale_after", "hundred", "dozen"):
            return None
        return Decimal(entry[0])

    def french_cent(self, j: int) -> bool:
        """Whether "cent" at j is French (a number word next to it), not "fifty cents"."""
        before, after = self.word(j - 1), self.word(j + 1)
        numbers = self.c.vigesimal_numbers
        if before:
            return before in numbers and numbers[before][1] not in ("conn", "article")
        return after in numbers

    def number_word(self, j: int) -> tuple[int, str] | None:
        if 0 <= j < len(self.t) and self.t[j].kind == "word":
            return self.lex.numbers.get(self.t[j].key)
        return None

    def fraction(self, j: int) -> tuple[str, int] | None:
        digits = ""
        while j < len(self.t):
            tok = self.t[j]
            if tok.kind == "num" and tok.key.isdigit():
                digits += tok.key
            else:
                entry = self.number_word(j)
                if entry is None or entry[1] != "unit":
                    break
                digits += str(entry[0])
            j += 1
        return (digits, j) if digits else None

    def number(self, i: int) -> tuple[Mention, int] | None:
        start = i
        negative = False
        currency_before = False
        tok = self.t[i]
        if tok.key in _CURRENCY_SYMBOLS or tok.key in lang_data.union_table("currencies"):
            currency_before = True
            i += 1
        if i < len(self.t):
            t = self.t[i]
            glued_before = i > 0 and self.t[i - 1].end == t.start
            if t.kind == "sym" and t.key in ("-", "−") and not glued_before:
                if i + 1 < len(self.t) and self.t[i + 1].kind == "num" and self.t[i + 1].start == t.end:
                    negative = True
                    i += 1
            elif (
                t.kind == "word"
                and t.key in self.c.minus_words
                and self.word(i - 1) not in self.c.not_minus_before
            ):
                negative = True
                i += 1
            if (
                not currency_before
                and i < len(self.t)
                and self.t[i].kind == "sym"
                and self.t[i].key in _CURRENCY_SYMBOLS
            ):
                currency_before = True
                i += 1
        if i >= len(self.t):
            return None
        if (
            not currency_before
            and not negative
            and self.word(i) in self.c.span_articles
            and self.word(i - 1) in self.c.for_words
            and self.word(i + 1) in self.c.span_units
        ):
            # "for a week", "por una semana", "für einen Monat": one, not an article.
            return Mention(Value("number", "1"), *self.span(i, i + 1)), i + 1
        half = self.phrase(i, ((p, "") for p in self.c.half_before))
        if half is not None and not negative:
            scale = self.scale_at(half[1])
            if scale is None:
                return None
            # "half a million": half the scale said after it.
            value, alt, j = scale / 2, None, half[1] + 1
        else:
            got = self.cardinal(i)
            if got is None:
                return None
            value, alt, j = got
            after = self.phrase(j, ((p, "") for p in self.c.half_after))
            counted = self.number_word(j - 1)
            if after is not None and counted is not None and counted[1] == "dozen":
                # "a dozen and a half": half a dozen more.
                value, alt, j = value + 6, None, after[1]
            elif after is not None and value == value.to_integral_value():
                # "two and a half", "two and a half grand": the half, then any scale after it.
                value, alt, j = value + Decimal("0.5"), None, after[1]
                scale = self.scale_at(j)
                if scale is not None:
                    value, j = value * scale, j + 1
        # What follows the number: currency, percent.
        if j < len(self.t):
            if (
                self.word(j) in self.c.currency_words
                or self.word(j) in _CURRENCY_SYMBOLS
                or self.word(j) == "%"
            ):
                j += 1
            else:
                pct = self.phrase(j, ((w, "%") for w in self.c.percent))
                if pct is not None:
                    j = pct[1]
        if negative:
            value = -value
            alt = -alt if alt is not None else None
        a, b = self.span(start, j)
        also = frozenset({_decimal_key(alt)}) if alt is not None else frozenset()
        return Mention(Value("number", _decimal_key(value)), a, b, also), j

    # -- weekdays -------------------------------------------------------------------------

    def weekday(self, i: int) -> tuple[Mention, int] | None:
        tok = self.t[i]
        if tok.kind != "word":
            return None
        day = self.lex.weekdays.get(tok.key)
        if day is None:
            return None
        if tok.key in self.c.ambiguous_days:
            capitalised = tok.raw[:1].isupper() and not tok.raw.isupper()
            if not (capitalised or self.word(i - 1) in self.c.day_cues or self.word(i + 1) == "."):
                return None
        # With the call's clock, a weekday is also the coming one (today included).
        also = (
            frozenset({_coming(self.today, day, strictly=False).isoformat()}) if self.today else frozenset()
        )
        return Mention(Value("weekday", day), tok.start, tok.end, also), i + 1

    def relative_date(self, i: int) -> tuple[Mention, int] | None:
        """With the call's clock: "today", "tomorrow", "the day after tomorrow", "next Tuesday",
        "this Friday", "mardi prochain", "el martes que viene", as the date they name.

        "next" is the first such weekday after today; "this" the coming one (today included).
        A word that is also a part of the day ("mañana", "Morgen") is not read after an article
        ("por la mañana", "am Morgen").
        """
        if self.today is None:
            return None
        relative = self.phrase(i, ((w, str(n)) for w, n in self.lex.relative_days))
        before = self.word(i - 1)
        daypart = relative is not None and relative[1] - i == 1 and self.word(i) in self.c.daypart_words
        if relative is not None and not (
            daypart and (before in self.c.articles or before in self.c.day_leads)
        ):
            day = self.today + timedelta(days=int(relative[0]))
            return Mention(Value("date", day.isoformat()), *self.span(i, relative[1])), relative[1]
        for words, strictly in ((self.lex.next_weekday, True), (self.lex.this_weekday, False)):
            lead = self.phrase(i, ((w, "") for w in words))
            if lead is not None and lead[1] < len(self.t):
                weekday = self.lex.weekdays.get(self.word(lead[1]))
                if weekday is not None:
                    # Still that weekday, and also the date it names today.
                    day = _coming(self.today, weekday, strictly=strictly)
                    also = frozenset({day.isoformat()})
                    return Mention(Value("weekday", weekday), *self.span(i, lead[1] + 1), also), lead[1] + 1
        weekday = self.lex.weekdays.get(self.word(i)) if self.t[i].kind == "word" else None
        if weekday is not None:
            after = self.phrase(i + 1, ((w, "") for w in self.lex.next_weekday))
            if after is not None:
                also = frozenset({_coming(self.today, weekday, strictly=True).isoformat()})
                return Mention(Value("weekday", weekday), *self.span(i, after[1]), also), after[1]
        return None

    # -- times ----------------------------------------------------------------------------

    def small(self, i: int, limit: int) -> tuple[int, int] | None:
        """A whole number in 0..limit at token i (digits or words), and the next index."""
        if i >= len(self.t):
            return None
        tok = self.t[i]
        if tok.kind == "num":
            if tok.key.isdigit() and int(tok.key) <= limit:
                return int(tok.key), i + 1
            return None
        entry = self.number_word(i)
        if entry is None or entry[1] not in ("unit", "teen", "tens", "article"):
            if entry is None and tok.kind == "word":
                compound = _compound_number(tok.key) if self.lex.compound else None
                if compound is not None and compound <= limit:
                    return compound, i + 1
            return None
        value, role = entry
        j = i + 1
        if role == "article":
            return (1, j) if tok.key in self.c.one_hour else None
        if role == "tens":
            # "twenty five", "veinte y cinco", "vingt et un"
            k = j + 1 if self.word(j) in self.lex.tens_then_unit or self.word(j) == "-" else j
            nxt = self.number_word(k)
            if nxt is not None and nxt[1] == "article" and k > j and self.word(k) in self.c.one_after_and:
                nxt = (1, "unit")  # "vingt et un", "treinta y una"
            unit = nxt is not None and nxt[1] == "unit" and 0 < nxt[0] < 10
            french_teen = nxt is not None and self.lex.vigesimal and value == 60 and nxt[1] == "teen"
            if nxt is not None and (unit or french_teen):
                value += nxt[0]
                j = k + 1
        elif role == "teen" and value == 10 and self.word(j) == "-":
            nxt = self.number_word(j + 1)  # "dix-sept"
            if nxt is not None and nxt[1] == "unit" and nxt[0] > 0:
                value += nxt[0]
                j += 2
        elif role == "unit" and self.word(j) in self.lex.unit_then_tens:
            nxt = self.number_word(j + 1)
            if nxt is not None and nxt[1] == "tens":
                value += nxt[0]
                j += 2
        return (value, j) if value <= limit else None

    def minutes(self, i: int) -> tuple[int, int] | None:
        """Minutes after an hour: "30", "thirty", "oh five", "y media", "et quart"."""
        special = self.phrase(i, self.c.minute_phrases)
        if special is not None:
            return int(special[0]), special[1]
        if self.word(i) in self.c.clock_minus and (less := self.small(i + 1, 30)) is not None and less[0] > 0:
            return -less[0], less[1]  # "doce menos veinte", "midi moins vingt"
        if self.word(i) in self.c.zero_words and (got := self.small(i + 1, 9)) is not None:
            return got
        tok = self.t[i] if i < len(self.t) else None
        if (
            tok is not None
            and tok.kind == "num"
            and len(tok.key) == 2
            and tok.key.isdigit()
            and int(tok.key) < 60
        ):
            return int(tok.key), i + 1
        got = self.small(i, 59)
        if got is not None and got[0] >= 10:
            return got
        return None

    def time(self, i: int) -> tuple[Mention, int] | None:
        tok = self.t[i]
        if tok.kind == "word":
            # "après-midi" is the afternoon, not "midi".
            noon = tok.key in self.c.noon and self.word(i - 1) not in ("-", "l'apres", "apres")
            named = "12:00" if noon else "00:00" if tok.key in self.c.midnight else None
            if named is not None:
                # "midi moins vingt" (11:40), "mediodía y cuarto" (12:15)
                mins = self.minutes(i + 1) if self.word(i + 1) in self.c.minute_joiners else None
                if mins is None:
                    return Mention(Value("time", named), tok.start, tok.end), i + 1
                total = (int(named[:2]) * 60 + mins[0]) % (24 * 60)
                key = f"{total // 60:02d}:{total % 60:02d}"
                return Mention(Value("time", key), tok.start, self.t[mins[1] - 1].end), mins[1]
            got = self.relative_time(i)
            if got is not None:
                return got
        cue = self.phrase(i, self.lex.time_cues)
        # "afternoon 3", "evening 6:30": a part of the day before a bare hour is its cue and its half.
        lead = self.phrase(i, self.lex.leading_dayparts) if cue is None else None
        if lead is not None:
            cue = lead
        start = i
        if cue is not None:
            i = cue[1]
            if lead is not None and (then := self.phrase(i, self.lex.time_cues)) is not None:
                i = then[1]  # "in the evening at 7", "abends um 7"
            if i >= len(self.t):
                return None
            tok = self.t[i]
        hour: int
        minute = 0
        marked = False
        if tok.kind == "clock":
            parts = tok.key.split(":")
            hour, minute = int(parts[0]), int(parts[1])
            if hour > 24 or minute > 59:
                return None
            j = i + 1
            marked = True
        else:
            hour_got = self.small(i, 24)
            if hour_got is None:
                dotted = re.fullmatch(r"(\d{1,2})[.,](\d{2})", tok.key) if tok.kind == "num" else None
                if not dotted:
                    return None
                hour, minute = int(dotted.group(1)), int(dotted.group(2))
                j = i + 1
                # "7.30" is a time only with a mark after it ("7.30 pm", "19.30 Uhr").
                if self.phrase(j, self.lex.hour_marks) is None and self.phrase(j, self.lex.dayparts) is None:
                    return None
                if hour > 24 or minute > 59:
                    return None
            else:
                hour, j = hour_got
        mark = self.phrase(j, self.lex.hour_marks)
        if mark is not None:
            marked = True
            j = mark[1]
            if minute == 0 and (mins := self.minutes(j)) is not None:
                minute, j = mins
        elif tok.kind != "clock" and minute == 0:
            mins = self.minutes(j)
            if mins is not None:
                # "seven thirty" is a time only with a part of the day or a cue after/before it.
                mins_end = mins[1]
                if (
                    self.phrase(mins_end, self.lex.dayparts) is not None
                    or self.phrase(mins_end, self.lex.hour_marks)
                    or cue
                    or (self.word(j) in self.c.minute_joiners and tok.kind == "word")
                ):  # "diez y cuarto", "huit et demie": a time, whatever stands around it
                    minute, j = mins
                    marked = True
        if minute < 0:
            hour, minute = (hour - 1) % 24, 60 + minute
        part = self.phrase(j, self.lex.dayparts)
        if part is not None and not self.same_language(tok, j, part[1]):
            part = None  # "vier am Samstag": German "am", not a.m. after a German number
        if part is None and lead is not None:
            nxt = self.t[j] if j < len(self.t) else None
            if nxt is not None and (
                nxt.key in self.c.not_time_after
                or nxt.key in self.c.currency_words
                or nxt.key in _CURRENCY_SYMBOLS
                or nxt.key in self.c.of_words
                or nxt.kind == "num"
            ):
                return None  # "morning 2 people", "evening 2 of us": a count after the part of the day
            part = (lead[0], j)
        if (
            part is not None
            and not marked
            and cue is None
            and lead is None
            and _outside_its_part(hour, part[0], [self.word(k) for k in range(j, part[1])])
        ):
            # "a table for two tonight": a number with a part of a day it cannot be an hour of
            # (two o'clock is not tonight) counts something; "at two tonight" is read as before.
            return None
        if part is not None:
            if part[0] in ("am", "pm") and not 1 <= hour <= 12:
                return None
            marked = True
            j = part[1]
        if not marked:
            if cue is None or hour == 0 or hour > 12:
                return None
            nxt = self.t[j] if j < len(self.t) else None
            if nxt is not None and (
                nxt.key in self.c.not_time_after or nxt.key in self.c.currency_words or nxt.kind in ("num",)
            ):
                return None
            if nxt is not None and nxt.key in _CURRENCY_SYMBOLS:
                return None
            if tok.kind == "num" and not tok.key.isdigit():
                return None
        if hour == 24:
            hour = 0
        also: set[str] = set()
        if part is not None:
            meaning = part[0]
            if meaning == "pm" and hour < 12:
                hour += 12
            elif meaning == "am" and hour == 12:
                hour = 0
            elif meaning == "night" and 5 <= hour < 12:
                hour += 12
        elif tok.kind == "clock" and tok.key.startswith("0"):
            pass  # "07:30" is written on a 24-hour clock: the morning
        elif 1 <= hour < 12:
            also.add(f"{hour + 12:02d}:{minute:02d}")
        elif hour == 12:
            also.add(f"00:{minute:02d}")
        a, b = self.span(start if cue is not None and cue[1] > start else i, j)
        return Mention(Value("time", f"{hour:02d}:{minute:02d}"), a, b, frozenset(also)), j

    def relative_time(self, i: int) -> tuple[Mention, int] | None:
        """ "half past seven", "quarter to eight", "ten to seven", "half eight", "halb acht"."""
        # Fixed forms ("half past", "halb", British "half eight"), then minutes and a link word
        # ("ten to seven", "zwanzig nach vier"); "from ten to seven" is a range.
        forms: list[tuple[tuple[str, ...], int, bool]] = [(w, o, True) for w, o in self.lex.clock_phrases]
        minutes = self.small(i, 29)
        if (
            minutes is not None
            and minutes[0] in (5, 10, 20, 25)
            and self.t[i].kind == "word"
            and self.word(i - 1) not in self.c.range_words
            and self.word(i - 1) != "-"
        ):
            sign = self.lex.clock_links.get(self.word(minutes[1]))
            if sign is not None:
                words = tuple(self.word(k) for k in range(i, minutes[1] + 1))
                forms.append((words, sign * minutes[0], False))
        for words, offset, fixed in forms:
            j = i
            for w in words:
                if self.word(j) != w:
                    break
                j += 1
            else:
                got = self.small(j, 12)
                if got is None or got[0] == 0:
                    continue
                hour, j = got
                after = self.word(j)
                if (
                    after in self.c.not_time_after
                    or after in self.c.currency_words
                    or after in self.c.durations
                ):
                    continue  # "half eight hours", "ten to seven people": not a time
                if not fixed and self.word(i - 1) not in self.c.time_leads and not self.day_ends(j):
                    continue  # "ten to twelve bags" is a count; "at ten to seven" is a time
                total = hour * 60 + offset
                if total < 0:
                    total += 12 * 60
                h, m = divmod(total, 60)
                part = self.phrase(j, self.lex.dayparts)
                also: set[str] = set()
                if part is not None:
                    j = part[1]
                    if part[0] in ("pm", "night") and h < 12:
                        h += 12
                elif 1 <= h < 12:
                    also.add(f"{h + 12:02d}:{m:02d}")
                a, b = self.span(i, j)
                return Mention(Value("time", f"{h:02d}:{m:02d}"), a, b, frozenset(also)), j
        return None

    # -- dates ----------------------------------------------------------------------------

    def day_of_month(self, i: int) -> tuple[int, int] | None:
        if i >= len(self.t):
            return None
        tok = self.t[i]
        ordinals = self.c.ordinals
        if tok.kind == "word" and tok.key in ordinals:
            return ordinals[tok.key], i + 1
        if tok.kind == "word" and tok.key in self.c.tens_twenty_thirty and self.word(i + 1) in ordinals:
            return self.c.tens_twenty_thirty[tok.key] + ordinals[self.word(i + 1)], i + 2
        if tok.kind == "word" and self.word(i + 1) in self.lex.inflected_months:
            ordinal = _inflected_ordinal(tok.key)  # "sechzehnter Mai", "am sechzehnten Mai"
            if ordinal is not None:
                return ordinal, i + 1
        got = self.small(i, 31)
        if got is None or got[0] == 0:
            return None
        day, j = got
        if (
            j < len(self.t)
            and self.t[j].start == self.t[j - 1].end
            and self.word(j) in self.c.ordinal_suffixes
        ):
            j += 1
        return day, j

    def year(self, i: int) -> tuple[int, int] | None:
        j = i + 1 if self.word(i) == "," or self.word(i) in self.c.year_leads else i
        if j < len(self.t) and self.t[j].kind == "num" and re.fullmatch(r"(19|20)\d\d", self.t[j].key):
            return int(self.t[j].key), j + 1
        return None

    def date(self, i: int) -> tuple[Mention, int] | None:
        tok = self.t[i]
        if tok.kind in ("iso", "dmy"):
            parts = [int(p) for p in re.split(r"[-.]", tok.key)]
            y, m, d = parts if tok.kind == "iso" else (parts[2], parts[1], parts[0])
            if not (1 <= m <= 12 and 1 <= d <= 31):
                return None
            return Mention(Value("date", f"{y:04d}-{m:02d}-{d:02d}"), tok.start, tok.end), i + 1
        months = self.lex.months
        # month first: "march 4", "march the 4th", "march fourth, 2026"
        if tok.kind == "word" and tok.key in months:
            j = i + 1
            if self.word(j) == ".":
                j += 1
            if self.word(j) in self.c.ordinal_leads:
                j += 1
            got = self.day_of_month(j)
            if got is not None:
                day, j = got
                return self.finish_date(i, j, months[tok.key], day)
            return None
        # day first: "4 march", "the 4th of march", "4 de marzo", "4. märz", "le 4 mars"
        j = i + 1 if self.word(i) in self.c.day_leads else i
        got = self.day_of_month(j)
        if got is None:
            return self.day_alone(i)
        day, j = got
        if self.word(j) in self.c.of_words or self.word(j) == ".":
            j += 1
        month_word = self.word(j)
        if month_word not in months:
            return self.day_alone(i)
        if self.ordinal_at(j + 1):
            return None  # "3 march 10th": a count, then the date March 10th
        return self.finish_date(i, j + 1, months[month_word], day)

    def ordinal_at(self, i: int) -> bool:
        """Whether an ordinal day stands at ``i`` ("10th", "tenth")."""
        if i >= len(self.t):
            return False
        if self.t[i].kind == "word" and self.t[i].key in self.c.ordinals:
            return True
        got = self.day_of_month(i)
        return got is not None and got[1] > i + 1 and self.word(got[1] - 1) in self.c.ordinal_suffixes

    def day_alone(self, i: int) -> tuple[Mention, int] | None:
        """A day of the month without a month: "the 16th", "on the first", "el dieciséis"."""
        lead = self.word(i) if self.word(i) in self.c.day_leads else ""
        j = i + 1 if lead else i
        if j >= len(self.t):
            return None
        tok = self.t[j]
        got: tuple[int, int] | None = None
        after_day = not lead and self.word(i - 1) in self.lex.weekdays
        if after_day and self.lex.day_after_weekday and tok.kind in ("word", "num"):
            got = self.small(j, 31)  # "el jueves dieciséis", "mardi 8"
        elif tok.kind == "num":
            day = self.day_of_month(j)
            suffixed = day is not None and day[1] > j + 1
            dotted = (
                day is not None
                and lead in self.c.inflected_leads
                and self.word(j + 1) == "."
                and self.t[j + 1].start == tok.end
            )
            if day is not None and (suffixed or dotted or lead in self.c.cardinal_leads):
                got = (day[0], day[1] + 1) if dotted else day
                if suffixed and self.word(day[1]) in self.c.range_links:
                    # "the 10th to the 14th": a day that opens a range of days is a day.
                    a, b = self.span(i, day[1])
                    return Mention(Value("date", f"---{day[0]:02d}"), a, b), day[1]
        elif lead in self.c.ordinal_leads or lead in self.c.cardinal_leads:
            tens = tok.key in self.c.tens_twenty_thirty and self.word(j + 1) in self.c.ordinals
            if tok.key in self.c.ordinals or tens:
                got = self.day_of_month(j)
            elif lead in self.c.cardinal_leads and self.lex.cardinal_days:
                got = self.small(j, 31)
        elif lead in self.c.inflected_leads and self.lex.inflected_days and tok.kind == "word":
            ordinal = _inflected_ordinal(tok.key)
            got = (ordinal, j + 1) if ordinal is not None else None
        if got is None or not 1 <= got[0] <= 31 or not self.day_ends(got[1]):
            return None
        if after_day and self.time(j) is not None:
            return None  # "el martes diez y cuarto": a time
        a, b = self.span(i, got[1])
        return Mention(Value("date", f"---{got[0]:02d}"), a, b), got[1]

    def day_ends(self, k: int) -> bool:
        """Whether a day said alone ends at token k: "the first is fine", not "the first one"."""
        if k >= len(self.t):
            return True
        tok = self.t[k]
        if tok.kind == "sym":
            return tok.key in (",", ".", "!", "?", ";", ":", "'s")
        if tok.kind == "word":
            if tok.key in self.c.of_words:
                return self.word(k + 1) in self.c.of_month  # "of each month", not "el dos de los tres"
            return tok.key in self.c.day_followers or self.phrase(k, self.lex.dayparts) is not None
        return tok.kind == "clock"

    def finish_date(self, i: int, j: int, month: int, day: int) -> tuple[Mention, int]:
        key = f"--{month:02d}-{day:02d}"
        got = self.year(j)
        if got is not None:
            year, j = got
            key = f"{year:04d}-{month:02d}-{day:02d}"
        a, b = self.span(i, j)
        return Mention(Value("date", key), a, b), j

    # -- identifiers ----------------------------------------------------------------------

    def ident(self, i: int) -> tuple[Mention, int] | None:
        tok = self.t[i]
        if tok.kind != "ident":
            return None
        return Mention(Value("ident", _ident_key(tok.key)), tok.start, tok.end), i + 1


_WEEKDAY_KEYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@lru_cache(maxsize=1)
def _relative_parts() -> frozenset[str]:
    """Parts of a day that name the day as well ("tonight", "this evening"), every language's."""
    hours = _daypart_hours()
    return frozenset(k for k in lang_data.union_table("relative_days") if k.split()[-1] in hours)


@lru_cache(maxsize=1)
def _daypart_hours() -> dict[str, tuple[int, int]]:
    """The hours each part of the day holds, by its word ("tonight": 17 to 24), every language's."""
    return {k: (int(v[0]), int(v[1])) for k, v in lang_data.union_table("daypart_hours").items()}


def _outside_its_part(hour: int, meaning: str, part: list[str]) -> bool:
    """Whether ``hour``, said with ``part``, a part of a day that names the day too ("tonight",
    "this evening"; read as ``meaning``: am, pm or night), falls outside that part's hours: "two
    tonight" is no hour of tonight. A part alone ("in the morning") holds any hour said with it."""
    hours = _daypart_hours().get(part[-1]) if part and " ".join(part) in _relative_parts() else None
    if hours is None or not 1 <= hour <= 12:
        return False
    h = hour + 12 if meaning in ("pm", "night") and hour < 12 else hour
    return not hours[0] <= h <= hours[1]


def _is_iso(key: str) -> bool:
    return len(key) == 10 and key[4] == "-" and key[:4].isdigit()


def _coming(today: date, weekday: str, *, strictly: bool) -> date:
    """The first ``weekday`` ("mon".."sun") on or after ``today`` (after it when ``strictly``)."""
    ahead = (_WEEKDAY_KEYS.index(weekday) - today.weekday()) % 7
    if ahead == 0 and strictly:
        ahead = 7
    return today + timedelta(days=ahead)


def _ident_key(token: str) -> str:
    """Casefolded, a separator where letters meet digits dropped: "A-1001" -> "a1001"."""
    folded = fold(token)
    return re.sub(r"(?<=[^\W\d_])[-_ ](?=\d)|(?<=\d)[-_ ](?=[^\W\d_])", "", folded)


# ---------------------------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------------------------


def _norm_lang(lang: str | None) -> str | None:
    return lang_data.code_of(lang)


@lru_cache(maxsize=4096)
def _scan(text: str, lang: str | None, today: date | None = None) -> tuple[Mention, ...]:
    return tuple(_Scanner(_tokenise(text), _lexicon(lang), text, today).scan())


def find_mentions(text: str, lang: str | None = None, *, today: date | None = None) -> list[Mention]:
    """Every value the text mentions, with where it is and its other readings.

    ``lang`` is a language code ("en", "es", "fr", "de"; a region suffix such as "es-MX" is
    ignored); None or an unknown code reads every language. ``today`` is the call's date: with
    it, "today", "tomorrow", "next Tuesday" and "mardi prochain" are the dates they name, and a
    weekday alone is also the coming one; without it they are not values. Never raises on odd
    text: what is not understood is not found.
    """
    return list(_scan(text, _norm_lang(lang), today))


def find_values(text: str, lang: str | None = None, *, today: date | None = None) -> list[Value]:
    """Every value a sentence mentions, normalised, in order (lang None: every language)."""
    return [m.value for m in _scan(text, _norm_lang(lang), today)]


_NON_FINITE = re.compile(r"[+-]?(nan|inf|infinity)", re.IGNORECASE)
_LEADING_ZERO = re.compile(r"0\d+")
_IDENT_SHAPED = re.compile(
    r"(?=.*[^\W\d_])(?=.*\d)(?:[^\W_]+(?:[-_/][^\W_]+)*|[^\W\d_]+ \d[^\W_]*(?:[-_/][^\W_]+)*)"
)


def normalise(value: object, lang: str | None = None) -> Value:
    """An argument value as a tool receives it (int, float, Decimal, str) -> its canonical Value.

    A string is read as the one value it holds when it holds exactly one ("50", "$1,500",
    "Thursday", "10:30", "7 pm", "2026-03-04"); as an identifier when it has letters and digits
    ("A-1001") or digits with a leading zero ("0042"); otherwise as text. A :class:`Value` is
    returned as is.

    Raises ValueError for NaN and infinities (as numbers or as strings such as "nan", "-inf")
    and for bool (True is not 1 here); TypeError for other types (lists, dicts, None).
    """
    if isinstance(value, Value):
        return value
    if isinstance(value, bool):
        raise ValueError(f"expected a number, a string or a Decimal, got a bool ({value!r})")
    if isinstance(value, int):
        return Value("number", str(value))
    if isinstance(value, float | Decimal):
        number = Decimal(repr(value)) if isinstance(value, float) else value
        if not number.is_finite():
            raise ValueError(f"expected a finite number, got {value!r}")
        return Value("number", _decimal_key(number))
    if not isinstance(value, str):
        raise TypeError(f"expected int, float, Decimal or str, got {type(value).__name__}")
    text = " ".join(value.split())
    if _NON_FINITE.fullmatch(text):
        raise ValueError(f"expected a finite number, got {value!r}")
    if _LEADING_ZERO.fullmatch(text):
        return Value("ident", text)
    day = _lexicon(None).weekdays.get(fold(text).rstrip("."))
    if day is not None:
        return Value("weekday", day)  # "sun" alone is the day, though "the sun" is not
    found = _scan(text, _norm_lang(lang))
    if len(found) == 1:
        only = found[0]
        rest = text[: only.start] + text[only.end :]
        if not re.search(r"\w", rest):
            return only.value
    if _IDENT_SHAPED.fullmatch(text):
        return Value("ident", _ident_key(text))
    return Value("text", fold(text))


def is_finite_number(value: object) -> bool:
    """Whether ``value`` is a number and finite.

    False for NaN and infinities (float, Decimal, and strings such as "nan", "inf", "-Infinity"),
    for bool, and for anything that is not a number or a string that reads as one.
    """
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, Decimal):
        return value.is_finite()
    if isinstance(value, str):
        try:
            return normalise(value).kind == "number"
        except (ValueError, InvalidOperation):
            return False
    return False


@lru_cache(maxsize=4096)
def _pattern(value: Value) -> re.Pattern[str]:
    if value.kind == "ident":
        pieces = re.findall(r"[^\W\d_]+|\d+|[^\w]+|_", value.key)
        out = ""
        for k, piece in enumerate(pieces):
            if (
                k
                and piece[0].isdigit() != pieces[k - 1][0].isdigit()
                and piece[0].isalnum()
                and pieces[k - 1][0].isalnum()
            ):
                out += r"[-_ ]?"
            out += re.escape(piece)
        return re.compile(rf"(?<![\w-]){out}(?![-_/]?\w)")
    # A comma between the words is no other value: "Washington, D.C." is "Washington D.C.".
    words = [re.escape(w.strip(",")) for w in value.key.split() if w.strip(",")]
    return re.compile(r"(?<!\w)" + r"\s*,?\s+".join(words) + r"(?!\w)")


def locate(
    text: str, value: object, lang: str | None = None, *, today: date | None = None
) -> list[tuple[int, int]]:
    """Where the text carries ``value`` as a value: the (start, end) of each mention.

    ``today`` reads relative dates as :func:`find_mentions` does. Raises what :func:`normalise`
    raises for ``value``.
    """
    target = normalise(value, lang)
    if target.kind in ("ident", "text"):
        if not target.key:
            return []
        folded, where = fold_with_positions(text)
        spans = [m.span() for m in _pattern(target).finditer(folded)]
        return spans if where is None else [(where[a], where[b]) for a, b in spans]
    return [(m.start, m.end) for m in _scan(text, _norm_lang(lang), today) if m.means(target)]


def mentions(text: str, value: object, lang: str | None = None, *, today: date | None = None) -> bool:
    """Whether the text carries this value as a value.

    1500 is in "$1,500.00", "1500 dollars", "fifteen hundred", "1.5k", "1 500", "mil quinientos",
    and (with lang es/fr/de or None) "1.500 €"; 500 is not in "1,500". "Thursday" is in "thu",
    "Thurs", "jueves", "jeudi", "Donnerstag". "19:00", "7pm", "7 p.m.", "seven in the evening",
    "19 h" and "19 Uhr" are one time. Identifiers are exact tokens, case-insensitive, with a
    separator tolerated only where letters meet digits ("A-1001" is in "a1001" and "a 1001",
    never in "A-10011"). Text values match as casefolded whole words. With ``today`` (the call's
    date), 2019-03-02 is in "tomorrow" on 2019-03-01.

    Raises what :func:`normalise` raises for ``value`` (ValueError for NaN, infinities, bool).
    """
    return bool(locate(text, value, lang, today=today))
