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
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Literal

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
_LANGS: tuple[str, ...] = ("en", "es", "fr", "de")


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
# Lexicons
# ---------------------------------------------------------------------------------------------

_W = dict[str, tuple[int, str]]  # word -> (value, role)

_EN_NUM: _W = {
    "zero": (0, "unit"), "one": (1, "unit"), "two": (2, "unit"), "three": (3, "unit"),
    "four": (4, "unit"), "five": (5, "unit"), "six": (6, "unit"), "seven": (7, "unit"),
    "eight": (8, "unit"), "nine": (9, "unit"), "ten": (10, "teen"), "eleven": (11, "teen"),
    "twelve": (12, "teen"), "thirteen": (13, "teen"), "fourteen": (14, "teen"),
    "fifteen": (15, "teen"), "sixteen": (16, "teen"), "seventeen": (17, "teen"),
    "eighteen": (18, "teen"), "nineteen": (19, "teen"), "twenty": (20, "tens"),
    "thirty": (30, "tens"), "forty": (40, "tens"), "fourty": (40, "tens"), "fifty": (50, "tens"),
    "sixty": (60, "tens"), "seventy": (70, "tens"), "eighty": (80, "tens"), "ninety": (90, "tens"),
    "hundred": (100, "hundred"), "thousand": (1000, "scale"), "grand": (1000, "scale_after"),
    "k": (1000, "scale_after"), "million": (1_000_000, "scale"), "millions": (1_000_000, "scale"),
    "billion": (1_000_000_000, "scale"), "and": (0, "conn"), "a": (1, "article"),
    "an": (1, "article"), "point": (0, "point"),
}  # fmt: skip
_ES_NUM: _W = {
    "cero": (0, "unit"), "uno": (1, "unit"), "un": (1, "article"), "una": (1, "article"),
    "dos": (2, "unit"), "tres": (3, "unit"), "cuatro": (4, "unit"), "cinco": (5, "unit"),
    "seis": (6, "unit"), "siete": (7, "unit"), "ocho": (8, "unit"), "nueve": (9, "unit"),
    "diez": (10, "teen"), "once": (11, "teen"), "doce": (12, "teen"), "trece": (13, "teen"),
    "catorce": (14, "teen"), "quince": (15, "teen"), "dieciseis": (16, "teen"),
    "diecisiete": (17, "teen"), "dieciocho": (18, "teen"), "diecinueve": (19, "teen"),
    "veinte": (20, "tens"), "veintiuno": (21, "tens"), "veintiun": (21, "tens"),
    "veintidos": (22, "tens"), "veintitres": (23, "tens"), "veinticuatro": (24, "tens"),
    "veinticinco": (25, "tens"), "veintiseis": (26, "tens"), "veintisiete": (27, "tens"),
    "veintiocho": (28, "tens"), "veintinueve": (29, "tens"), "treinta": (30, "tens"),
    "cuarenta": (40, "tens"), "cincuenta": (50, "tens"), "sesenta": (60, "tens"),
    "setenta": (70, "tens"), "ochenta": (80, "tens"), "noventa": (90, "tens"),
    "cien": (100, "hundreds"), "ciento": (100, "hundreds"), "doscientos": (200, "hundreds"),
    "doscientas": (200, "hundreds"), "trescientos": (300, "hundreds"),
    "trescientas": (300, "hundreds"), "cuatrocientos": (400, "hundreds"),
    "cuatrocientas": (400, "hundreds"), "quinientos": (500, "hundreds"),
    "quinientas": (500, "hundreds"), "seiscientos": (600, "hundreds"),
    "seiscientas": (600, "hundreds"), "setecientos": (700, "hundreds"),
    "setecientas": (700, "hundreds"), "ochocientos": (800, "hundreds"),
    "ochocientas": (800, "hundreds"), "novecientos": (900, "hundreds"),
    "novecientas": (900, "hundreds"), "mil": (1000, "scale"), "millon": (1_000_000, "scale"),
    "millones": (1_000_000, "scale"), "y": (0, "conn"), "punto": (0, "point"), "coma": (0, "point"),
}  # fmt: skip
_FR_NUM: _W = {
    "zero": (0, "unit"), "un": (1, "article"), "une": (1, "article"), "deux": (2, "unit"),
    "trois": (3, "unit"), "quatre": (4, "unit"), "cinq": (5, "unit"), "six": (6, "unit"),
    "sept": (7, "unit"), "huit": (8, "unit"), "neuf": (9, "unit"), "dix": (10, "teen"),
    "onze": (11, "teen"), "douze": (12, "teen"), "treize": (13, "teen"), "quatorze": (14, "teen"),
    "quinze": (15, "teen"), "seize": (16, "teen"), "vingt": (20, "tens"), "vingts": (20, "tens"),
    "trente": (30, "tens"), "quarante": (40, "tens"), "cinquante": (50, "tens"),
    "soixante": (60, "tens"), "septante": (70, "tens"), "huitante": (80, "tens"),
    "octante": (80, "tens"), "nonante": (90, "tens"), "cent": (100, "hundred"),
    "cents": (100, "hundred"), "mille": (1000, "scale"), "mil": (1000, "scale"),
    "million": (1_000_000, "scale"), "millions": (1_000_000, "scale"), "et": (0, "conn"),
    "virgule": (0, "point"),
}  # fmt: skip
_DE_NUM: _W = {
    "null": (0, "unit"), "eins": (1, "unit"), "ein": (1, "article"), "eine": (1, "article"),
    "einen": (1, "article"), "zwei": (2, "unit"), "zwo": (2, "unit"), "drei": (3, "unit"),
    "vier": (4, "unit"), "funf": (5, "unit"), "fuenf": (5, "unit"), "sechs": (6, "unit"),
    "sieben": (7, "unit"), "acht": (8, "unit"), "neun": (9, "unit"), "zehn": (10, "teen"),
    "elf": (11, "teen"), "zwolf": (12, "teen"), "zwoelf": (12, "teen"), "dreizehn": (13, "teen"),
    "vierzehn": (14, "teen"), "funfzehn": (15, "teen"), "fuenfzehn": (15, "teen"),
    "sechzehn": (16, "teen"), "siebzehn": (17, "teen"), "achtzehn": (18, "teen"),
    "neunzehn": (19, "teen"), "zwanzig": (20, "tens"), "dreissig": (30, "tens"),
    "dreißig": (30, "tens"), "vierzig": (40, "tens"), "funfzig": (50, "tens"),
    "fuenfzig": (50, "tens"), "sechzig": (60, "tens"), "siebzig": (70, "tens"),
    "achtzig": (80, "tens"), "neunzig": (90, "tens"), "hundert": (100, "hundred"),
    "tausend": (1000, "scale"), "million": (1_000_000, "scale"), "millionen": (1_000_000, "scale"),
    "mio": (1_000_000, "scale_after"), "und": (0, "conn"), "komma": (0, "point"),
}  # fmt: skip
# English words that other languages use as numbers: not numbers when the language is unknown.
_ENGLISH_CLASH = frozenset({"once", "elf", "null"})

