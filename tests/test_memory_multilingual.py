"""Caller memory across English, Spanish, French and German: ``GATE_EMBEDDER=multilingual``.

A caller says a fact in one language and asks about it later in another, in
other words (``tests/data/memory_multilingual.yaml``); the fact must be among
the three memories recalled, out of the caller's 30. Measured: 190 of 241
(78.8%) with the multilingual encoder, 20 of 241 (8.3%) with the default
MiniLM; the bound asserted is the measured figure less a few cases, not the
90% aimed at. English recall stays MiniLM's (English vectors are MiniLM's
own). The encoder loads from the installed packages with the network cut
off, and a store written with one encoder is refused by another.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

import gate
from gate.memory.embedder import MiniLMEmbedder, MultilingualEmbedder, SentenceEmbedder, embedder_for
from gate.testing.contextdb import CloudDouble
from tests.conftest import POLICIES, Calendar, cloud_engine, make_tools

DATA = Path(__file__).parent / "data"
LANGUAGES = ("en", "es", "fr", "de")


def _callers() -> list[dict[str, Any]]:
    callers: list[dict[str, Any]] = yaml.safe_load((DATA / "memory_multilingual.yaml").read_text())["callers"]
    return callers


def test_the_set_is_what_it_claims_to_be() -> None:
    callers = _callers()
    facts = Counter(p["lang"] for c in callers for p in c["pairs"])
    asked = Counter(q for c in callers for p in c["pairs"] for q in p["asked"])
    cross = [(p["lang"], q) for c in callers for p in c["pairs"] for q in p["asked"] if q != p["lang"]]
    assert len(callers) >= 12 and len(cross) >= 240
    # Every language is said and asked in, and every direction between two languages is tried.
    assert all(facts[lang] >= 25 and asked[lang] >= 50 for lang in LANGUAGES)
    assert {(a, b) for a, b in cross} == {(a, b) for a in LANGUAGES for b in LANGUAGES if a != b}
    for c in callers:
        assert len(c["pairs"]) + len(c["distractors"]) >= 30, c["id"]
        assert all(set(p["asked"]) <= set(LANGUAGES) and p["lang"] in LANGUAGES for p in c["pairs"])


async def _recall_figures(g: gate.Gate) -> tuple[int, int, int, int, list[str]]:
    """Top-3 hits of the multilingual set through the gate's memory: cross-language and same-language."""
    store: Any = g.memory
    cross = cross_hits = same = same_hits = 0
    misses = []
    for c in _callers():
        said = [p["fact"] for p in c["pairs"]] + list(c["distractors"])
        ids = await store.remember_many(c["id"], said, source="user_stated", confidence=0.9)
        for i, p in enumerate(c["pairs"]):
            for lang, question in p["asked"].items():
                found = await store.recall(c["id"], question, top_k=3)
                hit = ids[i] in {m.id for m in found.items}
                if lang == p["lang"]:
                    same, same_hits = same + 1, same_hits + hit
                else:
                    cross, cross_hits = cross + 1, cross_hits + hit
                    if not hit:
                        misses.append(f"  {p['lang']}->{lang} {question!r}: {p['fact']!r}")
    return cross_hits, cross, same_hits, same, misses


