"""The harness both SGD replays share: one gate per process, one live session per dialogue.

Each worker process builds, once, a :class:`Replayer`: the split's generated tools and
policies (:mod:`bench.sgd.tools`), a real :class:`gate.Gate` on the embedded engine in a
temporary home with the dialogues' own clock (SGD's "today" is Friday 2019-03-01), and so
one embedder. Each dialogue then gets a :class:`Call`: a text-mode
``livekit.agents.AgentSession`` with a :class:`gate.MemoryAgent` over
``g.memory_for(caller)`` and ``g.bind(caller, session)``'s tools, a verified caller of its
own (callers never see each other's memory), and a ``ScriptedLLM`` the replay feeds step
by step. Nothing is faked but the model.

:func:`run` spreads the items over ``workers`` processes and gives the results back in the
items' order. A dialogue that fails is reported with its error and the run goes on.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import random
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from collections import defaultdict
from collections.abc import Awaitable, Callable, Hashable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from livekit.agents import AgentSession
from livekit.agents.voice.run_result import RunResult

import gate
from bench.sgd import data
from bench.sgd.tools import Executions, IntentTool, make_tools, write_policies
from gate.config import GateSettings
from gate.testing.llm import ScriptedLLM, ScriptItem

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

# SGD's dialogues speak of "today" as Friday 2019-03-01 (its dates are read against it).
TODAY = datetime(2019, 3, 1, 12, 0, tzinfo=UTC)
INSTRUCTIONS = "You are a voice assistant that books, buys, reserves and plays things for the caller."


@dataclass(frozen=True)
class Setup:
    """What every worker process builds its gate from (sent to the workers, so plain data)."""

    sgd: str
    split: str
    confirm: str = "always"
    evidence_required: bool = True
    timeout_s: float = 5.0


@dataclass(frozen=True)
class Output:
    """A tool output the model was given in one turn."""

    tool: str
    output: str
    is_error: bool


class Replayer:
    """One process's gate over every transactional tool of a split.

    Raises:
        data.SGDMissing: the checkout is not there.
        RuntimeError: the gate did not come up on the embedded engine (a ContextDB key in
            the environment would send the caller's words to the hosted service).
    """

    def __init__(self, setup: Setup, home: Path) -> None:
        self.setup = setup
        self.base = data.root(setup.sgd)
        self.executions = Executions()
        self.intents = data.intents(self.base, setup.split)
        self.tools: dict[tuple[str, str], IntentTool] = make_tools(self.intents.values(), self.executions)
        policies = write_policies(
            self.tools.values(),
            home / "policies",
            confirm=setup.confirm,
            evidence_required=setup.evidence_required,
            timeout_s=setup.timeout_s,
        )
        settings = GateSettings(home=home / "gate", database_url=None, memory="local", embedder="minilm")
        self.gate = gate.Gate(
            [t.tool for t in self.tools.values()], policies=policies, settings=settings, clock=lambda: TODAY
        )
        if not isinstance(self.gate.backend, gate.LocalEngine):
            raise RuntimeError(f"the replay needs the embedded engine, got {self.gate.backend.name}")

    def tool_for(self, intent: data.Intent) -> IntentTool:
        return self.tools[(intent.service, intent.name)]

    async def call(self, caller_id: str) -> Call:
        """A started session for a new verified caller."""
        made = Call(self, gate.Caller(caller_id, verified=True))
        await made.start()
        return made

    async def aclose(self) -> None:
        await self.gate.aclose()


class Call:
    """One caller's live text-mode session with the gate and its memory."""

    def __init__(self, replayer: Replayer, caller: gate.Caller) -> None:
        self.replayer = replayer
        self.caller = caller
        self.llm = ScriptedLLM()
        self.session: AgentSession[Any] = AgentSession(
            llm=self.llm, vad=None, turn_handling={"turn_detection": None}
        )
        self.bound = replayer.gate.bind(caller, self.session)
        self.agent = gate.MemoryAgent(
            instructions=INSTRUCTIONS,
            memory=replayer.gate.memory_for(caller),
            gate_session=self.bound,
            tools=self.bound.tools,
        )
        self.outputs: list[Output] = []
        self.overruns = 0  # replies the session asked for beyond the script (a harness fault)

    async def start(self) -> None:
        await self.session.start(self.agent)

    async def turn(self, words: str, *steps: ScriptItem) -> list[Output]:
        """The caller says ``words``; the model replies with ``steps``. Returns the tool outputs.

        Steps the session did not ask for are dropped, so one turn's script never
        answers the next turn.
        """
        self.llm.add(*steps)
        asked_before = len(self.llm.seen)
        result: RunResult[Any] = await self.session.run(user_input=words)
        self.overruns += max(len(self.llm.seen) - asked_before - len(steps), 0)
        self.llm.script.clear()
        await self.bound.flush()
        got = [
            Output(e.item.name, str(e.item.output), bool(e.item.is_error))
            for e in result.events
            if e.type == "function_call_output"
        ]
        self.outputs += got
        return got

    def decisions(self) -> list[Any]:
        return self.replayer.gate.ledger.decisions(caller_id=self.caller.id)

    async def aclose(self) -> None:
        await self.session.aclose()


def caller_turns(turns: Sequence[data.Turn]) -> list[tuple[data.Turn, data.Turn | None]]:
    """Each caller turn with the agent turn that answers it (None at the end).

    An agent turn that follows no caller turn (the agent speaking first) has no
    caller words to answer and is left out.
    """
    out: list[tuple[data.Turn, data.Turn | None]] = []
    for i, turn in enumerate(turns):
        if turn.speaker != "caller":
            continue
        following = turns[i + 1] if i + 1 < len(turns) else None
        out.append((turn, following if following is not None and following.speaker == "agent" else None))
    return out


def spread(items: Iterable[T], n: int, *, key: Callable[[T], K], seed: int = 1) -> list[T]:
    """A deterministic sample of ``n`` items spread evenly over ``key`` (e.g. the service).

    Each group is shuffled with ``seed``; groups are then taken from in turn (in
    sorted key order) until ``n`` are chosen, so a small sample still holds every group.
    """
    groups: dict[K, list[T]] = defaultdict(list)
    for item in items:
        groups[key(item)].append(item)
    rng = random.Random(seed)
    order = sorted(groups, key=str)
    for k in order:
        rng.shuffle(groups[k])
    chosen: list[T] = []
    depth = 0
    while len(chosen) < n and any(depth < len(groups[k]) for k in order):
        for k in order:
            if depth < len(groups[k]) and len(chosen) < n:
                chosen.append(groups[k][depth])
        depth += 1
    return chosen


ReplayOne = Callable[[Replayer, T], Awaitable[dict[str, Any]]]


def run(
    items: Sequence[T],
    replay_one: ReplayOne[T],
    setup: Setup,
    *,
    workers: int = 1,
    progress: bool = False,
    quiet: bool = False,
) -> list[dict[str, Any]]:
    """Replay every item (``replay_one`` must be a module-level coroutine function) in order.

    ``workers`` > 1 runs that many processes, each with its own gate and embedder.
    ``progress`` prints a line to stderr every 10 items; ``quiet`` silences gate's and
    LiveKit's logs (a replay's record is its report), in this process too.
    """
    indexed = list(enumerate(items))
    if workers <= 1 or len(indexed) <= 1:
        done = _shard(setup, replay_one, indexed, 0, progress, quiet)
    else:
        shards = [indexed[w::workers] for w in range(workers)]
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            futures = [
                pool.submit(_shard, setup, replay_one, shard, w, progress, quiet)
                for w, shard in enumerate(shards)
            ]
            done = [pair for f in futures for pair in f.result()]
    return [result for _, result in sorted(done, key=lambda pair: pair[0])]


def _shard(
    setup: Setup,
    replay_one: ReplayOne[Any],
    shard: list[tuple[int, Any]],
    worker: int,
    progress: bool,
    quiet: bool,
) -> list[tuple[int, dict[str, Any]]]:
    loggers = [logging.getLogger(name) for name in ("gate", "livekit")] if quiet else []
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        return asyncio.run(_run_shard(setup, replay_one, shard, worker, progress))
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


async def _run_shard(
    setup: Setup, replay_one: ReplayOne[Any], shard: list[tuple[int, Any]], worker: int, progress: bool
) -> list[tuple[int, dict[str, Any]]]:
    home = Path(tempfile.mkdtemp(prefix="gate-sgd-"))
    out: list[tuple[int, dict[str, Any]]] = []
    try:
        replayer = Replayer(setup, home)
        await replayer.gate.warm()
        try:
            for n, (index, item) in enumerate(shard, 1):
                started = time.perf_counter()
                try:
                    result = await replay_one(replayer, item)
                except Exception as exc:  # one broken dialogue is reported, the run goes on
                    result = {"error": f"{type(exc).__name__}: {exc}", "where": _where(exc)}
                result["seconds"] = round(time.perf_counter() - started, 3)
                out.append((index, result))
                if progress and (n % 10 == 0 or n == len(shard)):
                    print(f"  worker {worker}: {n}/{len(shard)}", file=sys.stderr, flush=True)
        finally:
            await replayer.aclose()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return out


def timing(results: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    """Seconds per dialogue, p50 and p95 (nearest rank), over the results that have them."""
    seconds = sorted(r["seconds"] for r in results if "seconds" in r)
    if not seconds:
        return {"p50": None, "p95": None}
    rank = min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))
    return {"p50": round(statistics.median(seconds), 3), "p95": round(seconds[rank], 3)}


