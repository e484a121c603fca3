"""Did the agent put the pending question to the caller?

A yes confirms only the question the caller heard. The agent words the question its own way,
so the check is on values, not wording: every pending value must be in the agent's message as
a value ("50", "fifty" and "$50.00" are one amount; "Thu" and "Thursday" one day; "A-1001" is
never "A-10011"). A message that carries other values (900 instead of 50, account Y instead of
X), or only some of them, did not put the pending question.

The caller answers the last thing asked. So when the message goes on, after its last sentence
with a pending value, to ask something else ("Transfer 50 to ACC-7734? And would you like our
newsletter?"), a yes could be to either: the question was not put. A closing question that only
asks for the go-ahead ("Shall I go ahead?", "¿Le parece bien?", "D'accord ?", "Passt das?") is
part of the pending question.

Masking is the caller's business: pass only the values the caller must have heard (a masked
card number is not spoken, so it is not passed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cache

from gate import lang as lang_data
from gate.lang.text import fold, stem_match, words
from gate.values import mentions

__all__ = ["Heard", "question_heard"]


@dataclass(frozen=True)
class Heard:
    """Whether the question was put.

    ``missing`` names the pending values not found, in order; ``reason`` says why not in a short
    phrase ("" when heard).
    """

    ok: bool
    missing: list[str] = field(default_factory=list)
    reason: str = ""


# A sentence ends at ".", "!" or "?" followed by a space: "49.99" and "A.1" stay whole.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@cache
def _closing_words() -> frozenset[str]:
    """Words of a closing question that only asks for the go-ahead, and the action's verbs."""
    families = lang_data.verb_families()
    verbs = frozenset(v for family in families.values() for v in family)
    return (
        lang_data.union_words("go_ahead")
        | lang_data.union_words("details")
        | lang_data.union_words("action_verbs")
        | verbs
    )


def _sentences(text: str) -> list[str]:
    """The sentences of ``text``; a period after an abbreviation ("Dr.", "Ave.") or an initial
    ("C.", "M.D.") ends none."""
    out: list[str] = []
    current = ""
    for piece in _SENTENCE_END.split(text):
        current = f"{current} {piece}" if current else piece
        last = current.rstrip().rsplit(None, 1)[-1] if current.strip() else ""
        word = fold(last.rstrip(".!?"))
        initial = len(last.rstrip(".")) == 1 and last[0].isupper()  # "C.", not "19 h."
        short = initial or word in _abbreviations() or "." in word
        if last.endswith(".") and short:
            continue
        out.append(current)
        current = ""
    if current:
        out.append(current)
    return [s.strip() for s in out if s.strip(" .!?")]


@cache
def _abbreviations() -> frozenset[str]:
    return lang_data.union_words("abbreviations")


@cache
def _judgements() -> frozenset[str]:
    """Words that ask whether the details are right ("correct", "right", "accurate", "details")."""
    return lang_data.union_words("details") | lang_data.union_words("checks")


def _asks_only_to_go_ahead(sentence: str, question_words: frozenset[str], earlier: frozenset[str]) -> bool:
    """A closing question of go-ahead words, the action's verbs and the gate's own words; or one
    that asks whether the details just given are right, naming only what was said before it
    ("Are all the event details correct?")."""
    said = words(sentence)
    allowed = _closing_words() | question_words
    if said and all(_allowed(w, allowed) for w in said):
        return True
    judged = any(_allowed(w, _judgements()) for w in said)
    return bool(said) and judged and all(_allowed(w, allowed | earlier | _judgements()) for w in said)


def _allowed(word: str, allowed: frozenset[str]) -> bool:
    """The word, or a longer form of it ("correctos" for "correcto", "correctly" for "correct")."""
    return word in allowed or (len(word) >= 6 and stem_match(word, allowed))


def question_heard(
    agent_words: str,
    pending: Mapping[str, object],
    *,
    lang: str | None = None,
    question: str = "",
    today: date | None = None,
) -> Heard:
    """Whether ``agent_words`` put the pending question: every value in ``pending`` (name ->
    value) said as a value, and no other question asked after the last of them.

    ``lang`` narrows how values are read ("en", "es", "fr", "de"); None reads all four.
    ``question``: the gate's own question; a closing question made of its words, go-ahead
    words and a verb for the action ("Should I send it?") is part of the pending question.
    ``today`` is the call's date: with it "tomorrow", "next Friday" or "Friday" said for a
    pending date are that date.
    A value that cannot be a value (NaN, infinity, a bool, a list) can never have been heard:
    it is reported missing rather than raised, so a bad argument fails closed.
    An empty ``pending`` is heard by any message, including an empty one.
    """
    missing: list[str] = []
    heard_values: list[object] = []
    for name, value in pending.items():
        try:
            heard = mentions(agent_words, value, lang, today=today)
        except (ValueError, TypeError):
            heard = False
        if heard:
            heard_values.append(value)
        else:
            missing.append(name)
    if missing:
        return Heard(ok=False, missing=missing, reason="not said: " + ", ".join(missing))
    if not pending:
        return Heard(ok=True)
    sentences = _sentences(agent_words)
    last = max(
        (i for i, s in enumerate(sentences) if any(_mentions(s, v, lang, today) for v in heard_values)),
        default=-1,
    )
    own = frozenset(words(question))
    earlier = frozenset(w for sentence in sentences[: last + 1] for w in words(sentence))
    for sentence in sentences[last + 1 :]:
        if sentence.endswith("?") and not _asks_only_to_go_ahead(sentence, own, earlier):
            return Heard(ok=False, reason=f"another question follows: {sentence[:80]}")
    return Heard(ok=True)


def _mentions(sentence: str, value: object, lang: str | None, today: date | None) -> bool:
    try:
        return mentions(sentence, value, lang, today=today)
    except (ValueError, TypeError):
        return False
