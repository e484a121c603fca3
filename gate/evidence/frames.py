"""Offers said in the same frame: another phrase where the earlier offer's value stood.

An agent reading results out one at a time often says each in the same words around it:
"aloft portland airport at cascade station is 3 stars" ... "the canopy by hilton portland pearl
district is 3 stars". Words as speech-to-text writes them carry no capitals, so the later name
cannot be told by its case, and a name the reader does not take for one ("Schmall Rahima S")
cannot be told by its shape; the frame tells both. Pure.

The frame is the words before the value from the sentence's start and after it to the end of its
clause or its sentence: at least two after it ("is 3 stars"), or, when the value ends the
sentence, three before it ("i found a hotel called ..."); never only a date or a time ("on march
4th"); counts and amounts in it may differ ("is 4 stars"). A later sentence, or its first clause
("the grange is 4 stars and has parking"), in the same frame puts forward what stands in the
value's place, unless that is a pronoun, or says nothing but the value's own words and the
thing's ("the hotel is 3 stars", "the aloft is 3 stars" describe the same one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"[^\W_][\w'’&-]*")
_SENTENCE = re.compile(r"[^.?!;]+")
# Words that stand for a thing already named, or for none: no other value in the value's place.
_POINTERS = frozenset(
    {
        "it", "its", "it's", "that", "this", "they", "them", "these", "those", "which", "what",
        "one", "ones", "he", "she", "there", "here", "who", "where", "everything", "all", "both",
        "each", "mine", "yours", "same", "other", "another", "any", "some", "something", "anything",
        "nothing", "none",
    }
)  # fmt: skip
# Words that hold a frame together but say nothing of what is in it: a frame of only these and
# marks ("on #" once "march 4th" is shaped, "at # pm") is a date or a time, said of every result
# alike. Days, months and numbers are marks already (:func:`_shape`).
_FRAME_ONLY = frozenset(
    {
        "#", "a", "an", "the", "at", "on", "in", "for", "from", "to", "of", "by", "with", "and", "or",
        "is", "are", "was", "it", "it's", "am", "pm", "o'clock", "morning", "afternoon", "evening",
        "night", "next", "this", "week", "day",
    }
)  # fmt: skip
_LEADS = frozenset({"the", "a", "an", "and", "also", "then", "or", "so", "but", "well", "ok", "okay"})
_SUFFIX_WORDS = 2  # "is 3 stars"
_PREFIX_WORDS = 3  # "i found a ..."; "how about" alone leads into values of every kind
_OPENING_WORDS = 3  # "is located at" before a street number
_LONGEST = 10


def _words(text: str, start: int, end: int) -> list[re.Match[str]]:
    return list(_WORD.finditer(text, start, end))


def _folded(found: Iterable[re.Match[str]]) -> list[str]:
    return [m.group().casefold().replace("’", "'") for m in found]


def _shape(said: list[str]) -> list[str]:
    """The frame's words with each count, amount, day or month as one mark: "is 3 stars" and "is
    4 stars", "are playing on saturday" and "are playing on sunday" are one frame, the results'
    details differing."""
    return ["#" if any(c.isdigit() for c in w) or w in _NUMBERS or w in _DAYS else w for w in said]


_DAYS = frozenset(
    {
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today",
        "tomorrow", "tonight", "january", "february", "march", "april", "may", "june", "july",
        "august", "september", "october", "november", "december",
    }
)  # fmt: skip


_NUMBERS = frozenset(
    {
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
        "twelve", "twenty", "thirty", "forty", "fifty", "hundred",
    }
)  # fmt: skip


# Words that open another clause of the sentence: the frame's clause ends before them.
_CLAUSE_OPENERS = frozenset({"and", "but", "which", "where", "while", "so", "though", "although"})


def _in_place(
    said: list[str], found: list[re.Match[str]], before: list[str], afters: list[list[str]], leads: bool
) -> list[re.Match[str]]:
    """The words of ``found`` (shaped as ``said``) in the value's place of the frame: between the
    words before it and one of the frames after it, or after the words before it (``leads``)."""
    if said[: len(before)] != before:
        # the words before the value are the frame's too ("there is a car at ... on march #" is
        # not the frame of "please confirm: a visit at ... on march #")
        return []
    for after in afters:
        if len(said) > len(before) + len(after) and said[-len(after) :] == after:
            return found[len(before) : len(said) - len(after)]
        if after[-1:] == ["#"]:
            # a frame's opening: the other value stands before its first place in the sentence
            for at in range(len(before) + 1, len(said) - len(after) + 1):
                if said[at : at + len(after)] == after:
                    return found[len(before) : at]
    if leads and len(said) > len(before):
        return found[len(before) :]
    return []


def _clause_end(text: str, found: list[re.Match[str]]) -> int:
    """How many of ``found`` (words of one sentence of ``text``) its first clause holds: up to a
    comma or a word that opens another clause, after the first word."""
    for n in range(1, len(found)):
        gap = text[found[n - 1].end() : found[n].start()]
        if "," in gap or ":" in gap or found[n].group().casefold() in _CLAUSE_OPENERS:
            return n
    return len(found)


def _lead_off(said: list[str]) -> list[str]:
    """``said`` without the words that lead into a sentence ("and", "also", "the")."""
    n = 0
    while n < len(said) and said[n] in _LEADS:
        n += 1
    return said[n:]


def _sentence(text: str, at: int) -> tuple[int, int]:
    for m in _SENTENCE.finditer(text):
        if m.start() <= at < m.end():
            return m.start(), m.end()
    return 0, len(text)


def another_in_frame(
    earlier: str, span: tuple[int, int], later: str, thing: Iterable[str]
) -> tuple[int, int] | None:
    """Where ``later`` puts another phrase in the place the value at ``span`` of ``earlier`` held,
    in the same words around it; None when it does not.

    ``thing``: the words of the kind of thing offered ("hotel", "room"): a phrase of only those,
    the value's own words and articles describes the one offered, it offers no other.
    """
    a, b = _sentence(earlier, span[0])
    value = set(_folded(_words(earlier, span[0], span[1])))
    following = _words(earlier, span[1], b)
    before = _lead_off(_shape(_folded(_words(earlier, a, span[0]))))
    own = {w.casefold() for w in thing}
    # The frame after the value: its clause ("is 2 stars, and it has parking"), or all the words
    # to the sentence's end when its clause alone is too short to tell ("which has 2 stars and
    # costs 90 a night"). Never a number and one word ("costs 90") or a date ("on march 4th"):
    # those are said of every result alike.
    afters = [
        after
        for after in (
            _shape(_folded(following[: _clause_end(earlier, following)])),
            _shape(_folded(following)),
        )
        if len([w for w in after if w != "#"]) >= _SUFFIX_WORDS and set(after) - _FRAME_ONLY
    ]
    # Or its first words up to a count or an amount ("is located at # clayton road" ... "is
    # located at # willow pass road"): the frame an agent reads every result's details out in.
    opening = _shape(_folded(following))
    opening = opening[: opening.index("#")] if "#" in opening else []
    if len(opening) >= _OPENING_WORDS and set(opening) - _FRAME_ONLY:
        afters.append([*opening, "#"])
    # the value ends its sentence: the words before it are its frame
    leads = not following and len([w for w in before if w != "#"]) >= _PREFIX_WORDS
    leads = leads and bool(set(before) - _FRAME_ONLY)
    for m in _SENTENCE.finditer(later):
        whole = _words(later, m.start(), m.end())
        # "and the", "also a": words that lead into a sentence are no part of its frame
        whole = whole[len(whole) - len(_lead_off(_folded(whole))) :]
        # the frame may end the later sentence's first clause ("the grange is 4 stars and has
        # parking")
        for found in (whole[: _clause_end(later, whole)], whole):
            place = _in_place(_shape(_folded(found)), found, before, afters, leads)
            while place and place[0].group().casefold() in _LEADS:
                place = place[1:]
            if not place or len(place) > _LONGEST:
                continue
            phrase = _folded(place)  # (its own numbers kept: "21 bistro" is a name)
            if phrase[0] in _POINTERS or set(phrase) <= value | own | _LEADS:
                continue
            return place[0].start(), place[-1].end()
    return None
