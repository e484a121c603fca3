"""Many worker processes on one machine: one GATE_HOME, every call decided, one receipt each.

LiveKit runs each call in a job process of its own, so a machine with a
dozen calls in progress has a dozen processes writing the same SQLite files
(the ledger and the embedded engine's memory). Sixteen processes start
together and each makes ten gated calls (``confirm: never``, a 5 s budget):
every call must be decided and carried out (none refused for running out of
time), every decision must have exactly one receipt, delivered once, the
ledger's chain must verify, and so must the engine's own audit chain, which
the gate's short transactions append to.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import gate

PROCESSES = 16
CALLS = 10
POLICY = """\
tool: place_order
action: orders.place
caller: {verified: true}
confirm: never
timeout_s: 5.0
messages:
  abstain: "I can't place order {order} on this call."
"""


def _worker(home: str, ledger_url: str | None, policies: str, index: int, barrier: Any, out: Any) -> None:
    os.environ["GATE_HOME"] = home
    os.environ["GATE_EMBEDDER"] = "mock"
    os.environ.pop("CONTEXTDB_API_KEY", None)
    if ledger_url is None:
        os.environ.pop("GATE_DATABASE_URL", None)
    else:
        os.environ["GATE_DATABASE_URL"] = ledger_url

    @gate.gated_tool
    async def place_order(order: str) -> str:
        """Place the caller's order."""
        return f"placed {order}"

    async def run() -> list[str]:
        g = gate.Gate([place_order], policies=policies)
        caller = gate.Caller(f"caller-{index}", verified=True)
        results = []
        try:
            await asyncio.to_thread(barrier.wait)  # every process starts its calls at once
            for j in range(CALLS):
                bound = g.bind(caller, session_id=f"session-{index}-{j}")
                try:
                    results.append(str(await bound.call(place_order, {"order": f"{index}-{j}"}, None)))
                except Exception as exc:  # a refusal is a result here: the test asserts there are none
                    results.append(f"{type(exc).__name__}: {exc}")
                await bound.flush()
        finally:
            await g.aclose()
        return results

    try:
        out.put((index, asyncio.run(run())))
    except Exception as exc:
        out.put((index, [f"{type(exc).__name__}: {exc}"]))


def _run(tmp_path: Path, ledger_url: str | None) -> None:
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "place_order.yaml").write_text(POLICY)
    home = tmp_path / "home"
    home.mkdir()
    ctx = mp.get_context("forkserver")
    # Children fork from a server that imported gate once, instead of each importing it.
    ctx.set_forkserver_preload(["gate", "gate.gate", "gate.session", "gate.backends.local"])
    barrier, out = ctx.Barrier(PROCESSES), ctx.Queue()
    args = (str(home), ledger_url, str(policies))
    procs = [ctx.Process(target=_worker, args=(*args, i, barrier, out)) for i in range(PROCESSES)]
    for p in procs:
        p.start()
    try:
        results = dict(out.get(timeout=300) for _ in procs)
        for p in procs:
            p.join(60)
        stuck = [i for i, p in enumerate(procs) if p.is_alive()]
        assert not stuck, f"processes {stuck} did not exit after their gate closed"
    finally:
        for p in procs:  # a stuck process must not keep the test run from ending
            if p.is_alive():
                p.kill()
    refused = {i: [r for r in rs if not r.startswith("placed")] for i, rs in results.items()}
    assert {i: rs for i, rs in refused.items() if rs} == {}
    assert sorted(len(rs) for rs in results.values()) == [CALLS] * PROCESSES

    ledger = gate.Ledger(ledger_url or f"sqlite:///{home / 'ledger.db'}", create=False)
    try:
        decisions = ledger.decisions()
        receipts = ledger.receipts()
        assert len(decisions) == PROCESSES * CALLS
        assert {d.outcome for d in decisions} == {"act"}
        assert sorted(r.decision_id for r in receipts) == sorted(d.id for d in decisions)
        assert {(r.status, r.policy_alignment) for r in receipts} == {("succeeded", "aligned")}
        delivered = Counter(r.id for r in receipts for d in ledger.deliveries(r.id) if d.state == "delivered")
        assert set(delivered.values()) == {1} and len(delivered) == len(receipts)
        report = ledger.verify()
        assert report.ok, report.first_broken
    finally:
        ledger.close()
    with sqlite3.connect(home / "memory.db") as conn:
        # Each call's request is on record with the decision service, as the caller's own.
        (requests,) = conn.execute(
            "SELECT count(*) FROM memories WHERE content LIKE 'I request: orders.place order %' "
            "AND confirmed = 1 AND embedding IS NOT NULL"
        ).fetchone()
        sequences = [seq for (seq,) in conn.execute("SELECT sequence FROM audit_log ORDER BY sequence")]
    assert requests == PROCESSES * CALLS
    assert sequences == list(range(1, len(sequences) + 1))  # one chain, no fork
    assert asyncio.run(_engine_chain_verifies(home, ledger_url or f"sqlite:///{home / 'ledger.db'}"))


async def _engine_chain_verifies(home: Path, ledger_url: str) -> bool:
    ledger = gate.Ledger(ledger_url, create=False)
    engine = gate.LocalEngine(f"sqlite:///{home / 'memory.db'}", ledger)
    try:
        await engine.db._ensure_init()
        audit = engine.db.audit
        return audit is not None and await audit.verify_chain()
    finally:
        await engine.aclose()
        ledger.close()


def test_sixteen_processes_on_one_sqlite_home(tmp_path: Path) -> None:
    _run(tmp_path, None)


@pytest.mark.postgres
def test_sixteen_processes_on_one_postgres_ledger_and_one_memory_file(
    pg_database: str, tmp_path: Path
) -> None:
    gate.Ledger(pg_database).close()  # the schema, as a deployment creates it before its workers start
    _run(tmp_path, pg_database)
