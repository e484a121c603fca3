"""The offline demo: it narrates what happens, explains every status it shows, tells how to review
it with commands that work as printed, runs again and again, and never writes next to real decisions."""

from __future__ import annotations

import asyncio
import io
import os
import re
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from livekit.agents import Agent, AgentSession
from rich.console import Console
from typer.testing import CliRunner, Result

import gate
from gate.cli import app
from gate.cli.demo_audit import Row, audit_rows, audit_table, legend, rule_meaning
from gate.testing.llm import ScriptedLLM, call, say
from tests.conftest import ALICE, POLICIES, Calendar, make_tools

ROOT = Path(__file__).resolve().parent.parent
STORY = [
    ("book_visit", "act", "evidence.trace"),
    ("issue_refund", "abstain", "limits.amount.max"),
    ("book_visit", "ask", "evidence.missing"),
    ("book_visit", "abstain", "state.conflict"),
    ("issue_refund", "ask", "confirm.always"),
    ("issue_refund", "act", "evidence.recorded"),
]


def demo(*args: str, env: dict[str, str | None]) -> Result:
    return CliRunner().invoke(app, ["demo", *args], env={"CONTEXTDB_API_KEY": None, **env})


def story_lines(output: str) -> list[tuple[str, str]]:
    """(who, what) for each line of the conversation, continuation lines joined to their line."""
    lines: list[tuple[str, str]] = []
    for raw in output.splitlines():
        match = re.match(r"^(caller|agent|model|gate|memory|meanwhile)\s+(.*)$", raw)
        if match:
            lines.append((match.group(1), match.group(2).strip()))
        elif lines and raw.startswith(" " * 10) and raw.strip():
            who, what = lines[-1]
            lines[-1] = (who, f"{what} {raw.strip()}")
        elif raw.startswith("─") or not raw.strip():
            continue
    return lines


