"""The worker: the caller from the session, its models, and one call through its entrypoint."""

from __future__ import annotations

import asyncio
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


class _NoPortAudio:
    """An import hook: ``sounddevice`` fails as it does where PortAudio is not installed."""

    def find_spec(self, name: str, *_: Any) -> None:
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return None


def test_the_console_without_portaudio_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GATE_HOME", str(tmp_path))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_NoPortAudio(), *sys.meta_path])
    assert worker.main(["worker.py", "console", "--text"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "worker.py console: the audio library PortAudio is missing: apt-get install libportaudio2\n"
    )


def test_each_worker_process_is_prewarmed_before_its_first_call(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LiveKit runs ``prewarm`` in every job process: its gate is built, the model loaded, the heap frozen."""
    from gate.memory import embedder

    class Proc:
        def __init__(self) -> None:
            self.userdata: dict[str, Any] = {}

    class Job:
        proc = Proc()

    monkeypatch.setattr(worker, "_gate", None)
    assert worker.server.setup_fnc is worker.prewarm
    try:
        worker.prewarm(Job.proc)
        built = Job.proc.userdata["gate"]
        assert isinstance(built, gate.Gate) and worker.gate_for(Job()) is built
        assert embedder._model is not None
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        asyncio.run(built.aclose())


def test_each_command_has_its_own_help() -> None:
    from typer.testing import CliRunner

    def said(text: str) -> str:  # the words, without rich's box and line wrapping
        return " ".join(text.replace("│", " ").split())

    top = subprocess.run(
        [sys.executable, str(ROOT / "worker.py"), "--help"], capture_output=True, text=True, timeout=120
    )
    assert top.returncode == 0 and said(worker.ABOUT) in said(top.stdout)
    for name, help_text in worker.COMMAND_HELP.items():
        assert said(help_text)[:60] in said(top.stdout)
        shown = CliRunner().invoke(worker.command_line(), [name, "--help"], prog_name="worker.py")
        assert shown.exit_code == 0 and said(help_text) in said(shown.output), name
    assert set(worker.COMMAND_HELP) == {"console", "start", "dev", "connect", "download-files"}


@pytest.mark.parametrize(
    ("argv", "env", "expected"),
    [
        (["nope"], {}, "worker.py: No such command 'nope'. (see worker.py --help)"),
        (
            ["start", "--bogus"],
            {"LIVEKIT_URL": "ws://127.0.0.1:1", "LIVEKIT_API_KEY": "k", "LIVEKIT_API_SECRET": "s"},
            "worker.py: No such option: --bogus (see worker.py start --help)",
        ),
        (
            ["console", "--text"],
            {"GATE_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/gate"},
            "worker.py console: cannot open the ledger at postgresql+psycopg://nobody@127.0.0.1:1/gate",
        ),
    ],
)
def test_a_mistyped_command_or_an_unreachable_ledger_is_one_line(
    argv: list[str], env: dict[str, str], expected: str, tmp_path: Path
) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LIVEKIT_", "GATE_", "OPENAI_"))}
    done = subprocess.run(
        [sys.executable, str(ROOT / "worker.py"), *argv],
        env={**clean, "OPENAI_API_KEY": "sk-test", "GATE_HOME": str(tmp_path), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(expected), line


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


# -- start-up: nothing blocks a call's event loop -------------------------------------

_FIRST_CALL = """
import asyncio, json, logging, sys

import worker
import gate
from gate.testing.llm import ScriptedLLM, call, say
from livekit.agents.telemetry import loop_monitor
from tools import Business, use_business

class Proc:
    userdata = {}

class Participant:
    identity, metadata, name = "cust-1", "", "c"
    attributes = {"gate.verified": "true", "gate.roles": "customer"}

class Job:
    room, proc = None, Proc()
    def __init__(self):
        self.callbacks = []
    async def wait_for_participant(self):
        return Participant()
    def add_shutdown_callback(self, fn):
        self.callbacks.append(fn)
    def shutdown(self, reason=""):
        pass

blocked = []

class Blocked(logging.Handler):
    def emit(self, record):
        if "event loop blocked" in record.getMessage():
            blocked.append(record.getMessage()[:200])

logging.getLogger("livekit.agents").addHandler(Blocked())
business = Business(__import__("pathlib").Path(sys.argv[1]))
business.add_order("A-1", "cust-1", 100.0)
use_business(business)
worker.prewarm(Job.proc)
before = set(sys.modules)

async def first_call():
    loop_monitor.start_monitoring(asyncio.get_running_loop(), name="job", emit_spans=False)
    job = Job()
    llm = ScriptedLLM([say("Hello, how can I help?")])
    session, _ = await worker.run_call(job, llm=llm)
    await session.run(user_input="Hi.")
    llm.add(call("issue_refund", order_id="A-1", amount=30), say("Please confirm: refund 30 on order A-1?"))
    await session.run(user_input="Refund 30 on order A-1 please.")
    llm.add(call(gate.CONFIRM_TOOL), say("Done."))
    await session.run(user_input="Yes.")
    for callback in job.callbacks:
        await callback("done")
    await session.aclose()

asyncio.run(first_call())
new = sorted(m for m in set(sys.modules) - before if m.split(".")[0] not in sys.stdlib_module_names)
print(json.dumps({"imported": new, "blocked": blocked, "refunded": business.order("A-1").refunded}))
"""


def test_the_first_call_after_prewarm_imports_nothing_on_the_event_loop(tmp_path: Path) -> None:
    """prewarm builds the gate and imports what a call needs; the first call then imports nothing."""
    script = tmp_path / "first_call.py"
    script.write_text(_FIRST_CALL)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LIVEKIT_", "GATE_", "OPENAI_"))}
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "home")],
        env={**clean, "GATE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["refunded"] == 30  # the call did decide, confirm and execute
    assert found["imported"] == []
    assert [b for b in found["blocked"] if "importing" in b] == []


class Terminal:
    """A program on a pseudo-terminal (the console reads keys from one), 320 columns wide."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        import fcntl
        import pty
        import struct
        import termios

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: a wide terminal, so one log line stays one line
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 320, 0, 0))
            os.chdir(ROOT)
            os.execve(argv[0], argv, env)
        self.screen = ""

    def read_until(self, text: str, timeout: float) -> bool:
        import re
        import select
        import time

        end = time.monotonic() + timeout
        while time.monotonic() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # the program exited and closed the terminal
                return text in self.screen
            if not chunk:
                return text in self.screen
            self.screen += re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", chunk.decode(errors="replace"))
            if text in self.screen:
                return True
        return False

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait(self, timeout: float) -> int:
        import time

        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.read_until("\x00never", 0.2)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        raise AssertionError(f"still running after {timeout}s:\n{self.screen[-2000:]}")


