"""ContextDB Cloud through the official client against the contract double, with faults switched on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from livekit.agents import Agent, AgentSession
from typer.testing import CliRunner

import gate
from gate.cli import app
from gate.cloud.backend import CloudEngine
from gate.outbox import Outbox
from gate.testing.contextdb import CloudDouble
from gate.testing.llm import ScriptedLLM, call, say
from tests.conftest import ALICE, POLICIES, Calendar, cloud_engine, make_tools


class Sleeps:
    """Records the outbox's waits instead of sleeping through them."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
async def cloud(home: Path, calendar: Calendar, double: CloudDouble) -> AsyncIterator[gate.Gate]:
    g = gate.Gate(make_tools(calendar), policies=POLICIES, backend=cloud_engine(double))
    g.outbox = Outbox(g.ledger, g.backend, sleep=Sleeps(), attempt_timeout_s=0.5)
    g.pipeline.outbox = g.outbox
    yield g
    await g.aclose(flush_timeout_s=1)


async def book_thursday(g: gate.Gate, *, confidence: float = 0.9) -> Any:
    await g.backend.remember(
        "alice", "I'd like my visit on Thursday", source="user_stated", confidence=confidence
    )
    llm = ScriptedLLM([call("book_visit", day="Thursday"), say("ok")])
    session: AgentSession[Any] = AgentSession(llm=llm, vad=None, turn_handling={"turn_detection": None})
    bound = g.bind(ALICE, session)
    await session.start(Agent(instructions="x", tools=bound.tools))
    result = await session.run(user_input="Book Thursday.")
    await bound.flush()  # the receipt's first delivery try goes on after the reply
    await session.aclose()
    return [e.item.output for e in result.events if e.type == "function_call_output"]


def only_receipt(g: gate.Gate) -> gate.ledger.ReceiptRow:  # type: ignore[name-defined]
    (receipt,) = g.ledger.receipts()
    return receipt


async def test_503_is_retried_until_delivered(
    cloud: gate.Gate, calendar: Calendar, double: CloudDouble
) -> None:
    double.faults.paths = ("/v1/receipts",)
    double.faults.unavailable = 1
    assert await book_thursday(cloud) == ["Booked Thursday."]
    # The inline try failed; the outbox delivers it.
    receipt = only_receipt(cloud)
    assert (receipt.delivery_state, receipt.attempts) == ("pending", 1)
    assert "503" in (receipt.last_error or "")
    report = await cloud.outbox.drain(reconcile_grace_s=None)
    assert report.delivered == 1
    receipt = only_receipt(cloud)
    assert receipt.delivery_state == "delivered" and receipt.attempts == 2
    assert double.receipts_for(receipt.service_decision_id or "") == 1


async def test_429_honours_retry_after(cloud: gate.Gate, double: CloudDouble) -> None:
    await book_thursday(cloud)
    receipt = only_receipt(cloud)
    assert receipt.delivery_state == "delivered"
    # A fresh receipt for a new decision, against a rate-limited service.
    double.faults.paths = ("/v1/receipts",)
    double.faults.rate_limited, double.faults.retry_after_s = 2, 7
    decision = await cloud.backend.evaluate_action("alice", "book Friday", match=["Friday"])
    row = gate.ledger.ReceiptRow(  # type: ignore[attr-defined]
        id="gr_test429",
        decision_id="gd_test429",
        idempotency_key=f"receipt-{decision.decision_id}",
        created_at=0.0,
        caller_id="alice",
        action_name="booking.create",
        status="skipped",
        service_decision_id=decision.decision_id,
    )
    sleeps = cloud.outbox._sleep
    assert isinstance(sleeps, Sleeps)
    assert await cloud.outbox.deliver(row) == "delivered"
    assert sleeps.waits[:2] and all(w >= 7 for w in sleeps.waits[:2])
    assert double.receipts_for(decision.decision_id) == 1


async def test_slow_service_fails_closed_and_the_late_answer_is_ignored(
    cloud: gate.Gate, calendar: Calendar, double: CloudDouble
) -> None:
    double.faults.paths = ("/v1/recall_for_action",)
    double.faults.delay_s = 3.0  # the policy's budget is 1 s
    outputs = await book_thursday(cloud)
    assert outputs[0].startswith("I can't book Thursday on this call.")
    assert calendar.booked == {}
    (d,) = cloud.ledger.decisions()
    assert (d.outcome, d.rule, d.service_decision_id) == ("abstain", "evidence.timeout", None)
    receipt = only_receipt(cloud)
    assert (receipt.status, receipt.delivery_state) == ("skipped", "local")


async def test_lost_receipt_response_is_replayed_not_duplicated(
    cloud: gate.Gate, calendar: Calendar, double: CloudDouble
) -> None:
    double.faults.paths = ("/v1/receipts",)
    double.faults.lose, double.faults.lost_for_s = 1, 5.0  # processed, but the answer never comes
    assert await book_thursday(cloud) == ["Booked Thursday."]
    receipt = only_receipt(cloud)
    assert receipt.delivery_state == "pending" and "TimeoutError" in (receipt.last_error or "")
    await cloud.outbox.drain(reconcile_grace_s=None)
    receipt = only_receipt(cloud)
    assert receipt.delivery_state == "delivered"
    assert double.receipts_for(receipt.service_decision_id or "") == 1
    assert len(double.receipts) == 1 and len(calendar.effects) == 1


