"""Only a plain yes to the question that was put confirms: the labelled corpus and the rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gate import classify_answer
from gate.confirm import AnswerReading, read_answer
from gate.confirm.answer import RULES

CORPUS: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "data" / "confirm_answers.yaml").read_text()
)
CLASSES = sorted({entry["class"] for entry in CORPUS})
REQUIRED_CLASSES = {
    "plain_yes", "restates_values", "restates_terms", "politeness_long", "spoken_affirmative",
    "spoken_negative", "negation_scope_yes", "negation_scope_not", "hesitation", "self_correction",
    "condition", "yes_then_question", "defers", "sarcasm", "addressed_elsewhere", "new_value",
    "change_word", "plain_no", "stt_style", "yes_with_reason", "polite_decline", "does_it_themselves",
    "hedged_modal", "currency", "widening", "question_after_thanks", "reason_negated", "partial_agreement",
    "answers_other_question", "scope_or_person", "spoken_value_forms", "action_family", "plain_reason",
    "person_object", "eager_yes", "placement", "regional_yes", "spelled_identifier", "statement_in_reason",
    "looks_like_question_word", "exact_only", "need_gone", "not_decided", "speaker_named",
}  # fmt: skip


def _read(entry: dict[str, Any]) -> AnswerReading:
    return read_answer(
        entry["answer"], question=entry["question"], pending=entry["pending"], lang=entry["lang"]
    )


def _label(got: AnswerReading) -> str:
    """The reading as a corpus label: a yes with a side question the agent answers is yes_question."""
    return "yes_question" if got.answer == "yes" and got.side_question else got.answer


def _line(entry: dict[str, Any], got: AnswerReading) -> str:
    return (
        f"[{entry['lang']} {entry['class']}] {entry['answer']!r} to {entry['question']!r}: "
        f"labelled {entry['label']}, read {_label(got)} ({got.rule}: {got.reason})"
    )


def test_the_corpus_covers_every_class_and_language() -> None:
    assert len(CORPUS) >= 300
    for lang in ("es", "fr", "de"):
        assert sum(e["lang"] == lang for e in CORPUS) >= 40, lang
    assert set(CLASSES) >= REQUIRED_CLASSES
    assert {e["label"] for e in CORPUS} == {"yes", "yes_question", "no", "change", "unclear"}
    for entry in CORPUS:
        assert set(entry) == {"class", "label", "lang", "question", "pending", "answer"}, entry


def test_no_false_yes_and_plain_yes_recognised() -> None:
    false_yes: list[str] = []
    missed: list[str] = []
    yes_total = 0
    for entry in CORPUS:
        got = _read(entry)
        if entry["label"] in ("yes", "yes_question"):
            yes_total += 1
            if _label(got) != entry["label"]:
                missed.append(_line(entry, got))
        elif got.answer == "yes":
            false_yes.append(_line(entry, got))
    recall = (yes_total - len(missed)) / yes_total
    print(f"\nconfirm answers: {len(CORPUS)} answers; false yes {len(false_yes)}; yes recall {recall:.1%}")
    assert not false_yes, "answers read as yes that are not:\n" + "\n".join(false_yes)
    assert recall >= 0.97, "plain yes answers not recognised:\n" + "\n".join(missed)


@pytest.mark.parametrize("cls", CLASSES)
def test_each_class_reads_as_labelled(cls: str) -> None:
    wrong = [_line(e, got) for e in CORPUS if e["class"] == cls and _label(got := _read(e)) != e["label"]]
    assert not wrong, f"{cls}:\n" + "\n".join(wrong)


def test_restated_values_are_neutral_and_new_values_are_a_change() -> None:
    question = "Shall I refund 35 dollars on order K-118?"
    pending = {"amount": 35, "order_id": "K-118"}
    assert classify_answer("yes refund the thirty five on k 118", question=question, pending=pending) == "yes"
    assert classify_answer("yes refund the $35.00", question=question, pending=pending) == "yes"
    reading = read_answer("yes but make it 45", question=question, pending=pending)
    assert (reading.answer, reading.reason, reading.rule) == ("change", "new value: 45", "answer.new_value")
    assert classify_answer("yes on order K-119", question=question, pending=pending) == "change"
    # Without the pending values, the amount is a value the answer brought.
    assert classify_answer("yes the 35", question="Shall I refund it?") == "change"


def test_the_question_s_own_words_are_neutral() -> None:
    assert classify_answer("yes pause it", question="Shall I pause your subscription?") == "yes"
    assert classify_answer("yes pause it", question="Shall I renew your subscription?") != "yes"
    assert classify_answer("yes stop the order", question="Shall I stop the order?") == "yes"
    assert classify_answer("no stop", question="Shall I book Friday?") == "no"
    assert classify_answer("yes, cancel it", question="Cancel your visit on Thursday?") == "yes"
    assert classify_answer("yes, cancel it", question="Book your visit on Thursday?") == "unclear"
    assert classify_answer("yes, cancel it") == "unclear"


def test_only_pending_values_are_neutral() -> None:
    question = "Shall I book Friday, or would Saturday suit you better?"
    assert classify_answer("yes friday", question=question, pending={"day": "friday"}) == "yes"
    assert read_answer("yes saturday", question=question, pending={"day": "friday"}).answer == "change"


def test_every_verdict_names_the_rule_that_decided() -> None:
    assert read_answer("yes if it's before noon").rule == "answer.condition"
    assert read_answer("yeah but how much").rule == "answer.side_question"
    assert read_answer("yes darling").rule == "answer.addressee"
    assert read_answer("nope").rule == "answer.no"
    assert read_answer("yes please").rule == "answer.yes"
    assert read_answer("yes please").reason == "affirmative"
    assert read_answer("yes darling").reason.startswith("addressed to someone else")
    for entry in CORPUS:
        assert _read(entry).rule in RULES, entry


def test_language_comes_from_the_caller_and_english_is_always_read() -> None:
    assert classify_answer("sí, adelante", lang="es") == "yes"
    assert classify_answer("ok go ahead", lang="es") == "yes"
    assert classify_answer("sí, adelante", lang="en") == "unclear"
    assert classify_answer("oui", lang="fr-CA") == "yes"
    assert classify_answer("ja", lang="xx") == "unclear"
    assert classify_answer("yes", lang="xx") == "yes"


def test_unaccented_si_is_if_unless_it_stands_as_a_yes() -> None:
    assert classify_answer("si", lang="es") == "yes"
    assert classify_answer("si claro adelante", lang="es") == "yes"
    assert classify_answer("si me llega hoy", lang="es") == "unclear"
    assert classify_answer("si tu veux", lang="fr") == "unclear"


@pytest.mark.parametrize("words", ["", "   ", "?!", "...", "12345", "🙂"])
def test_odd_input_is_never_a_yes(words: str) -> None:
    assert classify_answer(words) != "yes"


def test_pending_values_that_cannot_be_values_are_ignored() -> None:
    pending: dict[str, object] = {"amount": float("nan"), "ok": True, "items": [1, 2]}
    assert classify_answer("yes please", question="Refund it?", pending=pending) == "yes"
