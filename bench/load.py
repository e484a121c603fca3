"""Load: many concurrent calls through the worker's own agent, on one machine, in the production shape.

Every session is a real text-mode ``AgentSession`` with the worker's agent
(caller memory, the example tools of ``tools/``, ``confirm_action``) and a
scripted model that reads the gate's question out word for word. Each
session runs a refund that the gate asks about, the caller's yes and the
refund itself (ask -> yes -> act), then a refund above the policy's limit
(abstain): three decisions, three receipts. Decisions and memory run on the
embedded engine with its MiniLM embedder (each process its own GATE_HOME).

  single   one worker process, 50 concurrent sessions, the SQLite ledger in GATE_HOME
  shared   8 worker processes x 25 sessions on one PostgreSQL ledger (a server
           started here on a unix socket in a temporary directory, stopped after)
  many     N worker processes (--many, default 32) x 10 gated calls each (confirm: never,
           timeout_s: 5, no evidence section) on ONE GATE_HOME: the SQLite ledger and the
           embedded engine's memory file shared by every process, as LiveKit's job processes
           on one machine share them; then the same with the ledger on PostgreSQL (memory
           still in the one GATE_HOME). Checked: every call decided within its budget and
           carried out, one receipt each, delivered once, the chain verifies.

Calls arrive and callers answer as on a phone, or faster:

  live     each process's calls arrive at random moments over 15 s (--arrivals), and a
           caller answers after the agent has finished speaking (its words at 150 a
           minute) and a pause of 1-3 s: the shape of real calls. "most at once" in the
           table says how many sessions were in progress together at the peak.
  paced    every call starts at once; before each turn the caller pauses 0.5-2 s, with
           no time for the agent's speech: more load than live calls make.
  burst    no pauses: every session's turns back to back, all sessions at once. A
           stress test: 50 decisions arrive in the same few milliseconds, and each
           waits for the ones queued before it.

Decisions and memory are served by:

  local    the embedded engine in each worker process (default)
  cloud    the ContextDB Cloud contract double (gate.testing.contextdb) in a process of
           its own, over loopback HTTP: the production shape's topology. The double is a
           test double, not built for load, and shares the machine's cores with the
           workers; its time is in the figures.

Each process is set up as the worker is (embedder loaded, one warm-up call,
which pays for lazy imports: checked, not timed); then all processes start
their sessions at once. Checked after each run: no session went wrong (a
decision that fails closed under load, e.g. past its 2 s budget, counts as an
error), exactly one receipt per decision, each receipt the service is owed
delivered exactly once, the hash chain verifies. Reported:
decision latency as the gate records it (policy, state, evidence:
``latency_ms``), with the ledger write (the whole ``Pipeline.decide``), the
decision service's look-ups on their own, and the caller's wait for each turn.

Run: python bench/load.py [--sessions 50] [--processes 8] [--per-process 25]
                          [--pace live|paced|burst|all] [--arrivals 15]
                          [--service local|cloud|both]
                          [--agent worker|gate] [--skip-postgres]
                          [--many 32 [--many-calls 10] [--many-only]]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PG_USER = "gatepg"
PAUSE_S = (0.5, 2.0)  # a paced caller's pause before each turn
ARRIVAL_S = 15.0  # live: the window over which a process's calls arrive (--arrivals)
WORDS_PER_S = 2.5  # live: the agent's speech (150 words a minute) before the caller can answer
ANSWER_S = (1.0, 3.0)  # live: the caller's pause to answer, after the agent has spoken
PACES = ("live", "paced", "burst")
DEADLINE_S = 300.0  # a process whose sessions take longer than this has hung
RECEIPTS_OK = "exactly one each, delivered once"
DOUBLE_KEY = "cdb_bench"  # the ContextDB double takes any key with the project prefix


@dataclass
class Measured:
    """What one process saw."""

    sessions: int = 0
    errors: list[str] = field(default_factory=list)
    failed: int = 0  # sessions with at least one error
    decide_ms: list[float] = field(default_factory=list)  # the whole Pipeline.decide, ledger write included
    evidence_ms: list[float] = field(default_factory=list)  # the decision service's answer, inside decide
    turn_ms: list[float] = field(default_factory=list)
    spans: list[tuple[float, float]] = field(default_factory=list)  # each session's start and end, wall clock
    cpu_s: float = 0.0  # the process's CPU time while its sessions ran


def _question(chat_ctx: Any) -> Any:
    """The model reads the gate's question out as it was put (the first line of the tool's answer)."""
    from livekit.agents.llm import FunctionCallOutput

    from gate.testing.llm import say

    for item in reversed(chat_ctx.items):
        if isinstance(item, FunctionCallOutput):
            return say(item.output.splitlines()[0] if item.output else "")
    return say("")


def _outputs(result: Any) -> list[tuple[str, bool]]:
    return [(e.item.output, e.item.is_error) for e in result.events if e.type == "function_call_output"]


def _spoken_s(result: Any) -> float:
    """How long the agent's words of a turn take to say aloud."""
    words = sum(len((e.item.text_content or "").split()) for e in result.events if e.type == "message")
    return words / WORDS_PER_S


