"""Labelled calls (tests/data/evidence_calls.yaml): the trace of a call's turns, as the gate
reads them, never supports what the caller did not ask for, and finds what they did."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.evidence import Meaning, Statement, from_match, reading, trace
from gate.memory.embedder import MiniLMEmbedder

CALLS = Path(__file__).parent / "data" / "evidence_calls.yaml"
# Friday 6 March 2026, 12:00 UTC: the day the labels' relative dates are read from.
START = 1772798400.0


@pytest.fixture(scope="module")
def meaning() -> Meaning:
    return Meaning(MiniLMEmbedder())


async def _verdict(case: dict[str, Any], meaning: Meaning) -> str:
    said = [
        Statement(text, "caller" if n % 2 == 0 else "agent", START + n, "call", turn=n)
        for n, text in enumerate(case["turns"])
    ]
    request = from_match(case["query"].format(**case["match"]), case["match"], today=date(2026, 3, 6))
    prepared = await meaning.prepare(
        reading.texts_for(request, said)
        + reading.base_texts(request, said)
        + reading.pointer_texts(request, said)
    )
    return trace(request, said, prepared).verdict


async def test_labelled_calls_never_support_wrongly_and_are_measured(meaning: Meaning) -> None:
    cases = yaml.safe_load(CALLS.read_text())
    assert len(cases) >= 362 and {c["expect"] for c in cases} == {"act", "none"}
    wrong: list[str] = []
    found = 0
    for case in cases:
        supported = await _verdict(case, meaning) == "supported"
        if supported and case["expect"] == "none":
            wrong.append(case["name"])
        found += supported and case["expect"] == "act"
    acts = sum(c["expect"] == "act" for c in cases)
    assert wrong == [], wrong
    assert found >= 160, f"found {found} of {acts}"
