"""The :class:`Gate`: policies, ledger and decision service, wired once per process."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from livekit.agents import AgentSession
from livekit.agents.llm import Tool, Toolset

from gate.backends.base import DecisionBackend, ForgetResult
from gate.backends.local import LocalEngine
from gate.caller import Caller
from gate.config import GateSettings
from gate.decorator import GatedTool
from gate.errors import ConfigError
from gate.inflight import InFlight
from gate.ledger import ChainReport, Ledger
from gate.ledger.checkpoints import Checkpointer
from gate.log import event
from gate.memory.agent import CallerMemory
from gate.memory.base import MemoryStore
from gate.memory.saves import SaveTracker
from gate.outbox import Outbox
from gate.pipeline import Pipeline
from gate.policy.loader import LoadedPolicy, load_for_tools
from gate.session import GateSession


class Gate:
    """Governs a set of gated tools. Build one per worker process.

    Args:
        tools: the ``@gated_tool`` functions this gate governs; none (``Gate([])``) for
            caller memory alone, which needs no policy directory.
        policies: directory of policy files (default ``GATE_POLICIES`` or ``./policies``).
            Read only when there are tools or when it is given.
        ledger: the audit ledger (default: ``GATE_DATABASE_URL`` or SQLite in ``GATE_HOME``).
        backend: the decision service (default: ContextDB Cloud when ``CONTEXTDB_API_KEY`` is
            set, else the embedded engine in ``GATE_HOME``).
        memory: where callers' memories live (default: ``GATE_MEMORY``; auto is the decision
            service's own store, so what callers say is the evidence the gate decides on).
        clock: the call's "now" as an aware ``datetime`` (default: the system clock, UTC).
            Relative dates in what the caller says ("next Tuesday", "tomorrow") are read
            against it; a replay of recorded dialogue passes the dialogue's own date.

    Building one is blocking start-up work (policy files, the ledger's schema,
    the memory engine): do it before the event loop serves calls, as the
    worker's ``prewarm`` does, then :meth:`warm_blocking` (or ``await``
    :meth:`warm`) so the first call finds everything loaded.

    Raises:
        MissingPolicy: a tool has no policy file.
        PolicyError: a policy file is invalid or names arguments its tool does not have.
        ConfigError: the ledger cannot be opened, or the checkpoint signing key
            (``GATE_AUDIT_SIGNING_KEY``/``_FILE``) cannot be read.
    """

    def __init__(
        self,
        tools: Sequence[GatedTool],
        *,
        policies: str | Path | None = None,
        ledger: Ledger | None = None,
        backend: DecisionBackend | None = None,
        memory: MemoryStore | None = None,
        settings: GateSettings | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.settings = settings or GateSettings()
        self.clock: Callable[[], datetime] = clock or _utc_now
        self.tools = list(tools)
        names = [t.name for t in self.tools]
        if len(set(names)) != len(names):
            raise ValueError(f"two gated tools share a name: {names}")
        # Memory alone needs no policies: a directory is read when there are tools to govern
        # or when it was named (then it is checked as usual).
        if self.tools or policies is not None:
            self.policies = self._load(Path(policies) if policies is not None else self.settings.policies)
        else:
            self.policies = {}
        if ledger is None or backend is None:
            self.settings.ensure_home()
        self.ledger = ledger or Ledger(self.settings.ledger_url())
        self.backend: DecisionBackend = backend or _default_backend(self.settings, self.ledger)
        self.memory: MemoryStore = memory or _default_memory(self.settings, self.backend)
        hooks = {t.name: t.reconcile for t in self.tools if t.reconcile is not None}
        self.outbox = Outbox(self.ledger, self.backend, hooks=hooks)
        self.pipeline = Pipeline(self.ledger, self.backend, self.outbox)
        self.inflight = InFlight()
        self.saves = SaveTracker()
        # Signs the chain's head every interval while the gate runs, when a signing key is set.
        signer = self.settings.checkpoint_signer()
        self.checkpoints = (
            Checkpointer(self.ledger, signer, interval_s=self.settings.audit_checkpoint_s) if signer else None
        )

    def _load(self, directory: Path) -> dict[str, LoadedPolicy]:
        # The same check as `gate policy check`, so a directory that passes it starts.
        return load_for_tools(directory, self.tools)

    def policy_for(self, tool: GatedTool) -> LoadedPolicy:
        return self.policies[tool.name]

    def bind(
        self,
        caller: Caller,
        session: AgentSession[Any] | None = None,
        *,
        session_id: str | None = None,
        language: str = "en",
    ) -> GateSession:
        """The gated tools (and ``confirm_action``) bound to one authenticated caller.

        Pass the ``AgentSession`` so calls that LiveKit rejects for malformed
        arguments are recorded too. ``language`` is the caller's (en, es, fr,
        de): their answers to confirmation questions are read in it.
        """
        return GateSession(
            self.pipeline,
            self.tools,
            self.policies,
            caller,
            session,
            session_id=session_id,
            language=language,
            inflight=self.inflight,
            saves=self.saves,
            clock=self.clock,
        )

    def tools_for(self, caller: Caller, session: AgentSession[Any] | None = None) -> list[Tool | Toolset]:
        """Shorthand for ``bind(caller, session).tools``."""
        return self.bind(caller, session).tools

    def memory_for(self, caller: Caller) -> CallerMemory:
        """The memory of one authenticated caller, for :class:`gate.MemoryAgent`."""
        return CallerMemory(self.memory, caller.id, saves=self.saves)

    async def forget(self, caller_id: str) -> ForgetResult:
        """Erase everything remembered about a caller, everywhere it is kept, and verify it.

        The audit ledger keeps its decisions and their chain; the caller's personal text in
        it (their words, the questions they heard, what memories said) is erased.
        Raises whatever the memory service raises (the erasure can simply be run again).
        """
        return await forget_everywhere(self.memory, self.backend, caller_id, ledger=self.ledger)

    def verify(self) -> ChainReport:
        """Check the audit ledger's hash chain (see :meth:`gate.Ledger.verify`)."""
        return self.ledger.verify()

    async def warm(self) -> None:
        """:meth:`warm_blocking` on a thread, so the event loop keeps serving meanwhile."""
        await asyncio.to_thread(self.warm_blocking)

    def warm_blocking(self) -> None:
        """Do now, in this thread, the one-off work a first call would otherwise do on the event loop.

        Imports every module of the library a call may import on first use
        (the answer reader, evidence rules, memory stores), reads one answer
        so the answer reader's language data is loaded, and loads the
        embedder (about a second). Evidence is judged by meaning on the
        embedded engine and on ContextDB Cloud alike, so an encoder is loaded
        whatever ``GATE_EMBEDDER`` says: the multilingual one when it names it,
        else MiniLM. Idempotent; raises what loading the model raises.
        """
        preload_modules()
        from gate.confirm import classify_answer

        classify_answer("yes", question="Shall I go ahead?", pending={}, lang="en")
        from gate.cloud.backend import CloudEngine

        if isinstance(self.backend, LocalEngine | CloudEngine):
            from gate.memory.embedder import warm

            warm(self.settings.embedder)

    def start(self, *, reconcile_grace_s: float = 120.0) -> None:
        """Start background receipt delivery (and reconciliation of dead processes' decisions).

        Call it from the worker once the event loop runs; without it each receipt gets
        one delivery try (the reply waits for it only within the call's time budget,
        :meth:`aclose` for the rest) and what fails waits for ``gate receipts drain``.
        """
        self.outbox.start(reconcile_grace_s=reconcile_grace_s)
        if self.checkpoints is not None:
            self.checkpoints.start()

    async def aclose(self, *, flush_timeout_s: float = 5.0) -> None:
        """Deliver what can be delivered within the bound, then close the service and the ledger.

        First the receipts the ledger refused for a moment (kept, never dropped)
        are written, and deliveries started in the background finish, within
        the same bound. Every part is closed even when an earlier one fails (an
        open engine connection would keep the process from exiting); the first
        error is raised after.
        """
        try:
            loop = asyncio.get_running_loop()
            end = loop.time() + flush_timeout_s
            await self.pipeline.aclose(timeout_s=flush_timeout_s)
            await self.outbox.stop(flush_timeout_s=max(end - loop.time(), 0.0))
        finally:
            try:
                if self.checkpoints is not None:
                    await self.checkpoints.stop()  # never raises: a failed last signature is logged
                await self.memory.aclose()
            finally:
                try:
                    await self.backend.aclose()
                finally:
                    self.ledger.close()


