"""What a gated tool adds to a caller's turn, against the same tool as a plain ``@function_tool``.

Real text-mode ``AgentSession`` calls (no room, STT or TTS; a new call every ten
rounds, as a call lasts some tens of turns) with a scripted
model (``gate.testing``): each turn the caller asks, the model calls one tool
once, the tool answers and the model says one sentence. The same tool body is
offered several ways, interleaved turn by turn in one run (each round takes
them in a new random order), so machine noise falls on all of them alike:

  plain      a plain LiveKit ``@function_tool``
  never      ``@gated_tool``, ``confirm: never``, no ``evidence`` section
  recorded   ``@gated_tool``, ``confirm: never``, an ``evidence`` section with
             ``required: false`` (the service's answer is recorded, not required)
  evidence   ``@gated_tool``, ``confirm: never``, an ``evidence`` section with
             ``required: true``: the caller's confirmed memory holding the
             turn's value supports it (written before the turn, not timed)

Each gated turn's decision is written to the ledger before the tool runs and
gets its one receipt (checked at the end, with the chain). The gate is the
default one: the embedded engine with MiniLM and a SQLite ledger in a fresh
GATE_HOME, receipts delivered in the background (``Gate.start()``), the
process set up as the worker sets up each job process (``worker.prewarm``).
Reported: each variant's turn p50 / p95 and its difference from plain
(p50 - p50, p95 - p95), and the event loop thread's CPU time per turn (less
noisy than the wall clock on a shared machine).

``--think SECONDS`` makes each of the model's replies take that long to begin, as a
hosted model's time to its first token does (0, the default: at once, which leaves the
gate no time in which the caller's words can be read before the tool is called). Both
are reported in docs/benchmarks.md.

Run: python bench/turn.py [--rounds 200] [--variants plain,never,recorded,evidence]
                          [--think SECONDS] [--profile FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import logging
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VARIANTS = ("plain", "never", "recorded", "evidence")
# Idle time before each turn (not timed): a caller speaks for seconds between turns, and
# what a turn leaves to the background (its receipt's delivery) runs in that time, as in a call.
GAP_S = 0.15
# Rounds in one call (one AgentSession): a call's history, and so each turn's work, grows with it.
ROUNDS_PER_CALL = 10
POLICIES = {
    "never": """\
tool: {tool}
action: orders.place
caller: {{verified: true}}
confirm: never
timeout_s: 5.0
""",
    "recorded": """\
tool: {tool}
action: orders.place
caller: {{verified: true}}
evidence:
  query: "place order {{order}}"
  required: false
confirm: never
timeout_s: 5.0
""",
    "evidence": """\
tool: {tool}
action: orders.place
caller: {{verified: true}}
evidence:
  query: "place order {{order}}"
  required: true
confirm: never
timeout_s: 5.0
""",
}


def pct(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def build_tools(variants: list[str]) -> tuple[dict[str, Any], list[Any]]:
    """The same body as a plain function tool and as one gated tool per gated variant."""
    from livekit.agents import function_tool

    import gate

    placed: list[str] = []

    async def body(order: str) -> str:
        placed.append(order)
        return f"Placed order {order}."

    names: dict[str, Any] = {}
    gated: list[Any] = []
    for variant in variants:
        name = f"place_order_{variant}"

        async def tool(order: str) -> str:
            """Place the caller's order."""
            return await body(order)

        tool.__name__ = tool.__qualname__ = name
        if variant == "plain":
            names[variant] = function_tool(tool, name=name)
        else:
            names[variant] = gate.gated_tool(tool, name=name)
            gated.append(names[variant])
    return names, gated