_NUM_BY_LANG: dict[str, _W] = {"en": _EN_NUM, "es": _ES_NUM, "fr": _FR_NUM, "de": _DE_NUM}

_WEEKDAYS: dict[str, dict[str, str]] = {
    "en": {
        "monday": "mon", "tuesday": "tue", "tues": "tue", "tue": "tue", "wednesday": "wed",
        "weds": "wed", "thursday": "thu", "thurs": "thu", "thur": "thu", "thu": "thu",
        "friday": "fri", "fri": "fri", "saturday": "sat", "sunday": "sun",
        "mon": "mon", "wed": "wed", "sat": "sat", "sun": "sun", "mondays": "mon", "tuesdays": "tue",
        "wednesdays": "wed", "thursdays": "thu", "fridays": "fri", "saturdays": "sat", "sundays": "sun",
    },
    "es": {
        "lunes": "mon", "martes": "tue", "miercoles": "wed", "jueves": "thu", "viernes": "fri",
        "sabado": "sat", "domingo": "sun",
    },
    "fr": {
        "lundi": "mon", "mardi": "tue", "mercredi": "wed", "jeudi": "thu", "vendredi": "fri",
        "samedi": "sat", "dimanche": "sun",
    },
    "de": {
        "montag": "mon", "dienstag": "tue", "mittwoch": "wed", "donnerstag": "thu",
        "freitag": "fri", "samstag": "sat", "sonnabend": "sat", "sonntag": "sun",
        "montags": "mon", "dienstags": "tue", "mittwochs": "wed", "donnerstags": "thu",
        "freitags": "fri", "samstags": "sat", "sonntags": "sun",
    },
}  # fmt: skip
_AMBIGUOUS_DAY = frozenset({"mon", "wed", "sat", "sun"})
_DAY_CUE = frozenset({"on", "next", "this", "every", "by", "until", "till", "from", "before", "after"})

_MONTHS: dict[str, dict[str, int]] = {
    "en": {
        "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
        "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
        "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11,
        "nov": 11, "december": 12, "dec": 12,
    },
    "es": {
        "enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7,
        "agosto": 8, "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11,
        "diciembre": 12,
    },
    "fr": {
        "janvier": 1, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6, "juillet": 7,
        "aout": 8, "septembre": 9, "octobre": 10, "novembre": 11, "decembre": 12,
    },
    "de": {
        "januar": 1, "jänner": 1, "janner": 1, "februar": 2, "marz": 3, "maerz": 3, "april": 4,
        "mai": 5, "juni": 6, "juli": 7, "august": 8, "september": 9, "oktober": 10,
        "november": 11, "dezember": 12,
    },
}  # fmt: skip
_EN_ORDINALS: dict[str, int] = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "primero": 1, "premier": 1, "1er": 1,
}  # fmt: skip
_ORDINAL_SUFFIX = frozenset({"st", "nd", "rd", "th", "er", "e", "eme", "o", "a", "º", "ª"})
# A day of the month said alone: "the 16th", "on the first", "el dieciséis", "le seize",
# "am sechzehnten", "zum 15.". The word before it, and what may follow it: "the first one" and
# "the second card" are not days.
_DAY_LEADS = frozenset({"the", "le", "el", "am", "den", "der", "zum", "vom", "au", "du"})
_DAY_LEADS_CARDINAL = frozenset({"le", "el", "au", "du"})  # "el 16", "le seize": a day in es/fr
_DAY_LEADS_DE = frozenset({"am", "den", "der", "zum", "vom"})
_DAY_FOLLOWERS = frozenset(
    {
        *("at", "in", "on", "is", "works", "work", "would", "will", "suits", "suit", "sounds"),
        *("please", "thanks", "thank", "then", "and", "or", "ok", "okay", "for", "yes"),
        *("yeah", "that", "instead", "perfect", "fine", "good", "great", "each", "every", "next"),
        *("it", "by", "before", "after", "around", "right", "correct", "is", "was", "as"),
        *("a", "por", "y", "o", "es", "entonces", "vale", "bien", "si", "gracias"),
        *("au", "et", "ou", "c'est", "est", "s'il", "alors", "merci", "oui", "vers"),
        *("um", "ab", "bis", "und", "oder", "ist", "bitte", "danke", "dann", "geht", "passt", "ja"),
        *("gegen", "also", "no", "not", "non", "nein", "that's", "thats", "it's", "its", "should"),
        *("cheers", "mate", "sounds", "me", "te", "le", "nous", "vous", "mir", "uns", "works"),
        *("with", "'s", "s"),
    }
)  # fmt: skip
_OF = frozenset({"of", "de", "del", "du"})
_OF_MONTH = frozenset(
    {"each", "every", "the", "this", "next", "month", "cada", "este", "mes", "chaque", "ce", "mois"}
)
# German ordinals: stem + t/st + ending ("ersten", "dritte", "sechzehnten", "einundzwanzigsten").
_DE_ORDINAL_IRREGULAR = {"erst": 1, "dritt": 3, "siebt": 7, "siebent": 7, "acht": 8}