@dataclass
class Run:
    home: Path
    result: Result
    ledger_url: str

    def decisions(self, run: int = 1) -> list[gate.ledger.DecisionRow]:
        ledger = gate.Ledger(self.ledger_url, create=False, read_only=True)
        try:
            return ledger.decisions(caller_id=f"demo-alice-{run}")
        finally:
            ledger.close()

    def rows(self, run: int = 1) -> list[Row]:
        ledger = gate.Ledger(self.ledger_url, create=False, read_only=True)
        try:
            mine = sorted(ledger.decisions(caller_id=f"demo-alice-{run}"), key=lambda d: d.created_at)
            return audit_rows(mine, {r.decision_id: r for r in ledger.receipts()})
        finally:
            ledger.close()


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> Run:
    home = tmp_path_factory.mktemp("demo") / "home"
    result = demo(env={"GATE_HOME": str(home), "GATE_DATABASE_URL": None, "COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    return Run(home, result, f"sqlite:///{home / 'ledger.db'}")


def test_the_story_comes_out_as_designed(first: Run) -> None:
    output = first.result.output
    assert "gate demo, run 1:" in output and "deterministic scripts" in output
    decisions = sorted(first.decisions(), key=lambda d: d.created_at)
    assert [(d.tool, d.outcome, d.rule) for d in decisions] == STORY
    assert "chain: verified" in output


def test_one_yes_per_question_and_every_question_is_the_gates(first: Run) -> None:
    """The scripted model calls the tool when the caller asks: the gate's question is the only question."""
    lines = story_lines(first.result.output)
    asked = [what for who, what in lines if who == "agent" and what.endswith("?") and "help" not in what]
    put = [re.sub(r"^\[\d+\] ask \([\w.]+\): ", "", what) for who, what in lines if who == "gate"]
    assert asked and all(question in put for question in asked)  # the agent only reads the gate's questions
    answers = [what for who, what in lines if who == "caller" and what.lower().startswith("yes")]
    assert len(answers) == len(asked) == 2  # the Friday booking and the refund of 40
    # The caller asked for Thursday and said the day: the gate booked it without a question.
    assert not any("Thursday" in question for question in asked)
    for i, (who, what) in enumerate(lines):
        if who == "caller" and what.lower().startswith("yes"):  # each yes answers the question just put
            assert lines[i - 1][0] in ("agent", "meanwhile") and any(
                w == "agent" and t in asked for w, t in lines[i - 2 : i]
            )


def test_the_competing_booking_is_shown_as_it_happens(first: Run) -> None:
    lines = story_lines(first.result.output)
    meanwhile = next(i for i, (who, _) in enumerate(lines) if who == "meanwhile")
    assert "bob" in lines[meanwhile][1] and "Friday" in lines[meanwhile][1]
    assert lines[meanwhile - 1] == ("agent", "Just to confirm: shall I book your visit on Friday?")
    assert lines[meanwhile + 1] == ("caller", "Yes.")
    after = next(what for who, what in lines[meanwhile + 1 :] if who == "gate")
    number = STORY.index(("book_visit", "abstain", "state.conflict")) + 1  # as the table numbers it
    assert after.startswith(f"[{number}] abstain (state.conflict)") and "already booked" in after


def test_call_two_starts_with_what_call_one_left_in_memory(first: Run) -> None:
    lines = story_lines(first.result.output)
    known = next(what for who, what in lines if who == "memory")
    assert known.startswith("the agent starts this call knowing: (")
    assert "Thursday" in known
    assert ("agent", "Welcome back! I see your visit is on Thursday. How can I help?") in lines


def test_no_debug_text(first: Run) -> None:
    output = first.result.output
    assert not re.search(r"\b(True|False|None)\b", output)
    assert "Traceback" not in output and "memory at the start" not in output


def test_the_table_has_the_arguments_and_the_legend_explains_every_value(first: Run) -> None:
    output = first.result.output
    table = output[output.index("the audit of this run") : output.index("What each value")]
    assert table.count("amount=500") == 1 and table.count("amount=40") == 2  # the refused and the asked
    assert table.count("order_id=A-1001") == 3 and table.count("day=Friday") == 2
    rows = first.rows()
    text = render(legend(rows), 120)
    for row in rows:
        for value in (row.outcome, row.rule, row.receipt, row.delivery, row.alignment):
            assert re.search(rf"^\S*\s*{re.escape(value)}\s+\S", text, re.MULTILINE), value
    assert all("glossary" not in rule_meaning(row.rule) for row in rows)
    assert "local" in {row.delivery for row in rows}  # the refused-before-the-service rows, explained


def render(renderable: object, width: int) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


@pytest.mark.parametrize("width", [80, 120, 200])
def test_ids_are_never_broken_across_lines(first: Run, width: int) -> None:
    rows = first.rows()
    text = render(audit_table(rows, width), width)
    lines = text.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= width
    for row in rows:
        assert any(row.decision_id in line for line in lines), (row.decision_id, text)
        if row.reference != "-":
            assert any(row.reference in line for line in lines), (row.reference, text)
    flat = " ".join(text.split())
    for value in ("amount=500", "order_id=A-1001", "limits.amount.max", "state.conflict"):
        assert value in flat.replace(" ", "") or value in flat, (value, text)


def printed_commands(output: str) -> list[str]:
    return [
        line.strip() for line in output.splitlines() if re.match(r"^\s+(GATE_HOME=\S+ )?gate audit ", line)
    ]


def shell(
    command: str, cwd: Path, env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env={**env, "PATH": path},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def in_a_fresh_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def test_the_review_commands_work_exactly_as_printed(in_a_fresh_directory: Path) -> None:
    """No GATE_HOME: the demo writes to ./.gate-demo and prints commands that find it."""
    here = in_a_fresh_directory
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GATE_", "CONTEXTDB_"))}
    result = demo(env={"GATE_HOME": None, "GATE_DATABASE_URL": None, "GATE_PROJECT": str(ROOT)})
    assert result.exit_code == 0, result.output
    assert (here / ".gate-demo" / "ledger.db").exists()
    commands = printed_commands(result.output)
    assert [c.split(" gate ")[1].split()[1] for c in commands] == ["list", "show", "verify", "serve"]
    assert all(c.startswith("GATE_HOME=.gate-demo gate audit ") for c in commands)
    shown = commands[1].split()[-1]
    listed = shell(commands[0], here, clean)
    assert listed.returncode == 0 and shown in listed.stdout, listed.stderr
    story = shell(commands[1], here, clean)
    assert story.returncode == 0 and shown in story.stdout and "issue_refund" in story.stdout, story.stderr
    verified = shell(commands[2], here, clean)
    assert verified.returncode == 0 and "chain verified" in verified.stdout, verified.stderr
    serve_as_printed(commands[3], here, clean, shown)
    # The plain command, without GATE_HOME, says where the demo's ledger is.
    plain = shell("gate audit list", here, clean)
    assert plain.returncode == 2
    assert "the demo's ledger is in .gate-demo: set GATE_HOME=.gate-demo" in plain.stderr


def serve_as_printed(command: str, cwd: Path, env: dict[str, str], decision_id: str) -> None:
    """Start the viewer as printed, read a page, stop it (it binds 8765 like the command says)."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", 8765))
        except OSError:
            pytest.skip("port 8765 is taken on this machine: the printed serve command cannot bind it")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    proc = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        env={**env, "PATH": path},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # bash and the viewer it starts stop together
    )
    try:
        assert proc.stdout is not None
        announced = proc.stdout.readline()
        assert "read-only at http://127.0.0.1:8765/" in announced, announced
        deadline = time.monotonic() + 30
        while True:
            try:
                page = httpx.get("http://127.0.0.1:8765/", timeout=5)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        assert page.status_code == 200 and decision_id in page.text
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def test_the_demo_runs_again_and_again_in_one_home_and_ignores_a_production_url(tmp_path: Path) -> None:
    home = tmp_path / "home"
    # A production ledger URL in the environment is not the demo's: it is ignored.
    env: dict[str, str | None] = {"GATE_HOME": str(home), "GATE_DATABASE_URL": "postgresql://prod@db/prod"}
    first, second = demo(env=env), demo(env=env)
    assert first.exit_code == 0 and second.exit_code == 0, second.output
    assert "gate demo, run 2:" in second.output
    ledger = gate.Ledger(f"sqlite:///{home / 'ledger.db'}", create=False)
    try:
        for run in (1, 2):
            mine = sorted(ledger.decisions(caller_id=f"demo-alice-{run}"), key=lambda d: d.created_at)
            assert [(d.tool, d.outcome, d.rule) for d in mine] == STORY
        assert ledger.verify().ok
    finally:
        ledger.close()
    # With GATE_DATABASE_URL set, the printed commands name the demo's ledger explicitly.
    commands = printed_commands(second.output)
    assert all("--database-url sqlite:///" in c for c in commands)
    shown = commands[1].split()[3]
    story = shell(commands[1], tmp_path, {**os.environ, "GATE_DATABASE_URL": "postgresql://prod@db/prod"})
    assert story.returncode == 0 and shown in story.stdout, story.stderr
    assert shlex.split(commands[0])[:3] == ["gate", "audit", "list"]


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
