"""gate logs through the standard logging module, and prints nothing unless the host asks for it."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from livekit.agents import Agent, AgentSession
from structlog.testing import capture_logs

import gate
from gate.testing.llm import ScriptedLLM, call, say
from tests.conftest import ALICE, POLICIES, Calendar, make_tools

ROOT = Path(__file__).parent.parent

BOOK_THURSDAY = """
import asyncio, sys
sys.path.insert(0, {root!r})
from livekit.agents import Agent, AgentSession
import gate
from gate.testing.llm import ScriptedLLM, call, say
from tests.conftest import ALICE, POLICIES, Calendar, make_tools

async def main() -> None:
    g = gate.Gate(make_tools(Calendar()), policies=POLICIES)
    llm = ScriptedLLM([call("book_visit", day="Thursday"), say("Sorry.")])
    session = AgentSession(llm=llm, vad=None, turn_handling={{"turn_detection": None}})
    bound = g.bind(ALICE, session)
    await session.start(Agent(instructions="You book visits.", tools=bound.tools))
    await session.run(user_input="Thursday is no good for me.")
    await session.aclose()
    await g.aclose()

asyncio.run(main())
"""


async def book_thursday(g: gate.Gate) -> None:
    """One gated call through a real text-mode session (the caller said no to that day: the gate abstains)."""
    llm = ScriptedLLM([call("book_visit", day="Thursday"), say("Sorry.")])
    session: AgentSession[None] = AgentSession(llm=llm, vad=None, turn_handling={"turn_detection": None})
    bound = g.bind(ALICE, session)
    await session.start(Agent(instructions="You book visits.", tools=bound.tools))
    await session.run(user_input="Thursday is no good for me.")
    await session.aclose()


class Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def host_logging() -> Iterator[Keep]:
    """A host application's own logging set-up: everything at INFO goes to its handler."""
    root = logging.getLogger()
    saved = root.level
    handler = Keep()
    logging.getLogger("gate").setLevel(logging.NOTSET)  # inherit from the host's root, as by default
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield handler
    root.removeHandler(handler)
    root.setLevel(saved)


async def test_the_host_gets_gate_records_with_their_fields(
    home: Path, calendar: Calendar, host_logging: Keep
) -> None:
    g = gate.Gate(make_tools(calendar), policies=POLICIES)
    await book_thursday(g)
    await g.aclose()
    mine = {r.gate_event: r for r in host_logging.records if r.name == "gate"}  # type: ignore[attr-defined]
    decision, receipt = mine["gate.decision"], mine["gate.receipt"]
    assert decision.levelno == logging.INFO
    assert (decision.caller, decision.tool, decision.outcome) == ("alice", "book_visit", "abstain")  # type: ignore[attr-defined]
    assert receipt.decision_id == decision.decision_id and receipt.status == "skipped"  # type: ignore[attr-defined]
    message = decision.getMessage()
    assert message.startswith("gate.decision ")
    assert f"decision_id={decision.decision_id}" in message and "caller=alice" in message  # type: ignore[attr-defined]
    ledger = gate.Ledger(g.ledger.url)
    assert [d.id for d in ledger.decisions()] == [decision.decision_id]  # type: ignore[attr-defined]
    ledger.close()


async def test_capture_logs_still_captures_gate_events(
    home: Path, calendar: Calendar, capsys: pytest.CaptureFixture[str]
) -> None:
    g = gate.Gate(make_tools(calendar), policies=POLICIES)
    with capture_logs() as logs:
        await book_thursday(g)
    ours = [e for e in logs if e["event"] in ("gate.decision", "gate.receipt")]
    assert [e["event"] for e in ours] == ["gate.decision", "gate.receipt"]
    assert ours[0]["caller"] == "alice" and ours[0]["decision_id"] == ours[1]["decision_id"]
    assert ours[0]["log_level"] == "info"
    # Once capturing ends, structlog counts as configured; gate still prints nothing.
    await book_thursday(g)
    await g.aclose()
    printed = capsys.readouterr()
    assert "gate.decision" not in printed.out and "gate.decision" not in printed.err
    assert len(g.ledger.decisions()) == 2


def test_a_host_that_configures_nothing_sees_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "GATE_HOME": str(tmp_path), "GATE_EMBEDDER": "mock", "PYTHONWARNINGS": "ignore"}
    env.pop("GATE_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", BOOK_THURSDAY.format(root=str(ROOT))],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "gate." not in done.stderr
    ledger = gate.Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    assert [d.outcome for d in ledger.decisions()] == ["abstain"]  # the call was made, silently
    ledger.close()


def cli(*args: str, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("GATE_")}
    return subprocess.run(
        ["gate", *args],
        env={**base, "GATE_HOME": str(home), "GATE_EMBEDDER": "mock", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


FORGOT_CAROL = "forgot carol: 0 memories erased, verified\naudit ledger: 0 texts erased, the chain kept\n"


def test_a_command_prints_its_result_and_nothing_else(tmp_path: Path) -> None:
    done = cli("forget", "carol", "--yes", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == FORGOT_CAROL
    assert done.stderr == ""


def test_verbose_logs_gate_events_on_stderr(tmp_path: Path) -> None:
    done = cli("--verbose", "forget", "carol", "--yes", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == FORGOT_CAROL
    assert "INFO gate: gate.forget caller=carol deleted=0 verified=True" in done.stderr.splitlines()


def test_debug_is_gate_s_own_not_a_flood_from_dependencies(tmp_path: Path) -> None:
    done = cli("forget", "carol", "--yes", home=tmp_path, GATE_LOG_LEVEL="debug")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert any(line.startswith("INFO gate: gate.forget") for line in lines)
    # Dependencies stay at WARNING: no DEBUG or INFO line comes from anything but gate.
    assert not [line for line in lines if re.match(r"^(DEBUG|INFO) (?!gate[.:])", line)], lines
