"""Tagging an answer: each word gets the tag of the longest known phrase it is part of.

A tag says what a word does in an answer (a yes, a refusal, a condition, a value...); the
rules (:mod:`gate.confirm.rules`) then resolve tags in context, and the verdict
(:mod:`gate.confirm.verdict`) reads what is left.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from gate import lang as lang_data
from gate.confirm.lexicon import NEUT, AnswerTok, Phrase, Table, answer_tokens
from gate.confirm.lexicon import words as W

__all__ = ["Tagged", "bare", "mark", "overlay", "question_terms", "said", "spelled", "tag", "with_families"]


@dataclass
class Tagged:
    """One word of the answer and what it does there (rules change ``tag`` as they resolve it)."""

    tok: AnswerTok
    tag: str
    phrase: int  # id of the phrase this token belongs to (tokens of one phrase share it)
    phrase_len: int
    clitic: bool = False  # a verb with its object glued on ("cancélela")


def bare(word: str) -> str:
    """The word without an elided article or pronoun: "j'annule" -> "annule"."""
    return word.rsplit("'", 1)[-1] if "'" in word[:3] else word


def question_terms(question: str, phrases: dict[Phrase, str]) -> frozenset[str]:
    """The question's words, less function words ("je", "the", "para") that would neutralise much."""
    return frozenset(
        bare(t.key)
        for t in answer_tokens(question)
        if (
            len(bare(t.key)) >= 3
            and (phrases.get((t.key,)) != NEUT or len(t.key) >= 4)
            and bare(t.key) not in W().long_function_words
        )
        or t.key in W().particles
    )


@lru_cache(maxsize=2048)
def with_families(terms: frozenset[str]) -> frozenset[str]:
    """The question's words, and every verb of the family of a verb among them."""
    families = lang_data.verb_families()
    extra: set[str] = set()
    for term in terms:
        family = lang_data.family_of(term)
        if family is not None:
            extra |= families[family]
    return terms | extra


_TRIPLED = re.compile(r"(\w)\1{2,}")
_SLIP_MIN = 4  # shorter words have too many neighbours to guess at ("nto", "yse", "ot")


_SPELLINGS: dict[str, dict[str, str]] = {}


def _spellings(lexicon: Table) -> dict[str, str]:
    """Every word of the lexicon by itself and without its apostrophe ("thats" -> "that's")."""
    kept = _SPELLINGS.get(lexicon.lang)
    if kept is None:
        known = {w for phrase in lexicon.phrases for w in phrase} | set(lexicon.inner)
        kept = {w.replace("'", ""): w for w in known if "'" in w}
        kept.update({w: w for w in known})
        _SPELLINGS[lexicon.lang] = kept
    return kept


def _slip(key: str, spellings: dict[str, str]) -> str | None:
    """The one word of the lexicon a typing slip of ``key`` gives, or None."""
    held = {_TRIPLED.sub(r"\1\1", key), _TRIPLED.sub(r"\1", key)}
    held |= {key[:i] + key[i + 1 :] for i in range(len(key) - 1) if key[i] == key[i + 1]}
    found = {spellings[c] for c in held - {key} if c in spellings}
    if not found and len(key) >= _SLIP_MIN:
        swapped = (key[:i] + key[i + 1] + key[i] + key[i + 2 :] for i in range(len(key) - 1))
        found = {spellings[c] for c in swapped if c in spellings}
    return found.pop() if len(found) == 1 else None


def spelled(tokens: Sequence[AnswerTok], lexicon: Table) -> tuple[AnswerTok, ...]:
    """The tokens with a word the lexicon does not know read as the one word it knows that a
    typing slip of it gives: a letter held down ("corrrect", "pleease") or two letters swapped
    ("thast").

    Typed answers carry such slips and a spoken transcript does not. Only an unknown word is
    read again, only when the slip gives exactly one word, and the rules then read it as that
    word: a slip of "incorrect" is a no as surely as the word itself, and every veto stands.
    """
    spellings = _spellings(lexicon)
    out: list[AnswerTok] = []
    for t in tokens:
        fixed = None
        if t.key.isalpha() and t.key not in spellings:
            fixed = _slip(t.key, spellings)
        out.append(replace(t, key=fixed) if fixed else t)
    return tuple(out)


def tag(tokens: Sequence[AnswerTok], lexicon: Table) -> list[Tagged]:
    """Tag tokens left to right, the longest known phrase first."""
    tagged: list[Tagged] = []
    keys = [t.key for t in tokens]
    i = 0
    phrase_id = 0
    while i < len(tokens):
        for n in range(min(lexicon.longest, len(tokens) - i), 0, -1):
            found = lexicon.phrases.get(tuple(keys[i : i + n]))
            if found is not None:
                break
        else:
            n, found = 1, NEUT if keys[i] in lexicon.inner else "unknown"
        phrase_id += 1
        tagged.extend(Tagged(tokens[k], found, phrase_id, n) for k in range(i, i + n))
        i += n
    return tagged


def overlay(tagged: list[Tagged], lexicon: Table) -> None:
    """Sarcasm and words to someone else count wherever they occur, even across another phrase."""
    keys = [t.tok.key for t in tagged]
    for i, key in enumerate(keys):
        for phrase, found in lexicon.anywhere.get(key, ()):
            if tuple(keys[i : i + len(phrase)]) == phrase:
                for t in tagged[i : i + len(phrase)]:
                    t.tag = found


def mark(tagged: list[Tagged], start: int, end: int, label: str) -> None:
    """Tag every word within [start, end) as one value (or whatever ``label`` says)."""
    for t in tagged:
        if t.tok.start < end and t.tok.end > start:
            t.tag = label
            t.phrase_len = 1


def said(tagged: list[Tagged], *tags: str) -> str:
    """The caller's words of these tags, at most four (for a verdict's reason)."""
    seen: list[str] = []
    for t in tagged:
        if t.tag in tags and t.tok.raw not in seen:
            seen.append(t.tok.raw)
    return " ".join(seen[:4])
