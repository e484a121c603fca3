"""The one way gate folds and splits text, whatever the language.

Everything in gate that compares words folds them with :func:`fold` and splits text with
:func:`tokens`, so a word in a data file, in the caller's answer and in the agent's question is
the same key: "Miércoles", "miercoles" and "MIÉRCOLES" are ``miercoles``; "Straße" and
"strasse" are ``strasse``; "don’t" and "don't" are ``don't``.

Positions always refer to the original text: a token's ``start`` and ``end`` slice the text it
came from, and :func:`fold_with_positions` maps every folded character back to its original one
(folding may change the length: "ß" becomes "ss").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

__all__ = ["Token", "TokenKind", "fold", "fold_with_positions", "stem_match", "tokens", "words"]

TokenKind = Literal["iso", "dmy", "clock", "ident", "num", "word", "sym"]


def fold(text: str) -> str:
    """Lower case, accents dropped, "ß" as "ss", a typographic apostrophe as "'".

    Never raises; an empty text folds to "".
    """
    if text.isascii():
        return text.lower()
    return "".join(_fold_char(c) for c in text)


@lru_cache(maxsize=2048)
def _fold_char(char: str) -> str:
    if char in "’‘ʼ":
        return "'"
    lower = char.lower()
    if lower.isascii():
        return lower
    if lower == "ß":
        return "ss"
    return "".join(c for c in unicodedata.normalize("NFD", lower) if not unicodedata.combining(c))


def fold_with_positions(text: str) -> tuple[str, tuple[int, ...] | None]:
    """The folded text and, for each of its characters, the index of the original character.

    The map has one more entry than the folded text (the original length), so a folded span
    ``(a, b)`` is the original span ``(map[a], map[b])``. It is None when folding kept every
    position (ASCII text).
    """
    if text.isascii():
        return text.lower(), None
    out: list[str] = []
    where: list[int] = []
    for i, char in enumerate(text):
        folded = _fold_char(char)
        out.append(folded)
        where.extend([i] * len(folded))
    where.append(len(text))
    return "".join(out), tuple(where)


@dataclass(frozen=True)
class Token:
    """One token: its kind, its folded ``key``, the original ``raw`` text and where it is."""

    kind: TokenKind
    key: str
    raw: str
    start: int
    end: int


# Dates, clock times, identifiers (letters and digits together), numbers with their separators,
# words (with inner apostrophes: "don't", "j'annule") and single symbols, in that order.
_TOKEN = re.compile(
    r"(?P<iso>(?<!\d)\d{4}-\d{1,2}-\d{1,2}(?!\d))"
    r"|(?P<dmy>(?<![\d.])\d{1,2}\.\d{1,2}\.\d{4}(?!\d))"
    r"|(?P<clock>(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:]))"
    r"|(?P<ident>(?=[\w-]*[^\W\d_])(?=[\w-]*\d)[^\W_]+(?:[-_/][^\W_]+)*)"
    r"|(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)"
    r"|\d{1,3}(?:\.\d{3})+(?:,\d+)?(?!\d)"
    r"|\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?![\d.,]\d)(?:,\d+)?"
    r"|\d+(?:[.,]\d+)?(?![.,]?\d))"
    # A straight double quote between letters is an apostrophe typed on the wrong key ("o"clock").
    r"|(?P<word>[^\W\d_]+(?:['’\"][^\W\d_]+)*)"
    r"|(?P<sym>[^\w\s])"
)
# Digits glued to a unit ("7pm", "19h30", "1.5k", "4th", "10am"): split, not an identifier.
_GLUED = re.compile(r"(\d+)(st|nd|rd|th|er|eme|k|h|am|pm|uhr|hrs)(\d{2})?")


@lru_cache(maxsize=8192)
def tokens(text: str) -> tuple[Token, ...]:
    """The tokens of ``text``, left to right (cached: questions are read once per answer).

    A number glued to its unit ("7pm", "4th", "19h30") is split into the number and the unit.
    Never raises; whitespace is never a token.
    """
    out: list[Token] = []
    for match in _TOKEN.finditer(text):
        kind: TokenKind = match.lastgroup or "sym"  # type: ignore[assignment]
        raw = match.group()
        start, end = match.span()
        key = fold(raw)
        if kind == "word" and '"' in key:
            key = key.replace('"', "'")
        if kind == "ident":
            glued = _GLUED.fullmatch(key)
            if glued and len(key) == len(raw):
                a, b = glued.span(1)[1], glued.span(2)[1]
                out.append(Token("num", key[:a], raw[:a], start, start + a))
                out.append(Token("word", key[a:b], raw[a:b], start + a, start + b))
                if glued.group(3):
                    out.append(Token("num", key[b:], raw[b:], start + b, end))
                continue
        out.append(Token(kind, key, raw, start, end))
    return tuple(out)


def words(text: str) -> list[str]:
    """The folded keys of the text's tokens that are not symbols ("Shall I?" -> ["shall", "i"])."""
    return [t.key for t in tokens(text) if t.kind != "sym"]


def stem_match(word: str, terms: frozenset[str], *, compound: bool = False) -> bool:
    """Whether ``word`` is one of ``terms`` or shares its stem ("cancelled" and "cancel").

    Two words share a stem when they agree on at least four letters from the start and differ
    in at most three after it. With ``compound`` (for words no lexicon knows), also the head of
    a compound word ("Besuch" in "Klempnerbesuch") and a looser stem ("transferencia" and
    "transfiero"). Folded words are expected.
    """
    if word in terms:
        return True
    if compound and len(word) >= 5 and any(len(term) > len(word) and term.endswith(word) for term in terms):
        return True
    if len(word) < 4:
        return False
    for term in _by_prefix(terms).get(word[:4], ()):
        n = 4
        for a, b in zip(word[4:], term[4:], strict=False):
            if a != b:
                break
            n += 1
        if n >= min(len(word), len(term)) - 3:
            return True
        if compound and n >= 5 and n >= min(len(word), len(term)) - 4:
            return True
    return False


@lru_cache(maxsize=4096)
def _by_prefix(terms: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """The terms of four letters or more, by their first four (a shared stem starts there)."""
    out: dict[str, list[str]] = {}
    for term in terms:
        if len(term) >= 4:
            out.setdefault(term[:4], []).append(term)
    return {prefix: tuple(found) for prefix, found in out.items()}
