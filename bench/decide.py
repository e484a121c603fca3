"""Gate decision latency against the stock verify-before-act rule, on the same data, both evidence paths.

For N memories of one caller (among other callers' memories), on the embedded
engine with the MiniLM embedder gate ships, it measures per path:
  gate      a whole gate decision: policy, evidence (query embedded, memories
            judged), decision row and chain entry in the ledger
  evidence  the evidence look-up alone (inside the gate decision)
  overhead  gate minus evidence
  stock     contextdb's VerifyBeforeAct.decide for the same question
and, once per size: the query embedding alone (the engine keeps a rendered
query's vector, so a repeated query is embedded once), the per-caller index
search alone, and the engine's own recall (top 20, as of now) that the index
replaces on the query path.

Paths: "slot" (policy names an exact memory slot: book_visit) and "query"
(no slot: the caller's memories closest in meaning to the query,
schedule_delivery). The bulk of the memories is written straight to the
engine's store with vectors embedded once per distinct sentence (the engine's
own write path costs 30-60 ms a memory); the supporting memories go through
the normal write path.

With ``--busy`` every size is measured twice on the same data: as above, and
then with one other CPU-bound process running on the machine (a second
interpreter spinning), as a worker shares its cores with other calls.

Run: python bench/decide.py [--sizes 1000,10000] [--samples 200] [--paths slot,query] [--busy]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import structlog

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import contextdb  # noqa: E402
from contextdb.core.models import MemoryItem  # noqa: E402

import gate  # noqa: E402
from gate.evidence import EvidenceSlot, ServiceDecision  # noqa: E402
from gate.memory.embedder import MiniLMEmbedder  # noqa: E402

_FRESH = itertools.count()  # new texts to embed, across every size measured
from gate.memory.local import LocalMemory  # noqa: E402

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Saturday"]
TOPICS = [
    "my dog",
    "the garden fence",
    "the boiler",
    "my last invoice",
    "parking at the back",
    "the gate code",
    "our holiday in May",
    "the neighbour's tree",
    "my broadband speed",
    "the kitchen tap",
    "a loyalty card",
    "the app login",
    "my daughter's school run",
    "the gas meter",
    "a leaking radiator",
    "the spare key",
]
SHAPES = [
    "I mentioned {t} last time",
    "remind me about {t} next week",
    "{t} has been fine lately",
    "can you note that {t} needs looking at",
    "i was asking about {t} earlier",
    "please keep {t} on my file",
]
QUESTION = {"slot": "book a home visit on Friday", "query": "deliver the parcel on Friday"}


def corpus() -> tuple[list[str], list[str]]:
    """Distinct caller statements: earlier wishes for other days (said once) and chit-chat (repeated)."""
    wishes = [f"I'd like my visit on {d}" for d in DAYS] + [f"please deliver my parcel on {d}" for d in DAYS]
    chat = [shape.format(t=t) for shape, t in itertools.product(SHAPES, TOPICS)]
    return wishes, chat


class Timed:
    """The engine, with each evaluation's duration kept."""

    def __init__(self, inner: gate.LocalEngine) -> None:
        self.inner = inner
        self.name = "local"
        self.times: list[float] = []

    async def evaluate_action(
        self,
        partition: str,
        query: str,
        *,
        top_k: int = 5,
        slot: EvidenceSlot | None = None,
        match: Sequence[Any] | Mapping[str, Any] = (),
    ) -> ServiceDecision:
        t = time.perf_counter()
        try:
            return await self.inner.evaluate_action(partition, query, top_k=top_k, slot=slot, match=match)
        finally:
            self.times.append((time.perf_counter() - t) * 1000)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def seed(engine: gate.LocalEngine, caller: str, n: int, others: int) -> None:
    wishes, chat = corpus()
    vectors = await engine._judge_embedder.embed(wishes + chat)
    await engine.db._ensure_init()
    store = engine.db._require_store()
    said = list(zip(wishes, vectors, strict=False))
    pool = list(zip(chat, vectors[len(wishes) :], strict=True))
    rows = said + [pool[k % len(pool)] for k in range(n - 2 - len(said))]
    rows += [(said + pool)[j % (len(said) + len(pool))] for j in range(others)]
    owners = [caller] * (n - 2 - len(said) + len(said)) + [f"other-{j % 50}" for j in range(others)]
    for (text, vector), who in zip(rows, owners, strict=True):
        await store.add(
            MemoryItem(
                content=text,
                embedding=list(vector),
                user_id=who,
                epistemic_source="user_stated",
                confidence=0.9,
                action_relevant=True,
            )
        )
    # The supporting memories, through the engine's own write path (slot inferred, negation read).
    await engine.remember(caller, "I'd like my visit on Friday", source="user_stated", confidence=0.9)
    await engine.remember(
        caller,
        "can you drop the parcel off on friday",
        source="user_stated",
        confidence=0.9,
        action_relevant=True,
    )