_CURRENCY_SYMBOLS = frozenset("$€£¥")
_CURRENCY_WORDS = frozenset(
    {
        "dollar", "dollars", "usd", "bucks", "buck", "euro", "euros", "eur", "pound", "pounds",
        "quid", "gbp", "peso", "pesos", "mxn", "dolar", "dolares", "libras", "franc", "francs",
        "chf", "franken", "dollari",
    }
)  # fmt: skip
_PERCENT = (("percent",), ("per", "cent"), ("por", "ciento"), ("pour", "cent"), ("prozent",))
_MINUS_WORDS = frozenset({"minus", "menos", "moins"})
# "al menos" / "au moins" / "du moins" / "por lo menos" mean "at least", not a sign.
_NOT_MINUS_BEFORE = frozenset({"al", "au", "du", "lo", "mas", "plus"})

# Parts of the day: (words, meaning) with meaning "am", "pm" or "night".
_DAYPART: tuple[tuple[tuple[str, ...], str], ...] = (
    (("am",), "am"), (("pm",), "pm"), (("a", ".", "m", "."), "am"), (("p", ".", "m", "."), "pm"),
    (("a", ".", "m"), "am"), (("p", ".", "m"), "pm"), (("a", "m"), "am"), (("p", "m"), "pm"),
    (("in", "the", "morning"), "am"), (("in", "the", "afternoon"), "pm"),
    (("in", "the", "evening"), "pm"), (("at", "night"), "night"), (("tonight",), "pm"),
    (("this", "evening"), "pm"), (("this", "afternoon"), "pm"), (("this", "morning"), "am"),
    (("de", "la", "manana"), "am"), (("de", "la", "tarde"), "pm"), (("de", "la", "noche"), "night"),
    (("por", "la", "manana"), "am"), (("por", "la", "tarde"), "pm"), (("por", "la", "noche"), "night"),
    (("du", "matin"), "am"), (("de", "l'apres", "-", "midi"), "pm"), (("de", "l'apres", "midi"), "pm"),
    (("de", "l'aprem"), "pm"), (("du", "soir"), "pm"), (("de", "la", "nuit"), "night"),
    (("morgens",), "am"), (("fruh",), "am"), (("vormittags",), "am"), (("nachmittags",), "pm"),
    (("abends",), "pm"), (("nachts",), "night"), (("am", "morgen"), "am"),
    (("am", "nachmittag"), "pm"), (("am", "abend"), "pm"), (("in", "der", "fruh"), "am"),
)  # fmt: skip
_HOUR_MARK: tuple[tuple[str, ...], ...] = (
    ("o'clock",), ("oclock",), ("o", "clock"), ("h",), ("heures",), ("heure",), ("uhr",), ("hrs",),
    ("en", "punto"),
)  # fmt: skip
_TIME_CUE = (("at",), ("a", "las"), ("a", "la"), ("las",), ("um",))
_ONE_AFTER_AND = frozenset({"un", "une", "uno", "una"})
# "for a week": the article is a count before a span of time.
_ONE = frozenset({"a", "an", "una", "un", "une", "ein", "eine", "einen"})
_FOR = frozenset({"for", "por", "durante", "pour", "pendant", "fur", "fuer"})
_SPANS = frozenset(
    {
        *("day", "week", "month", "year", "night", "dia", "semana", "mes", "ano"),
        *("noche", "jour", "semaine", "mois", "an", "annee", "nuit", "tag", "woche", "monat"),
        *("jahr", "nacht"),
    }
)  # fmt: skip
# Words before "ten to seven" that make it a time, whatever follows.
_TIME_LEADS = frozenset({"at", "the", "by", "around", "about", "until", "till", "before", "after"})
_NOON = {"noon": "12:00", "midday": "12:00", "mediodia": "12:00", "midi": "12:00", "mittag": "12:00"}
_MIDNIGHT = {"midnight": "00:00", "medianoche": "00:00", "minuit": "00:00", "mitternacht": "00:00"}
# Words after a bare number that say it is not a time ("at 7 dollars", "at 3 people").
_NOT_TIME_AFTER = frozenset(
    {"people", "persons", "guests", "personas", "personnes", "personen", "days", "dias", "jours",
     "tage", "minutes", "minutos", "minuten", "hours", "horas", "percent", "items", "%"}
)  # fmt: skip


# Currencies and units by the code they stand for; "%" is never money.
CURRENCY_NAMES: dict[str, tuple[str, ...]] = {
    "usd": ("dollar", "dollars", "usd", "bucks", "buck", "dolar", "dolares", "dollars americains"),
    "eur": ("euro", "euros", "eur"),
    "gbp": ("pound", "pounds", "quid", "gbp", "sterling", "libra", "libras", "livre", "livres", "pfund"),
    "mxn": ("peso", "pesos", "mxn"),
    "chf": ("franc", "francs", "chf", "franken"),
    "jpy": ("yen", "jpy"),
    "%": ("percent", "per cent", "por ciento", "pour cent", "prozent"),
}
_SYMBOL_CODES = {"$": "usd", "€": "eur", "£": "gbp", "%": "%", "¥": "jpy"}
_CODE_OF = {word: code for code, words in CURRENCY_NAMES.items() for word in words} | _SYMBOL_CODES
_CURRENCY_NAME_RE = re.compile(
    r"(?<![\w])("
    + "|".join(sorted({w for ws in CURRENCY_NAMES.values() for w in ws}, key=len, reverse=True))
    + r")(?![\w])"
)


def currency_of(word: str) -> str | None:
    """The code of a currency word or symbol ("quid" -> "gbp", "€" -> "eur"), or None."""
    return _CODE_OF.get(_fold(word))


def currencies(text: str) -> set[str]:
    """The currencies and units a text names, as codes ("85 euros" -> {"eur"}, "$85" -> {"usd"})."""
    found = {_CODE_OF[m.group(1)] for m in _CURRENCY_NAME_RE.finditer(_fold(text))}
    found |= {code for symbol, code in _SYMBOL_CODES.items() if symbol in text}
    return found