def timing_line(wall_s: float, workers: int, per: dict[str, float | None]) -> str:
    return f"{wall_s:.1f} s wall, {workers} worker(s); per dialogue p50 {per['p50']} s, p95 {per['p95']} s"


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""


@dataclass
class Table:
    """Counts per group (a service, and "all"), printed as an aligned table.

    ``shares``: a column shown as a share of another (``{"missed_yes": "yes"}``);
    every other column but ``n`` is shown as a share of ``n``.
    """

    columns: list[str]
    shares: dict[str, str] = field(default_factory=dict)
    rows: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, group: str, **counts: int | bool) -> None:
        for name in (group, "all"):
            row = self.rows.setdefault(name, dict.fromkeys(self.columns, 0))
            for column, value in counts.items():
                row[column] += int(value)

    def render(self) -> str:
        names = sorted(k for k in self.rows if k != "all") + (["all"] if "all" in self.rows else [])
        width = max([len(n) for n in names] + [7])
        cell = max([len(c) for c in self.columns] + [11])
        lines = [f"{'':{width}}  " + "  ".join(f"{c:>{cell}}" for c in self.columns)]
        for name in names:
            row = self.rows[name]
            cells = []
            for column in self.columns:
                value = row[column]
                total = row.get(self.shares.get(column, "n"), 0)
                if column == "n" or not total:
                    cells.append(f"{value:>{cell}}")
                else:
                    cells.append(f"{value:>{cell - 7}} {100 * value / total:5.1f}%")
            lines.append(f"{name:{width}}  " + "  ".join(cells))
        return "\n".join(lines)