def peak_concurrency(spans: list[tuple[float, float]]) -> int:
    """The most sessions in progress at one moment."""
    edges = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    peak = now = 0
    for _, step in edges:
        now += step
        peak = max(peak, now)
    return peak


async def one_session(
    g: Any, worker: Any, business: Any, caller_id: str, order: str, m: Measured, *, memory: bool, pace: str
) -> None:
    """ask -> yes -> act, then an abstain; anything unexpected is recorded as an error."""
    from livekit.agents import Agent, AgentSession

    import gate
    from gate.testing.llm import ScriptedLLM, call, say

    caller = gate.Caller(caller_id, verified=True, roles=frozenset({"customer"}))
    business.add_order(order, caller_id, 100.0)
    llm = ScriptedLLM()
    session: AgentSession[Any] = AgentSession(llm=llm, vad=None, turn_handling={"turn_detection": None})
    if memory:
        agent, _ = worker.build_call(g, caller, session)
    else:
        agent = Agent(instructions=worker.INSTRUCTIONS, tools=g.bind(caller, session).tools)

    problems: list[str] = []
    pauses = random.Random(caller_id)
    speaking = 0.0  # live: how long the agent's last answer takes to say

    async def turn(words: str, *steps: Any) -> list[tuple[str, bool]]:
        nonlocal speaking
        if pace == "paced":
            await asyncio.sleep(pauses.uniform(*PAUSE_S))
        elif pace == "live":
            await asyncio.sleep(speaking + pauses.uniform(*ANSWER_S))
        llm.add(*steps)
        started = time.perf_counter()
        result: Any = await session.run(user_input=words)
        m.turn_ms.append((time.perf_counter() - started) * 1000)
        speaking = _spoken_s(result)
        return _outputs(result)

    if pace == "live":  # the call comes in somewhere in the arrival window
        await asyncio.sleep(pauses.uniform(0, ARRIVAL_S))
    began = time.time()
    try:
        await session.start(agent)
        asked = await turn(
            f"Please refund 20 on order {order}.", call("issue_refund", order_id=order, amount=20), _question
        )
        if not asked or asked[0][1] or "?" not in asked[0][0]:
            problems.append(f"{caller_id}: no question: {asked}")
        done = await turn("Yes.", call(gate.CONFIRM_TOOL), say("Done."))
        if not done or not done[0][0].startswith("Refunded 20"):
            problems.append(f"{caller_id}: not refunded after yes: {done}")
        refused = await turn(
            f"And refund 500 on {order}.", call("issue_refund", order_id=order, amount=500), say("Sorry.")
        )
        if not refused or not refused[0][1]:
            problems.append(f"{caller_id}: 500 was not refused: {refused}")
    except Exception as exc:  # a session that breaks is an error of the run, not of the bench
        problems.append(f"{caller_id}: {type(exc).__name__}: {exc}")
    finally:
        if memory:
            await agent.flush()
        await session.aclose()
    found = business.order(order)
    if found is None or found.refunded != 20:
        problems.append(f"{caller_id}: order {order} refunded {found.refunded if found else None}, not 20")
    m.errors.extend(problems)
    m.failed += bool(problems)
    m.sessions += 1
    m.spans.append((began, time.time()))


