"""The worker: the caller from the session, its models, and one call through its entrypoint."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

import pytest

import gate
import worker
from gate.testing.llm import ScriptedLLM, call, say
from tools import Business, use_business

ROOT = Path(__file__).parent.parent


class Participant:
    def __init__(self, identity: str, attributes: Any) -> None:
        self.identity, self.attributes, self.metadata, self.name = identity, attributes, "", identity


def test_caller_comes_from_identity_and_token_attributes() -> None:
    caller = worker.caller_from_participant(
        Participant("cust-42", {"gate.verified": "true", "gate.roles": "customer, vip", "plan": "gold"})
    )
    assert caller == gate.Caller(
        "cust-42", verified=True, roles=frozenset({"customer", "vip"}), attributes={"plan": "gold"}
    )
    assert not worker.caller_from_participant(Participant("cust-43", {})).verified


def test_the_console_mock_participant_is_an_unverified_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    mock = MagicMock()
    mock.identity = "mock_user"
    caller = worker.caller_from_participant(mock)  # attributes and metadata are MagicMocks here
    assert (caller.id, caller.verified, caller.roles) == ("mock_user", False, frozenset())
    monkeypatch.setenv("GATE_CONSOLE_VERIFIED", "1")
    assert worker.caller_from_participant(mock).verified


def test_an_unusable_identity_is_refused() -> None:
    with pytest.raises(ValueError, match=r"Caller\.id must match"):
        worker.caller_from_participant(Participant("not ok!", {}))


@pytest.mark.parametrize(
    ("argv", "env", "expected"),
    [
        (["worker.py", "start"], {}, "worker.py start: set LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET"),
        (
            ["worker.py", "console", "--text"],
            {},
            "worker.py console: no model configured: set OPENAI_API_KEY",
        ),
        (
            ["worker.py", "console", "--text"],
            {"OPENAI_API_KEY": "sk-test", "GATE_LOG_LEVEL": "chatty"},
            "worker.py console: GATE_LOG_LEVEL='CHATTY': expected one of DEBUG, INFO, WARNING",
        ),
        (
            ["worker.py", "start"],
            {
                "LIVEKIT_URL": "ws://127.0.0.1:1",
                "LIVEKIT_API_KEY": "k",
                "LIVEKIT_API_SECRET": "s",
                "GATE_MEMORY": "nope",
            },
            "worker.py start: GATE_MEMORY='nope': expected one of auto, local, cloud, geniffy",
        ),
    ],
)
def test_a_missing_setting_is_one_clear_line(argv: list[str], env: dict[str, str], expected: str) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LIVEKIT_", "OPENAI_"))}
    done = subprocess.run(
        [sys.executable, str(ROOT / "worker.py"), *argv[1:]],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip().startswith(expected) and "Traceback" not in done.stderr


def _portaudio_missing() -> bool:
    try:
        import sounddevice  # noqa: F401
    except OSError:
        return True
    return False


@pytest.mark.skipif(not _portaudio_missing(), reason="PortAudio is installed on this machine")
def test_the_console_without_portaudio_says_what_to_install() -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LIVEKIT_", "GATE_"))}
    done = subprocess.run(
        [sys.executable, str(ROOT / "worker.py"), "console", "--text"],
        env={**clean, "OPENAI_API_KEY": "sk-test"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "worker.py console: the audio library PortAudio is missing: apt-get install libportaudio2\n"
    )


def test_each_worker_process_is_prewarmed_before_its_first_call() -> None:
    """LiveKit runs ``prewarm`` in every job process: the model is loaded, start-up objects are frozen."""
    from gate.memory import embedder

    assert worker.server.setup_fnc is worker.prewarm
    try:
        worker.prewarm(None)
        assert embedder._model is not None
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_the_worker_logs_no_debug_flood_at_start(tmp_path: Path) -> None:
    """Started against a server that is not there, the first thing it says is a WARNING, alone."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LIVEKIT_", "GATE_"))}
    env = {
        **clean,
        "LIVEKIT_URL": "ws://127.0.0.1:1",
        "LIVEKIT_API_KEY": "devkey",
        "LIVEKIT_API_SECRET": "a-secret-long-enough-for-hmac-sha256-signing",
        "GATE_HOME": str(tmp_path),
    }
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "worker.py"), "start"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if "failed to connect to livekit" in line:
                break
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
    assert "failed to connect to livekit" in lines[-1]
    levels = [json.loads(line).get("level") for line in lines if line.startswith("{")]
    assert levels and set(levels) <= {"WARNING", "ERROR", "CRITICAL"}, lines


class FakeJob:
    """What the entrypoint uses of a JobContext: a participant, shutdown callbacks, no room (text mode).

    (LiveKit's ``fake_job_context`` needs a room for its audio input; without a server there is none.)
    """

    def __init__(self, participant: Any) -> None:
        self.participant, self.room, self.callbacks = participant, None, []

    async def wait_for_participant(self) -> Any:
        return self.participant

    def add_shutdown_callback(self, fn: Any) -> None:
        self.callbacks.append(fn)

    def shutdown(self, reason: str = "") -> None:
        self.reason = reason


async def test_one_call_through_the_entrypoint(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    business = Business(home)
    business.add_order("A-9", "cust-7", 100.0)
    use_business(business)
    monkeypatch.setattr(worker, "_gate", None)
    participant = Participant("cust-7", {"gate.verified": "true", "gate.roles": "customer"})
    llm = ScriptedLLM([say("Hello! How can I help?")])
    job = FakeJob(participant)
    session, _agent = await worker.run_call(job, llm=llm)
    await session.run(user_input="Hi, this is about order A-9.")
    llm.add(call("issue_refund", order_id="A-9", amount=30), say("Please confirm: refund 30 on A-9?"))
    result = await session.run(user_input="Refund 30 on A-9 please.")
    outputs = [e.item.output for e in result.events if e.type == "function_call_output"]
    assert outputs[0].startswith("Please confirm: refund 30 on order A-9?")
    llm.add(call(gate.CONFIRM_TOOL), say("Done."))
    await session.run(user_input="Yes.")
    for callback in job.callbacks:
        await callback("done")
    await session.aclose()
    assert business.order("A-9").refunded == 30  # type: ignore[union-attr]
    g = worker.process_gate()
    assert {r.status for r in g.ledger.receipts()} == {"skipped", "succeeded"}
    assert all(r.delivery_state in ("delivered", "local") for r in g.ledger.receipts())
    found = await g.memory.recall("cust-7", "refund on order A-9", top_k=5)
    assert any("A-9" in item.text for item in found.items)
    await g.aclose()
    worker._gate = None
