"""The labelled evidence set, through the embedded engine: zero false supports, >= 95% found.

Every case of ``tests/data/evidence_set.yaml`` gets its own caller (partition)
in one real engine (pycontextdb on SQLite, the MiniLM embedder); its
memories are written oldest first with their trust, and the request is
evaluated the way the gate asks: the rendered evidence query and the values
the policy binds.

The request is traced over the memories (:mod:`gate.evidence.trace`): the
action asked for by the caller, every bound value said in its part, nothing
later that withdraws or changes it. The test prints every miss with the rule
that decided it.
"""

from __future__ import annotations

import string
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
import yaml

import gate

SET = Path(__file__).parent / "data" / "evidence_set.yaml"
# Requests in other words than the query's (written without the rules at hand).
PARAPHRASES = Path(__file__).parent / "data" / "evidence_paraphrases.yaml"
EVERYDAY = Path(__file__).parent / "data" / "evidence_everyday.yaml"
CLASSES = (
    *("supports_paraphrase", "negates", "same_words_other_matter", "other_amount", "other_entity"),
    *("other_caller", "question", "third_party", "agent_words", "instruction", "retracted"),
    *("changed_later", "number_forms", "day_time_forms", "confirmation_record", "condition"),
    *("two_requests", "value_role", "longer_name", "other_qualifier", "moves_from", "bound_or_period"),
    *("other_place", "taken_back", "other_source", "own_object", "other_thing", "possessive", "command"),
    *("exception",),
)
CONFIDENCE = {"trusted": 0.9, "untrusted": 0.5, "confirmed": 1.0}


@dataclass
class Outcome:
    case: dict[str, Any]
    decision: gate.ServiceDecision
    last_id: str

    @property
    def supported(self) -> bool:
        return self.decision.outcome in ("act", "ask") and self.last_id in {
            m.id for m in self.decision.memories
        }

    @property
    def cited_against(self) -> bool:
        return self.decision.outcome == "abstain" and any(m.role == "against" for m in self.decision.memories)

    def describe(self) -> str:
        c = self.case
        d = self.decision
        said = f"{d.outcome} ({d.rule}): {d.reason}"
        return f"[{c['class']}] {c['tool']}{c['args']} <- {c['memories']} -> {said}"