def _timed(decide: Callable[..., Awaitable[Any]], into: list[float]) -> Callable[..., Awaitable[Any]]:
    async def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await decide(*args, **kwargs)
        finally:
            into.append((time.perf_counter() - started) * 1000)

    return timed


async def run_worker(
    home: Path,
    database_url: str | None,
    sessions: int,
    tag: str,
    memory: bool,
    pace: str,
    ready: Callable[[], Awaitable[None]] | None = None,
    service_url: str | None = None,
) -> Measured:
    """One worker process: ``sessions`` concurrent calls through one process-wide Gate.

    Decisions and memory go to the embedded engine, or to the ContextDB Cloud
    double at ``service_url``. Set up as the worker is (the embedder loaded,
    one call made), then ``ready`` is awaited, so that every process starts
    its calls at the same moment.
    """
    import tools
    import worker
    from gate import Gate
    from gate.config import GateSettings

    settings = GateSettings(
        home=home,
        database_url=database_url,
        memory="local" if service_url is None else "cloud",
        embedder="minilm",
        policies=ROOT / "policies",
    )
    business = tools.Business(home)
    tools.use_business(business)
    backend = None
    if service_url is not None:
        from gate.cloud.backend import CloudEngine

        backend = CloudEngine(service_url, DOUBLE_KEY)
    g = Gate(tools.TOOLS, settings=settings, policies=settings.policies, backend=backend)
    m = Measured()
    g.pipeline.decide = _timed(g.pipeline.decide, m.decide_ms)  # type: ignore[method-assign,assignment]
    g.backend.evaluate_action = _timed(g.backend.evaluate_action, m.evidence_ms)  # type: ignore[method-assign,assignment]
    await g.warm()
    worker.prewarm()  # as LiveKit runs it in each worker process before its first call
    g.start()
    # One call first, not measured: the first decisions of a process pay for lazy imports.
    await one_session(g, worker, business, f"warm-{tag}", f"W-{tag}", m, memory=memory, pace="burst")
    m.sessions = 0
    m.spans.clear()
    m.decide_ms.clear()
    m.evidence_ms.clear()
    m.turn_ms.clear()
    if ready is not None:
        await ready()
    cpu_before = time.process_time()
    calls = asyncio.gather(
        *(
            one_session(g, worker, business, f"load-{tag}-{i}", f"O-{tag}-{i}", m, memory=memory, pace=pace)
            for i in range(sessions)
        )
    )
    try:
        await asyncio.wait_for(asyncio.shield(calls), timeout=DEADLINE_S)
    except TimeoutError:
        # A run that hangs says where: every task still waiting, with its stack.
        for task in asyncio.all_tasks():
            if not task.done() and task is not asyncio.current_task():
                print(f"--- still waiting: {task.get_name()}", file=sys.stderr)
                task.print_stack(limit=12, file=sys.stderr)
        raise
    m.cpu_s = time.process_time() - cpu_before
    await g.outbox.drain(reconcile_grace_s=None)
    await g.aclose()
    return m


@dataclass(frozen=True)
class Checked:
    decisions: int
    receipts_ok: bool
    receipt_problems: str
    chain_ok: bool
    recorded_ms: list[float]


def check_ledger(url: str) -> Checked:
    """Exactly one receipt per decision, each delivered exactly once, and the chain verifies."""
    from gate.ledger import Ledger

    ledger = Ledger(url, create=False)
    decisions = ledger.decisions()
    receipts = ledger.receipts()
    per = Counter(r.decision_id for r in receipts)
    missing = [d.id for d in decisions if per[d.id] == 0]
    doubled = [k for k, n in per.items() if n > 1]
    sent = [r for r in receipts if r.service_decision_id is not None]
    settled = [sum(d.state == "delivered" for d in ledger.deliveries(r.id)) for r in sent]
    unsent, resent = settled.count(0), sum(n > 1 for n in settled)
    report = ledger.verify()
    ledger.close()
    problems = (
        f"{len(missing)} without a receipt, {len(doubled)} with more than one, "
        f"{unsent} not delivered, {resent} delivered more than once"
    )
    ok = not missing and not doubled and not unsent and not resent
    measured = [d.latency_ms for d in decisions if not d.caller_id.startswith("warm-")]
    return Checked(len(decisions), ok, problems, report.ok, measured)


