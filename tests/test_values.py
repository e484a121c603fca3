"""Values as values: the written and spoken forms of one value are one value, and only that."""

from __future__ import annotations

from decimal import Decimal

import pytest

from gate.values import Value, find_mentions, find_values, is_finite_number, locate, mentions, normalise


@pytest.mark.parametrize(
    ("raw", "kind", "key"),
    [
        (1500, "number", "1500"),
        (1500.0, "number", "1500"),
        (49.5, "number", "49.5"),
        (Decimal("49.50"), "number", "49.5"),
        (Decimal("-0.0"), "number", "0"),
        (-20, "number", "-20"),
        ("50", "number", "50"),
        ("$1,250.00", "number", "1250"),
        ("Thursday", "weekday", "thu"),
        ("mercredi", "weekday", "wed"),
        ("10:30", "time", "10:30"),
        ("8 pm", "time", "20:00"),
        ("2026-07-14", "date", "2026-07-14"),
        ("A-1001", "ident", "a1001"),
        ("inv_77", "ident", "inv77"),
        ("Q 2201", "ident", "q2201"),
        ("0042", "ident", "0042"),
        ("  Premium   Plus ", "text", "premium plus"),
        ("12 Rue de la Paix", "text", "12 rue de la paix"),
    ],
)
def test_normalise_reads_each_kind(raw: object, kind: str, key: str) -> None:
    assert normalise(raw) == Value(kind, key)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "bad",
    [
        float("nan"),
        float("inf"),
        float("-inf"),
        Decimal("NaN"),
        Decimal("-Infinity"),
        "nan",
        "-inf",
        "Infinity",
        True,
        False,
    ],
)
def test_normalise_refuses_non_finite_and_bool(bad: object) -> None:
    with pytest.raises(ValueError):
        normalise(bad)


def test_normalise_refuses_other_types() -> None:
    with pytest.raises(TypeError):
        normalise([1, 2])


@pytest.mark.parametrize(
    ("value", "expected"),
    [(3, True), (2.5, True), (Decimal("7.1"), True), ("1,200", True), ("forty", True),
     (float("nan"), False), (float("-inf"), False), (Decimal("sNaN"), False), ("NaN", False),
     ("inf", False), (True, False), ("Tuesday", False), (None, False)],
)  # fmt: skip
def test_is_finite_number(value: object, expected: bool) -> None:
    assert is_finite_number(value) is expected


@pytest.mark.parametrize(
    "text",
    ["refund $2,400.00 today", "2400 dollars", "twenty four hundred", "two thousand four hundred",
     "2.4k", "2 400 euros", "€2.400", "dos mil cuatrocientos pesos", "deux mille quatre cents",
     "zweitausendvierhundert Euro", "USD 2400", "2,4 mil"],
)  # fmt: skip
def test_one_amount_in_many_written_forms(text: str) -> None:
    lang = "es" if "mil" in text.split() else None
    assert mentions(text, 2400, lang), text


@pytest.mark.parametrize(
    ("text", "value", "lang"),
    [("pay 1,500 on invoice INV-77", 500, None), ("pay 1,500", 15, None), ("1.500 €", 500, "de"),
     ("twelve hundred", 100, "en"), ("215 dollars", 15, "en"), ("thirty five", 30, "en"),
     ("version 2.40", 240, "en"), ("order A-1001", 1001, None), ("seven fifty", 57, "en")],
)  # fmt: skip
def test_a_number_inside_another_is_not_that_number(text: str, value: int, lang: str | None) -> None:
    assert not mentions(text, value, lang)


def test_separators_follow_the_language() -> None:
    assert mentions("1.500 €", 1500, "de")
    assert mentions("1.500", 1500, "es")
    assert mentions("1.500 kg", Decimal("1.5"), "en")
    assert not mentions("1.500 kg", 1500, "en")
    assert mentions("1,5 Liter", Decimal("1.5"), "de")
    assert mentions("€ 12,99", Decimal("12.99"), "fr")
    assert mentions("12.345,67", Decimal("12345.67"), None)


def test_number_words_in_four_languages() -> None:
    cases = [
        ("three hundred and twelve", 312, "en"),
        ("a thousand", 1000, "en"),
        ("two point seven five", Decimal("2.75"), "en"),
        ("minus forty", -40, "en"),
        ("novecientos noventa y nueve", 999, "es"),
        ("un millón", 1_000_000, "es"),
        ("quatre-vingt-douze", 92, "fr"),
        ("soixante et onze", 71, "fr"),
        ("nonante", 90, "fr"),
        ("dreiundvierzig", 43, "de"),
        ("neunzehnhundert", 1900, "de"),
        ("zwei Millionen", 2_000_000, "de"),
    ]
    for text, value, lang in cases:
        assert mentions(text, value, lang), text
        assert mentions(text, value), f"{text} (any language)"


