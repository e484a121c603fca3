"""The offline demo: runs in GATE_HOME, again and again, tells how to review it, and never
writes next to real decisions."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import pytest
from livekit.agents import Agent, AgentSession
from typer.testing import CliRunner, Result

import gate
from gate.cli import app
from gate.testing.llm import ScriptedLLM, call, say
from tests.conftest import ALICE, POLICIES, Calendar, make_tools

STORY = [
    ("book_visit", "ask", "evidence"),
    ("book_visit", "act", "evidence"),
    ("issue_refund", "abstain", "limits.amount.max"),
    ("book_visit", "ask", "evidence"),
    ("book_visit", "abstain", "state.conflict"),
    ("issue_refund", "ask", "confirm.always"),
    ("issue_refund", "act", "evidence"),
]


def demo(*args: str, env: dict[str, str | None]) -> Result:
    return CliRunner().invoke(app, ["demo", *args], env={"CONTEXTDB_API_KEY": None, **env})


def check_run(result: Result, ledger: gate.Ledger, run: int) -> str:
    """One run's story as designed; returns the decision id the demo offers to show."""
    assert result.exit_code == 0, result.output
    assert f"gate demo, run {run}:" in result.output and "deterministic script" in result.output
    assert "memory at the start of call 2 mentions Thursday: True" in result.output
    assert "Friday was just taken by someone else, so I did not book it." in result.output
    assert "chain: verified" in result.output
    decisions = ledger.decisions(caller_id=f"demo-alice-{run}")
    assert [(d.tool, d.outcome, d.rule) for d in decisions] == STORY
    receipts = {r.decision_id: r for r in ledger.receipts()}
    assert [receipts[d.id].status for d in decisions].count("succeeded") == 2
    assert "violated" not in {receipts[d.id].policy_alignment for d in decisions}
    assert "alignment" in result.output  # the table shows the service's verdict on each receipt
    shown = re.search(r"gate audit show (gd_\w+)", result.output)
    assert shown is not None and shown.group(1) in {d.id for d in decisions}
    return shown.group(1)


def test_the_demo_runs_in_gate_home_again_and_again_and_says_how_to_review_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    # A production ledger URL in the environment is not the demo's: it is ignored.
    env: dict[str, str | None] = {"GATE_HOME": str(home), "GATE_DATABASE_URL": "postgresql://prod@db/prod"}
    first, second = demo(env=env), demo(env=env)
    ledger = gate.Ledger(f"sqlite:///{home / 'ledger.db'}", create=False)
    check_run(first, ledger, 1)
    shown = check_run(second, ledger, 2)
    assert ledger.verify().ok
    ledger.close()
    # The review commands it printed work as printed (they name the demo's ledger).
    listed = re.search(r"^\s*(gate audit list.*)$", second.output, re.MULTILINE)
    assert listed is not None and "--database-url sqlite:///" in listed.group(1)
    url = listed.group(1).split("--database-url ")[1].strip()
    story = CliRunner().invoke(app, ["audit", "show", shown, "--database-url", url])
    assert story.exit_code == 0, story.output
    assert shown in story.output and "issue_refund" in story.output


def test_without_gate_home_the_demo_uses_its_own_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    project = str(Path(__file__).parent.parent)
    result = demo(env={"GATE_HOME": None, "GATE_DATABASE_URL": None, "GATE_PROJECT": project})
    assert result.exit_code == 0, result.output
    assert (tmp_path / ".gate-demo" / "ledger.db").exists()
    assert "GATE_HOME=.gate-demo gate audit list" in result.output


def test_a_home_with_other_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "business.db").write_text("the real calendar")
    result = demo("--home", str(tmp_path), env={})
    assert result.exit_code == 2
    assert result.stderr.startswith(f"gate: {tmp_path} holds files the demo did not make")
    assert (tmp_path / "business.db").read_text() == "the real calendar"


async def book_thursday(g: gate.Gate) -> None:
    llm = ScriptedLLM([call("book_visit", day="Thursday"), say("Sorry.")])
    session: AgentSession[None] = AgentSession(llm=llm, vad=None, turn_handling={"turn_detection": None})
    await session.start(Agent(instructions="You book visits.", tools=g.bind(ALICE, session).tools))
    await session.run(user_input="Book Thursday.")
    await session.aclose()
    await g.aclose()


def test_a_ledger_with_real_decisions_is_never_written_to(
    tmp_path: Path, calendar: Calendar, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATE_EMBEDDER", "mock")
    url = f"sqlite:///{tmp_path / 'production.db'}"
    asyncio.run(book_thursday(gate.Gate(make_tools(calendar), policies=POLICIES, ledger=gate.Ledger(url))))

    result = demo("--home", str(tmp_path / "demo"), "--database-url", url, env={})
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert "holds decisions that are not the demo's (caller alice)" in line
    with sqlite3.connect(tmp_path / "production.db") as db:
        assert db.execute("select caller_id from gate_decisions").fetchall() == [("alice",)]