def pct(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def p50_95(values: list[float]) -> str:
    return f"{pct(values, 50):.1f} / {pct(values, 95):.1f}"


# -- PostgreSQL on a unix socket, as .ci/run starts it ---------------------------------


class Postgres:
    """A throw-away PostgreSQL server in a temporary directory (run as an unprivileged user when root)."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="gate-load-pg."))
        self.data = self.dir / "data"
        self.as_root = os.geteuid() == 0

    def _run(self, command: str) -> None:
        argv = ["su", PG_USER, "-s", "/bin/bash", "-c", command] if self.as_root else ["bash", "-c", command]
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def __enter__(self) -> str:
        if self.as_root:
            known = subprocess.run(["id", PG_USER], capture_output=True, check=False).returncode == 0
            if not known:
                subprocess.run(["useradd", "--system", "--no-create-home", PG_USER], check=True)
            shutil.chown(self.dir, PG_USER)
        self._run(f"initdb -D '{self.data}' -U postgres --auth=trust")
        options = f"-c listen_addresses='' -k '{self.dir}' -c max_connections=200 -c fsync=off"
        self._run(f"pg_ctl -D '{self.data}' -l '{self.dir}/server.log' -w -o \"{options}\" start")
        return f"postgresql://postgres@/postgres?host={self.dir}"

    def __exit__(self, *exc: object) -> None:
        try:
            self._run(f"pg_ctl -D '{self.data}' -m fast stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


# -- the runs ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str
    sessions: int
    peak: int
    decisions: int
    errors: int
    receipts: str
    chain: str
    recorded: str
    decide: str
    evidence: str
    turn: str
    cpu_ms_per_session: float
    wall_s: float


def _row(name: str, runs: list[Measured], checked: Checked, wall: float) -> Row:
    errors = [e for m in runs for e in m.errors]
    for e in errors[:8]:
        print(f"  error: {e}", file=sys.stderr)
    return Row(
        name=name,
        sessions=sum(m.sessions for m in runs),
        peak=peak_concurrency([(start, end) for m in runs for start, end in m.spans]),
        decisions=checked.decisions,
        errors=sum(m.failed for m in runs),
        receipts=RECEIPTS_OK if checked.receipts_ok else checked.receipt_problems,
        chain="verified" if checked.chain_ok else "BROKEN",
        recorded=p50_95(checked.recorded_ms),
        decide=p50_95([x for m in runs for x in m.decide_ms]),
        evidence=p50_95([x for m in runs for x in m.evidence_ms]),
        turn=p50_95([x for m in runs for x in m.turn_ms]),
        cpu_ms_per_session=1000 * sum(m.cpu_s for m in runs) / max(1, sum(m.sessions for m in runs)),
        wall_s=wall,
    )


def _agent(memory: bool) -> str:
    return "worker's agent" if memory else "gate only"


def _pace(pace: str) -> str:
    if pace == "live":
        return f"live (arrivals over {ARRIVAL_S:g} s)"
    return f"paced {PAUSE_S[0]:g}-{PAUSE_S[1]:g} s" if pace == "paced" else "burst"


def _service(service_url: str | None) -> str:
    return "embedded engine" if service_url is None else "ContextDB Cloud double"


class Double:
    """The ContextDB Cloud contract double in a process of its own, over loopback HTTP."""

    def __enter__(self) -> str:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--double", str(port)], stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError("the ContextDB double did not start")
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(30)


def serve_double(port: int) -> None:
    """Run the double until terminated (the --double mode)."""
    from gate.testing.contextdb import CloudDouble, serve

    with serve(CloudDouble(), port=port):
        print("ready", flush=True)
        threading.Event().wait()


def single(sessions: int, memory: bool, pace: str, service_url: str | None) -> Row:
    home = Path(tempfile.mkdtemp(prefix="gate-load-single."))
    try:
        started = time.perf_counter()
        m = asyncio.run(run_worker(home, None, sessions, "s", memory, pace, service_url=service_url))
        wall = time.perf_counter() - started
        return _row(
            f"1 process x {sessions}, SQLite, {_service(service_url)}, {_agent(memory)}, {_pace(pace)}",
            [m],
            check_ledger(f"sqlite:///{home / 'ledger.db'}"),
            wall,
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)


def shared(processes: int, per_process: int, memory: bool, pace: str, service_url: str | None) -> Row:
    with Postgres() as url:
        from gate.ledger import Ledger

        Ledger(url).close()  # the schema, once, before the workers race to use it
        homes = [Path(tempfile.mkdtemp(prefix=f"gate-load-p{i}.")) for i in range(processes)]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GATE_", "CONTEXTDB_"))}
        children = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    str(home),
                    url,
                    str(per_process),
                    f"p{i}",
                    str(memory),
                    pace,
                    service_url or "-",
                    "--arrivals",
                    f"{ARRIVAL_S:g}",
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                text=True,
            )
            for i, home in enumerate(homes)
        ]
        for child in children:  # every worker is up and warm before any call starts
            assert child.stdout is not None
            child.stdout.readline()
        started = time.perf_counter()
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        runs = []
        for child in children:
            out, _ = child.communicate(timeout=900)
            if child.returncode != 0:
                failed = f"worker process exited {child.returncode}"
                runs.append(Measured(sessions=per_process, errors=[failed], failed=per_process))
                continue
            runs.append(Measured(**json.loads(out.strip().splitlines()[-1])))
        wall = time.perf_counter() - started
        for home in homes:
            shutil.rmtree(home, ignore_errors=True)
        name = (
            f"{processes} processes x {per_process}, one PostgreSQL, {_service(service_url)}, "
            f"{_agent(memory)}, {_pace(pace)}"
        )
        return _row(name, runs, check_ledger(url), wall)


# -- many processes on one GATE_HOME ----------------------------------------------------------

MANY_POLICY = """\
tool: place_order
action: orders.place
caller: {verified: true}
confirm: never
timeout_s: 5.0
messages:
  abstain: "I can't place order {order} on this call."
"""


@dataclass
class Calls:
    """What one process of the many-process run saw."""

    calls: int = 0
    refused: list[str] = field(default_factory=list)
    call_ms: list[float] = field(default_factory=list)  # the whole gated call: decision, tool, receipt
    decide_ms: list[float] = field(default_factory=list)
    cpu_s: float = 0.0
    done_at: float = 0.0  # wall clock when the last call returned


async def run_many_child(home: Path, database_url: str | None, policies: Path, calls: int, tag: str) -> Calls:
    """One worker process making ``calls`` gated calls in turn, after every process is ready."""
    import gate

    @gate.gated_tool
    async def place_order(order: str) -> str:
        """Place the caller's order."""
        return f"placed {order}"

    settings = gate.GateSettings(home=home, database_url=database_url, policies=policies)
    g = gate.Gate([place_order], settings=settings, policies=policies)
    m = Calls()
    g.pipeline.decide = _timed(g.pipeline.decide, m.decide_ms)  # type: ignore[method-assign,assignment]
    await g.warm()
    g.start()
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    caller = gate.Caller(f"caller-{tag}", verified=True)
    cpu_before = time.process_time()
    for j in range(calls):
        bound = g.bind(caller, session_id=f"s-{tag}-{j}")
        started = time.perf_counter()
        try:
            answer = str(await bound.call(place_order, {"order": f"{tag}-{j}"}, None))
        except Exception as exc:  # a refusal (fail closed) is counted, not raised
            answer = f"{type(exc).__name__}: {exc}"
        m.call_ms.append((time.perf_counter() - started) * 1000)
        m.calls += 1
        if not answer.startswith("placed"):
            m.refused.append(f"{tag}-{j}: {answer[:120]}")
    m.cpu_s = time.process_time() - cpu_before
    m.done_at = time.time()
    await g.outbox.drain(reconcile_grace_s=None)
    await g.aclose()
    return m


@dataclass(frozen=True)
class ManyRow:
    name: str
    calls: int
    decided: int
    decisions: int
    receipts: str
    chain: str
    recorded: str
    decide: str
    call: str
    cpu_ms_per_call: float
    wall_s: float


def many(processes: int, calls: int, database_url: str | None) -> ManyRow:
    """``processes`` workers x ``calls`` gated calls on one GATE_HOME (its ledger, or ``database_url``)."""
    tmp = Path(tempfile.mkdtemp(prefix="gate-load-many."))
    try:
        policies = tmp / "policies"
        policies.mkdir()
        (policies / "place_order.yaml").write_text(MANY_POLICY)
        home = tmp / "home"
        home.mkdir()
        url = database_url or f"sqlite:///{home / 'ledger.db'}"
        from gate.ledger import Ledger

        Ledger(url).close()  # the schema, once, as a deployment creates it before its workers start
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GATE_", "CONTEXTDB_"))}
        children = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--many-child",
                    str(home),
                    database_url or "-",
                    str(policies),
                    str(calls),
                    f"m{i}",
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                text=True,
            )
            for i in range(processes)
        ]
        for child in children:  # every worker is up and warm before any call starts
            assert child.stdout is not None
            child.stdout.readline()
        started = time.time()
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        runs = []
        for child in children:
            out, _ = child.communicate(timeout=900)
            if child.returncode != 0:
                runs.append(Calls(calls=calls, refused=[f"worker process exited {child.returncode}"] * calls))
                continue
            runs.append(Calls(**json.loads(out.strip().splitlines()[-1])))
        wall = max((m.done_at for m in runs if m.done_at), default=started) - started
        checked = check_ledger(url)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    refused = [r for m in runs for r in m.refused]
    for r in refused[:8]:
        print(f"  refused: {r}", file=sys.stderr)
    total = sum(m.calls for m in runs)
    where = (
        "one GATE_HOME (SQLite ledger and memory)"
        if database_url is None
        else ("one PostgreSQL ledger, memory in one GATE_HOME (SQLite)")
    )
    return ManyRow(
        name=f"{processes} processes x {calls} gated calls, {where}",
        calls=total,
        decided=total - len(refused),
        decisions=checked.decisions,
        receipts=RECEIPTS_OK if checked.receipts_ok else checked.receipt_problems,
        chain="verified" if checked.chain_ok else "BROKEN",
        recorded=p50_95(checked.recorded_ms),
        decide=p50_95([x for m in runs for x in m.decide_ms]),
        call=p50_95([x for m in runs for x in m.call_ms]),
        cpu_ms_per_call=1000 * sum(m.cpu_s for m in runs) / max(1, total),
        wall_s=wall,
    )


