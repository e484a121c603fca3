"""Per-reply memory latency, and the cost of saving an exchange.

For N memories of one caller (among other callers'), on the embedded engine
with the default MiniLM embedder, it measures:
  reply     what a reply waits for: MemoryAgent's look-up and block rendering
            (``CallerMemory.recall`` + ``render_block``), under its 300 ms budget
  baseline  a plain engine recall (``factual.recall``) of the same question
  save      saving one exchange (caller's words + agent's words), off the reply path

Run: python bench/memory.py [--sizes 1000,10000] [--samples 100]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import structlog

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gate.backends.local import LocalEngine  # noqa: E402
from gate.ledger import Ledger  # noqa: E402
from gate.memory.agent import CallerMemory  # noqa: E402
from gate.memory.base import render_block  # noqa: E402
from gate.memory.embedder import MiniLMEmbedder  # noqa: E402
from gate.memory.local import LocalMemory  # noqa: E402

TOPICS = [
    "dog",
    "boiler",
    "invoice",
    "parking",
    "gate code",
    "holiday",
    "neighbour",
    "garden",
    "fridge",
    "van",
]
QUESTIONS = [
    "What's the name of my pet?",
    "Which day suits me for the visit?",
    "Where should the bills go?",
    "Is there somewhere to park?",
    "What was wrong with the heating?",
]


def pct(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[q - 1]


async def run_size(n: int, samples: int, others: int) -> dict[str, list[float]]:
    home = Path(tempfile.mkdtemp(prefix=f"gate-bench-memory-{n}-"))
    ledger = Ledger(f"sqlite:///{home / 'ledger.db'}")
    engine = LocalEngine(f"sqlite:///{home / 'memory.db'}", ledger, embedding_provider=MiniLMEmbedder())
    store = LocalMemory(engine)
    started = time.perf_counter()
    save: list[float] = []
    for i in range(n // 2):
        topic = TOPICS[i % len(TOPICS)]
        t = time.perf_counter()
        await store.save_exchange(
            "alice",
            f"About the {topic}: detail number {i} that I mentioned.",
            f"Noted about the {topic} ({i}).",
        )
        save.append((time.perf_counter() - t) * 1000)
    await store.remember("alice", "My dog is called Rex.", source="user_stated", confidence=0.9)
    for j in range(others):
        await store.remember(
            f"other-{j % 20}", f"My dog is called Max {j}.", source="user_stated", confidence=0.9
        )
    print(f"  seeded {n} + {others} memories in {time.perf_counter() - started:.0f}s", file=sys.stderr)
    memory = CallerMemory(store, "alice")
    reply: list[float] = []
    baseline: list[float] = []
    for i in range(samples + 3):
        question = QUESTIONS[i % len(QUESTIONS)]
        t = time.perf_counter()
        render_block(await memory.recall(question, top_k=5))
        r = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        await engine.db.factual.recall(question, top_k=5, user_id="alice")
        b = (time.perf_counter() - t) * 1000
        if i >= 3:
            reply.append(r)
            baseline.append(b)
    await engine.aclose()
    return {"reply": reply, "baseline": baseline, "save": save[-200:]}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--others", type=int, default=500)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    print(
        "| memories | per-reply look-up p50 / p95 ms | plain engine recall p50 / p95 | reply / plain (p95) "
        "| save an exchange p50 / p95 | over the 300 ms budget |"
    )
    print("|---|---|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        r = asyncio.run(run_size(size, args.samples, args.others))

        def cell(k: str, r: dict[str, list[float]] = r) -> str:
            return f"{pct(r[k], 50):.1f} / {pct(r[k], 95):.1f}"

        over = sum(x > 300 for x in r["reply"])
        ratio = pct(r["reply"], 95) / pct(r["baseline"], 95)
        print(
            f"| {size:,} | {cell('reply')} | {cell('baseline')} | {ratio:.2f}x | {cell('save')} "
            f"| {over} of {len(r['reply'])} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
