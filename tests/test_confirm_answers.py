"""Only a plain yes to the question that was put confirms: the labelled corpus and the rules."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate import classify_answer
from gate.confirm import AnswerReading, model, read_answer
from gate.confirm.answer import RULES

HERE = Path(__file__).parent


def _corpus() -> list[dict[str, Any]]:
    """The labelled answers: tests/data/confirm_answers.yaml and each language's tests/lang/<code>/."""
    entries: list[dict[str, Any]] = yaml.safe_load((HERE / "data" / "confirm_answers.yaml").read_text())
    for path in sorted((HERE / "lang").glob("*/answers.yaml")):
        for entry in yaml.safe_load(path.read_text()):
            entries.append({"lang": path.parent.name, **entry})
    return entries


CORPUS = _corpus()
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
# Classes read since the reader took real callers' answers: each has answers in all four languages.
NEW_CLASSES = {
    "polarity_flip", "unlisted_affirmation", "no_yes_word", "approval", "go_ahead", "side_question",
    "side_question_terms", "vetoes_unlisted",
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
    for cls in NEW_CLASSES:
        assert {e["lang"] for e in CORPUS if e["class"] == cls} == {"en", "es", "fr", "de"}, cls


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
    for lang in ("en", "es", "fr", "de"):
        own = [e for e in CORPUS if e["lang"] == lang]
        yes = [e for e in own if e["label"] in ("yes", "yes_question")]
        got = sum(_label(_read(e)) == e["label"] for e in yes)
        wrong = sum(_read(e).answer == "yes" for e in own if e not in yes)
        print(f"  {lang}: {len(own)} answers, {len(yes)} yes; recognised {got}; false yes {wrong}")
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


def test_a_yes_with_a_side_question_carries_the_question() -> None:
    question = "Shall I book a table for two on Friday at 8 pm?"
    pending = {"people": 2, "day": "friday", "time": "20:00"}
    reading = read_answer("yes that's right, do they have a terrace?", question=question, pending=pending)
    assert (reading.answer, reading.rule, reading.side_question) == (
        "yes",
        "answer.side_question",
        "do they have a terrace?",
    )
    held = read_answer("yes, can I cancel it later for free?", question=question, pending=pending)
    assert (held.answer, held.rule) == ("unclear", "answer.side_question.terms")
    assert held.side_question == "can I cancel it later for free?"
    # A change put as a question is a change.
    assert (
        read_answer("sure, could we make it 9 instead?", question=question, pending=pending).answer
        == "change"
    )
    # A question on its own is no yes.
    assert read_answer("do they have a terrace?", question=question, pending=pending).answer == "unclear"


def test_relative_days_read_with_the_call_s_date() -> None:
    question = "Shall I book the plumber for Thursday the 14th?"
    pending = {"date": "2026-05-14"}
    today = date(2026, 5, 13)
    assert classify_answer("yes tomorrow is fine", question=question, pending=pending, today=today) == "yes"
    assert classify_answer("yes tomorrow is fine", question=question, pending=pending) != "yes"
    assert (
        classify_answer("yes, the day after tomorrow", question=question, pending=pending, today=today)
        != "yes"
    )


def test_the_learned_reader_only_reads_where_no_rule_vetoed() -> None:
    question = "Shall I reserve the 7:30 showing for two?"
    pending = {"time": "19:30", "seats": 2}
    reading = read_answer("you've got it all down", question=question, pending=pending)
    assert reading.rule == "answer.model" and reading.answer == "yes"
    assert reading.score is not None and reading.score >= model.threshold()
    # The same words with a veto of the rules in them are never a yes.
    for words in (
        "you've got it all down, but make it 9 pm",
        "you've got it all down if it's not sold out",
        "hmm you've got it all down",
    ):
        assert read_answer(words, question=question, pending=pending).answer != "yes", words
    # Words of another language than the caller's, another action's verb, another person: not read.
    assert read_answer("sí, adelante", lang="en").rule != "answer.model"
    assert classify_answer("yes pause it", question="Shall I renew your subscription?") != "yes"
    assert classify_answer("nailed it, my brother will pay", question=question, pending=pending) != "yes"
    # Words no yes answer it was trained on held are beyond it: "fishy", "rich" score high as
    # shapes of a yes, and stay unclear.
    for words in ("sounds fishy to me", "yeah that's rich", "okay sounds good on paper", "you read my mind"):
        got = read_answer(words, question=question, pending=pending)
        assert got.answer == "unclear" and got.rule != "answer.model", words
    loaded = model.load()
    assert loaded is not None and "fishy" not in loaded.vocabulary | loaded.seen


def test_the_learned_reader_is_deterministic_and_small() -> None:
    loaded = model.load()
    assert loaded is not None
    assert model.MODEL_FILE.stat().st_size < 400_000
    assert 0.5 <= loaded.threshold < 1.0
    feats = model.features("yes that suits me down to the ground", "Shall I book it?", (), "en")
    assert loaded.score(feats) == loaded.score(list(feats))
    assert "SGD train" in str(loaded.meta["trained_on"])


def test_without_its_weights_the_learned_reader_abstains(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tmp_path / "answer_model.bin"
    broken.write_bytes(b"not a model")
    with caplog.at_level("WARNING", logger="gate.confirm.model"):
        assert model.load(broken) is None
    assert "learned answer reader is off" in caplog.text


SGD = os.environ.get("GATE_SGD_DIR")


@pytest.mark.skipif(not SGD, reason="GATE_SGD_DIR is not set (the SGD dataset is not shipped)")
def test_a_sample_of_recorded_dialogue_has_no_false_yes() -> None:
    from bench.sgd.answers import replay
    from bench.sgd.data import confirmations, root

    pairs = [p for p in confirmations(root(SGD), "dev", limit_files=4) if p.label != "other"]
    outcomes = [replay(p, "canonical") for p in pairs]
    assert pairs
    assert not [p.answer for p, o in zip(pairs, outcomes, strict=True) if o.label == "change" and o.ran]
    ran_yes = [o.ran for o in outcomes if o.label == "yes"]
    assert sum(ran_yes) / len(ran_yes) >= 0.95


def test_importing_the_package_and_the_session_loads_no_reader() -> None:
    # The reader is imported by gate.confirm.loading, in a thread, on the first confirmation.
    code = (
        "import sys, gate.confirm, gate.session; "
        "print(sorted(m for m in sys.modules"
        " if m.startswith('gate.confirm.') and m != 'gate.confirm.loading'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    from gate.confirm import warm

    warm()
    assert read_answer("yes please", question="Shall I book it?").answer == "yes"