def pct(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[int(q) - 1] if len(xs) > 1 else xs[0]


async def timed(fn: Any, samples: int, warmup: int = 3) -> list[float]:
    out: list[float] = []
    for i in range(samples + warmup):
        t = time.perf_counter()
        await fn()
        if i >= warmup:
            out.append((time.perf_counter() - t) * 1000)
    return out


async def run_size(
    n: int, paths: list[str], samples: int, stock_samples: int, others: int, busy: bool = False
) -> list[tuple[str, dict[str, dict[str, list[float]]]]]:
    from contextdb.integrations.act import VerifyBeforeAct

    home = Path(tempfile.mkdtemp(prefix=f"gate-bench-{n}-"))
    settings = gate.GateSettings(home=home, database_url=None, policies=ROOT / "bench" / "policies")
    settings.ensure_home()
    ledger = gate.Ledger(settings.ledger_url())
    engine = gate.LocalEngine(settings.memory_url(), ledger, embedding_provider=MiniLMEmbedder())
    t = time.perf_counter()
    await seed(engine, "alice", n, others)
    print(f"  seeded {n} + {others} memories in {time.perf_counter() - t:.0f}s", file=sys.stderr)

    async def read_calendar() -> gate.State:
        return gate.State(version=1)

    @gate.gated_tool(state=read_calendar)
    async def book_visit(day: str) -> str:
        """Book a home visit."""
        return day

    @gate.gated_tool
    async def schedule_delivery(day: str) -> str:
        """Schedule the parcel delivery."""
        return day

    timed_backend = Timed(engine)
    g = gate.Gate(
        [book_visit, schedule_delivery],
        settings=settings,
        policies=settings.policies,
        ledger=ledger,
        backend=timed_backend,
        memory=LocalMemory(engine),
    )
    caller = gate.Caller("alice", verified=True)
    stock_vba = VerifyBeforeAct(engine.db)
    runs: list[tuple[str, dict[str, dict[str, list[float]]]]] = []
    try:
        for load in ["quiet", "busy"] if busy else ["quiet"]:
            results: dict[str, dict[str, list[float]]] = {}
            with spinning(load == "busy"):
                await measure(
                    g,
                    engine,
                    caller,
                    stock_vba,
                    timed_backend,
                    paths,
                    samples,
                    stock_samples,
                    results,
                    tools={"slot": book_visit, "query": schedule_delivery},
                )
            runs.append((load, results))
    finally:
        await g.aclose()
    return runs


@contextlib.contextmanager
def spinning(on: bool) -> Iterator[None]:
    """With ``on``: one other CPU-bound process runs for the block (the machine's other work)."""
    if not on:
        yield
        return
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)  # running before the first sample
        yield
    finally:
        spinner.kill()
        spinner.wait()


async def measure(
    g: gate.Gate,
    engine: gate.LocalEngine,
    caller: gate.Caller,
    stock_vba: Any,
    timed_backend: Timed,
    paths: list[str],
    samples: int,
    stock_samples: int,
    results: dict[str, dict[str, list[float]]],
    *,
    tools: dict[str, gate.GatedTool],
) -> None:
    for path in paths:
        tool = tools[path]
        loaded = g.policy_for(tool)
        timed_backend.times.clear()

        async def decide(tool: gate.GatedTool = tool, loaded: Any = loaded) -> None:
            d = await g.pipeline.decide(
                tool=tool, loaded=loaded, caller=caller, session_id="bench", args={"day": "Friday"}
            )
            assert d.outcome == "act", d.trace

        total = await timed(decide, samples)
        evidence = timed_backend.times[3:]

        async def stock(question: str = QUESTION[path]) -> None:
            await stock_vba.decide(question, user_id="alice")

        results[path] = {
            "gate": total,
            "evidence": evidence,
            "overhead": [a - b for a, b in zip(total, evidence, strict=True)],
            "stock": await timed(stock, stock_samples),
        }

    async def embed() -> None:
        # A new text each time: the embedder keeps recent vectors, and the model is what is measured.
        await engine._judge_embedder.embed([f"{QUESTION['query']} {next(_FRESH)}"], urgent=True)

    async def recall() -> None:
        await engine.db.factual.recall(
            QUESTION["query"], top_k=20, as_of=contextdb.utc_now(), user_id="alice"
        )

    vector = await engine._vector(QUESTION["query"])

    async def search() -> None:
        await engine.index.search("alice", vector, 10, min_score=0.3, exclude_suspects=True)

    results["once"] = {
        "embed": await timed(embed, samples),
        "search": await timed(search, samples),
        "recall": await timed(recall, stock_samples),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--paths", default="slot,query")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--stock-samples", type=int, default=40)
    parser.add_argument("--others", type=int, default=1000, help="memories of other callers")
    parser.add_argument(
        "--busy", action="store_true", help="measure again with one other CPU-bound process running"
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    paths = [p.strip() for p in args.paths.split(",") if p.strip()]
    print(
        "| memories | path | machine | gate p50 / p95 ms | evidence p50 / p95 | gate overhead p50 / p95 | "
        "stock VerifyBeforeAct p50 / p95 | stock / gate (p95) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    once: list[str] = []

    def cell(xs: list[float]) -> str:
        return f"{pct(xs, 50):.1f} / {pct(xs, 95):.1f}"

    for size in (int(s) for s in args.sizes.split(",")):
        runs = asyncio.run(run_size(size, paths, args.samples, args.stock_samples, args.others, args.busy))
        for load, r in runs:
            machine = "one other CPU-bound process" if load == "busy" else "as it is"
            for path in paths:
                p = r[path]
                ratio = pct(p["stock"], 95) / pct(p["gate"], 95)
                print(
                    f"| {size:,} | {path} | {machine} | {cell(p['gate'])} | {cell(p['evidence'])} | "
                    f"{cell(p['overhead'])} | {cell(p['stock'])} | {ratio:.1f}x |",
                    flush=True,
                )
            once.append(
                f"{size:,} memories ({machine}): query embedding {cell(r['once']['embed'])} ms; "
                f"per-caller index search {cell(r['once']['search'])} ms; "
                f"engine recall top 20 {cell(r['once']['recall'])} ms"
            )
    for line in once:
        print(line)


if __name__ == "__main__":
    main()