# Not needed by a call: the command line, the test doubles, and Alembic's scripts
# (which run migrations when imported).
_NOT_PRELOADED = ("gate.cli", "gate.testing", "gate.ledger.migrations")
# The embedded engine (pycontextdb) imports its memory and graph modules on its first read.
_ENGINE_MODULES = (
    "contextdb.memory.factual",
    "contextdb.memory.experiential",
    "contextdb.memory.working",
    "contextdb.graphs.semantic",
    "contextdb.graphs.entity",
    "contextdb.graphs.causal",
    "contextdb.graphs.temporal",
)


def preload_modules() -> None:
    """Import every module of the library a call may need, so none is imported on the event loop.

    Modules are found by walking the package rather than listed, so a module
    added later is covered too. Raises what importing a module raises.
    """
    import importlib
    import pkgutil

    import gate

    for found in pkgutil.walk_packages(gate.__path__, "gate."):
        name = found.name
        if any(name == skip or name.startswith(skip + ".") for skip in _NOT_PRELOADED):
            continue
        importlib.import_module(name)
    for name in _ENGINE_MODULES:
        importlib.import_module(name)


async def forget_everywhere(
    memory: MemoryStore, backend: DecisionBackend, caller_id: str, *, ledger: Ledger | None = None
) -> ForgetResult:
    """Erase the caller from the memory store, the evidence store when separate, and the ledger's text.

    With ``ledger``, the caller's personal text in the audit ledger is erased
    first (see :meth:`gate.Ledger.erase_caller`): the chain stays whole.
    """
    if ledger is not None:
        erased = await ledger.aerase_caller(caller_id)
        event("gate.forget.ledger", caller=caller_id, erased=erased.erased, kept=erased.kept_in_chain)
    result = await memory.forget(caller_id)
    if getattr(memory, "engine", None) is not backend:
        also = await backend.forget(caller_id)  # the evidence store holds the caller's words too
        result = ForgetResult(result.deleted + also.deleted, result.verified and also.verified)
    event("gate.forget", caller=caller_id, deleted=result.deleted, verified=result.verified)
    return result


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _default_backend(settings: GateSettings, ledger: Ledger) -> DecisionBackend:
    """ContextDB Cloud when ``CONTEXTDB_API_KEY`` is set, else the embedded engine."""
    if os.environ.get("CONTEXTDB_API_KEY"):
        from gate.cloud.backend import CloudEngine

        return CloudEngine.from_env()
    from gate.memory.embedder import embedder_for

    return LocalEngine(settings.memory_url(), ledger, embedding_provider=embedder_for(settings.embedder))


def _default_memory(settings: GateSettings, backend: DecisionBackend) -> MemoryStore:
    """``GATE_MEMORY``: geniffy, cloud or local; auto uses the decision service's own store.

    Raises:
        ConfigError: the chosen memory needs a key or a backend that is not there.
    """
    choice = settings.memory
    if choice == "geniffy":
        from gate.memory.geniffy import GeniffyMemory

        return GeniffyMemory.from_env()
    from gate.cloud.backend import CloudEngine

    if choice in ("cloud", "auto") and isinstance(backend, CloudEngine):
        from gate.memory.cloud import CloudMemory

        return CloudMemory(backend)
    if choice in ("local", "auto") and isinstance(backend, LocalEngine):
        from gate.memory.local import LocalMemory

        return LocalMemory(backend)
    raise ConfigError(f"GATE_MEMORY={choice} does not go with the {backend.name} decision service")