@lru_cache(maxsize=1024)
def _fold_char(char: str) -> str:
    lower = char.lower()
    if len(lower) != 1:
        return char
    if lower == "’":
        return "'"
    if lower.isascii() or lower == "ß":
        return lower
    base = unicodedata.normalize("NFD", lower)[0]
    return base if base.isalpha() else lower


def _fold(text: str) -> str:
    """Lower case without accents, one character for one ("Miércoles" -> "miercoles").

    Lengths never change, so positions in the folded text are positions in the original.
    """
    if text.isascii():
        return text.lower()
    return "".join(_fold_char(c) for c in text)


@dataclass(frozen=True)
class _Lex:
    numbers: _W
    weekdays: dict[str, str]
    months: dict[str, int]
    lang: str | None


@lru_cache(maxsize=8)
def _lexicon(lang: str | None) -> _Lex:
    langs: tuple[str, ...]
    if lang is None:
        langs = _LANGS
    elif lang == "en":
        langs = ("en",)
    else:
        langs = ("en", lang)  # later wins: the caller's language over English
    numbers: _W = {}
    weekdays: dict[str, str] = {}
    months: dict[str, int] = {}
    for code in langs:
        numbers.update(_NUM_BY_LANG[code])
        weekdays.update(_WEEKDAYS[code])
        months.update(_MONTHS[code])
    if lang is None:
        for word in _ENGLISH_CLASH:
            if word in numbers and word not in _EN_NUM:
                del numbers[word]
        numbers.update({k: v for k, v in _EN_NUM.items() if k in ("a", "an", "and")})
    return _Lex(numbers, weekdays, months, lang)


@lru_cache(maxsize=8)
def _starters(lang: str | None) -> frozenset[str]:
    """Every word that can open a value in this language's lexicon."""
    lex = _lexicon(lang)
    words: set[str] = set(lex.numbers) | set(lex.weekdays) | set(lex.months) | set(_EN_ORDINALS)
    words |= {w for cue in _TIME_CUE for w in cue[:1]} | set(_NOON) | set(_MIDNIGHT)
    words |= {"half", "quarter", "viertel", "halb", "dreiviertel", "usd", "eur", "gbp"} | _DAY_LEADS
    words |= _MINUS_WORDS
    return frozenset(words)


# German writes numbers as one word: "zweihundertfünfundzwanzig".
_DE_MORPHEMES: dict[str, tuple[int, str]] = {
    "ein": (1, "unit"), "eins": (1, "unit"), "zwei": (2, "unit"), "zwo": (2, "unit"),
    "drei": (3, "unit"), "vier": (4, "unit"), "funf": (5, "unit"), "fuenf": (5, "unit"),
    "sechs": (6, "unit"), "sieben": (7, "unit"), "acht": (8, "unit"), "neun": (9, "unit"),
    "zehn": (10, "teen"), "elf": (11, "teen"), "zwolf": (12, "teen"), "zwoelf": (12, "teen"),
    "dreizehn": (13, "teen"), "vierzehn": (14, "teen"), "funfzehn": (15, "teen"),
    "fuenfzehn": (15, "teen"), "sechzehn": (16, "teen"), "siebzehn": (17, "teen"),
    "achtzehn": (18, "teen"), "neunzehn": (19, "teen"), "zwanzig": (20, "tens"),
    "dreissig": (30, "tens"), "dreißig": (30, "tens"), "vierzig": (40, "tens"), "funfzig": (50, "tens"),
    "fuenfzig": (50, "tens"), "sechzig": (60, "tens"), "siebzig": (70, "tens"),
    "achtzig": (80, "tens"), "neunzig": (90, "tens"), "hundert": (100, "hundred"),
    "tausend": (1000, "scale"), "und": (0, "und"),
}  # fmt: skip
_DE_ORDER = sorted(_DE_MORPHEMES, key=len, reverse=True)


@lru_cache(maxsize=2048)
def _german_compound(word: str) -> int | None:
    """The value of a German number written as one word, or None."""
    if len(word) < 7 or not word.isalpha():
        return None
    parts: list[tuple[int, str]] = []
    i = 0
    while i < len(word):
        for morpheme in _DE_ORDER:
            if word.startswith(morpheme, i):
                parts.append(_DE_MORPHEMES[morpheme])
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
def _german_ordinal(word: str) -> int | None:
    """A German ordinal day 1..31 ("ersten", "dritte", "sechzehnten", "einundzwanzigsten")."""
    for ending in ("en", "er", "em", "es", "e"):
        if not word.endswith(ending) or len(word) < len(ending) + 4:
            continue
        base = word[: -len(ending)]
        if base in _DE_ORDINAL_IRREGULAR:
            return _DE_ORDINAL_IRREGULAR[base]
        if base.endswith("st"):
            tens = _german_cardinal(base[:-2])
            if tens is not None and 20 <= tens <= 31:
                return tens
        if base.endswith("t"):
            small = _german_cardinal(base[:-1])
            if small is not None and 2 <= small <= 19:
                return small
        return None
    return None


def _german_cardinal(word: str) -> int | None:
    entry = _DE_NUM.get(word)
    if entry is not None and entry[1] in ("unit", "teen", "tens"):
        return entry[0]
    return _german_compound(word)


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

_TOKEN = re.compile(
    r"(?P<iso>(?<!\d)\d{4}-\d{1,2}-\d{1,2}(?!\d))"
    r"|(?P<dmy>(?<![\d.])\d{1,2}\.\d{1,2}\.\d{4}(?!\d))"
    r"|(?P<clock>(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:]))"
    r"|(?P<ident>(?=[\w-]*[^\W\d_])(?=[\w-]*\d)[^\W_]+(?:[-_/][^\W_]+)*)"
    r"|(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)"
    r"|\d{1,3}(?:\.\d{3})+(?:,\d+)?(?!\d)"
    r"|\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?![\d.,]\d)(?:,\d+)?"
    r"|\d+(?:[.,]\d+)?(?![.,]?\d))"
    r"|(?P<word>[^\W\d_]+(?:'[^\W\d_]+)*)"
    r"|(?P<sym>[^\w\s])"
)
# Digits glued to a unit ("7pm", "19h30", "1.5k", "4th", "10am"): split, not an identifier.
_GLUED = re.compile(r"(\d+)(st|nd|rd|th|er|eme|k|h|am|pm|uhr|hrs)(\d{2})?")