@pytest.mark.parametrize(
    ("text", "value", "lang"),
    [
        ("can i keep it a couple more days", 2, "en"),
        ("a pair of tickets please", 2, "en"),
        ("a couple hundred dollars", 200, "en"),
        ("a couple thousand", 2000, "en"),
        ("a dozen of us", 12, "en"),
        ("two dozen roses", 24, "en"),
        ("half a dozen of us", 6, "en"),
        ("a dozen and a half", 18, "en"),
        ("two and a half dozen", 30, "en"),
        ("una docena de rosas", 12, "es"),
        ("un par de días más", 2, "es"),
        ("deux douzaines", 24, "fr"),
        ("ein Dutzend Eier", 12, "de"),
    ],
)
def test_counting_words_are_their_counts(text: str, value: int, lang: str) -> None:
    """A couple and a pair are two, a dozen twelve; "two dozen" is 24, never 2."""
    assert find_values(text, lang) == [Value("number", str(value))], text


@pytest.mark.parametrize(
    "text",
    ["the couple next door", "dozens of people called", "couple them together", "pair it with my phone"],
)
def test_counting_words_without_their_article_count_nothing(text: str) -> None:
    assert find_values(text, "en") == [], text


def test_at_least_is_not_minus() -> None:
    assert find_values("al menos 30 euros", "es") == [Value("number", "30")]
    assert find_values("au moins 30", "fr") == [Value("number", "30")]
    assert find_values("-30") == [Value("number", "-30")]
    assert find_values("10-20") == [Value("number", "10"), Value("number", "20")]


@pytest.mark.parametrize(
    "text", ["fri", "Fri.", "friday", "viernes", "vendredi", "Freitag", "FRIDAY", "freitags"]
)
def test_weekday_forms(text: str) -> None:
    assert mentions(f"see you {text}", "Friday")
    assert not mentions(f"see you {text}", "Thursday")


def test_short_weekdays_that_are_words() -> None:
    assert not find_values("the sun was out all day", "en")
    assert not find_values("mon ami", None)
    assert find_values("can you do Sat", "en") == [Value("weekday", "sat")]
    assert find_values("on sun then", "en") == [Value("weekday", "sun")]


@pytest.mark.parametrize(
    "text",
    ["21:00", "9pm", "9 p.m.", "9 PM", "nine pm", "nine in the evening", "21 h", "21h00",
     "21 Uhr", "neun Uhr abends", "las nueve de la noche", "neuf heures du soir", "at 9",
     "9 o'clock"],
)  # fmt: skip
def test_time_forms(text: str) -> None:
    assert mentions(text, "21:00"), text


@pytest.mark.parametrize("text", ['2 o"clock in the afternoon', "2 o’clock in the afternoon", "2 oclock pm"])
def test_an_apostrophe_typed_as_a_double_quote_is_an_apostrophe(text: str) -> None:
    """A quote typed for the apostrophe leaves the hour an hour, not a bare count of two."""
    assert find_values(text, "en") == [Value("time", "14:00")], text


def test_time_readings() -> None:
    assert find_values("10 am") == [Value("time", "10:00")]
    assert find_values("half past six in the evening") == [Value("time", "18:30")]
    assert find_values("halb neun") == [Value("time", "08:30")]
    assert find_values("a las ocho y cuarto") == [Value("time", "08:15")]
    assert find_values("dix-huit heures trente") == [Value("time", "18:30")]
    assert find_values("12 am") == [Value("time", "00:00")]
    assert find_values("noon") == [Value("time", "12:00")]
    assert not mentions("9 am", "21:00")
    assert not mentions("at 9 dollars", "21:00")
    assert mentions("at 9 dollars", 9)


def test_dates() -> None:
    assert normalise("July 14th, 2026") == Value("date", "2026-07-14")
    for text in [
        "14 July",
        "the 14th of july",
        "14 de julio",
        "14 juillet",
        "14. Juli",
        "2026-07-14",
        "14.7.2026",
    ]:
        assert mentions(f"on {text}", "2026-07-14"), text
    assert not mentions("on 2025-07-14", "2026-07-14")
    assert not mentions("on 15 July", "2026-07-14")


