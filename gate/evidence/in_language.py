"""A value said in other words: "el agua" for water, "l'Allemagne" for Germany, "the electric
bill" for electricity.

Each language folder lists the common values callers name in it (``value_words`` in
``gate/lang/<code>/values.toml``: the utility, the plan, the kind of account, a colour, a
country) with the English values they are; the English folder lists other English words for
them ("checking" for a current account). A text argument's value is found where the caller
says one of those words: as a word of its own, after a French elision ("d'électricité"), or
as the first part of a compound whose last part the language lists (``compound_heads``:
"Gasrechnung", "Sparkonto", "Familienplan"). A key written with a trailing "-" is read only as
such a first part, because as a word of its own it is an English word of another sense ("tier").
A word of ``value_modifiers`` is the value only beside the kind of thing it qualifies ("the films
plan", "l'option films"): alone it names a thing of its own ("the film i rented").

Only what the tables list is found; a value they do not know is looked for as before (by its
own name). Never raises.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from gate import lang as lang_data
from gate.evidence import words
from gate.lang.text import fold_with_positions

__all__ = ["compound_heads", "value_spans_in_language", "words_for"]

_WORD = re.compile(r"[a-z0-9ß]+(?:'[a-z0-9ß]+)*")
# French and Italian elisions glued to the next word ("l'Allemagne", "d'électricité").
_ELIDED = re.compile(r"^(?:l|d|qu|dell|all|nell|un)'")
# What joins the parts of a German compound ("Familien-plan", "Geschäfts-konto").
_LINKS = ("", "s", "n", "en", "es", "e")


# What a value word qualifies when it is a value only beside its kind (``value_modifiers``).
_KINDS = frozenset(
    {*words.KINDS_OF_ITEM, "bill", "account", "meter", "insurance", "cover", "policy", "channel"}
    | {"channels", "card", "line", "pass", "ticket", "tickets"}
)


@cache
def _modifiers() -> dict[str, frozenset[str]]:
    """``value_modifiers`` of every language: each word folded, to the English values it is."""
    out: dict[str, set[str]] = {}
    for word, english in lang_data.union_table("value_modifiers").items():
        if isinstance(english, str):
            out.setdefault(word, set()).update(" ".join(e.split()) for e in english.split("|") if e.strip())
    return {k: frozenset(v) for k, v in out.items()}


@cache
def compound_heads() -> tuple[str, ...]:
    """The last parts of compounds every language lists (``compound_heads``), folded, longest
    first: the longest that ends a word is its part ("zählerstand", not "stand")."""
    return tuple(sorted(lang_data.union_words("compound_heads"), key=lambda h: (-len(h), h)))


@cache
def _table() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """(words of their own, first parts of compounds): each foreign word folded, to the English
    values it is."""
    alone: dict[str, set[str]] = {}
    first: dict[str, set[str]] = {}
    for foreign, english in lang_data.union_table("value_words").items():
        if not isinstance(english, str):
            continue
        values = {" ".join(e.split()) for e in english.split("|") if e.strip()}
        if foreign.endswith("-"):
            first.setdefault(foreign[:-1], set()).update(values)
        else:
            alone.setdefault(foreign, set()).update(values)
            first.setdefault(foreign, set()).update(values)
    return {k: frozenset(v) for k, v in alone.items()}, {k: frozenset(v) for k, v in first.items()}


def _phrases() -> list[str]:
    return [k for k in _table()[0] if " " in k or "-" in k]


@lru_cache(maxsize=1)
def _phrase_pattern() -> re.Pattern[str] | None:
    found = sorted(_phrases(), key=len, reverse=True)
    if not found:
        return None
    return re.compile(r"\b(?:" + "|".join(re.escape(p) for p in found) + r")\b")


def _compound_first(word: str) -> frozenset[str]:
    """The English values of the first part of ``word`` when its last part is a listed head."""
    _, first = _table()
    for head in compound_heads():
        if len(word) > len(head) + 1 and word.endswith(head):
            front = word[: -len(head)].rstrip("-")
            for link in _LINKS:
                if link and not front.endswith(link):
                    continue
                part = front[: len(front) - len(link)] if link else front
                if len(part) >= 3 and part in first:
                    return first[part]
    return frozenset()


@lru_cache(maxsize=8192)
def value_spans_in_language(text: str, value: str) -> tuple[tuple[int, int], ...]:
    """Where ``text`` names ``value`` (an English value, as shown) in another language's word
    for it: spans of ``text``, in order; () when no listed word says it."""
    wanted = " ".join(value.casefold().split())
    alone, _ = _table()
    if not wanted or not any(wanted in v for v in (*alone.values(), *_modifiers().values())):
        return ()
    folded, where = fold_with_positions(text)

    def original(a: int, b: int) -> tuple[int, int]:
        return (where[a], where[b]) if where is not None else (a, b)

    spans: list[tuple[int, int]] = []
    pattern = _phrase_pattern()
    if pattern is not None:
        for m in pattern.finditer(folded):
            if m.group(0) != wanted and wanted in alone.get(m.group(0), frozenset()):
                spans.append(original(m.start(), m.end()))
    for m in _WORD.finditer(folded):
        word, start = m.group(0), m.start()
        elided = _ELIDED.match(word)
        if elided:
            word, start = word[elided.end() :], start + elided.end()
        word = re.sub(r"'s$", "", word)  # "the children's add-on": whose, the word itself
        if word == wanted or any(a <= start < b for a, b in spans):
            continue  # the value's own name is found as a name (a longer one may go on from it)
        listed = wanted in alone.get(word, frozenset()) or wanted in _compound_first(word)
        qualifies = wanted in _modifiers().get(word, frozenset()) and _kind_beside(folded, start, m.end())
        if listed or qualifies:
            spans.append(original(start, m.end()))
    return tuple(sorted(spans))


def _kind_beside(folded: str, start: int, end: int) -> bool:
    """Whether the word after ``end`` (past a hyphen), or the one before ``start`` (past "de", "of"
    and an elision: "l'option films"), is a kind of thing a value qualifies."""
    after = re.match(r"[\s-]+([a-z]+(?:-[a-z]+)?)", folded[end:])
    if after is not None and after.group(1) in _KINDS:
        return True
    before = re.search(r"(?:^|[\s'])([a-z]+)(?:\s+(?:de|des|du|of|von))?\s+$", folded[:start])
    return before is not None and before.group(1) in _KINDS


@lru_cache(maxsize=1024)
def words_for(value: str) -> tuple[str, ...]:
    """The listed words of every language for ``value`` (folded; the first parts of compounds
    without their "-"), its own name left out: what a memory naming it in another language holds."""
    wanted = " ".join(value.casefold().split())
    _, first = _table()
    found = {k for k, v in (*first.items(), *_modifiers().items()) if wanted in v and k != wanted}
    return tuple(sorted(found))
