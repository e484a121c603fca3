"""Decisions a dead process left without a receipt are reconciled, never guessed."""

from __future__ import annotations

from pathlib import Path

import pytest

import gate
from gate import Action, Caller, Executed, gated_tool

CALLER = Caller("alice", verified=True, roles=frozenset({"customer"}))


def policy_dir(tmp_path: Path, tool: str, confirm: str = "never") -> Path:
    d = tmp_path / "pol"
    d.mkdir(exist_ok=True)
    (d / f"{tool}.yaml").write_text(f"tool: {tool}\naction: thing.do\nconfirm: {confirm}\n")
    return d


async def open_decision(g: gate.Gate, tool: gate.GatedTool) -> gate.ledger.DecisionRow:  # type: ignore[name-defined]
    decision = await g.pipeline.decide(
        tool=tool, loaded=g.policy_for(tool), caller=CALLER, session_id="s", args={"n": 1}
    )
    return decision.row  # the process "dies" here: no receipt


@pytest.mark.parametrize(
    ("found", "status", "code", "ref"),
    [
        ("ref-9", "succeeded", None, "ref-9"),
        (Executed("done", "ref-7"), "succeeded", None, "ref-7"),
        (None, "failed", "not_executed", None),
    ],
)
async def test_reconcile_hook_decides(
    home: Path, tmp_path: Path, found: object, status: str, code: str | None, ref: str | None
) -> None:
    asked: list[str] = []

    async def lookup(key: str) -> object:
        asked.append(key)
        return found

    @gated_tool(reconcile=lookup)
    async def do_thing(n: int, action: Action) -> str:
        """Do a thing."""
        return "done"

    g = gate.Gate([do_thing], policies=policy_dir(tmp_path, "do_thing"))
    row = await open_decision(g, do_thing)
    assert row.enforced_outcome == "act"
    assert await g.outbox.reconcile(grace_s=0) == {f"{status}/{code}" if code else status: 1}
    assert asked == [f"gate-{row.id}"]
    receipt = g.ledger.receipt_for(row.id)
    assert receipt is not None and (receipt.status, receipt.error_code, receipt.external_ref) == (
        status,
        code,
        ref,
    )
    assert g.verify().ok
    assert await g.outbox.reconcile(grace_s=0) == {}  # closed exactly once
    await g.aclose()


async def test_without_a_hook_the_outcome_is_unknown(home: Path, tmp_path: Path) -> None:
    @gated_tool
    async def do_thing(n: int) -> str:
        """Do a thing."""
        return "done"

    g = gate.Gate([do_thing], policies=policy_dir(tmp_path, "do_thing"))
    row = await open_decision(g, do_thing)
    await g.outbox.drain(reconcile_grace_s=0)
    receipt = g.ledger.receipt_for(row.id)
    assert receipt is not None and (receipt.status, receipt.error_code) == ("failed", "outcome_unknown")
    assert receipt.delivery_state == "delivered"
    await g.aclose()


async def test_ask_is_closed_as_skipped_and_recent_decisions_wait(home: Path, tmp_path: Path) -> None:
    @gated_tool
    async def do_thing(n: int) -> str:
        """Do a thing."""
        return "done"

    g = gate.Gate([do_thing], policies=policy_dir(tmp_path, "do_thing", confirm="always"))
    row = await open_decision(g, do_thing)
    assert row.outcome == "ask"
    assert await g.outbox.reconcile(grace_s=3600) == {}  # maybe still in flight in a live process
    assert await g.outbox.reconcile(grace_s=0) == {"skipped": 1}
    await g.aclose()


async def test_a_failing_hook_leaves_it_open(home: Path, tmp_path: Path) -> None:
    async def broken(key: str) -> object:
        raise ConnectionError("bookings system down")

    @gated_tool(reconcile=broken)
    async def do_thing(n: int) -> str:
        """Do a thing."""
        return "done"

    g = gate.Gate([do_thing], policies=policy_dir(tmp_path, "do_thing"))
    row = await open_decision(g, do_thing)
    assert await g.outbox.reconcile(grace_s=0) == {}
    assert g.ledger.receipt_for(row.id) is None
    await g.aclose()