def test_identifiers_are_exact() -> None:
    for text in ["A-1001", "a-1001", "a1001", "A 1001", "order a_1001."]:
        assert mentions(text, "A-1001"), text
    for text in ["A-10011", "A-100", "BA-1001", "A-1001-2", "B-1001", "1001"]:
        assert not mentions(text, "A-1001"), text


def test_text_values_match_whole_words() -> None:
    assert mentions("switch me to the Premium  plus tier", "premium plus")
    assert not mentions("premiumplus", "premium plus")
    assert not mentions("the premium tier", "premium plus")


def test_mentions_and_locate_agree() -> None:
    text = "move 1,500 from A-1001 to savings on thursday at 7 pm"
    for value in (1500, "A-1001", "Thursday", "19:00", "savings"):
        spans = locate(text, value)
        assert spans and mentions(text, value)
        a, b = spans[0]
        assert text[a:b].strip()
    assert [m.value.kind for m in find_mentions(text)] == ["number", "ident", "weekday", "time"]


def test_english_words_are_not_foreign_numbers_without_a_language() -> None:
    assert find_values("once it ships, thanks") == []
    assert find_values("once", "es") == [Value("number", "11")]


def test_a_weekday_alone_is_the_day_and_a_clock_with_a_leading_zero_is_the_morning() -> None:
    assert normalise("sun") == Value("weekday", "sun")
    assert normalise("Sat.") == Value("weekday", "sat")
    assert mentions("at 7:30", "19:30")
    assert not mentions("at 07:30", "19:30")


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("yes the 16th", "en"), ("on the sixteenth please", "en"), ("16th works", "en"),
        ("the sixteenth of each month", "en"), ("el dieciséis", "es"), ("el jueves dieciséis", "es"),
        ("le seize", "fr"), ("am sechzehnten", "de"), ("zum 16.", "de"),
    ],
)  # fmt: skip
def test_a_day_of_the_month_said_alone(text: str, lang: str) -> None:
    found = find_values(text, lang)
    assert Value("date", "---16") in found, text
    assert mentions(text, "2026-06-16", lang) and mentions(text, 16, lang), text
    assert not mentions(text, "2026-06-17", lang), text


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("the first one", "en"),
        ("the second card", "en"),
        ("for the two of us", "en"),
        ("el dos de los tres", "es"),
    ],
)
def test_an_ordinal_that_names_a_thing_is_no_day(text: str, lang: str) -> None:
    assert not any(v.kind == "date" for v in find_values(text, lang)), text


def test_german_ordinals_with_a_month() -> None:
    assert find_values("am einundzwanzigsten Mai", "de") == [Value("date", "--05-21")]
    assert find_values("sechzehnter Juni", "de") == [Value("date", "--06-16")]
    assert find_values("achten Sie darauf", "de") == []


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("ten to seven", "06:50"), ("the twenty five past eight train", "08:25"), ("half eight", "08:30"),
        ("half two in the afternoon", "14:30"), ("quarter of nine", "08:45"),
    ],
)  # fmt: skip
def test_spoken_clock_forms(text: str, key: str) -> None:
    assert find_values(text, "en")[0].key == key, text


def test_spoken_clock_forms_in_other_languages_and_ranges() -> None:
    assert find_values("dreiviertel drei", "de") == [Value("time", "02:45")]
    assert find_values("el martes diez y cuarto", "es")[-1] == Value("time", "10:15")
    # A range of counts is no time.
    assert find_values("from ten to seven", "en") == [Value("number", "10"), Value("number", "7")]
    assert find_values("i need ten to twelve bags", "en") == [Value("number", "10"), Value("number", "12")]


def test_one_span_of_time_is_one() -> None:
    assert find_values("pause it for a week", "en") == [Value("number", "1")]
    assert find_values("por una semana", "es") == [Value("number", "1")]
    assert find_values("für einen Monat", "de") == [Value("number", "1")]
    assert find_values("for a while", "en") == []


@pytest.mark.parametrize(
    ("text", "lang", "key"),
    [
        ("a las doce menos veinte", "es", "11:40"), ("midi moins vingt", "fr", "11:40"),
        ("midi et quart", "fr", "12:15"), ("zwanzig nach vier", "de", "04:20"),
        ("zehn vor neun", "de", "08:50"), ("half nine's fine", "en", "09:30"),
    ],
)  # fmt: skip
def test_times_said_from_the_hour_in_four_languages(text: str, lang: str, key: str) -> None:
    assert find_values(text, lang)[0] == Value("time", key), text


def test_a_value_before_an_apostrophe_s() -> None:
    assert find_values("a hundred and eighty five's fine", "en") == [Value("number", "185")]
    assert find_values("the third's fine", "en") == [Value("date", "---03")]
    assert find_values("thirty quid's fine", "en") == [Value("number", "30")]


