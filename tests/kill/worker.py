"""A process making gated calls against the hosted double; the kill test SIGKILLs it at random.

Each start first does what a restarted worker does: reconcile the decisions
a dead predecessor left open and deliver the receipts it did not. Then it
ships items, one gated call each, each with a real, idempotent side effect
in its own SQLite file.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from pathlib import Path

import gate
from gate import Action, Caller, Executed, gated_tool
from gate.cloud.backend import CloudEngine


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--calls", type=int, default=10_000)
    args = parser.parse_args()
    asyncio.run(run(args.url, args.home, args.calls))


async def run(url: str, home: Path, calls: int) -> None:
    # stdout carries only "ready"/"done" for the parent: gate itself prints nothing.
    effects = sqlite3.connect(home / "effects.db", isolation_level=None)
    effects.execute("PRAGMA journal_mode=WAL")
    effects.execute("CREATE TABLE IF NOT EXISTS shipped (key TEXT PRIMARY KEY, item INTEGER NOT NULL)")

    async def lookup(key: str) -> str | None:
        row = effects.execute("SELECT rowid FROM shipped WHERE key = ?", (key,)).fetchone()
        return f"shipment-{row[0]}" if row else None

    @gated_tool(reconcile=lookup)
    async def ship_item(item: int, action: Action) -> Executed:
        """Ship one item."""
        found = await lookup(action.idempotency_key)
        if found is None:
            effects.execute("INSERT INTO shipped (key, item) VALUES (?, ?)", (action.idempotency_key, item))
            found = await lookup(action.idempotency_key)
        await asyncio.sleep(0.002)  # the effect is durable; the receipt is not written yet
        return Executed(f"shipped {item}", external_ref=found)

    settings = gate.GateSettings(home=home)
    backend = CloudEngine(url, "cdb_kill_test", timeout_s=5.0)
    g = gate.Gate([ship_item], policies=Path(__file__).parent, settings=settings, backend=backend)
    await g.outbox.drain(reconcile_grace_s=0)  # this is the only worker: anything open is dead
    await g.warm()  # the embedder loads before the first call, not inside it
    print("ready", flush=True)
    start = effects.execute("SELECT COALESCE(MAX(item), 0) FROM shipped").fetchone()[0] + 1
    session = g.bind(Caller("alice", verified=True), session_id=f"kill-{start}")
    for item in range(start, start + calls):
        await session.call(ship_item, {"item": item}, None)
    await g.aclose()
    print("done", flush=True)
    sys.exit(0)


if __name__ == "__main__":
    main()
