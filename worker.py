"""The LiveKit worker: a home-services voice agent whose consequential tools go through gate.

    python worker.py console --text   # a typed console (a model key and Debian's libportaudio2)
    python worker.py start            # production (LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET)

A start-up problem (a missing key or library, a bad setting) is one line on
stderr and exit 2. Logs: LiveKit and the other dependencies at WARNING
(``LIVEKIT_LOG_LEVEL`` changes that), gate's own events at INFO (WARNING in
the console, where they would interleave with the conversation;
``GATE_LOG_LEVEL`` changes that).

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
from pathlib import Path
from typing import Any

from livekit.agents import AgentServer, AgentSession, JobContext, cli
from livekit.agents.worker import ServerEnvOption

import gate
from gate import Caller, MemoryAgent
from gate.errors import describe
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


_gate: gate.Gate | None = None


def process_gate() -> gate.Gate:
    """One gate per worker process: the tools, their policies, the ledger, memory and outbox."""
    global _gate
    if _gate is None:
        _gate = gate.Gate(TOOLS, policies=ROOT / "policies")
        _gate.start()
    return _gate


def build_call(
    g: gate.Gate, caller: Caller, session: AgentSession[Any], *, session_id: str | None = None
) -> tuple[MemoryAgent, gate.GateSession]:
    """The agent for one call: caller memory, the gated tools and confirm_action, bound to the caller."""
    bound = g.bind(caller, session, session_id=session_id)
    agent = MemoryAgent(
        instructions=INSTRUCTIONS, memory=g.memory_for(caller), gate_session=bound, tools=bound.tools
    )
    return agent, bound


def prewarm(_proc: Any = None) -> None:
    """Each worker process, before its first call: load the embedder, then settle the heap.

    The model loads in about a second, here rather than on the first caller's
    words. Then what start-up created (LiveKit, the model, the libraries,
    nearly all of the process's objects) is frozen out of the garbage
    collector's full passes: such a pass walks every object, and with 25
    calls in each of 8 processes on 2 cores it held each process still for
    0.7-1.3 s, once per run in every process, calls and decisions included
    (measured with a thread that wakes every 10 ms). With the start-up
    objects frozen no pause over 0.15 s was left. Raises what loading the
    model raises.
    """
    import gc

    from gate.memory.embedder import warm

    warm()
    gc.collect()
    gc.freeze()
    # A call allocates many short-lived objects; at the default threshold (700) the young
    # generation was collected about 3.5 times per call, at 20,000 about 0.1 times, for a
    # little more memory between collections.
    gc.set_threshold(20_000, 20, 20)


# Dependencies log at WARNING unless LIVEKIT_LOG_LEVEL says otherwise: no DEBUG flood in the console.
server = AgentServer(setup_fnc=prewarm, log_level=ServerEnvOption(dev_default="WARN", prod_default="WARN"))


@server.rtc_session()
async def entrypoint(ctx: JobContext) -> None:
    await run_call(ctx)


async def run_call(ctx: Any, **models: Any) -> tuple[AgentSession[Any], MemoryAgent]:
    """Serve one call; ``models`` replaces the configured ones (tests pass a scripted LLM)."""
    participant = await ctx.wait_for_participant()
    try:
        caller = caller_from_participant(participant)
    except ValueError as exc:
        log.error("refusing the call: %s", exc)
        ctx.shutdown(reason="caller identity is not usable")
        raise
    g = process_gate()
    await g.warm()
    session: AgentSession[Any] = AgentSession(**(models or model_options()))
    agent, _ = build_call(g, caller, session)

    async def finish(*_: Any) -> None:
        await agent.flush()
        await asyncio.wait_for(g.outbox.drain(reconcile_grace_s=None, attempts=1), timeout=5)

    ctx.add_shutdown_callback(finish)
    room = {"room": ctx.room} if ctx.room is not None else {}  # no room: text mode
    await session.start(agent=agent, **room)
    return session, agent


def _mode(argv: list[str]) -> str:
    return argv[1] if len(argv) > 1 else ""


def _preflight(argv: list[str]) -> str | None:
    """One clear line for a setting or library that is missing, instead of a traceback later."""
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
            gate.GateSettings()
        if mode == "console":
            # The console opens the sound devices even with --text: it needs PortAudio.
            import sounddevice  # noqa: F401
    except (gate.ConfigError, OSError, ImportError) as exc:
        return f"worker.py {mode}: {describe(exc)}"
    return None


def gate_level(mode: str) -> int:
    """gate's log level: ``GATE_LOG_LEVEL``, else INFO (WARNING in the console).

    Raises:
        gate.ConfigError: ``GATE_LOG_LEVEL`` is not a level name.
    """
    return level_from_env("WARNING" if mode == "console" else "INFO")


def main(argv: list[str]) -> int:
    """Run the LiveKit worker; every start-up failure is one line on stderr and exit 2."""
    problem = _preflight(argv)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    mode = _mode(argv)
    logging.getLogger("gate").setLevel(gate_level(mode))
    try:
        cli.run_app(server)
    except Exception as exc:
        print(f"worker.py {mode}: {describe(exc)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
