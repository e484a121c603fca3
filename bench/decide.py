"""Gate decision latency against the stock verify-before-act rule, on the same data.

For N memories of one caller (among other callers' memories) it measures:
  gate     a whole gate decision: policy, slot-scoped evidence, ledger writes
  evidence the evidence look-up alone (inside the gate decision)
  overhead gate minus evidence: policy, digests, decision row and chain entry
  stock    contextdb's VerifyBeforeAct.decide for the same question

Run: python bench/decide.py [--sizes 1000,10000] [--samples 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import structlog

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gate  # noqa: E402
from gate.evidence import EvidenceSlot, ServiceDecision  # noqa: E402
from gate.memory.local import LocalMemory  # noqa: E402

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
TOPICS = ["dog", "garden", "boiler", "invoice", "parking", "gate code", "holiday", "neighbour"]


class Timed:
    """The engine, with each evaluation's duration kept."""

    def __init__(self, inner: gate.LocalEngine) -> None:
        self.inner, self.name, self.times = inner, "local", []  # type: list[float]

    async def evaluate_action(
        self,
        partition: str,
        query: str,
        *,
        top_k: int = 5,
        slot: EvidenceSlot | None = None,
        match: Sequence[str] = (),
    ) -> ServiceDecision:
        t = time.perf_counter()
        try:
            return await self.inner.evaluate_action(partition, query, top_k=top_k, slot=slot, match=match)
        finally:
            self.times.append((time.perf_counter() - t) * 1000)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def seed(engine: gate.LocalEngine, caller: str, n: int, others: int) -> None:
    for i in range(n):
        if i % 10 == 0:
            text = f"I'd like my visit on {DAYS[(i // 10) % 5]}"
        else:
            text = f"Note {i}: the caller talked about the {TOPICS[i % len(TOPICS)]} ({i})"
        await engine.remember(caller, text, source="user_stated", confidence=0.9)
    await engine.remember(caller, "I'd like my visit on Friday", source="user_stated", confidence=0.9)
    for j in range(others):
        await engine.remember(
            f"other-{j % 50}", f"I'd like my visit on {DAYS[j % 5]}", source="user_stated", confidence=0.9
        )


def pct(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[int(q) - 1] if len(xs) > 1 else xs[0]


async def run_size(n: int, samples: int, stock_samples: int, others: int) -> dict[str, list[float]]:
    from contextdb.integrations.act import VerifyBeforeAct

    home = Path(tempfile.mkdtemp(prefix=f"gate-bench-{n}-"))
    settings = gate.GateSettings(home=home, database_url=None, policies=ROOT / "bench" / "policies")
    settings.ensure_home()
    ledger = gate.Ledger(settings.ledger_url())
    engine = gate.LocalEngine(settings.memory_url(), ledger)
    t = time.perf_counter()
    await seed(engine, "alice", n, others)
    print(f"  seeded {n} + {others} memories in {time.perf_counter() - t:.0f}s", file=sys.stderr)

    async def read_calendar() -> gate.State:
        return gate.State(version=1)

    @gate.gated_tool(state=read_calendar)
    async def book_visit(day: str) -> str:
        """Book a home visit."""
        return day

    timed = Timed(engine)
    g = gate.Gate(
        [book_visit],
        settings=settings,
        policies=settings.policies,
        ledger=ledger,
        backend=timed,
        memory=LocalMemory(engine),
    )
    caller = gate.Caller("alice", verified=True)
    loaded = g.policy_for(book_visit)
    total: list[float] = []
    for i in range(samples + 5):
        t = time.perf_counter()
        d = await g.pipeline.decide(
            tool=book_visit, loaded=loaded, caller=caller, session_id="bench", args={"day": "Friday"}
        )
        elapsed = (time.perf_counter() - t) * 1000
        assert d.outcome == "act", d.trace
        if i >= 5:
            total.append(elapsed)
    evidence = timed.times[5:]
    overhead = [a - b for a, b in zip(total, evidence, strict=True)]
    stock_vba = VerifyBeforeAct(engine.db)
    stock: list[float] = []
    for i in range(stock_samples + 2):
        t = time.perf_counter()
        await stock_vba.decide("book a home visit on Friday", user_id="alice")
        if i >= 2:
            stock.append((time.perf_counter() - t) * 1000)
    slot_read: list[float] = []
    for _ in range(samples):
        t = time.perf_counter()
        await engine.db.factual.recall_for_action(
            "visit", entity="caller", attribute="preferred_visit_day", user_id="alice"
        )
        slot_read.append((time.perf_counter() - t) * 1000)
    await g.aclose()
    return {"gate": total, "evidence": evidence, "overhead": overhead, "stock": stock, "slot_read": slot_read}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--stock-samples", type=int, default=40)
    parser.add_argument("--others", type=int, default=1000, help="memories of other callers")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    print(
        "| memories | gate p50 / p95 ms | evidence p50 / p95 | gate overhead p50 / p95 | "
        "stock VerifyBeforeAct p50 / p95 | slot recall_for_action p50 / p95 | stock / gate (p95) |"
    )
    print("|---|---|---|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        r = asyncio.run(run_size(size, args.samples, args.stock_samples, args.others))

        def cell(k: str, r: dict[str, list[float]] = r) -> str:
            return f"{pct(r[k], 50):.1f} / {pct(r[k], 95):.1f}"

        ratio = pct(r["stock"], 95) / pct(r["gate"], 95)
        print(
            f"| {size:,} | {cell('gate')} | {cell('evidence')} | {cell('overhead')} | {cell('stock')} | "
            f"{cell('slot_read')} | {ratio:.1f}x |",
            flush=True,
        )


if __name__ == "__main__":
    main()
