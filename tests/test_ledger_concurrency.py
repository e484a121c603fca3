"""Many processes on one ledger: they wait for each other instead of failing.

Eight processes start at once on a fresh database (so they also race to
create its schema) and each makes twenty gated calls through the public
API. Every call must succeed, every decision must have its one receipt, and
the chain must verify.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
from pathlib import Path
from typing import Any

import pytest

import gate
from gate import Action, Caller, gated_tool

PROCESSES = 8
CALLS = 20
POLICY = """\
tool: book_visit
action: booking.create
mode: enforce
caller: {verified: true}
evidence:
  query: "book a home visit on {day}"
  slot: {entity: caller, attribute: preferred_visit_day, value: "{day}"}
  required: true
confirm: when_unsure
timeout_s: 30.0
messages:
  ask: "Just to confirm: book your visit on {day}?"
  abstain: "I can't book {day} on this call."
"""


@gated_tool
async def book_visit(day: str, action: Action) -> str:
    """Book a home visit."""
    return f"booked {day} ({action.idempotency_key})"


def _worker(url: str, home: str, policies: str, index: int, barrier: Any, out: Any) -> None:
    os.environ["GATE_HOME"] = home
    os.environ["GATE_EMBEDDER"] = "mock"
    os.environ.pop("CONTEXTDB_API_KEY", None)
    caller = Caller(f"caller-{index}", verified=True)

    async def run() -> list[str]:
        g = gate.Gate([book_visit], policies=policies, ledger=gate.Ledger(url))
        try:
            await g.backend.remember(
                caller.id, "I'd like my visit on Thursday", source="user_stated", confidence=0.9
            )
            results = []
            for j in range(CALLS):
                # A new session per call: the same call twice in one session is answered once.
                bound = g.bind(caller, session_id=f"session-{index}-{j}")
                results.append(str(await bound.call(book_visit, {"day": "Thursday"}, None)))
                await bound.flush()
            return results
        finally:
            await g.aclose(flush_timeout_s=1)

    barrier.wait()  # every process opens the fresh ledger at the same moment
    try:
        out.put((index, asyncio.run(run())))
    except Exception as exc:
        out.put((index, [f"{type(exc).__name__}: {exc}"]))


def _run_eight(url: str, tmp_path: Path) -> None:
    policies = tmp_path / "policies"
    policies.mkdir()
    (policies / "book_visit.yaml").write_text(POLICY)
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(PROCESSES), ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(url, str(tmp_path / f"home-{i}"), str(policies), i, barrier, out))
        for i in range(PROCESSES)
    ]
    for p in procs:
        p.start()
    results = dict(out.get(timeout=300) for _ in procs)
    for p in procs:
        p.join(60)
    failed = {i: [r for r in rs if not r.startswith("booked Thursday")] for i, rs in results.items()}
    assert {i: rs for i, rs in failed.items() if rs} == {}
    assert all(len(rs) == CALLS for rs in results.values())
    ledger = gate.Ledger(url, create=False)
    try:
        decisions = ledger.decisions()
        receipts = ledger.receipts()
        assert len(decisions) == PROCESSES * CALLS
        assert sorted(r.decision_id for r in receipts) == sorted(d.id for d in decisions)
        assert {r.status for r in receipts} == {"succeeded"}
        report = ledger.verify()
        assert report.ok, report.first_broken
    finally:
        ledger.close()


def test_eight_processes_on_one_fresh_sqlite_ledger_all_succeed(tmp_path: Path) -> None:
    _run_eight(f"sqlite:///{tmp_path / 'ledger.db'}", tmp_path)


@pytest.mark.postgres
def test_eight_processes_on_one_fresh_postgres_ledger_all_succeed(pg_database: str, tmp_path: Path) -> None:
    _run_eight(pg_database, tmp_path)