def spoken(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def render(template: str, args: dict[str, Any]) -> str:
    return string.Formatter().vformat(template, (), {k: spoken(v) for k, v in args.items()})


async def write(engine: gate.LocalEngine, partition: str, memory: str | dict[str, Any]) -> str:
    m = {"text": memory} if isinstance(memory, str) else dict(memory)
    who = f"{partition}-other" if m.get("caller") == "other" else partition
    trust = m.get("trust", "trusted")
    metadata = {"said_by": m["said_by"]} if "said_by" in m else None
    item = await engine.db.factual.add(
        m["text"],
        metadata=metadata,
        confidence=CONFIDENCE[trust],
        source=cast(Any, m.get("source", "user_stated")),
        action_relevant=True,
        user_id=who,
    )
    if trust == "confirmed":
        await engine.confirm(who, item.id, idempotency_key=f"confirm-{item.id}")
    return str(item.id)


async def run_set(engine: gate.LocalEngine, path: Path = SET) -> list[Outcome]:
    labelled = yaml.safe_load(path.read_text())
    tools = labelled["tools"]
    outcomes = []
    for n, case in enumerate(labelled["cases"]):
        partition = f"caller-{n}"
        last = ""
        for memory in case["memories"]:
            last = await write(engine, partition, memory)
        tool = tools[case["tool"]]
        match = {name: case["args"][name] for name in tool["match"]}
        decision = await engine.evaluate_action(partition, render(tool["query"], case["args"]), match=match)
        outcomes.append(Outcome(case, decision, last))
    return outcomes


def _tally(outcomes: list[Outcome]) -> tuple[list[Outcome], list[Outcome], list[Outcome]]:
    """The true supports, those found, and the false supports (acted or asked on a non-support)."""
    true_supports = [o for o in outcomes if o.case["expect"] == "support"]
    found = [o for o in true_supports if o.supported]
    false_supports = [
        o for o in outcomes if o.case["expect"] != "support" and o.decision.outcome in ("act", "ask")
    ]
    return true_supports, found, false_supports


async def test_labelled_set_zero_false_supports_and_95_percent_found(engine: gate.LocalEngine) -> None:
    labelled = yaml.safe_load(SET.read_text())
    cases = labelled["cases"]
    assert len(cases) >= 150
    assert len({c["tool"] for c in cases}) >= 5
    classes = Counter(c["class"] for c in cases)
    for name in CLASSES:
        assert classes[name] >= 5, name

    outcomes = await run_set(engine)
    true_supports, found, false_supports = _tally(outcomes)
    misses = [o for o in true_supports if not o.supported]
    negations = [o for o in outcomes if o.case["expect"] == "against"]
    uncited = [o for o in negations if not o.cited_against]
    share = len(found) / len(true_supports)
    print(
        f"\nevidence set: {len(outcomes)} pairs, {len(true_supports)} true supports; "
        f"found {len(found)} ({share:.1%}); false supports {len(false_supports)}; "
        f"negations cited against {len(negations) - len(uncited)}/{len(negations)}"
    )
    for o in misses:
        print("  missed:", o.describe())
    report = "\n".join(o.describe() for o in [*false_supports, *misses, *uncited])
    assert not false_supports, f"false supports:\n{report}"
    assert share >= 0.95, f"found {share:.1%} of true supports:\n{report}"
    assert not uncited, f"trusted negations not cited against:\n{report}"


async def test_paraphrases_never_act_on_a_no_and_are_measured(engine: gate.LocalEngine) -> None:
    """The paraphrase set: its figures are the README's; what is asserted is what holds today.

    A trusted no never acts, and nothing that is not a request is supported. Found is held at
    its measured floor.
    """
    outcomes = await run_set(engine, PARAPHRASES)
    assert len(outcomes) >= 250
    true_supports, found, false_supports = _tally(outcomes)
    negations = [o for o in outcomes if o.case["expect"] == "against"]
    print(
        f"\nparaphrase set: {len(outcomes)} pairs, {len(true_supports)} true supports; "
        f"found {len(found)} ({len(found) / len(true_supports):.1%}); false supports "
        f"{len(false_supports)}; negations cited against "
        f"{sum(o.cited_against for o in negations)}/{len(negations)}"
    )
    report = "\n".join(o.describe() for o in false_supports)
    assert not [o for o in negations if o.decision.outcome == "act"], report
    assert not false_supports, report
    assert len(found) >= 331, f"found {len(found)} of {len(true_supports)}"


async def test_everyday_requests_never_act_wrongly_and_are_measured(engine: gate.LocalEngine) -> None:
    """The everyday set (requests as callers commonly put them, written before their results were
    read): no false support, and found held at its measured floor."""
    outcomes = await run_set(engine, EVERYDAY)
    assert len(outcomes) >= 400
    true_supports, found, false_supports = _tally(outcomes)
    print(
        f"\neveryday set: {len(outcomes)} pairs, {len(true_supports)} true supports; found "
        f"{len(found)} ({len(found) / len(true_supports):.1%}); false supports {len(false_supports)}"
    )
    for o in true_supports:
        if not o.supported:
            print("  missed:", o.describe())
    assert not false_supports, "\n".join(o.describe() for o in false_supports)
    assert len(found) >= 488, f"found {len(found)} of {len(true_supports)}"


@pytest.mark.parametrize(
    ("path", "floor"),
    [(SET, 139), (PARAPHRASES, 334), (EVERYDAY, 490)],
    ids=["set", "paraphrases", "everyday"],
)
async def test_the_sets_said_as_a_call_never_act_wrongly(path: Path, floor: int) -> None:
    """The same words said as a call's first turns, where a turn may answer the agent and what
    names the action is read more loosely (``bench/labelled_calls.py``): no false support, and
    found held at its measured floor."""
    from bench.labelled_calls import measure
    from gate.evidence import Meaning
    from gate.memory.embedder import MiniLMEmbedder

    row = await measure(path, Meaning(MiniLMEmbedder()))
    assert row["false"] == 0, "\n".join(map(str, row["cases"]))
    assert row["found"] >= floor, f"found {row['found']} of {row['supports']}"