@dataclass(frozen=True)
class _Tok:
    kind: str  # iso | dmy | clock | ident | num | word | sym
    text: str  # folded
    raw: str
    start: int
    end: int


def _tokenise(text: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    lower = _fold(text)
    for match in _TOKEN.finditer(lower):
        kind = match.lastgroup or "sym"
        raw = match.group()
        start, end = match.span()
        if kind == "ident":
            glued = _GLUED.fullmatch(raw)
            if glued:
                a, b = glued.span(1)[1], glued.span(2)[1]
                tokens.append(_Tok("num", raw[:a], text[start : start + a], start, start + a))
                tokens.append(_Tok("word", raw[a:b], text[start + a : start + b], start + a, start + b))
                if glued.group(3):
                    tokens.append(_Tok("num", raw[b:], text[start + b : end], start + b, end))
                continue
        if kind == "word" and raw.endswith("'s") and _possessive_value(raw[:-2]):
            # "nine's fine", "the third's", "thirty quid's": the value, then "'s".
            tokens.append(_Tok("word", raw[:-2], text[start : end - 2], start, end - 2))
            tokens.append(_Tok("sym", "'s", text[end - 2 : end], end - 2, end))
            continue
        tokens.append(_Tok(kind, raw, text[start:end], start, end))
    return tokens


def _possessive_value(word: str) -> bool:
    return (
        any(word in numbers for numbers in _NUM_BY_LANG.values())
        or word in _EN_ORDINALS
        or word in _WEEKDAYS["en"]
        or word in _CURRENCY_WORDS
        or word in ("noon", "midday", "midnight", "quid")
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
    european = lang in ("es", "fr", "de")
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
        if lang == "en":
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

    def __init__(self, tokens: list[_Tok], lex: _Lex, text: str) -> None:
        self.t = tokens
        self.lex = lex
        self.text = text

    def word(self, i: int) -> str:
        if 0 <= i < len(self.t) and self.t[i].kind in ("word", "sym"):
            return self.t[i].text
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
        german = self.lex.lang in (None, "de")
        while i < len(self.t):
            tok = self.t[i]
            if (
                tok.kind == "word"
                and tok.text not in starters
                and not (german and _german_compound(tok.text) is not None)
                and not (german and _german_ordinal(tok.text) is not None)
            ):
                i += 1  # most words cannot open a value: skip the readers
                continue
            for reader in (self.date, self.time, self.weekday, self.number, self.ident):
                got = reader(i)
                if got is not None:
                    mention, nxt = got
                    found.append(mention)
                    i = nxt
                    break
            else:
                i += 1
        return found

    def span(self, i: int, j: int) -> tuple[int, int]:
        return self.t[i].start, self.t[j - 1].end

    # -- numbers --------------------------------------------------------------------------

    def cardinal(self, i: int) -> tuple[Decimal, Decimal | None, int] | None:
        """A number starting at token i: digits or words, with multipliers and decimals."""
        composer = _Composer(french=self.lex.lang in (None, "fr"))
        alt: Decimal | None = None
        j = i
        end = i
        while j < len(self.t):
            tok = self.t[j]
            if tok.kind == "num":
                value, other = _parse_digits(tok.text, self.lex.lang)
                if not composer.add(value, "digit"):
                    break
                alt = other
                j += 1
                end = j
                continue
            if tok.kind != "word":
                # "forty-nine", "dix-sept": the hyphen joins parts of one number.
                if (
                    tok.text == "-"
                    and composer.started
                    and self.number_word(j + 1)
                    and tok.start == self.t[j - 1].end
                ):
                    j += 1
                    continue
                break
            entry = self.number_word(j)
            if entry is None:
                compound = _german_compound(tok.text) if self.lex.lang in (None, "de") else None
                if compound is None or not composer.add(Decimal(compound), "block"):
                    break
                j += 1
                end = j
                continue
            word_value, role = entry
            if tok.text in ("cent", "cents") and self.lex.lang is None and not self.french_cent(j):
                break
            if role == "scale_after" and tok.text == "k" and j > i and self.t[j - 1].end != tok.start:
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
            if role == "article" and composer.started and self.word(j - 1) in ("y", "et", "und"):
                role = "unit"  # "treinta y una", "vingt et un"
            elif role == "article":
                nxt = self.number_word(j + 1)
                if nxt is None or nxt[1] not in ("hundred", "scale") or composer.started:
                    break
            # "quatre-vingt": four twenties.
            if (
                tok.text in ("vingt", "vingts")
                and composer.last == "unit"
                and composer.last_value == 4
                and self.lex.lang in (None, "fr")
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

    def french_cent(self, j: int) -> bool:
        """Whether "cent" at j is French (a number word next to it), not "fifty cents"."""
        before, after = self.word(j - 1), self.word(j + 1)
        if before:
            return before in _FR_NUM and before not in ("et", "un")
        return after in _FR_NUM

    def number_word(self, j: int) -> tuple[int, str] | None:
        if 0 <= j < len(self.t) and self.t[j].kind == "word":
            return self.lex.numbers.get(self.t[j].text)
        return None

    def fraction(self, j: int) -> tuple[str, int] | None:
        digits = ""
        while j < len(self.t):
            tok = self.t[j]
            if tok.kind == "num" and tok.text.isdigit():
                digits += tok.text
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
        if tok.text in _CURRENCY_SYMBOLS or tok.text in ("usd", "eur", "gbp"):
            currency_before = True
            i += 1
        if i < len(self.t):
            t = self.t[i]
            glued_before = i > 0 and self.t[i - 1].end == t.start
            if t.kind == "sym" and t.text in ("-", "−") and not glued_before:
                if i + 1 < len(self.t) and self.t[i + 1].kind == "num" and self.t[i + 1].start == t.end:
                    negative = True
                    i += 1
            elif t.kind == "word" and t.text in _MINUS_WORDS and self.word(i - 1) not in _NOT_MINUS_BEFORE:
                negative = True
                i += 1
            if (
                not currency_before
                and i < len(self.t)
                and self.t[i].kind == "sym"
                and self.t[i].text in _CURRENCY_SYMBOLS
            ):
                currency_before = True
                i += 1
        if i >= len(self.t):
            return None
        if (
            not currency_before
            and not negative
            and self.word(i) in _ONE
            and self.word(i - 1) in _FOR
            and self.word(i + 1) in _SPANS
        ):
            # "for a week", "por una semana", "für einen Monat": one, not an article.
            return Mention(Value("number", "1"), *self.span(i, i + 1)), i + 1
        got = self.cardinal(i)
        if got is None:
            return None
        value, alt, j = got
        # What follows the number: currency, percent.
        if j < len(self.t):
            if self.word(j) in _CURRENCY_WORDS or self.word(j) in _CURRENCY_SYMBOLS or self.word(j) == "%":
                j += 1
            else:
                pct = self.phrase(j, ((w, "%") for w in _PERCENT))
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
        day = self.lex.weekdays.get(tok.text)
        if day is None:
            return None
        if tok.text in _AMBIGUOUS_DAY:
            capitalised = tok.raw[:1].isupper() and not tok.raw.isupper()
            if not (capitalised or self.word(i - 1) in _DAY_CUE or self.word(i + 1) == "."):
                return None
        return Mention(Value("weekday", day), tok.start, tok.end), i + 1

    # -- times ----------------------------------------------------------------------------

    def small(self, i: int, limit: int) -> tuple[int, int] | None:
        """A whole number in 0..limit at token i (digits or words), and the next index."""
        if i >= len(self.t):
            return None
        tok = self.t[i]
        if tok.kind == "num":
            if tok.text.isdigit() and int(tok.text) <= limit:
                return int(tok.text), i + 1
            return None
        entry = self.number_word(i)
        if entry is None or entry[1] not in ("unit", "teen", "tens", "article"):
            if entry is None and tok.kind == "word":
                compound = _german_compound(tok.text) if self.lex.lang in (None, "de") else None
                if compound is not None and compound <= limit:
                    return compound, i + 1
            return None
        value, role = entry
        j = i + 1
        if role == "article":
            return (1, j) if tok.text in ("una", "une", "uno") else None
        if role == "tens":
            # "twenty five", "veinte y cinco", "vingt et un"
            k = j + 1 if self.word(j) in ("y", "et", "-") else j
            nxt = self.number_word(k)
            if nxt is not None and nxt[1] == "article" and k > j and self.word(k) in _ONE_AFTER_AND:
                nxt = (1, "unit")  # "vingt et un", "treinta y una"
            unit = nxt is not None and nxt[1] == "unit" and 0 < nxt[0] < 10
            french_teen = (
                nxt is not None and self.lex.lang in (None, "fr") and value == 60 and nxt[1] == "teen"
            )
            if nxt is not None and (unit or french_teen):
                value += nxt[0]
                j = k + 1
        elif role == "teen" and value == 10 and self.word(j) == "-":
            nxt = self.number_word(j + 1)  # "dix-sept"
            if nxt is not None and nxt[1] == "unit" and nxt[0] > 0:
                value += nxt[0]
                j += 2
        elif role == "unit" and self.word(j) == "und":
            nxt = self.number_word(j + 1)
            if nxt is not None and nxt[1] == "tens":
                value += nxt[0]
                j += 2
        return (value, j) if value <= limit else None

    def minutes(self, i: int) -> tuple[int, int] | None:
        """Minutes after an hour: "30", "thirty", "oh five", "y media", "et quart"."""
        special = self.phrase(
            i,
            (
                (("y", "media"), "30"), (("y", "cuarto"), "15"), (("et", "demie"), "30"),
                (("et", "demi"), "30"), (("et", "quart"), "15"), (("menos", "cuarto"), "-15"),
                (("moins", "le", "quart"), "-15"), (("moins", "quart"), "-15"),
            ),
        )  # fmt: skip
        if special is not None:
            return int(special[0]), special[1]
        if self.word(i) in ("menos", "moins") and (less := self.small(i + 1, 30)) is not None and less[0] > 0:
            return -less[0], less[1]  # "doce menos veinte", "midi moins vingt"
        if self.word(i) in ("oh", "o") and (got := self.small(i + 1, 9)) is not None:
            return got
        tok = self.t[i] if i < len(self.t) else None
        if (
            tok is not None
            and tok.kind == "num"
            and len(tok.text) == 2
            and tok.text.isdigit()
            and int(tok.text) < 60
        ):
            return int(tok.text), i + 1
        got = self.small(i, 59)
        if got is not None and got[0] >= 10:
            return got
        return None

    def time(self, i: int) -> tuple[Mention, int] | None:
        tok = self.t[i]
        if tok.kind == "word":
            named = _NOON.get(tok.text) if self.word(i - 1) not in ("-", "l'apres", "apres") else None
            named = named or _MIDNIGHT.get(tok.text)
            if named is not None:
                # "midi moins vingt" (11:40), "mediodía y cuarto" (12:15)
                mins = self.minutes(i + 1) if self.word(i + 1) in ("moins", "menos", "et", "y") else None
                if mins is None:
                    return Mention(Value("time", named), tok.start, tok.end), i + 1
                total = (int(named[:2]) * 60 + mins[0]) % (24 * 60)
                key = f"{total // 60:02d}:{total % 60:02d}"
                return Mention(Value("time", key), tok.start, self.t[mins[1] - 1].end), mins[1]
            got = self.relative_time(i)
            if got is not None:
                return got
        cue = self.phrase(i, ((w, "cue") for w in _TIME_CUE))
        start = i
        if cue is not None:
            i = cue[1]
            if i >= len(self.t):
                return None
            tok = self.t[i]
        hour: int
        minute = 0
        marked = False
        if tok.kind == "clock":
            parts = tok.text.split(":")
            hour, minute = int(parts[0]), int(parts[1])
            if hour > 24 or minute > 59:
                return None
            j = i + 1
            marked = True
        else:
            hour_got = self.small(i, 24)
            if hour_got is None:
                dotted = re.fullmatch(r"(\d{1,2})[.,](\d{2})", tok.text) if tok.kind == "num" else None
                if not dotted:
                    return None
                hour, minute = int(dotted.group(1)), int(dotted.group(2))
                j = i + 1
                # "7.30" is a time only with a mark after it ("7.30 pm", "19.30 Uhr").
                if self.phrase(j, ((w, "") for w in _HOUR_MARK)) is None and self.phrase(j, _DAYPART) is None:
                    return None
                if hour > 24 or minute > 59:
                    return None
            else:
                hour, j = hour_got
        mark = self.phrase(j, ((w, "") for w in _HOUR_MARK))
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
                    self.phrase(mins_end, _DAYPART) is not None
                    or self.phrase(mins_end, ((w, "") for w in _HOUR_MARK))
                    or cue
                    or (self.word(j) in ("y", "et", "menos", "moins") and tok.kind == "word")
                ):  # "diez y cuarto", "huit et demie": a time, whatever stands around it
                    minute, j = mins
                    marked = True
        if minute < 0:
            hour, minute = (hour - 1) % 24, 60 + minute
        part = self.phrase(j, _DAYPART)
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
                nxt.text in _NOT_TIME_AFTER or nxt.text in _CURRENCY_WORDS or nxt.kind in ("num",)
            ):
                return None
            if nxt is not None and nxt.text in _CURRENCY_SYMBOLS:
                return None
            if tok.kind == "num" and not tok.text.isdigit():
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
        elif tok.kind == "clock" and tok.text.startswith("0"):
            pass  # "07:30" is written on a 24-hour clock: the morning
        elif 1 <= hour < 12:
            also.add(f"{hour + 12:02d}:{minute:02d}")
        elif hour == 12:
            also.add(f"00:{minute:02d}")
        a, b = self.span(start if cue is not None and cue[1] > start else i, j)
        return Mention(Value("time", f"{hour:02d}:{minute:02d}"), a, b, frozenset(also)), j

    def relative_time(self, i: int) -> tuple[Mention, int] | None:
        """ "half past seven", "quarter to eight", "ten to seven", "half eight", "halb acht"."""
        forms: list[tuple[tuple[str, ...], int]] = [
            (("half", "past"), 30), (("quarter", "past"), 15), (("quarter", "to"), -15),
            (("quarter", "after"), 15), (("quarter", "of"), -15), (("viertel", "nach"), 15),
            (("viertel", "vor"), -15), (("halb",), -30), (("dreiviertel",), -15),
        ]  # fmt: skip
        if self.lex.lang in (None, "de"):
            # "zwanzig nach vier", "zehn vor neun"
            minutes = self.small(i, 29)
            if minutes is not None and minutes[0] in (5, 10, 20, 25) and self.t[i].kind == "word":
                for link, sign in (("nach", 1), ("vor", -1)):
                    if self.word(minutes[1]) == link:
                        words = tuple(self.word(k) for k in range(i, minutes[1] + 1))
                        forms.append((words, sign * minutes[0]))
        if self.lex.lang in (None, "en"):
            forms.append((("half",), 30))  # British "half eight" is 8:30
            # "ten to seven", "twenty five past eight"; "from ten to seven" is a range.
            minutes = self.small(i, 29)
            if (
                minutes is not None
                and minutes[0] in (5, 10, 20, 25)
                and self.t[i].kind == "word"
                and self.word(i - 1) not in ("from", "between", "-")
            ):
                for link, sign in (("to", -1), ("past", 1), ("after", 1), ("till", -1)):
                    if self.word(minutes[1]) == link:
                        words = tuple(self.word(k) for k in range(i, minutes[1] + 1))
                        forms.append((words, sign * minutes[0]))
        for words, offset in forms:
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
                if after in _NOT_TIME_AFTER or after in _CURRENCY_WORDS or after in ("hours", "hour"):
                    continue  # "half eight hours", "ten to seven people": not a time
                if (
                    words[0] not in ("half", "quarter", "viertel", "halb", "dreiviertel")
                    and self.word(i - 1) not in _TIME_LEADS
                    and not self.day_ends(j)
                ):
                    continue  # "ten to twelve bags" is a count; "at ten to seven" is a time
                total = hour * 60 + offset
                if total < 0:
                    total += 12 * 60
                h, m = divmod(total, 60)
                part = self.phrase(j, _DAYPART)
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
        if tok.kind == "word" and tok.text in _EN_ORDINALS:
            return _EN_ORDINALS[tok.text], i + 1
        if tok.kind == "word" and tok.text in ("twenty", "thirty") and self.word(i + 1) in _EN_ORDINALS:
            return (20 if tok.text == "twenty" else 30) + _EN_ORDINALS[self.word(i + 1)], i + 2
        if tok.kind == "word" and self.lex.lang in (None, "de") and self.word(i + 1) in _MONTHS["de"]:
            ordinal = _german_ordinal(tok.text)  # "sechzehnter Mai", "am sechzehnten Mai"
            if ordinal is not None:
                return ordinal, i + 1
        got = self.small(i, 31)
        if got is None or got[0] == 0:
            return None
        day, j = got
        if j < len(self.t) and self.t[j].start == self.t[j - 1].end and self.word(j) in _ORDINAL_SUFFIX:
            j += 1
        return day, j

    def year(self, i: int) -> tuple[int, int] | None:
        j = i + 1 if self.word(i) in (",", "de", "del") else i
        if j < len(self.t) and self.t[j].kind == "num" and re.fullmatch(r"(19|20)\d\d", self.t[j].text):
            return int(self.t[j].text), j + 1
        return None

    def date(self, i: int) -> tuple[Mention, int] | None:
        tok = self.t[i]
        if tok.kind in ("iso", "dmy"):
            parts = [int(p) for p in re.split(r"[-.]", tok.text)]
            y, m, d = parts if tok.kind == "iso" else (parts[2], parts[1], parts[0])
            if not (1 <= m <= 12 and 1 <= d <= 31):
                return None
            return Mention(Value("date", f"{y:04d}-{m:02d}-{d:02d}"), tok.start, tok.end), i + 1
        months = self.lex.months
        # month first: "march 4", "march the 4th", "march fourth, 2026"
        if tok.kind == "word" and tok.text in months:
            j = i + 1
            if self.word(j) == ".":
                j += 1
            if self.word(j) == "the":
                j += 1
            got = self.day_of_month(j)
            if got is not None:
                day, j = got
                return self.finish_date(i, j, months[tok.text], day)
            return None
        # day first: "4 march", "the 4th of march", "4 de marzo", "4. märz", "le 4 mars"
        j = i + 1 if self.word(i) in ("the", "le", "el", "am", "den") else i
        got = self.day_of_month(j)
        if got is None:
            return self.day_alone(i)
        day, j = got
        if self.word(j) in ("of", "de", "."):
            j += 1
        month_word = self.word(j)
        if month_word not in months:
            return self.day_alone(i)
        return self.finish_date(i, j + 1, months[month_word], day)

    def day_alone(self, i: int) -> tuple[Mention, int] | None:
        """A day of the month without a month: "the 16th", "on the first", "el dieciséis"."""
        lead = self.word(i) if self.word(i) in _DAY_LEADS else ""
        j = i + 1 if lead else i
        if j >= len(self.t):
            return None
        tok = self.t[j]
        got: tuple[int, int] | None = None
        after_day = not lead and self.word(i - 1) in self.lex.weekdays
        if after_day and self.lex.lang in ("es", "fr") and tok.kind in ("word", "num"):
            got = self.small(j, 31)  # "el jueves dieciséis", "mardi 8"
        elif tok.kind == "num":
            day = self.day_of_month(j)
            suffixed = day is not None and day[1] > j + 1
            dotted = (
                day is not None
                and lead in _DAY_LEADS_DE
                and self.word(j + 1) == "."
                and self.t[j + 1].start == tok.end
            )
            if day is not None and (suffixed or dotted or lead in _DAY_LEADS_CARDINAL):
                got = (day[0], day[1] + 1) if dotted else day
        elif lead == "the" or lead in _DAY_LEADS_CARDINAL:
            tens = tok.text in ("twenty", "thirty") and self.word(j + 1) in _EN_ORDINALS
            if tok.text in _EN_ORDINALS or tens:
                got = self.day_of_month(j)
            elif lead in _DAY_LEADS_CARDINAL and self.lex.lang in (None, "es", "fr"):
                got = self.small(j, 31)
        elif lead in _DAY_LEADS_DE and self.lex.lang in (None, "de") and tok.kind == "word":
            ordinal = _german_ordinal(tok.text)
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
            return tok.text in (",", ".", "!", "?", ";", ":", "'s")
        if tok.kind == "word":
            if tok.text in _OF:
                return self.word(k + 1) in _OF_MONTH  # "of each month", not "el dos de los tres"
            return tok.text in _DAY_FOLLOWERS or self.phrase(k, _DAYPART) is not None
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
        return Mention(Value("ident", _ident_key(tok.text)), tok.start, tok.end), i + 1


def _ident_key(token: str) -> str:
    """Casefolded, a separator where letters meet digits dropped: "A-1001" -> "a1001"."""
    folded = _fold(token)
    return re.sub(r"(?<=[^\W\d_])[-_ ](?=\d)|(?<=\d)[-_ ](?=[^\W\d_])", "", folded)


# ---------------------------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------------------------


def _norm_lang(lang: str | None) -> str | None:
    if lang is None:
        return None
    code = lang.lower().split("-")[0].split("_")[0]
    return code if code in _LANGS else None


@lru_cache(maxsize=4096)
def _scan(text: str, lang: str | None) -> tuple[Mention, ...]:
    tokens = _tokenise(text)
    return tuple(_Scanner(tokens, _lexicon(lang), text).scan())


def find_mentions(text: str, lang: str | None = None) -> list[Mention]:
    """Every value the text mentions, with where it is and its other readings.

    ``lang`` is "en", "es", "fr" or "de" (a region suffix such as "es-MX" is ignored); None or an
    unknown code reads all four. Never raises on odd text: what is not understood is not found.
    """
    return list(_scan(text, _norm_lang(lang)))


def find_values(text: str, lang: str | None = None) -> list[Value]:
    """Every value a sentence mentions, normalised, in order (lang None: all four languages)."""
    return [m.value for m in _scan(text, _norm_lang(lang))]


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
    day = _lexicon(None).weekdays.get(_fold(text).rstrip("."))
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
    return Value("text", _fold(text))


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
    words = [re.escape(w) for w in value.key.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)")


def locate(text: str, value: object, lang: str | None = None) -> list[tuple[int, int]]:
    """Where the text carries ``value`` as a value: the (start, end) of each mention.

    Raises what :func:`normalise` raises for ``value``.
    """
    target = normalise(value, lang)
    if target.kind in ("ident", "text"):
        if not target.key:
            return []
        folded = _fold(text)
        return [m.span() for m in _pattern(target).finditer(folded)]
    return [(m.start, m.end) for m in _scan(text, _norm_lang(lang)) if m.means(target)]


def mentions(text: str, value: object, lang: str | None = None) -> bool:
    """Whether the text carries this value as a value.

    1500 is in "$1,500.00", "1500 dollars", "fifteen hundred", "1.5k", "1 500", "mil quinientos",
    and (with lang es/fr/de or None) "1.500 €"; 500 is not in "1,500". "Thursday" is in "thu",
    "Thurs", "jueves", "jeudi", "Donnerstag". "19:00", "7pm", "7 p.m.", "seven in the evening",
    "19 h" and "19 Uhr" are one time. Identifiers are exact tokens, case-insensitive, with a
    separator tolerated only where letters meet digits ("A-1001" is in "a1001" and "a 1001",
    never in "A-10011"). Text values match as casefolded whole words.

    Raises what :func:`normalise` raises for ``value`` (ValueError for NaN, infinities, bool).
    """
    return bool(locate(text, value, lang))
