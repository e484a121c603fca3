"""The LiveKit worker: a home-services voice agent whose consequential tools go through gate.

    python worker.py console --text   # a typed console (a model key and Debian's libportaudio2)
    python worker.py start            # production (LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET)

A start-up problem (a missing key or library, a bad setting, a broken policy,
a ledger that cannot be opened, a mistyped command) is one line on stderr and
exit 2. A failure while serving (an unreachable model, a tool that raised) is
one log line, never a traceback (``GATE_LOG_LEVEL=DEBUG`` or
``LIVEKIT_LOG_LEVEL=DEBUG`` keeps tracebacks, for gate's own developers).
Logs: LiveKit and the other dependencies at WARNING (``LIVEKIT_LOG_LEVEL``
changes that), gate's own events at INFO (WARNING in the console, where they
would interleave with the conversation; ``GATE_LOG_LEVEL`` changes that).

Each job process builds its gate in ``prewarm``, before its event loop
serves a call: policies, ledger, memory engine, the embedder and every module
a call imports are loaded there, so nothing blocks the loop on first use. The
gate is closed when the call ends, its connections with it.

The caller comes from the participant's identity and the token attributes the
host application set after its own sign-in (``gate.verified``, ``gate.roles``),
never from anything said on the call. The agent has caller memory, the gated
tools and ``confirm_action``, all bound to that caller.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from livekit.agents import AgentServer, AgentSession, JobContext, cli
from livekit.agents.worker import ServerEnvOption

import gate
from gate import Caller, MemoryAgent
from gate.errors import describe
from gate.gate import Gate  # the whole call path (session, pipeline, answer reader), off the event loop
from gate.log import level_from_env
from tools import TOOLS

ROOT = Path(__file__).resolve().parent
INSTRUCTIONS = (
    "You are the voice agent of a home-services company. You book and cancel home visits and "
    "refund orders, using your tools. Keep answers short. When a tool asks for confirmation, read "
    "the question to the caller exactly and wait; call confirm_action only after they say yes. "
    "Never claim something was done unless a tool said so."
)
log = logging.getLogger("gate.worker")

# What `worker.py --help` and each command's --help say (LiveKit's own commands carry none).
ABOUT = (
    "The gate example worker: a home-services voice agent whose bookings and refunds go through "
    "gate (policies, spoken confirmation, an audit ledger) and that remembers its callers. "
    "Try it with `console --text`; run it for real with `start`."
)
COMMAND_HELP = {
    "console": (
        "Talk to the agent in this terminal (--text to type instead of speaking). Needs a model "
        "(OPENAI_API_KEY, or LIVEKIT_URL/LIVEKIT_API_KEY/LIVEKIT_API_SECRET for LiveKit Inference) "
        "and the audio library libportaudio2, even with --text; no LiveKit server. You are an "
        "unverified caller unless GATE_CONSOLE_VERIFIED=1."
    ),
    "start": (
        "Serve calls in production: register with the LiveKit server at LIVEKIT_URL "
        "(LIVEKIT_API_KEY, LIVEKIT_API_SECRET) and take the calls it dispatches, each in a "
        "prewarmed process of its own. Run as many workers as you like against one ledger."
    ),
    "dev": (
        "Like start, for development: the same server settings, development log defaults, and "
        "the worker restarts when its code changes (--reload)."
    ),
    "connect": (
        "Join one room right away as the agent (--room, optionally --participant-identity), "
        "without waiting for a dispatch: to try the worker in a room you made. Needs the same "
        "server settings as start."
    ),
    "download-files": (
        "Download the model files LiveKit's plugins need, ahead of time (for images built "
        "without network). gate's own embedder ships inside its package: nothing to fetch for it."
    ),
}


def caller_from_participant(participant: Any) -> Caller:
    """The authenticated caller, from the participant's identity and token attributes.

    ``gate.verified`` ("true") and ``gate.roles`` (comma-separated) are set by the
    host application when it mints the access token after its own sign-in. The
    console's mock participant has MagicMock attributes: it is an unverified caller
    unless ``GATE_CONSOLE_VERIFIED=1`` (for trying the tools by hand).

    Raises:
        ValueError: the identity cannot be a caller id.
    """
    identity = str(getattr(participant, "identity", "") or "")
    raw = getattr(participant, "attributes", None)
    attributes = {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
    verified = attributes.get("gate.verified", "").lower() == "true"
    roles = {r.strip() for r in attributes.get("gate.roles", "").split(",") if r.strip()}
    if identity == "mock_user" and os.environ.get("GATE_CONSOLE_VERIFIED") == "1":
        verified, roles = True, {"customer"}
    extra = {k: v for k, v in attributes.items() if not k.startswith("gate.")}
    return Caller(identity, verified=verified, roles=frozenset(roles), attributes=extra)


def model_options() -> dict[str, Any]:
    """The models, from the environment: the OpenAI plugin with ``OPENAI_API_KEY``, else LiveKit Inference.

    Raises:
        gate.ConfigError: neither is configured.
    """
    if os.environ.get("OPENAI_API_KEY"):
        from livekit.plugins import openai

        model = os.environ.get("GATE_LLM_MODEL", "gpt-4.1-mini")
        return {"llm": openai.LLM(model=model), "stt": openai.STT(), "tts": openai.TTS()}
    if os.environ.get("LIVEKIT_API_KEY") and os.environ.get("LIVEKIT_API_SECRET"):
        return {
            "llm": os.environ.get("GATE_LLM_MODEL", "openai/gpt-4.1-mini"),
            "stt": os.environ.get("GATE_STT_MODEL", "deepgram/nova-3"),
            "tts": os.environ.get("GATE_TTS_MODEL", "cartesia/sonic-2"),
        }
    raise gate.ConfigError(
        "no model configured: set OPENAI_API_KEY, or LIVEKIT_URL/LIVEKIT_API_KEY/LIVEKIT_API_SECRET "
        "to use LiveKit Inference"
    )


def build_gate() -> Gate:
    """The worker's gate: its tools, their policies, the ledger, memory and outbox, ready for a first call.

    Blocking (policy files, the ledger's schema, the memory engine, the
    embedder): call it before the event loop serves calls.

    Raises:
        gate.PolicyError, gate.MissingPolicy, gate.ConfigError: as :class:`gate.Gate` does.
    """
    g = Gate(TOOLS, policies=ROOT / "policies")
    try:
        g.warm_blocking()
    except BaseException:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop runs here: close what was opened before raising
            asyncio.run(g.aclose())
        raise
    return g


_gate: Gate | None = None


def process_gate() -> Gate:
    """The gate of a process that was not prewarmed (built on first use)."""
    global _gate
    if _gate is None:
        _gate = build_gate()
    return _gate


def gate_for(ctx: Any) -> Gate:
    """The job process's gate: the one ``prewarm`` built, else :func:`process_gate`."""
    userdata = getattr(getattr(ctx, "proc", None), "userdata", None)
    found = userdata.get("gate") if isinstance(userdata, dict) else None
    return found if isinstance(found, Gate) else process_gate()


