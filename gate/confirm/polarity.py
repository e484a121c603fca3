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
from gate.lang.text import stem_match

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


def polarity_flip(tagged: list[Tagged], text: str, question: str, terms: frozenset[str]) -> str:
    """The caller's word that says a question's detail the other way round, or "".

    Also marks a negation the caller says back with its detail ("no subtitles" to "no
    subtitles?") as neutral.
    """
    words = W()
    negators = words.negators
    determiners = negators - words.statement_negations - words.scoping_negations
    negated = _asked_polarity(question, terms)
    if not negated:
        return ""
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