async def test_outage_then_drain_from_the_command_line(
    cloud: gate.Gate, calendar: Calendar, double: CloudDouble, monkeypatch: pytest.MonkeyPatch
) -> None:
    double.faults.paths = ("/v1/receipts",)
    double.faults.unavailable = 1000
    assert await book_thursday(cloud) == ["Booked Thursday."]
    report = await cloud.outbox.drain(reconcile_grace_s=None, attempts=3)
    assert (report.delivered, report.pending, report.credentials) == (0, 1, None)
    (failure,) = report.failures
    assert (failure.state, failure.cause) == ("pending", "ServiceError: 503 unavailable: service unavailable")
    assert only_receipt(cloud).attempts == 4
    double.faults.unavailable = 0
    monkeypatch.setattr("gate.gate._default_backend", lambda settings, ledger: cloud_engine(double))
    # The command runs its own event loop, as it does from a shell.
    result = await asyncio.to_thread(CliRunner().invoke, app, ["receipts", "drain", "--grace", "0"])
    assert result.exit_code == 0, result.output
    assert "delivered 1, still pending 0" in result.output
    assert only_receipt(cloud).delivery_state == "delivered"


@pytest.mark.parametrize(("status", "state"), [(400, "rejected"), (404, "rejected")])
async def test_4xx_is_never_retried(cloud: gate.Gate, double: CloudDouble, status: int, state: str) -> None:
    await book_thursday(cloud)
    receipt = only_receipt(cloud)
    receipt.idempotency_key = "bad key!" if status == 400 else receipt.idempotency_key
    receipt.service_decision_id = receipt.service_decision_id if status == 400 else "dec_unknown"
    receipt.id = "gr_other"  # a copy outside the ledger: only its delivery outcome matters
    before = len(double.faults.seen)
    assert await cloud.outbox.deliver(receipt) == state
    assert len(double.faults.seen) - before == 1


async def test_conflicting_409_is_flagged(cloud: gate.Gate, double: CloudDouble) -> None:
    double.faults.paths = ("/v1/receipts",)
    double.faults.unavailable = 1
    await book_thursday(cloud)
    receipt = only_receipt(cloud)
    assert receipt.delivery_state == "pending" and receipt.service_decision_id is not None
    # Meanwhile another writer closed the decision at the service under another key:
    # our receipt is flagged, never dropped.
    double.receipts[receipt.service_decision_id] = {"decision_id": receipt.service_decision_id}
    assert await cloud.outbox.deliver(receipt) == "conflict"
    stored = cloud.ledger.receipt_for(receipt.decision_id)
    assert stored is not None and stored.delivery_state == "conflict"
    assert "receipt_exists" in (stored.last_error or "")
    assert cloud.ledger.undelivered() == []


async def test_a_receipt_is_settled_once(cloud: gate.Gate, double: CloudDouble) -> None:
    """Another process sending a receipt already delivered adds no second record to the chain."""
    await book_thursday(cloud)
    receipt = only_receipt(cloud)
    assert receipt.delivery_state == "delivered"
    records = cloud.ledger.deliveries(receipt.id)
    assert await cloud.outbox.deliver(receipt) == "delivered"  # the service replays its answer
    assert cloud.ledger.deliveries(receipt.id) == records
    assert cloud.ledger.verify().ok
    assert double.receipts_for(receipt.service_decision_id or "") == 1


class KeyCheck(httpx.AsyncBaseTransport):
    """The hosted service's front door: only the project's own key gets in (401 otherwise)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, key: str) -> None:
        self.inner, self.key = inner, key

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.headers.get("authorization") != f"Bearer {self.key}":
            body = {"code": "unauthorized", "message": "invalid API key", "request_id": "req_401"}
            return httpx.Response(401, json=body)
        return await self.inner.handle_async_request(request)


async def test_a_refused_api_key_keeps_receipts_for_the_right_key(
    cloud: gate.Gate, double: CloudDouble, monkeypatch: pytest.MonkeyPatch
) -> None:
    double.faults.paths = ("/v1/receipts",)
    double.faults.unavailable = 1000
    assert await book_thursday(cloud) == ["Booked Thursday."]

    def drain_with(key: str) -> Any:
        transport = KeyCheck(httpx.ASGITransport(app=double.app), "cdb_test_key")
        engine = CloudEngine("http://contextdb.test", key, transport=transport)
        monkeypatch.setattr("gate.gate._default_backend", lambda settings, ledger: engine)
        return CliRunner().invoke(app, ["receipts", "drain", "--grace", "0", "--attempts", "2"])

    # Still down: the failure names its cause.
    outage = await asyncio.to_thread(drain_with, "cdb_test_key")
    assert outage.exit_code == 1
    (receipt,) = cloud.ledger.receipts()
    assert (
        f"receipt {receipt.id} (decision {receipt.decision_id}) pending: ServiceError: 503" in outage.stderr
    )

    # Up again, but the key is wrong: one try, one line, nothing given up.
    double.faults.unavailable = 0
    before = len(double.faults.seen)
    refused = await asyncio.to_thread(drain_with, "cdb_wrong_key")
    assert refused.exit_code == 1
    (line,) = refused.stderr.splitlines()
    assert line.startswith("gate: ContextDB rejected the API key (401)")
    assert len(double.faults.seen) == before  # refused at the door, never retried
    assert only_receipt(cloud).delivery_state == "pending"
    assert "still pending 1" in refused.stdout

    # The right key delivers what the wrong one left.
    fixed = await asyncio.to_thread(drain_with, "cdb_test_key")
    assert fixed.exit_code == 0, fixed.output
    assert "delivered 1, still pending 0" in fixed.stdout
    receipt = only_receipt(cloud)
    assert receipt.delivery_state == "delivered" and receipt.policy_alignment == "aligned"
    history = [(v.state, v.error or "") for v in cloud.ledger.deliveries(receipt.id)]
    assert [state for state, _ in history][-2:] == ["pending", "delivered"]
    assert "rejected the API key (401)" in history[-2][1]
    assert cloud.ledger.verify().ok
