"""A confirmation counts only for the question the caller heard: every pending value, as a value."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.confirm import Heard, question_heard

TRANSFER = {"amount": 50, "to_account": "ACC-7734"}


@pytest.mark.parametrize(
    "agent",
    [
        "Just to confirm: transfer 50 to account ACC-7734?",
        "Shall I send fifty dollars to ACC-7734?",
        "You want $50.00 moved into account acc 7734, is that right?",
        "So that's 50 bucks going to acc7734. Okay to go ahead?",
        "Before I do it: account ACC-7734 gets fifty. Yes?",
    ],
)
def test_the_question_in_other_words_and_written_forms_is_heard(agent: str) -> None:
    assert question_heard(agent, TRANSFER) == Heard(ok=True, missing=[])


@pytest.mark.parametrize(
    ("agent", "missing"),
    [
        ("Transfer 900 to account ACC-7734?", ["amount"]),
        ("Transfer 50 to account ACC-7735?", ["to_account"]),
        ("Transfer 500 to account ACC-77345?", ["amount", "to_account"]),
        ("Transfer 1,050 to ACC-7734?", ["amount"]),
        ("Shall I transfer the money to ACC-7734?", ["amount"]),
        ("Would you like our newsletter?", ["amount", "to_account"]),
        ("", ["amount", "to_account"]),
    ],
)
def test_other_values_or_a_partial_question_are_not_heard(agent: str, missing: list[str]) -> None:
    heard = question_heard(agent, TRANSFER)
    assert not heard.ok
    assert heard.missing == missing
    assert heard.reason == "not said: " + ", ".join(missing)


@pytest.mark.parametrize(
    "agent",
    [
        "Transfer 50 to ACC-7734? Shall I go ahead?",
        "Okay. I'll move $50 into ACC-7734. Is that what you'd like?",
        "Would you like our newsletter? Transfer 50 to ACC-7734?",
        "¿Transfiero 50 a la cuenta ACC-7734? ¿Le parece bien?",
        "Je vire 50 sur le compte ACC-7734. D'accord ?",
        "Soll ich 50 auf ACC-7734 überweisen? Passt das so?",
    ],
)
def test_a_closing_go_ahead_question_is_part_of_the_question(agent: str) -> None:
    assert question_heard(agent, TRANSFER).ok


@pytest.mark.parametrize(
    "agent",
    [
        "Transfer 50 to ACC-7734? And would you like our newsletter?",
        "Transfer 50 to ACC-7734? Or would you rather send 100?",
        "I can transfer 50 to ACC-7734. Anything else I can help with?",
        "Transferir 50 a ACC-7734. ¿Quiere también un préstamo?",
    ],
)
def test_another_question_after_the_values_means_the_question_was_not_put(agent: str) -> None:
    heard = question_heard(agent, TRANSFER)
    assert not heard.ok
    assert heard.missing == []
    assert heard.reason.startswith("another question follows")


@pytest.mark.parametrize(
    "agent",
    [
        "Book your visit on Thursday at 7 pm?",
        "Shall I put you down for Thurs, seven in the evening?",
        "I can book thu at 19:00 for you, okay?",
        "¿Le reservo el jueves a las siete de la tarde?",
        "Je réserve jeudi à 19 h ?",
        "Soll ich Donnerstag um 19 Uhr buchen?",
    ],
)
def test_days_and_times_in_spoken_forms_and_other_languages(agent: str) -> None:
    assert question_heard(agent, {"day": "thursday", "time": "19:00"}).ok


def test_a_different_day_or_half_of_the_day_is_not_heard() -> None:
    assert question_heard("Book Friday at 7 pm?", {"day": "thursday", "time": "19:00"}).missing == ["day"]
    assert question_heard("Book Thursday at 7 am?", {"day": "thursday", "time": "19:00"}).missing == ["time"]


def test_language_narrows_how_values_are_read() -> None:
    pending = {"amount": Decimal("1500")}
    assert question_heard("¿Pago 1.500 euros?", pending, lang="es").ok
    assert not question_heard("Pay 1.500 euros?", pending, lang="en").ok


def test_only_what_is_passed_must_be_heard() -> None:
    # The card number is masked and never spoken, so it is not passed.
    assert question_heard("Refund 20 to the card on file?", {"amount": 20}).ok


def test_values_that_cannot_be_values_are_never_heard() -> None:
    heard = question_heard("Refund nan on order A-1?", {"amount": float("nan"), "order_id": "A-1"})
    assert (heard.ok, heard.missing) == (False, ["amount"])


def test_nothing_pending_is_heard_by_any_message() -> None:
    assert question_heard("anything at all", {}).ok


def _heard_corpus() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted((Path(__file__).parent / "lang").glob("*/heard.yaml")):
        out += [(path.parent.name, entry) for entry in yaml.safe_load(path.read_text())]
    return out


HEARD = _heard_corpus()


@pytest.mark.parametrize(
    ("lang", "entry"), HEARD, ids=[f"{lang}-{e['class']}-{k}" for k, (lang, e) in enumerate(HEARD)]
)
def test_each_language_s_questions_are_heard_as_labelled(lang: str, entry: dict[str, Any]) -> None:
    today = date.fromisoformat(entry["today"]) if entry.get("today") else None
    heard = question_heard(entry["agent"], entry["pending"], lang=lang, today=today)
    assert heard.ok is entry["heard"], heard.reason


def test_every_language_has_heard_questions_of_each_class() -> None:
    for cls in ("closing_question", "relative_date"):
        assert {lang for lang, e in HEARD if e["class"] == cls} == {"en", "es", "fr", "de"}, cls


@pytest.mark.parametrize(
    ("agent", "ok"),
    [
        ("Shall I book the dentist for next Tuesday at 9?", True),  # the Tuesday after today
        ("Shall I book the dentist for Tuesday at 9?", True),  # the coming Tuesday
        ("Shall I book the dentist for this Tuesday at 9?", True),
        ("Shall I book the dentist for the day after tomorrow at 9?", False),  # Friday
    ],
)
def test_weekdays_said_relative_to_today_are_the_dates_they_name(agent: str, ok: bool) -> None:
    today = date(2026, 5, 13)  # a Wednesday
    assert question_heard(agent, {"date": "2026-05-19", "time": "09:00"}, today=today).ok is ok
