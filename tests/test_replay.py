"""`gate policy replay`: caller, limit and rate rules re-run from what was recorded; nothing guessed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from livekit.agents import Agent, AgentSession
from typer.testing import CliRunner

import gate
from gate.cli import app
from gate.testing.llm import ScriptedLLM, call, say
from tests.conftest import ALICE, POLICIES, Calendar, make_tools

runner = CliRunner()


async def record(g: gate.Gate, *calls: tuple[str, float]) -> None:
    """One session per refund the model asks for (each is decided and recorded)."""
    for order_id, amount in calls:
        llm = ScriptedLLM([call("issue_refund", order_id=order_id, amount=amount), say("Noted.")])
        session: AgentSession[None] = AgentSession(llm=llm, vad=None, turn_handling={"turn_detection": None})
        await session.start(Agent(instructions="You refund orders.", tools=g.bind(ALICE, session).tools))
        await session.run(user_input=f"Refund {amount:g} on {order_id}.")
        await session.aclose()


@pytest.fixture
async def ledger_url(home: Path, calendar: Calendar, monkeypatch: pytest.MonkeyPatch) -> str:
    """A ledger with a refund of 500 refused by the limit and one of 40 asked about."""
    monkeypatch.setenv("GATE_EMBEDDER", "mock")
    g = gate.Gate(make_tools(calendar), policies=POLICIES)
    try:
        await g.warm()  # the model loads now, not inside the first decision's 1 s budget
        await record(g, ("A-1", 500), ("A-2", 40))
        assert [(d.outcome, d.rule) for d in g.ledger.decisions()] == [
            ("abstain", "limits.amount.max"),
            ("ask", "confirm.always"),
        ]
    finally:
        await g.aclose()
    return f"sqlite:///{home / 'ledger.db'}"


def candidate(tmp_path: Path, old: str, new: str) -> Path:
    directory = tmp_path / "candidate"
    shutil.copytree(POLICIES, directory, dirs_exist_ok=True, ignore=shutil.ignore_patterns("tests"))
    path = directory / "issue_refund.yaml"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))
    return directory


def replay(directory: Path, url: str, *more: str) -> tuple[int, str]:
    result = runner.invoke(
        app, ["policy", "replay", "--policies", str(directory), "--database-url", url, *more]
    )
    return result.exit_code, result.stdout


def test_a_refusal_by_a_limit_the_candidate_raises_is_unsettled_not_unreplayable(
    ledger_url: str, tmp_path: Path
) -> None:
    code, out = replay(candidate(tmp_path, "max: 200", "max: 1000"), ledger_url, "--json")
    assert code == 0, out
    report = json.loads(out)
    assert report["flips"] == [] and report["skipped"] == []
    (unsettled,) = report["unsettled"]
    assert (unsettled["recorded"], unsettled["recorded_rule"]) == ("abstain", "limits.amount.max")
    assert unsettled["candidate"] == "unknown"
    assert "the evidence was never looked up" in unsettled["detail"]
    code, out = replay(candidate(tmp_path, "max: 200", "max: 1000"), ledger_url)
    assert "1 would no longer be refused by the rule that refused them" in out
    assert "not replayable" not in out


def test_limit_and_caller_rules_are_re_run_from_the_recorded_arguments(
    ledger_url: str, tmp_path: Path
) -> None:
    code, out = replay(candidate(tmp_path, "max: 200", "max: 30"), ledger_url, "--json")
    assert code == 0, out
    report = json.loads(out)
    assert [(f["recorded"], f["candidate"], f["candidate_rule"]) for f in report["flips"]] == [
        ("ask", "abstain", "limits.amount.max")
    ]
    assert report["unsettled"] == []  # the 500 is still refused, by the same rule
    _, out = replay(candidate(tmp_path, "roles: [customer]", "roles: [vip]"), ledger_url, "--json")
    report = json.loads(out)
    assert [(f["recorded"], f["candidate"], f["candidate_rule"]) for f in report["flips"]] == [
        ("ask", "abstain", "caller.roles")
    ]


def test_limits_on_a_masked_argument_are_not_re_run_and_it_says_so(ledger_url: str, tmp_path: Path) -> None:
    """``order_id`` is recorded only as a digest: a limit on it cannot be compared, and is not guessed."""
    directory = candidate(tmp_path, "limits:\n", "limits:\n  order_id: {allowed: [A-9]}\n")
    code, out = replay(directory, ledger_url, "--json")
    assert code == 0, out
    report = json.loads(out)
    assert report["flips"] == []
    assert {n["note"] for n in report["notes"]} == {
        "limits on order_id not re-run: recorded only as a digest (audit.mask)"
    }
    _, out = replay(directory, ledger_url)
    assert "note: 2 decision(s): limits on order_id not re-run: recorded only as a digest" in out
