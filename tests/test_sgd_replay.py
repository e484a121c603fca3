"""The SGD replays (bench/sgd), run on dialogues written for these tests in SGD's format.

``tests/data/sgd_format`` holds a schema of three invented services (kennels, trains, a
bakery) and a dozen dialogues in SGD's JSON format: values spread over turns, answers to
the agent's questions, an option picked from the agent's offer, relative dates, changes at
the confirmation, yeses with a side question. The replays run them through live text-mode
sessions and a real gate; the assertions are about what the harness must report, and about
what no gate may ever do (execute values the caller changed or never said).

With ``GATE_SGD_DIR`` set, a few real SGD dev dialogues are replayed too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from livekit.agents.llm import FunctionTool

import gate
from bench.sgd import confirmations, data, negative, transactions
from bench.sgd.replay import Setup, caller_turns, run, spread
from bench.sgd.tools import Executions, make_tools, policy_for, write_policies

FIXTURE = Path(__file__).parent / "data" / "sgd_format"
TRANSACTIONS = {f"1_{n:05d}" for n in range(1, 11)}  # 1_00011 ends in a no: no service call


def by_id(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["dialogue_id"]: r for r in results}


def replay_transactions(variant: str = "plain", evidence_required: bool = True) -> list[dict[str, Any]]:
    todo, skipped = transactions.jobs(FIXTURE, "dev", 50, 1, variant)
    assert skipped == 0
    setup = Setup(
        str(FIXTURE),
        "dev",
        confirm="when_unsure" if variant == "negative" else "always",
        evidence_required=evidence_required,
    )
    results = run(todo, transactions.replay, setup)
    assert [r for r in results if "error" in r] == []
    return results


def replay_confirmations(variant: str) -> list[dict[str, Any]]:
    todo = confirmations.jobs(FIXTURE, "dev", 50, 1, variant)
    results = run(todo, confirmations.replay, Setup(str(FIXTURE), "dev", evidence_required=False))
    assert [r for r in results if "error" in r or "skipped" in r] == []
    return results


@pytest.fixture(scope="module")
def plain() -> list[dict[str, Any]]:
    return replay_transactions()


@pytest.fixture(scope="module")
def recorded() -> list[dict[str, Any]]:
    return replay_transactions(evidence_required=False)


# -- the loader and the generated tools ----------------------------------------------


def test_the_loader_reads_the_fixture_and_refuses_the_test_split() -> None:
    txs = {t.dialogue_id: t for t in data.transactions(FIXTURE, "dev")}
    assert set(txs) == TRANSACTIONS
    stay = txs["1_00002"]
    assert (stay.intent.service, stay.intent.name) == ("Kennels_1", "BookKennelStay")
    assert stay.parameters["arrival_date"] == "2019-03-05"
    assert [t.speaker for t in stay.before][:2] == ["caller", "agent"]
    assert data.label(stay.answer) == "yes_question"
    assert data.label(txs["1_00003"].answer) == "change"
    labels = [(c.dialogue_id, c.label) for c in data.confirmations(FIXTURE, "dev")]
    assert ("1_00003", "change") in labels and ("1_00003", "yes") in labels
    assert ("1_00011", "change") in labels and ("1_00008", "yes_question") in labels
    first = next(c for c in data.confirmations(FIXTURE, "dev") if c.dialogue_id == "1_00001")
    assert first.before[-1].speaker == "caller" and first.pending["travel_date"] == (
        "2019-03-12",
        "March 12th",
    )
    with pytest.raises(ValueError, match="test"):
        next(data.transactions(FIXTURE, "test"))


async def test_tools_take_the_schemas_slots_typed_and_their_policies_name_every_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = make_tools(data.intents(FIXTURE, "dev").values(), Executions())
    assert set(specs) == {
        ("Kennels_1", "BookKennelStay"),
        ("Trains_1", "BuyTrainTicket"),
        ("Bakery_1", "OrderCake"),
    }
    cake = specs[("Bakery_1", "OrderCake")]
    assert cake.name == "bakery_1_order_cake"
    assert [(p.name, p.kind, p.required, p.default) for p in cake.params] == [
        ("cake_flavor", "str", True, None),
        ("pickup_date", "str", True, None),
        ("pickup_time", "str", True, None),
        ("servings", "int", False, 8),
        ("message_on_cake", "str", False, None),  # "dontcare": no preference
    ]
    assert cake.typed({"servings": "12", "pickup_date": "2019-03-02", "nope": "x"}) == {
        "servings": 12,
        "pickup_date": "2019-03-02",
    }
    stay = specs[("Kennels_1", "BookKennelStay")]
    assert stay.param("grooming").kind == "bool" and stay.param("grooming").default is False
    policy = policy_for(stay)
    names = [p.name for p in stay.params]
    for template in (policy["evidence"]["query"], policy["messages"]["ask"]):
        assert all(f"{{{n}}}" in template for n in names)
    assert policy["confirm"] == "always" and policy["evidence"]["required"] is True
    assert policy["evidence"]["query"].startswith("Book a stay for pets at a boarding kennel")

    monkeypatch.setenv("GATE_HOME", str(tmp_path / "home"))
    g = gate.Gate([s.tool for s in specs.values()], policies=write_policies(specs.values(), tmp_path / "p"))
    bound = g.bind(gate.Caller("c1", verified=True))
    (schema,) = [t for t in bound.tools if isinstance(t, FunctionTool) and t.info.name == stay.name]
    assert schema.info.description == "Book a stay for pets at a boarding kennel"
    await g.aclose()


# -- transactions --------------------------------------------------------------------


def test_each_transaction_calls_its_tool_with_the_dialogues_values(plain: list[dict[str, Any]]) -> None:
    got = by_id(plain)
    assert set(got) == TRANSACTIONS
    # A relative date, the values before the caller's change, an offer picked by its place.
    assert got["1_00002"]["called_with"] == {
        "kennel_name": "Paws Inn",
        "arrival_date": "2019-03-05",
        "number_of_nights": "4",
        "pets": 1,
        "grooming": False,
    }
    assert got["1_00003"]["called_with"]["servings"] == 8
    assert got["1_00006"]["called_with"]["departure_time"] == "08:05"
    assert [got[d]["value_turns"] for d in ("1_00001", "1_00004", "1_00006")] == [3, 2, 2]
    for r in plain:
        first = r["first"]
        assert first is not None and first["enforced"] in ("ask", "abstain")  # confirm: always never acts
        assert first["rule"]
        assert first["arguments"] is None or set(first["arguments"]) >= set(r["called_with"])
        assert r["executed_other"] == []  # nothing but the service call's values ever runs
        assert r["overruns"] == 0


def test_with_evidence_recorded_the_caller_decides(recorded: list[dict[str, Any]]) -> None:
    got = by_id(recorded)
    for plain_yes in ("1_00001", "1_00004", "1_00006"):
        assert got[plain_yes]["completed"], got[plain_yes]["told"]
        assert [d["outcome"] for d in got[plain_yes]["decisions"]] == ["ask", "act"]
    # "No, I want to change something" / "Make it first class" / "Yes, go ahead": asked twice,
    # executed once, with the new class.
    changed = got["1_00005"]
    assert changed["completed"] and [d["outcome"] for d in changed["decisions"]] == ["ask", "ask", "act"]
    for r in recorded:
        assert r["executed_other"] == []
        if r["answer"] == "change":
            assert len([d for d in r["decisions"] if d["outcome"] == "ask"]) >= 2


def test_negative_values_are_never_the_callers_and_never_act() -> None:
    results = replay_transactions("negative")
    txs = {t.dialogue_id: t for t in data.transactions(FIXTURE, "dev")}
    specs = make_tools(data.intents(FIXTURE, "dev").values(), Executions())
    assert {r["dialogue_id"] for r in results} == TRANSACTIONS
    for r in results:
        tx = txs[r["dialogue_id"]]
        spec = specs[(tx.intent.service, tx.intent.name)]
        name, value = r["replaced"]["name"], r["replaced"]["value"]
        param = spec.param(name)
        assert param.required and r["replaced"]["was"] == transactions.first_values(tx)[name]
        assert (
            r["called_with"][name] == param.typed(value) != param.typed(transactions.first_values(tx)[name])
        )
        assert f" {value.lower()} " not in negative.caller_words(tx)
        assert r["first"]["enforced"] != "act"
        assert r["replaced"]["status"] != "traced"
        assert len(r["decisions"]) == 1 and not r["completed"]


def test_a_never_said_value_has_the_kind_of_the_one_it_replaces() -> None:
    txs = list(data.transactions(FIXTURE, "dev"))
    specs = make_tools(data.intents(FIXTURE, "dev").values(), Executions())
    found = negative.pools(txs)
    kinds = set()
    for seed in range(1, 8):
        for tx in txs:
            spec = specs[(tx.intent.service, tx.intent.name)]
            choice = negative.choose(tx, spec, dict(tx.parameters), found, seed=seed)
            assert choice is not None
            name, value = choice
            param = spec.param(name)
            if param.form == "date":
                assert value[:4] == "2019" and value != tx.parameters[name]
            elif param.form == "time":
                assert len(value) == 5 and value[2] == ":"
            elif param.slot.categorical:
                assert value in param.slot.values
            elif tx.parameters[name].isdigit():  # a number written as text: another number
                assert value.isdigit() and value != tx.parameters[name]
            else:
                assert value in found[(tx.intent.service, name)]
            kinds.add(param.form)
            assert negative.choose(tx, spec, dict(tx.parameters), found, seed=seed) == choice
    assert kinds >= {"date", "time", "text", "number"}


def test_the_first_decisions_trace_is_read_as_the_ledger_records_it() -> None:
    spec = make_tools(data.intents(FIXTURE, "dev").values(), Executions())[("Bakery_1", "OrderCake")]

    def row(evidence: dict[str, Any]) -> Any:
        trace = [{"rule": "evidence.trace", "outcome": "ask", "detail": "d"}]
        return SimpleNamespace(
            outcome="ask",
            enforced_outcome="ask",
            rule="evidence.trace",
            trace_json=json.dumps(trace),
            evidence_json=json.dumps(evidence),
        )

    names = [p.name for p in spec.params]
    full: list[dict[str, Any]] = [
        {"name": n, "status": "traced", "source": "call", "speaker": "caller"} for n in names[:-1]
    ]
    full.append({"name": names[-1], "status": "default", "source": "default", "speaker": None})
    assert transactions._first(row({"arguments": full}), spec)["traced"] is True
    missing = [*full[:-2], {"name": names[-2], "status": "missing"}, full[-1]]
    first = transactions._first(row({"arguments": missing}), spec)
    assert first["traced"] is False and first["arguments"][names[-2]]["status"] == "missing"
    assert transactions._first(row({"arguments": full[:-1]}), spec)["traced"] is False
    older = transactions._first(row({"outcome": "abstain", "memories": []}), spec)
    assert older["arguments"] is None and older["traced"] is None and older["detail"] == "d"


def test_the_summary_counts_per_service_and_overall(plain: list[dict[str, Any]]) -> None:
    summary = transactions.summarise(plain, "plain")
    assert summary["table"]["all"]["n"] == len(plain)
    assert sum(row["n"] for name, row in summary["table"].items() if name != "all") == len(plain)
    assert sum(summary["first_decision_rules"].values()) == len(plain)
    assert "Trains_1" in summary["rendered"] and "all" in summary["rendered"]


def test_the_command_line_writes_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    code = transactions.main(["--sgd", str(FIXTURE), "--split", "train", "--sample", "5", "--out", str(out)])
    assert code == 0
    report = json.loads(out.read_text())
    assert report["split"] == "train" and len(report["dialogues"]) == 2
    assert {"dialogue_id", "first", "completed"} <= set(report["dialogues"][0])
    printed = capsys.readouterr().out
    assert "Kennels_1" in printed and "first decision" in printed


def test_a_missing_checkout_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert confirmations.main(["--sgd", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "SGD checkout" in err[0]


# -- confirmations -------------------------------------------------------------------


def test_the_agent_says_the_datasets_question_and_no_change_ever_executes() -> None:
    results = replay_confirmations("spoken")
    got: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in results:
        got.setdefault((r["dialogue_id"], r["label"]), []).append(r)
    assert len(results) == 14
    for r in results:
        assert r["asked"]  # the gate asked; the caller heard the dataset's question instead
        if r["label"] == "change":
            assert not r["executed"], r["output"]
        if r["told_question"]:
            assert r["executed"] and r["label"] == "yes_question"
    for plain_yes in ("1_00001", "1_00004", "1_00006"):
        (r,) = got[(plain_yes, "yes")]
        assert r["complete"] and r["executed"], r["output"]
    assert got[("1_00001", "yes")][0]["called_with"]["travel_date"] == "March 12th"
    # The agent confirms again only what changed: that question does not name every value.
    for changed in ("1_00003", "1_00005", "1_00009"):
        (again,) = got[(changed, "yes")]
        assert not again["complete"]
    summary = confirmations.summarise(results)
    assert summary["table"]["all"]["false_yes"] == 0
    assert summary["table"]["all"]["change"] == 4


def test_the_canonical_variant_calls_the_tool_with_canonical_values() -> None:
    results = replay_confirmations("canonical")
    first = next(r for r in results if r["dialogue_id"] == "1_00001")
    assert first["called_with"]["travel_date"] == "2019-03-12"
    assert first["called_with"]["departure_time"] == "09:15"
    assert first["executed"], first["output"]
    assert not any(r["executed"] for r in results if r["label"] == "change")


def test_a_side_question_is_found_in_what_the_model_was_told() -> None:
    answer = "Yes, that works. How much will it cost? And is it gluten free?"
    assert confirmations.side_questions(answer) == ["How much will it cost?", "And is it gluten free?"]
    assert confirmations.told(
        "Done. The caller also asked: how much will it cost? and is it gluten free?", answer
    )
    assert not confirmations.told("Done. The caller asked how much it costs.", answer)
    spoken = "yes that's right which platform does it leave from"
    assert confirmations.side_questions(spoken) == [spoken]


# -- the harness ---------------------------------------------------------------------


def test_samples_are_spread_over_services_and_repeatable() -> None:
    items = [("a", n) for n in range(10)] + [("b", n) for n in range(3)] + [("c", 0)]
    chosen = spread(items, 6, key=lambda i: i[0], seed=3)
    assert sorted({k for k, _ in chosen}) == ["a", "b", "c"] and len(chosen) == 6
    assert chosen == spread(items, 6, key=lambda i: i[0], seed=3)
    assert chosen != spread(items, 6, key=lambda i: i[0], seed=4)
    assert len(spread(items, 100, key=lambda i: i[0])) == len(items)


def test_each_caller_turn_is_answered_by_the_agent_turn_after_it() -> None:
    tx = next(t for t in data.transactions(FIXTURE, "dev") if t.dialogue_id == "1_00005")
    pairs = caller_turns((tx.answer, *tx.after))
    assert [a.text if a else None for _, a in pairs] == [
        "What would you like to change?",
        "Please confirm: 2 First class tickets.",
        None,
    ]


# -- real SGD, when it is there ------------------------------------------------------

needs_sgd = pytest.mark.skipif(not os.environ.get("GATE_SGD_DIR"), reason="GATE_SGD_DIR is not set")


@needs_sgd
def test_real_sgd_dev_transactions_and_confirmations_replay() -> None:
    base = data.root()
    todo, _ = transactions.jobs(base, "dev", 10, 1, "plain")
    results = run(todo, transactions.replay, Setup(str(base), "dev"))
    assert len(results) == 10 and [r for r in results if "error" in r] == []
    assert all(r["first"] is not None for r in results)
    assert transactions.summarise(results, "plain")["table"]["all"]["n"] == 10
    asked = confirmations.jobs(base, "dev", 20, 1, "spoken")
    answered = run(asked, confirmations.replay, Setup(str(base), "dev", evidence_required=False))
    assert len(answered) == 20 and [r for r in answered if "error" in r] == []
    assert confirmations.summarise(answered)["table"]["all"]["n"] == 20