def build_call(
    g: gate.Gate, caller: Caller, session: AgentSession[Any], *, session_id: str | None = None
) -> tuple[MemoryAgent, gate.GateSession]:
    """The agent for one call: caller memory, the gated tools and confirm_action, bound to the caller."""
    bound = g.bind(caller, session, session_id=session_id)
    agent = MemoryAgent(
        instructions=INSTRUCTIONS, memory=g.memory_for(caller), gate_session=bound, tools=bound.tools
    )
    return agent, bound


def prewarm(proc: Any = None) -> None:
    """Each job process, before its event loop serves a call: build the gate, then settle the heap.

    LiveKit runs this in the job process before the loop starts, so what is
    slow once (policy files, the ledger's schema, the memory engine, the
    embedder's model, about a second; every module a call imports) never
    stalls a call's audio. The gate is kept in ``proc.userdata["gate"]``.
    Called with no process (a host that builds its own gate), it only loads
    the modules and the embedder. Then what start-up created (LiveKit, the
    model, the libraries, nearly all of the process's objects) is frozen out
    of the garbage collector's full passes: such a pass walks every object,
    and with 25 calls in each of 8 processes on 2 cores it held each process
    still for 0.7-1.3 s, once per run in every process, calls and decisions
    included (measured with a thread that wakes every 10 ms). With the
    start-up objects frozen no pause over 0.15 s was left. Raises what
    :func:`build_gate` raises.
    """
    import gc

    from gate.gate import preload_modules
    from gate.memory.embedder import warm

    _preload_call_modules()
    if proc is not None:
        proc.userdata["gate"] = build_gate()
    else:
        preload_modules()
        warm()
    gc.collect()
    gc.freeze()
    # A call allocates many short-lived objects; at the default threshold (700) the young
    # generation was collected about 3.5 times per call, at 20,000 about 0.1 times, for a
    # little more memory between collections.
    gc.set_threshold(20_000, 20, 20)


