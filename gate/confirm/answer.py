"""What did the caller answer to the confirmation question?

Only a plain yes to the question that was put confirms an action. Reading, deterministic and
offline:

1. **A side question** is split off where it starts ("yes that's right, what's the address?",
   :mod:`gate.confirm.side`); the part before it is the answer.
2. **Rules** read the answer (:mod:`gate.confirm.reading`): every verdict names the rule that
   decided (:data:`RULES`). Vetoes (a negation, a new value, a change word, a condition,
   deferral, hesitation, words to someone else, sarcasm, someone else speaking, a partial yes,
   doing it oneself, a detail said the other way round) are final.
3. **The learned reader** (:mod:`gate.confirm.model`) is asked only when no rule vetoed but no
   yes word was found either ("that's the ticket", "you have my blessing"): a yes it reads with
   enough confidence is a yes (rule ``answer.model``).
4. **The side question**, after a yes, is read for vetoes of its own and for what it asks:
   information executes and is handed to the agent to answer; a question about the deal's terms,
   a doubt or a request for something else holds the action until the agent has answered and
   asked again.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from functools import lru_cache

from gate.confirm import model
from gate.confirm.lexicon import language
from gate.confirm.reading import read_rules
from gate.confirm.restate import pending_values
from gate.confirm.side import kind_of_question, side_question_start
from gate.confirm.verdict import RULES, SOFT_RULES, Answer, AnswerReading
from gate.values import Value

__all__ = ["RULES", "Answer", "AnswerReading", "classify_answer", "read_answer"]


def read_answer(
    words: str,
    *,
    question: str = "",
    pending: Mapping[str, object] | None = None,
    lang: str = "en",
    today: date | None = None,
) -> AnswerReading:
    """Read the caller's answer to ``question`` about the ``pending`` values (name -> value).

    ``lang`` is the caller's language ("en", "es", "fr", "de"; a region suffix is ignored; an
    unknown code reads English; English is always read too, as callers mix). ``today`` is the
    call's date: "tomorrow" or "next Friday" said for a pending date are then that date. A
    pending boolean is a detail the caller may say the other way round ("I do have pets" to
    ``has_pets=False`` is a change): the words of its name, said. Never
    raises: odd input (empty, symbols only, a pending value that is not a value) reads as
    ``unclear`` or is ignored.
    """
    code = language(lang)
    flags = tuple(sorted((str(k), v) for k, v in (pending or {}).items() if isinstance(v, bool)))
    return _read(words, question, tuple(pending_values(pending, code)), code, today, flags)


def classify_answer(
    words: str,
    *,
    question: str = "",
    pending: Mapping[str, object] | None = None,
    lang: str = "en",
    today: date | None = None,
) -> Answer:
    """``yes``, ``no``, ``change`` or ``unclear``: the verdict of :func:`read_answer`."""
    return read_answer(words, question=question, pending=pending, lang=lang, today=today).answer


@lru_cache(maxsize=2048)
def _read(
    words: str,
    question: str,
    pending: tuple[Value, ...],
    lang: str,
    today: date | None,
    flags: tuple[tuple[str, bool], ...] = (),
) -> AnswerReading:
    start = side_question_start(words, lang)
    if start is not None:
        head = _answer(words[:start], question, pending, lang, today, flags)
        if head.answer == "yes":
            return _side_question(words[start:].strip(), head, question, pending, lang, today, flags)
    return _answer(words, question, pending, lang, today, flags)


def _answer(
    words: str,
    question: str,
    pending: tuple[Value, ...],
    lang: str,
    today: date | None,
    flags: tuple[tuple[str, bool], ...] = (),
) -> AnswerReading:
    """The rules' verdict, or the learned reader's yes where the rules found only no yes word."""
    reading = read_rules(words, question, pending, lang, today, flags=flags)
    if reading.rule not in SOFT_RULES:
        return reading
    score = model.yes_score(words, question, pending, lang, reading.rule == "answer.unrecognised")
    if score is not None and score >= model.threshold():
        return AnswerReading("yes", f"{RULES['answer.model']} (p={score:.2f})", "answer.model", score=score)
    return reading


def _side_question(
    text: str,
    head: AnswerReading,
    question: str,
    pending: tuple[Value, ...],
    lang: str,
    today: date | None,
    flags: tuple[tuple[str, bool], ...] = (),
) -> AnswerReading:
    kind = kind_of_question(text, lang)
    if kind != "info":
        # About the terms, a doubt, a request for something else: held until answered.
        rule = f"answer.side_question.{kind}"
        return AnswerReading("unclear", RULES[rule], rule, side_question=text)
    # A pending boolean named in a question is asked about ("is it a shared ride?"), not flipped.
    asked = read_rules(text, question, pending, lang, today, side=True)
    if asked.answer != "yes" and asked.rule not in SOFT_RULES:
        # A veto inside the question ("what about 8 instead?"): the question's own verdict.
        answer: Answer = "change" if asked.answer == "change" else "unclear"
        return AnswerReading(answer, asked.reason, asked.rule, side_question=text)
    rule = "answer.side_question"
    return AnswerReading("yes", RULES[rule], rule, side_question=text, score=head.score)