@pytest.fixture
def multilingual(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GATE_EMBEDDER", "multilingual")
    return home


async def test_cross_language_recall_top3(multilingual: Path, calendar: Calendar) -> None:
    g = gate.Gate(make_tools(calendar), policies=POLICIES)
    try:
        cross_hits, cross, same_hits, same, misses = await _recall_figures(g)
    finally:
        await g.aclose()
    report = "\n".join(misses)
    print(
        f"\nmultilingual top-3: cross-language {cross_hits}/{cross} ({cross_hits / cross:.1%}), "
        f"same language {same_hits}/{same}\n{report}"
    )
    assert cross_hits / cross >= 0.75, f"cross-language top-3 {cross_hits}/{cross}\n{report}"
    assert same_hits / same >= 0.9


async def test_minilm_finds_few_of_them(home: Path, calendar: Calendar) -> None:
    """The default encoder reads English only: the same set is mostly missed (what the setting is for)."""
    g = gate.Gate(make_tools(calendar), policies=POLICIES)
    try:
        cross_hits, cross, _, _, _ = await _recall_figures(g)
    finally:
        await g.aclose()
    print(f"\nminilm top-3: cross-language {cross_hits}/{cross} ({cross_hits / cross:.1%})")
    assert cross_hits / cross < 0.25


async def test_english_recall_is_minilm_s(multilingual: Path, calendar: Calendar) -> None:
    """The English recall set through the multilingual encoder: every fact found, as with MiniLM."""
    g = gate.Gate(make_tools(calendar), policies=POLICIES)
    data = yaml.safe_load((DATA / "recall.yaml").read_text())["callers"]
    hits = total = 0
    try:
        for caller, items in data.items():
            ids = await g.memory.remember_many(  # type: ignore[attr-defined]
                caller, [i["fact"] for i in items], source="user_stated", confidence=0.9
            )
            for fact_id, item in zip(ids, items, strict=True):
                found = await g.memory.recall(caller, item["question"], top_k=3)
                total += 1
                hits += fact_id in {m.id for m in found.items}
    finally:
        await g.aclose()
    assert total >= 30
    assert hits == total, f"top-3 {hits}/{total}"


def test_the_setting_switches_the_encoder(
    home: Path, calendar: Calendar, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert isinstance(embedder_for("multilingual"), MultilingualEmbedder)
    assert isinstance(embedder_for("minilm"), MiniLMEmbedder)
    assert embedder_for("mock") is None
    for setting, kind in (("multilingual", MultilingualEmbedder), ("minilm", MiniLMEmbedder)):
        monkeypatch.setenv("GATE_EMBEDDER", setting)
        monkeypatch.setenv("GATE_HOME", str(home / setting))
        g = gate.Gate(make_tools(calendar), policies=POLICIES)
        try:
            assert type(g.backend.db._embedder) is kind  # type: ignore[attr-defined]
            assert type(g.backend._judge_embedder) is kind  # type: ignore[attr-defined]
        finally:
            g.ledger.close()
    monkeypatch.setenv("GATE_EMBEDDER", "multilingual")
    assert type(cloud_engine(CloudDouble())._embedder) is MultilingualEmbedder  # type: ignore[attr-defined]
    monkeypatch.setenv("GATE_EMBEDDER", "mock")
    assert type(cloud_engine(CloudDouble())._embedder) is MiniLMEmbedder  # type: ignore[attr-defined]
    monkeypatch.setenv("GATE_EMBEDDER", "multilingual-e5")
    with pytest.raises(gate.ConfigError) as bad:
        gate.GateSettings()
    assert str(bad.value) == "GATE_EMBEDDER='multilingual-e5': expected one of minilm, multilingual, mock"


async def test_a_store_written_with_one_encoder_is_refused_by_another(
    home: Path, calendar: Calendar, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = gate.Gate(make_tools(calendar), policies=POLICIES)
    await g.memory.remember("alice", "My dog is called Rex.", source="user_stated", confidence=0.9)
    await g.aclose()

    monkeypatch.setenv("GATE_EMBEDDER", "multilingual")
    with pytest.raises(gate.ConfigError) as refused:
        gate.Gate(make_tools(calendar), policies=POLICIES)
    store = home.resolve() / "memory.db"
    assert str(refused.value) == (
        f"{store}: its memories were embedded with minilm (all-MiniLM-L6-v2/int8); "
        "GATE_EMBEDDER=multilingual cannot read them. Set GATE_EMBEDDER=minilm, "
        "or use another GATE_HOME for a store of its own"
    )
    # The other way round too: a multilingual store is not read with MiniLM.
    monkeypatch.setenv("GATE_HOME", str(home.parent / "other"))
    g = gate.Gate(make_tools(calendar), policies=POLICIES)
    await g.memory.remember("alice", "Mi perro se llama Rex.", source="user_stated", confidence=0.9)
    await g.aclose()
    monkeypatch.setenv("GATE_EMBEDDER", "minilm")
    with pytest.raises(gate.ConfigError, match="embedded with multilingual"):
        gate.Gate(make_tools(calendar), policies=POLICIES)


async def test_a_store_from_before_the_record_holds_minilm_vectors(
    home: Path, calendar: Calendar, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = gate.Gate(make_tools(calendar), policies=POLICIES)
    fact = await g.memory.remember("alice", "My dog is called Rex.", source="user_stated", confidence=0.9)
    await g.aclose()
    with sqlite3.connect(home / "memory.db") as conn:
        conn.execute("DROP TABLE gate_store")

    monkeypatch.setenv("GATE_EMBEDDER", "multilingual")
    with pytest.raises(gate.ConfigError, match="embedded with minilm"):
        gate.Gate(make_tools(calendar), policies=POLICIES)
    monkeypatch.setenv("GATE_EMBEDDER", "minilm")
    g = gate.Gate(make_tools(calendar), policies=POLICIES)
    try:
        found = await g.memory.recall("alice", "what's the name of my pet", top_k=1)
        assert [m.id for m in found.items] == [fact]
    finally:
        await g.aclose()


_OFFLINE = """
import socket, sys

def refuse(*args, **kwargs):
    raise OSError("network is cut off in this test")

socket.socket.connect = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
import asyncio
from gate.memory.embedder import MultilingualEmbedder

vectors = asyncio.run(MultilingualEmbedder().embed([
    "I drive a white van",
    "tengo una furgoneta blanca",
    "je conduis une camionnette blanche",
    "ich fahre einen weißen lieferwagen",
    "mi hija empieza la universidad en septiembre",
]))
print(" ".join(f"{x:.6f}" for v in vectors for x in v))
"""


def test_the_encoder_loads_offline_and_embeds_deterministically() -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "NO_PROXY": ""}
    env.pop("GATE_EMBEDDER", None)
    runs = [
        subprocess.run([sys.executable, "-c", _OFFLINE], capture_output=True, text=True, env=env, timeout=120)
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert run.stderr == ""
    assert runs[0].stdout == runs[1].stdout
    values = [float(x) for x in runs[0].stdout.split()]
    assert len(values) == 5 * 384
    en, es, fr, de, other = (values[i * 384 : (i + 1) * 384] for i in range(5))
    assert all(abs(sum(x * x for x in v) ** 0.5 - 1.0) < 1e-4 for v in (en, es, fr, de, other))

    def cos(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    # The same sentence in four languages is close in MiniLM's space (MiniLM alone puts the
    # Spanish one nearer another Spanish sentence than its English translation).
    assert min(cos(en, es), cos(en, fr), cos(en, de)) > 0.4
    assert cos(es, other) < 0.25 and cos(en, other) < 0.25


async def test_english_text_keeps_its_minilm_vector() -> None:
    """Thresholds calibrated on MiniLM keep their meaning: English vectors are MiniLM's own."""
    english = ["Please send invoices to my work address, not home.", "i'd like the engineer on a friday"]
    ours = await MultilingualEmbedder().embed(english)
    minilm = await MiniLMEmbedder().embed(english)
    for a, b in zip(ours, minilm, strict=True):
        assert sum(x * y for x, y in zip(a, b, strict=True)) > 0.99
    assert isinstance(MultilingualEmbedder(), SentenceEmbedder) and MultilingualEmbedder().dimension() == 384


async def test_each_encoder_keeps_its_own_vectors() -> None:
    """The same words through both encoders in turn: each gets its own encoder's vector, never the other's."""
    words = "tengo una furgoneta blanca aparcada en la calle de atrás"
    (first,) = await MiniLMEmbedder().embed([words])
    (ours,) = await MultilingualEmbedder().embed([words], decision=True)
    (again,) = await MiniLMEmbedder().embed([words], urgent=True)
    assert again == first
    assert sum(x * y for x, y in zip(first, ours, strict=True)) < 0.9