async def run(
    rounds: int,
    variants: list[str],
    home: Path,
    profile: Any | None,
    gap_s: float = GAP_S,
    think_s: float = 0.0,
) -> dict[str, Any]:
    from livekit.agents import Agent, AgentSession

    import gate
    from gate.testing.llm import ScriptedLLM, call, say

    policies = home / "policies"
    policies.mkdir(parents=True)
    for variant in variants:
        if variant != "plain":
            tool = f"place_order_{variant}"
            (policies / f"{tool}.yaml").write_text(POLICIES[variant].format(tool=tool))
    settings = gate.GateSettings(home=home / "gate", policies=policies, database_url=None)
    names, gated = build_tools(variants)
    g = gate.Gate(gated, settings=settings, policies=policies)
    await g.warm()
    import worker

    worker.prewarm()  # as LiveKit runs it in each worker process: the model, then the heap settled
    g.start()
    caller = gate.Caller("caller-1", verified=True)
    # The evidence variant's caller: their memory is erased after each of its turns (not timed),
    # so it holds only the one request the turn is about, as a caller's memory does in a call.
    asking = gate.Caller("caller-2", verified=True)
    llm = ScriptedLLM(latency_s=think_s)
    calls: list[tuple[AgentSession[Any], Any]] = []

    async def new_call() -> AgentSession[Any]:
        """A call of its own: a session's history (and the model's copy of it) grows with every turn."""
        session: AgentSession[Any] = AgentSession(llm=llm, vad=None, turn_handling={"turn_detection": None})
        bound = g.bind(caller, session)
        tools = [names["plain"]] if "plain" in names else []
        tools += [
            t
            for t in bound.tools
            if getattr(t, "id", None) not in (gate.CONFIRM_TOOL, "place_order_evidence")
        ]
        if "evidence" in names:
            tools += [
                t for t in g.bind(asking, session).tools if getattr(t, "id", None) == "place_order_evidence"
            ]
        await session.start(Agent(instructions="You place orders.", tools=tools))
        calls.append((session, bound))
        return session

    session = await new_call()
    times: dict[str, list[float]] = {v: [] for v in variants}
    cpus: dict[str, list[float]] = {v: [] for v in variants}  # the event loop thread's CPU in the turn
    problems: Counter[str] = Counter()
    order_no = 0
    shuffle = random.Random(7)

    async def turn(variant: str, timed: bool) -> None:
        nonlocal order_no
        order_no += 1
        order = f"A{order_no:05d}"
        if variant == "evidence":
            # The caller's own confirmed request for this order: the evidence the policy requires.
            memory_id = await g.backend.remember(
                asking.id,
                f"please place order {order}",
                source="user_stated",
                confidence=0.9,
                action_relevant=True,
            )
            await g.backend.confirm(asking.id, memory_id, idempotency_key=f"bench-confirm-{memory_id}")
        if gap_s:
            await asyncio.sleep(gap_s)
        llm.add(call(f"place_order_{variant}", order=order), say("Done."))
        if profile is not None and timed:
            profile.enable()
        started, cpu = time.perf_counter(), time.thread_time()
        result = await session.run(user_input=f"Please place order {order}.")
        elapsed = (time.perf_counter() - started) * 1000
        spent = (time.thread_time() - cpu) * 1000
        if profile is not None and timed:
            profile.disable()
        outputs = [e.item.output for e in result.events if e.type == "function_call_output"]
        if outputs != [f"Placed order {order}."]:
            problems[f"{variant}: {outputs}"] += 1
        if timed:
            times[variant].append(elapsed)
            cpus[variant].append(spent)
        if variant == "evidence":
            await g.forget(asking.id)

    for _ in range(3):  # lazy imports and first connections, not measured
        for variant in variants:
            await turn(variant, timed=False)
    for n in range(rounds):
        if n and n % ROUNDS_PER_CALL == 0:
            await session.aclose()
            llm.seen.clear()
            session = await new_call()
        order = list(variants)
        shuffle.shuffle(order)
        for variant in order:
            await turn(variant, timed=True)
    for _, bound in calls:
        await bound.flush()
    await session.aclose()
    await g.aclose()
    ledger = gate.Ledger(settings.ledger_url(), create=False)
    try:
        decisions = ledger.decisions()
        receipts = Counter(r.decision_id for r in ledger.receipts())
        one_each = all(receipts[d.id] == 1 for d in decisions) and len(receipts) == len(decisions)
        chain = ledger.verify().ok
    finally:
        ledger.close()
    return {
        "times": times,
        "cpus": cpus,
        "problems": problems,
        "decisions": len(decisions),
        "one_each": one_each,
        "chain": chain,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--gap", type=float, default=GAP_S, help="idle seconds before each turn (not timed)")
    parser.add_argument(
        "--think", type=float, default=0.0, help="seconds each model reply takes to begin (default 0)"
    )
    parser.add_argument("--profile", metavar="FILE", help="write a cProfile of the timed turns to FILE")
    args = parser.parse_args()
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = set(variants) - set(VARIANTS)
    if unknown or "plain" not in variants:
        parser.error(f"--variants: plain and any of {', '.join(VARIANTS[1:])}")
    warnings.simplefilter("ignore")
    logging.getLogger("livekit").setLevel(logging.CRITICAL)
    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    home = Path(tempfile.mkdtemp(prefix="gate-bench-turn."))
    profile = cProfile.Profile() if args.profile else None
    try:
        out = asyncio.run(run(args.rounds, variants, home, profile, args.gap, args.think))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    if profile is not None:
        profile.dump_stats(args.profile)
    times, cpus = out["times"], out["cpus"]
    base50, base95 = pct(times["plain"], 50), pct(times["plain"], 95)
    cpu50 = pct(cpus["plain"], 50)
    print(
        "| tool | turns | turn p50 / p95 ms | over plain p50 / p95 ms "
        "| event loop CPU per turn p50 ms | over plain |"
    )
    print("|---|---|---|---|---|---|")
    for variant in variants:
        t, c = times[variant], cpus[variant]
        p50, p95 = pct(t, 50), pct(t, 95)
        over = "" if variant == "plain" else f"{p50 - base50:+.1f} / {p95 - base95:+.1f}"
        more = "" if variant == "plain" else f"{pct(c, 50) - cpu50:+.1f}"
        print(f"| {variant} | {len(t)} | {p50:.1f} / {p95:.1f} | {over} | {pct(c, 50):.1f} | {more} |")
    print(
        f"decisions {out['decisions']}, one receipt each: {out['one_each']}, chain verified: {out['chain']}, "
        f"wrong outputs: {sum(out['problems'].values())}"
    )
    for problem, n in out["problems"].most_common(5):
        print(f"  {n} x {problem}", file=sys.stderr)
    if out["problems"] or not out["one_each"] or not out["chain"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