def many_table(rows: list[ManyRow]) -> str:
    head = (
        "| run | calls | decided and carried out within the 5 s budget | decisions | receipts | chain "
        "| decision p50 / p95 ms | decision + ledger write p50 / p95 | the whole call p50 / p95 "
        "| CPU ms per call | all calls done after s |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = [
        f"| {r.name} | {r.calls} | {r.decided} | {r.decisions} | {r.receipts} | {r.chain} | {r.recorded} "
        f"| {r.decide} | {r.call} | {r.cpu_ms_per_call:.0f} | {r.wall_s:.1f} |"
        for r in rows
    ]
    return head + "\n".join(lines)


def table(rows: list[Row]) -> str:
    head = (
        "| run | sessions | most at once | failed sessions | decisions | receipts | chain "
        "| decision p50 / p95 ms "
        "| decision + ledger write p50 / p95 | evidence look-up p50 / p95 | caller's turn p50 / p95 "
        "| CPU ms per session | wall s |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = [
        f"| {r.name} | {r.sessions} | {r.peak} | {r.errors} | {r.decisions} | {r.receipts} | {r.chain} "
        f"| {r.recorded} | {r.decide} | {r.evidence} | {r.turn} "
        f"| {r.cpu_ms_per_session:.0f} | {r.wall_s:.1f} |"
        for r in rows
    ]
    return head + "\n".join(lines)


