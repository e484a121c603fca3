"""A detail of the question said back the other way round: "you have no extra luggage" -
"I do have extra luggage"; "without subtitles?" - "yes, with subtitles".

The question's words are neutral when the caller says them back, which is how "yes, cancel it"
is a yes. But a word the question negates ("no", "without", "non-", "not", "sin", "sans",
"ohne", "kein") said back without its negation, or a word the question states said back after
a negating determiner ("yes, no subtitles" to "with subtitles?"), flips the detail: that is a
change, never a yes. Said back with the same polarity ("yes, no subtitles" to "no subtitles?"),
the negation is the question's own and weighs nothing.
"""

from __future__ import annotations

from functools import lru_cache

from gate.confirm.lexicon import AFF, NEG, NEUT, answer_tokens
from gate.confirm.lexicon import words as W
from gate.confirm.tagging import Tagged, bare
from gate.lang.text import fold, stem_match

__all__ = ["polarity_flip"]

_WINDOW = 3  # a negation reaches this many words ahead: "no extra checked luggage"
_MARKS = ".,;:!?"


def _negated_at(keys: list[str], breaks: list[bool], k: int, negators: frozenset[str]) -> str:
    """The negator that governs word ``k`` (within the window, in the same clause), or ""."""
    stops = W().clause_openers
    for j in range(k - 1, max(-1, k - 1 - _WINDOW), -1):
        if breaks[j + 1] or keys[j] in stops:
            return ""
        if keys[j] in negators:
            return keys[j]
    return ""


def _breaks(text: str, starts: list[int], ends: list[int]) -> list[bool]:
    """For each word, whether punctuation separates it from the word before."""
    return [
        any(mark in text[(ends[k - 1] if k else 0) : starts[k]] for mark in _MARKS)
        for k in range(len(starts))
    ]


def _flag_words(name: str) -> tuple[str, ...]:
    """The words of a boolean argument's name that say what it is ("has_pets" -> "pets")."""
    parts = fold(name.replace("-", "_")).replace("_", " ").split()
    return tuple(p for p in parts if p not in W().flag_name_words and len(p) >= 3)


def _flag_flipped(
    tagged: list[Tagged],
    text: str,
    flags: tuple[tuple[str, bool], ...],
    asked: frozenset[str],
    determiners: frozenset[str],
) -> str:
    """A pending boolean said the other way round: every word of its name said together (within
    a few words), without a negation for a False one ("shared_ride=False" - "a shared ride
    please"), or after a negating determiner following a yes for a True one ("yes, no
    insurance"). A flag the question itself says is the question's to judge."""
    if not flags:
        return ""
    negators = W().negators
    keys = [bare(t.tok.key) for t in tagged]
    gaps = _breaks(text, [t.tok.start for t in tagged], [t.tok.end for t in tagged])
    for name, value in flags:
        parts = _flag_words(name)
        if not parts or all(p in asked for p in parts):
            continue
        at = [
            next(
                (k for k, w in enumerate(keys) if w == p or (len(w) >= 4 and stem_match(w, frozenset({p})))),
                None,
            )
            for p in parts
        ]
        if any(k is None for k in at):
            continue
        places = [k for k in at if k is not None]
        first, last = min(places), max(places)
        if last - first > _WINDOW:
            continue
        negation = _negated_at(keys, gaps, first, negators)
        said = " ".join(t.tok.raw for t in tagged[first : last + 1])
        agreed = any(u.tag == AFF for u in tagged[:first])
        if not value and not negation:
            return said
        if value and negation in determiners and agreed:
            return said
        if value and negation:
            continue  # "not sure about insurance": not the detail said back
        # Said back as it is ("yes, no pets" to has_pets=False, "with insurance" to
        # include_insurance=True): its words, and a negation of a False one, weigh nothing.
        for k in places:
            if tagged[k].tag == "unknown":
                tagged[k].tag = "qterm"
        for u in tagged[max(0, first - _WINDOW) : first]:
            if not value and bare(u.tok.key) == negation and u.tag == NEG:
                for v in tagged:
                    if v.phrase == u.phrase:
                        v.tag = NEUT
    return ""


@lru_cache(maxsize=1024)
def _asked_polarity(question: str, terms: frozenset[str]) -> dict[str, bool]:
    """The question's words (of ``terms``) and whether it negates each (every time it says it)."""
    negators = W().negators
    asked = list(answer_tokens(question))
    keys = [t.key for t in asked]
    breaks = _breaks(question, [t.start for t in asked], [t.end for t in asked])
    negated: dict[str, bool] = {}
    for k, key in enumerate(keys):
        word = bare(key)
        if word in terms and word not in negators:
            polarity = bool(_negated_at(keys, breaks, k, negators))
            negated[word] = negated[word] and polarity if word in negated else polarity
    return negated


def polarity_flip(
    tagged: list[Tagged],
    text: str,
    question: str,
    terms: frozenset[str],
    flags: tuple[tuple[str, bool], ...] = (),
) -> str:
    """The caller's word that says a question's detail, or a pending boolean, the other way
    round, or "".

    Also marks a negation the caller says back with its detail ("no subtitles" to "no
    subtitles?") as neutral.
    """
    words = W()
    negators = words.negators
    determiners = negators - words.statement_negations - words.scoping_negations
    negated = _asked_polarity(question, terms)
    flipped = _flag_flipped(tagged, text, flags, frozenset(negated), determiners)
    if flipped or not negated:
        return flipped
    asked_terms = frozenset(negated)
    a_keys = [t.tok.key for t in tagged]
    a_gaps = _breaks(text, [t.tok.start for t in tagged], [t.tok.end for t in tagged])
    for k, t in enumerate(tagged):
        word = bare(t.tok.key)
        if word in negators or (t.tag == NEG and t.phrase_len == 1):
            continue
        if word in negated:
            said = word
        elif len(word) >= 4 and stem_match(word, asked_terms):
            said = next(w for w in negated if stem_match(word, frozenset({w})))
        else:
            continue
        negation = _negated_at(a_keys, a_gaps, k, negators)
        after = a_keys[k + 1] if k + 1 < len(a_keys) else ""
        if negated[said] and not negation and after not in negators:
            return t.tok.raw  # "no extra luggage" - "I do have extra luggage"
        agreed = any(u.tag == AFF for u in tagged[:k])
        if not negated[said] and negation in determiners and agreed:
            return t.tok.raw  # "with subtitles?" - "yes, no subtitles" (a bare "no" is a refusal)
        if negated[said] and negation:
            for u in tagged[max(0, k - _WINDOW) : k]:
                if u.tok.key == negation and u.tag == NEG:
                    for v in tagged:
                        if v.phrase == u.phrase:
                            v.tag = NEUT  # "no subtitles", "no need of subtitles" to "no subtitles?"
    return ""