def test_a_count_before_a_day_and_month_and_a_count_before_its_noun() -> None:
    # "3 march 10th": three of something, then March 10th; "at 1 room": a count, not 1 o'clock.
    assert [m.value for m in find_mentions("basta 3 march 10th chicago", "en")] == [
        Value("number", "3"),
        Value("date", "--03-10"),
    ]
    assert [m.value for m in find_mentions("to stay at 1 room for 3 nights", "en")] == [
        Value("number", "1"),
        Value("number", "3"),
    ]
    assert [m.value for m in find_mentions("on 4 march 2026", "en")] == [Value("date", "2026-03-04")]


def test_a_comma_inside_a_text_value() -> None:
    assert mentions("tickets in Washington, D.C. on Friday", "Washington D.C.")
    assert mentions("tickets in Washington D.C. on Friday", "Washington, D.C.")


def test_a_french_hundred_that_opens_the_text() -> None:
    # "cent" with nothing before it is read by the word after it.
    assert [m.value.key for m in find_mentions("cent vingt euros", "fr")] == ["120"]
    assert [m.value.key for m in find_mentions("cent euros", "fr")] == ["100"]


@pytest.mark.parametrize(
    ("text", "lang", "key"),
    [
        ("let's make it afternoon 3 on the 7th", None, "15:00"),
        ("evening 6:30 would be best", None, "18:30"),
        ("morning ten works for me", None, "10:00"),
        ("in the evening at 7 please", None, "19:00"),
        ("night 11", None, "23:00"),
        ("abends um 7 bitte", "de", "19:00"),
        ("por la tarde a las 5", "es", "17:00"),
    ],
)
def test_the_part_of_the_day_said_before_the_hour(text: str, lang: str | None, key: str) -> None:
    times = [m.value.key for m in find_mentions(text, lang) if m.value.kind == "time"]
    assert times == [key]


@pytest.mark.parametrize(
    "text", ["saturday morning 2 people", "the evening 2 of us", "friday morning 3 tickets"]
)
def test_a_count_after_the_part_of_the_day_is_no_time(text: str) -> None:
    assert not [m for m in find_mentions(text) if m.value.kind == "time"]


@pytest.mark.parametrize(
    ("text", "value", "not_value"),
    [
        ("get two and a half grand over to tom", 2500, 2),
        ("one and a half thousand please", 1500, 1000),
        ("send half a million to the fund", 500000, 1000000),
        ("it takes two and a half hours", 2.5, 2),
        ("veinte y medio", 20.5, 20),
        ("zwei einhalb tausend", 2500, 2),
    ],
)
def test_a_half_said_with_a_number_is_part_of_it(text: str, value: float, not_value: float) -> None:
    """ "Half a million" is 500,000, never a million; "two and a half grand" is 2,500, never 2."""
    assert mentions(text, value)
    assert not mentions(text, not_value)


def test_half_with_no_number_is_no_value() -> None:
    assert find_values("half an hour") == [] and find_values("i want half") == []


@pytest.mark.parametrize(
    ("text", "lang", "found"),
    [
        ("a table for two tonight", "en", Value("number", "2")),
        ("could we come in for four this evening", "en", Value("number", "4")),
        ("una mesa para dos esta noche", "es", Value("number", "2")),
        ("eight tonight", "en", Value("time", "20:00")),
        ("ten this evening", "en", Value("time", "22:00")),
        ("at two tonight", "en", Value("time", "14:00")),
        ("three this afternoon", "en", Value("time", "15:00")),
        ("a taxi for four in the morning", "en", Value("time", "04:00")),
        ("deux heures du matin", "fr", Value("time", "02:00")),
    ],
)
def test_a_number_said_with_a_part_of_a_day_it_cannot_be_an_hour_of_counts(
    text: str, lang: str, found: Value
) -> None:
    """ "for two tonight": two o'clock is no hour of tonight, so the number counts; an hour inside
    the part ("eight tonight"), one said with "at", or a part alone ("in the morning") is a time."""
    assert find_values(text, lang)[:1] == [found], find_values(text, lang)


@pytest.mark.parametrize(
    ("text", "key"),
    [("9 in the night", "21:00"), ("at 3 in the night", "03:00"), ("eleven in the night", "23:00")],
)
def test_in_the_night_is_a_part_of_the_day(text: str, key: str) -> None:
    """ "9 in the night" is nine at night, as "9 at night" is; the small hours stay the small hours."""
    assert find_values(text, "en")[:1] == [Value("time", key)], find_values(text, "en")