def main() -> None:
    global ARRIVAL_S
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=50, help="concurrent sessions in the single process")
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--per-process", type=int, default=25)
    parser.add_argument("--skip-postgres", action="store_true")
    parser.add_argument(
        "--pace",
        choices=(*PACES, "all"),
        default="all",
        help="calls arrive over time and callers answer after the agent has spoken (live); callers "
        "pause 0.5-2 s before each turn, all calls at once (paced); no pauses (burst); default all",
    )
    parser.add_argument(
        "--arrivals",
        type=float,
        default=ARRIVAL_S,
        metavar="S",
        help=f"live: each process's calls arrive over this many seconds (default {ARRIVAL_S:g})",
    )
    parser.add_argument(
        "--service",
        choices=("local", "cloud", "both"),
        default="local",
        help="decisions and memory by the embedded engine in each process (local, default), or by "
        "the ContextDB Cloud double in a process of its own (cloud)",
    )
    parser.add_argument(
        "--agent",
        choices=("worker", "gate"),
        default="worker",
        help="worker: worker.py's agent, caller memory on (default); gate: a plain Agent, gated tools",
    )
    parser.add_argument(
        "--child",
        nargs=7,
        metavar=("HOME", "URL", "SESSIONS", "TAG", "MEMORY", "PACE", "SERVICE_URL"),
        help=argparse.SUPPRESS,
    )
    parser.add_argument("--double", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument(
        "--many",
        type=int,
        default=0,
        metavar="N",
        help="also run N worker processes x --many-calls gated calls on one GATE_HOME (SQLite, then "
        "the ledger on PostgreSQL unless --skip-postgres)",
    )
    parser.add_argument("--many-calls", type=int, default=10, metavar="M")
    parser.add_argument("--many-only", action="store_true", help="run only the --many rows")
    parser.add_argument("--many-child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    ARRIVAL_S = args.arrivals
    if args.double:
        serve_double(args.double)
        return
    warnings.simplefilter("ignore")
    # A refused tool call is part of every session's script: LiveKit's error line for it is noise here.
    logging.getLogger("livekit").setLevel(logging.CRITICAL)
    if args.many_child:
        home, url, policies, calls, tag = args.many_child
        import structlog

        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
        result = asyncio.run(
            run_many_child(Path(home), None if url == "-" else url, Path(policies), int(calls), tag)
        )
        print(json.dumps(asdict(result)))
        return
    if args.child:
        home, url, sessions, tag, memory, pace, service_url = args.child

        async def ready() -> None:
            print("ready", flush=True)
            await asyncio.to_thread(sys.stdin.readline)

        m = asyncio.run(
            run_worker(
                Path(home),
                url,
                int(sessions),
                tag,
                memory == "True",
                pace,
                ready,
                None if service_url == "-" else service_url,
            )
        )
        print(json.dumps(asdict(m)))
        return
    memory = args.agent == "worker"
    paces = list(PACES) if args.pace == "all" else [args.pace]
    many_rows = []
    if args.many:
        many_rows.append(many(args.many, args.many_calls, None))
        if not args.skip_postgres:
            with Postgres() as url:
                many_rows.append(many(args.many, args.many_calls, url))
        print(many_table(many_rows))
        failed = any(
            r.decided != r.calls or r.chain != "verified" or r.receipts != RECEIPTS_OK for r in many_rows
        )
        if args.many_only:
            sys.exit(1 if failed else 0)
        if failed:
            sys.exit(1)
    rows = []
    for service in {"local": ["local"], "cloud": ["cloud"], "both": ["local", "cloud"]}[args.service]:
        with contextlib.ExitStack() as stack:
            service_url = None if service == "local" else stack.enter_context(Double())
            rows += [single(args.sessions, memory, pace, service_url) for pace in paces]
            if not args.skip_postgres:
                rows += [
                    shared(args.processes, args.per_process, memory, pace, service_url) for pace in paces
                ]
    print(table(rows))
    if any(r.errors or r.chain != "verified" or r.receipts != RECEIPTS_OK for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