def _preload_call_modules() -> None:
    """Import what LiveKit and the model client import on a call's first turn, before the loop runs."""
    import livekit.agents.llm.async_toolset  # noqa: F401

    if os.environ.get("OPENAI_API_KEY"):
        import openai.resources.audio
        import openai.resources.chat.completions.completions
        import openai.resources.models  # noqa: F401


# Dependencies log at WARNING unless LIVEKIT_LOG_LEVEL says otherwise: no DEBUG flood in the console.
server = AgentServer(setup_fnc=prewarm, log_level=ServerEnvOption(dev_default="WARN", prod_default="WARN"))


@server.rtc_session()
async def entrypoint(ctx: JobContext) -> None:
    await run_call(ctx)


async def run_call(ctx: Any, **models: Any) -> tuple[AgentSession[Any], MemoryAgent]:
    """Serve one call; ``models`` replaces the configured ones (tests pass a scripted LLM).

    When the call ends, the caller's memory writes are flushed, pending
    receipts get one delivery try, and the gate is closed (a job process
    serves one call).
    """
    participant = await ctx.wait_for_participant()
    try:
        caller = caller_from_participant(participant)
    except ValueError as exc:
        log.error("refusing the call: %s", exc)
        ctx.shutdown(reason="caller identity is not usable")
        raise
    g = gate_for(ctx)
    g.start()
    session: AgentSession[Any] = AgentSession(**(models or model_options()))
    agent, _ = build_call(g, caller, session)

    async def finish(*_: Any) -> None:
        try:
            await agent.flush()
            await asyncio.wait_for(g.outbox.drain(reconcile_grace_s=None, attempts=1), timeout=5)
        finally:
            await close_gate(g)

    ctx.add_shutdown_callback(finish)
    room = {"room": ctx.room} if ctx.room is not None else {}  # no room: text mode
    await session.start(agent=agent, **room)
    return session, agent


async def close_gate(g: Gate) -> None:
    """Close a call's gate; the next call in this process (a test, a thread job) builds another."""
    global _gate
    if _gate is g:
        _gate = None
    await g.aclose()


# -- one line per failure -------------------------------------------------------------


def _developer_logs() -> bool:
    """Whether someone asked for tracebacks (a DEBUG level for gate or LiveKit)."""
    levels = (os.environ.get("GATE_LOG_LEVEL", ""), os.environ.get("LIVEKIT_LOG_LEVEL", ""))
    return any(level.strip().upper() in ("DEBUG", "TRACE") for level in levels)


def exception_line(exc: BaseException) -> str:
    """An exception as one line: ``Type: message``, and its root cause when the message does not say it."""

    def said(e: BaseException) -> str:
        text = str(e).strip()
        first = text.splitlines()[0] if text else ""
        return f"{type(e).__name__}: {first}" if first else type(e).__name__

    line, root = said(exc), exc
    seen = {id(exc)}
    while True:
        nxt = root.__cause__ or (None if root.__suppress_context__ else root.__context__)
        if nxt is None or id(nxt) in seen:
            break
        seen.add(id(nxt))
        root = nxt
    if root is not exc:
        cause = str(root).strip().splitlines()[0] if str(root).strip() else type(root).__name__
        if cause not in line:
            line += f" (caused by {said(root)})"
    return line


