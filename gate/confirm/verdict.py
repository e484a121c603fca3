"""The verdict on an answer, read from its resolved tags, and the rule that decided it.

Most cautious first: sarcasm, words to someone else, a condition, a question; a new value or a
change word; doing it oneself; a negation; self-correction, hesitation, deferral, hedging, a
reservation; no affirmative at all; words nobody knows. Only what is left is a yes. Every verdict
names its rule (:data:`RULES`), a stable dotted id the audit trail keeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gate.confirm.lexicon import (
    AFF,
    BUT,
    CHANGE,
    COND,
    CORR,
    DEFER,
    ELSE,
    HEDGE,
    HES,
    NEG,
    NEGVERB,
    NEUT,
    NEWTIME,
    QUEST,
    SARC,
    SELF,
)
from gate.confirm.lexicon import words as W
from gate.confirm.tagging import Tagged, bare, said
from gate.lang.text import stem_match

__all__ = ["RULES", "SOFT_RULES", "Answer", "AnswerReading", "verdict"]

Answer = Literal["yes", "no", "change", "unclear"]

# Every rule that can decide an answer: its stable id -> the phrase a reason starts with. Only
# the soft rules' verdicts may be overturned by the learned reader (gate/confirm/model.py);
# every other is a veto or a yes.
RULES: dict[str, str] = {
    "answer.empty": "no words",
    "answer.speaker_named": "someone the question names is speaking, not the caller",
    "answer.echo": "echoes the question's own words",
    "answer.sarcasm": "sarcasm",
    "answer.addressee": "addressed to someone else",
    "answer.condition": "condition",
    "answer.question": "question follows",
    "answer.polarity": "says a detail of the question the other way round",
    "answer.reason_value": "yes, then a reason with a value",
    "answer.new_value": "new value",
    "answer.reason_change": "yes, then a reason",
    "answer.change_word": "change word",
    "answer.themselves": "does it themselves, or it is done",
    "answer.negated_statement": "yes, then a negated statement",
    "answer.other_action": "yes, then",
    "answer.no_then_pause": "hesitation",
    "answer.corrected_no": "corrected to no",
    "answer.no": "refusal",
    "answer.no_then_yes": "no then yes",
    "answer.correction": "self-correction",
    "answer.hesitation": "hesitation",
    "answer.deferral": "defers",
    "answer.hedge": "hedged",
    "answer.reservation": "reservation",
    "answer.restated_request": "the question's own request, restated",
    "answer.no_affirmative": "no affirmative",
    "answer.reason": "affirmative, then a reason",
    "answer.unrecognised": "unrecognised",
    "answer.yes_restating": "affirmative, restating the question",
    "answer.yes": "affirmative",
    "answer.model": "read as a yes by the learned reader, no rule against it",
    "answer.side_question": "affirmative, then a question for information",
    "answer.side_question.terms": "affirmative, then a question about the terms",
    "answer.side_question.doubt": "affirmative, then a question that doubts the offer",
    "answer.side_question.request": "affirmative, then a request for something else",
}
SOFT_RULES = frozenset({"answer.no_affirmative", "answer.unrecognised"})
_MAX_REASON_WORDS = 7
# "that", "this", "you", "it" after a yes are not the caller's own subject.
_NOT_OWN_SUBJECTS = frozenset({"that", "this", "you", "it"})


@dataclass(frozen=True)
class AnswerReading:
    """The verdict, one short phrase saying why, and the rule that decided.

    ``reason`` may quote the caller's words (it is for the agent and the caller's own record);
    ``rule`` never does (it goes into the audit trail's detail). ``side_question`` is the
    caller's question after their yes, when there was one; ``score`` the learned reader's
    probability of a yes when it decided.
    """

    answer: Answer
    reason: str
    rule: str = "answer.yes"
    side_question: str = ""
    score: float | None = None

    @property
    def label(self) -> str:
        """The answer and its rule, for a trace ("yes (answer.side_question)")."""
        return f"{self.answer} ({self.rule})"


def _reading(answer: Answer, rule: str, detail: str = "") -> AnswerReading:
    reason = RULES[rule] + (f": {detail}" if detail else "")
    return AnswerReading(answer, reason, rule)


def verdict(
    tagged: list[Tagged], new_values: list[str], terms: frozenset[str], said_values: int, person: bool
) -> AnswerReading:
    """The verdict from the resolved tags. ``said_values`` is how many of ``new_values`` were
    said as values (not a currency or a part of the question); ``person`` whether the question
    names a third person (then "he" and "she" are that person)."""
    present = {t.tag for t in tagged}
    for tag, rule in ((SARC, "answer.sarcasm"), (ELSE, "answer.addressee"), (COND, "answer.condition"),
                      (QUEST, "answer.question")):  # fmt: skip
        if tag in present:
            return _reading("unclear", rule, said(tagged, tag))
    if new_values:
        if said_values == len(new_values) and value_in_reason(tagged):
            # "yes, we've had no hot water since sunday": the value is in the caller's reason.
            return _reading("unclear", "answer.reason_value", ", ".join(new_values))
        return _reading("change", "answer.new_value", ", ".join(new_values))
    for tag in (CHANGE, NEWTIME):
        if tag in present:
            if in_reason(tagged, tag):
                # "yes, it's too expensive", "yes, I'm moving next week": the word is in the
                # caller's reason, not a change to the request; what the reason means is not read.
                return _reading("unclear", "answer.reason_change", said(tagged, tag))
            return _reading("change", "answer.change_word", said(tagged, tag))
    polar = [t for t in tagged if t.tag in (AFF, NEG, NEGVERB)]
    if SELF in present:
        return _reading("unclear", "answer.themselves", said(tagged, SELF))
    if polar and polar[0].tag == AFF and negated_statements_only(tagged):
        # "yes, the package never arrived", "yes, I don't use it anymore": a reason with a
        # negation in it is no refusal; what it means for the action is not read here.
        return _reading("unclear", "answer.negated_statement", said(tagged, NEG))
    if polar and polar[0].tag == AFF and NEG not in present and NEGVERB in present:
        # "yes, cancel it" where the question did not say cancel: which action is meant is
        # unknown, so it is neither a yes nor a refusal.
        return _reading("unclear", "answer.other_action", said(tagged, NEGVERB))
    if any(t.tag in (NEG, NEGVERB) for t in polar):
        last_no = max(k for k, t in enumerate(tagged) if t.tag in (NEG, NEGVERB))
        pause = [t for t in tagged[last_no + 1 :] if t.tag in (HES, CORR)]
        if polar[-1].tag in (NEG, NEGVERB) and pause:
            return _reading("unclear", "answer.no_then_pause", said(tagged, HES, CORR))
        if polar[-1].tag in (NEG, NEGVERB):
            if any(t.tag == AFF for t in polar):
                return _reading("no", "answer.corrected_no", said(tagged, NEG, NEGVERB))
            return _reading("no", "answer.no", said(tagged, NEG, NEGVERB))
        return _reading("unclear", "answer.no_then_yes")
    for tag, rule in ((CORR, "answer.correction"), (HES, "answer.hesitation"), (DEFER, "answer.deferral"),
                      (HEDGE, "answer.hedge"), (BUT, "answer.reservation")):  # fmt: skip
        if tag in present:
            return _reading("unclear", rule, said(tagged, tag))
    unknown = [t.tok.raw for t in tagged if t.tag == "unknown"]
    if AFF not in present:
        if not unknown and imperative(tagged, terms):
            return _reading("yes", "answer.restated_request")
        return _reading("unclear", "answer.no_affirmative")
    if unknown:
        if plain_reason(tagged, person):
            return _reading("yes", "answer.reason", " ".join(unknown[:4]))
        return _reading("unclear", "answer.unrecognised", " ".join(unknown[:4]))
    if "value" in present or "qterm" in present:
        return _reading("yes", "answer.yes_restating")
    return _reading("yes", "answer.yes")


def in_reason(tagged: list[Tagged], tag: str) -> bool:
    """Whether every word of ``tag`` comes after a yes, inside a statement with its own subject."""
    first = next((k for k, t in enumerate(tagged) if t.tag == AFF), None)
    if first is None:
        return False
    marked = [k for k, t in enumerate(tagged) if t.tag == tag]
    for k in marked:
        if k <= first:
            return False
        between = tagged[first + 1 : k]
        opener = any(
            (t.tok.key in W().statement_subjects and t.tok.key not in _NOT_OWN_SUBJECTS)
            or t.tok.key in W().reason_openers
            for t in between
        )
        if not opener or any(t.tag in (AFF, BUT, CORR) for t in between):
            return False
    return True


def negated_statements_only(tagged: list[Tagged]) -> bool:
    """Whether every negation after the first yes negates a statement with its own subject."""
    first = next(k for k, t in enumerate(tagged) if t.tag == AFF)
    negations = [k for k, t in enumerate(tagged) if k > first and t.tag in (NEG, NEGVERB)]
    if not negations:
        return False
    for k in negations:
        t = tagged[k]
        if (
            t.tag == NEG
            and t.tok.key in W().ne_partners
            and any(
                u.tok.key in ("ne", "n") or u.tok.key.startswith("n'")
                for u in tagged[max(first + 1, k - 3) : k]
            )
        ):
            continue  # the second half of "ne ... jamais": its "ne" is read on its own
        if t.tag == NEG and t.tok.key == "no" and _no_as_determiner(tagged, k):
            continue
        if t.tag != NEG or t.phrase_len > 1 or t.tok.key not in W().statement_negations:
            return False
        j = k - 1
        while j > first and (tagged[j].tok.key in W().adverbs or tagged[j].tag == NEG):
            j -= 1
        before = tagged[j]
        if (
            j <= first
            or before.tag == AFF
            or not (before.tok.key in W().statement_subjects or before.tag == "unknown")
        ):
            return False
    return True


def _no_as_determiner(tagged: list[Tagged], k: int) -> bool:
    """Whether the "no" at ``k`` says there is none of something, inside a statement."""
    return 0 < k < len(tagged) - 1 and tagged[k - 1].tok.key in W().having and tagged[k + 1].tag == "unknown"


def value_in_reason(tagged: list[Tagged]) -> bool:
    """Whether every new value comes after a yes and a reason's opener ("yes, I finish at six")."""
    first = next((k for k, t in enumerate(tagged) if t.tag == AFF), None)
    values = [k for k, t in enumerate(tagged) if t.tag == "newvalue"]
    if first is None or not values or values[0] < first:
        return False
    openers = W().reason_subjects | W().plan_subjects | W().because
    return any(t.tok.key in openers for t in tagged[first + 1 : values[0]])


def plain_reason(tagged: list[Tagged], person: bool = False) -> bool:
    """Whether the words the lexicon does not know are a plain reason after a yes.

    "yes please, I need it for a wedding", "yes, we ran out last night", "sí, que se nos ha
    acabado": right after the yes (and thanks or fillers), a clause with the caller as its
    subject, perhaps after "because", of at most seven unknown words, none of which could name
    another person, a wish or choice, a change, a time to come, money, something already done
    or done by the caller, a reply to another question, or irony. Anything else unknown keeps
    the answer ``unclear``.
    """
    first = next((k for k, t in enumerate(tagged) if t.tag == AFF), None)
    if first is None:
        return False
    k = first + 1
    while k < len(tagged) and (tagged[k].tag == AFF or tagged[k].tok.key in W().before_reason):
        k += 1
    if k < len(tagged) and tagged[k].tok.key in W().because:
        k += 1
    subjects = W().reason_subjects | (W().their_subjects if person else frozenset())
    if k >= len(tagged) or tagged[k].tok.key not in subjects:
        return False
    if W().identity.match(" ".join(t.tok.key for t in tagged[k : k + 3])):
        return False  # "yes, I'm the homeowner", "ja, ich bin Mitglied": who they are
    risks = W().reason_risks - (W().their_words if person else frozenset())
    clause = tagged[k + 1 :]
    if tagged[k].tok.key in W().possessives and len(clause) < 2:
        return False  # "yes, my foot": a possessive and a noun are no clause
    if sum(t.tag == "unknown" for t in clause) > _MAX_REASON_WORDS:
        return False
    for j, t in enumerate(clause):
        if t.tag in ("value", "newvalue"):
            return False
        key = bare(t.tok.key)
        if key in risks or key.removesuffix("'s") in risks:  # "my number's the same"
            before = clause[j - 1].tok.key if j else ""
            if t.tok.key not in W().time_words or before not in W().past_time:
                return False  # "all week", "last night", "that morning" are the reason's own
    return True


def imperative(tagged: list[Tagged], terms: frozenset[str]) -> bool:
    """The question's verb said back with an object, and nothing else of weight: "cancel it"."""
    for k, t in enumerate(tagged):
        restated = t.tag == "qterm" or (t.tag == NEUT and t.phrase_len == 1 and stem_match(t.tok.key, terms))
        if not restated:
            continue
        rest = [u.tok.key for u in tagged[k + 1 : k + 3]]
        if t.clitic or any(w in W().objects for w in rest):
            return k == 0 or all(u.tag == NEUT for u in tagged[:k])
    return False