@pytest.mark.skipif(_portaudio_missing(), reason="the console needs PortAudio: apt-get install libportaudio2")
def test_an_unreachable_model_in_the_typed_console_is_one_line_and_closes_the_gate(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LIVEKIT_", "GATE_", "OPENAI_"))}
    env = {
        **clean,
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "GATE_HOME": str(tmp_path),
        "TERM": "xterm",
    }
    console = Terminal([sys.executable, str(ROOT / "worker.py"), "console", "--text"], env)
    assert console.read_until("Type to talk", 120), console.screen[-2000:]
    for _ in range(24):  # the prompt shows before the session takes input: type until it is heard
        console.type("Hello, is anyone there?\r")
        if console.read_until("● You", 5):
            break
    assert console.read_until("after 4 attempts", 120), console.screen[-2000:]
    console.type("\x03")
    assert console.wait(60) == 0
    # The console repaints its prompt over earlier lines: count each distinct line once.
    lines = {line.strip() for line in console.screen.replace("\r", "\n").splitlines()}
    failure = [line for line in lines if "Error in _llm_inference_task" in line]
    assert len(failure) == 1
    assert failure[0].endswith("(caused by ConnectError: All connection attempts failed)")
    assert "Traceback" not in console.screen
    assert "connection(s) open" not in console.screen  # the gate was closed with the call