def one_line_records(factory: Callable[..., logging.LogRecord]) -> Callable[..., logging.LogRecord]:
    """A log record factory that folds a record's traceback into one line of its message.

    LiveKit logs a failing model, room or tool with its whole traceback
    (an unreachable model printed about 140 lines for one typed sentence);
    the exception's types and messages are what an operator acts on.
    """

    def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        info = record.exc_info
        if info and info[1] is not None:
            # asyncio's own reports carry the task's repr on a second line: the first says it.
            first = record.getMessage().strip().splitlines()[0]
            record.msg = f"{first}: {exception_line(info[1])}"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        record.stack_info = None
        return record

    return make


def _preflight(argv: list[str]) -> str | None:
    """One clear line for a missing setting, library, policy or ledger, instead of a traceback later."""
    mode = _mode(argv)
    if mode in ("start", "dev", "connect"):
        missing = [
            v for v in ("LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET") if not os.environ.get(v)
        ]
        if missing:
            return f"worker.py {mode}: set {', '.join(missing)} (your LiveKit Cloud project or server)"
    try:
        gate_level(mode)
        if mode in ("start", "dev", "connect", "console"):
            model_options()
            settings = gate.GateSettings()
            # What each job process's prewarm builds: refuse here, once, in one line.
            from gate.policy.loader import load_for_tools

            load_for_tools(ROOT / "policies", TOOLS)
            settings.ensure_home()
            gate.Ledger(settings.ledger_url()).close()
        if mode == "console":
            # The console opens the sound devices even with --text: it needs PortAudio.
            import sounddevice  # noqa: F401
    except (gate.GateError, OSError, ImportError) as exc:
        return f"worker.py {mode}: {describe(exc)}"
    return None


def _mode(argv: list[str]) -> str:
    return next((a for a in argv[1:] if not a.startswith("-")), "")


def gate_level(mode: str) -> int:
    """gate's log level: ``GATE_LOG_LEVEL``, else INFO (WARNING in the console).

    Raises:
        gate.ConfigError: ``GATE_LOG_LEVEL`` is not a level name.
    """
    return level_from_env("WARNING" if mode == "console" else "INFO")


def command_line() -> Any:
    """LiveKit's command line for this worker, with gate's help text on it and its commands."""
    try:
        from livekit.agents.cli import _legacy

        app = _legacy._build_cli(server)
    except (ImportError, AttributeError):  # another LiveKit: its own command line, as it comes
        return None
    app.info.help = ABOUT
    app.pretty_exceptions_enable = False
    for command in app.registered_commands:
        name = command.name or command.callback.__name__.replace("_", "-")  # type: ignore[union-attr]
        if name in COMMAND_HELP:
            command.help = COMMAND_HELP[name]
    return app


def main(argv: list[str]) -> int:
    """Run the LiveKit worker; every start-up failure is one line on stderr and exit 2."""
    import typer

    asks_help = any(a in ("--help", "-h") for a in argv[1:])
    problem = None if asks_help else _preflight(argv)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    mode = _mode(argv)
    logging.getLogger("gate").setLevel(gate_level(mode))
    if not _developer_logs():
        logging.setLogRecordFactory(one_line_records(logging.getLogRecordFactory()))
    app = command_line()
    try:
        if app is None:
            cli.run_app(server)
            return 0
        app(args=argv[1:], prog_name="worker.py", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except typer.TyperException as exc:  # a mistyped command or option
        see = f"worker.py {mode} --help" if mode in COMMAND_HELP else "worker.py --help"
        print(f"worker.py: {exc.format_message()} (see {see})", file=sys.stderr)
        return 2
    except typer.Abort:
        return 130
    except Exception as exc:
        print(f"worker.py {mode}: {describe(exc)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
