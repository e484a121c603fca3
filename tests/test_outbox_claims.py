"""Drains of several processes on one ledger share the receipts: each is sent once and settled once."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from gate.cloud.backend import CloudEngine
from gate.ledger import Ledger, ReceiptRow
from gate.outbox import Outbox
from gate.testing.contextdb import CloudDouble
from tests.conftest import cloud_engine, pg_url
from tests.test_ledger import decision_row


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ledger.db'}"
    if pg_url() is None:
        pytest.skip("GATE_TEST_PG_URL is not set")
    return str(request.getfixturevalue("pg_database"))


@pytest.fixture
def ledgers(url: str) -> Iterator[list[Ledger]]:
    """Two openings of one ledger, as two worker processes have."""
    opened = [Ledger(url), Ledger(url)]
    yield opened
    for ledger in opened:
        ledger.close()


def pending_receipts(ledger: Ledger, double: CloudDouble, count: int) -> list[ReceiptRow]:
    """``count`` receipts waiting for delivery, each for a decision the service knows."""
    written = []
    for i in range(count):
        decision = decision_row()
        ledger.record_decision(decision)
        service_id = f"dec_{uuid.uuid4().hex}"
        double.decisions[service_id] = {"user_id": "alice", "outcome": "act"}
        receipt = ReceiptRow(
            id=f"gr_{uuid.uuid4().hex}",
            decision_id=decision.id,
            idempotency_key=f"receipt-{decision.id}",
            created_at=time.time() + i * 1e-3,
            caller_id="alice",
            action_name="booking.create",
            status="succeeded",
            service_decision_id=service_id,
        )
        written.append(ledger.record_receipt(receipt).receipt)
    return written


def outbox(ledger: Ledger, double: CloudDouble, **options: float) -> Outbox:
    return Outbox(ledger, cloud_engine(double), attempt_timeout_s=2.0, **options)  # type: ignore[arg-type]


async def test_drains_at_once_send_each_receipt_once(
    ledgers: list[Ledger], double: CloudDouble, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("gate.outbox._CLAIM", 5)  # small claims, so both drains get some
    receipts = pending_receipts(ledgers[0], double, 30)
    double.faults.delay_s = 0.005  # each send takes a moment, so the drains overlap
    drains = [outbox(ledger, double) for ledger in ledgers]
    reports = await asyncio.gather(*(d.drain(reconcile_grace_s=None) for d in drains))
    assert sum(r.delivered for r in reports) == 30
    assert all(r.delivered > 0 for r in reports), "both drains took a share"
    assert Counter(double.faults.seen)["/v1/receipts"] == 30
    for receipt in receipts:
        assert [d.state for d in ledgers[0].deliveries(receipt.id)] == ["delivered"]
    assert ledgers[0].undelivered() == []
    assert ledgers[1].verify().ok


async def test_a_held_receipt_waits_for_its_lease(ledgers: list[Ledger], double: CloudDouble) -> None:
    (receipt,) = pending_receipts(ledgers[0], double, 1)
    first, second = outbox(ledgers[0], double, lease_s=60.0), outbox(ledgers[1], double)
    # The first drain claims it and finds the service down: it stays pending, held by that drain.
    double.faults.unavailable = 1
    report = await first.drain(reconcile_grace_s=None, attempts=1)
    assert report.pending == 1
    # Another process's drain leaves it alone while the lease runs ...
    assert (await second.drain(reconcile_grace_s=None)).delivered == 0
    assert Counter(double.faults.seen)["/v1/receipts"] == 1
    # ... the holder itself tries again whenever it drains ...
    assert (await first.drain(reconcile_grace_s=None)).delivered == 1
    assert [d.state for d in ledgers[1].deliveries(receipt.id)] == ["pending", "delivered"]


async def test_a_lease_that_ran_out_is_taken_over(ledgers: list[Ledger], double: CloudDouble) -> None:
    pending_receipts(ledgers[0], double, 3)
    dead = outbox(ledgers[0], double, lease_s=0.05)
    # A drain claims, then its process dies before sending anything.
    assert len(await ledgers[0].aclaim_undelivered(dead.owner, lease_s=0.05)) == 3
    survivor = outbox(ledgers[1], double)
    assert (await survivor.drain(reconcile_grace_s=None)).delivered == 0
    await asyncio.sleep(0.1)
    assert (await survivor.drain(reconcile_grace_s=None)).delivered == 3


async def test_an_operators_drain_takes_held_receipts(ledgers: list[Ledger], double: CloudDouble) -> None:
    pending_receipts(ledgers[0], double, 2)
    worker = outbox(ledgers[0], double)
    assert len(await ledgers[0].aclaim_undelivered(worker.owner, lease_s=600.0)) == 2
    operator = outbox(ledgers[1], double)
    report = await operator.drain(reconcile_grace_s=None, take_held=True)
    assert report.delivered == 2
    # The worker's drain, still holding them, finds nothing left to send.
    assert (await worker.drain(reconcile_grace_s=None)).delivered == 0
    assert Counter(double.faults.seen)["/v1/receipts"] == 2


async def test_a_drain_claims_in_batches_until_the_queue_is_empty(
    ledgers: list[Ledger], double: CloudDouble, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("gate.outbox._CLAIM", 4)
    pending_receipts(ledgers[0], double, 10)
    report = await outbox(ledgers[0], double).drain(reconcile_grace_s=None)
    assert report.delivered == 10 and ledgers[0].undelivered() == []


async def test_a_refused_key_reports_everything_still_waiting(
    ledgers: list[Ledger], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("gate.outbox._CLAIM", 4)
    service = CloudDouble(api_key_prefix="cdb_live_")  # a revoked key no longer gets in
    pending_receipts(ledgers[0], service, 10)
    revoked = CloudEngine(
        "http://contextdb.test", "cdb_revoked", transport=httpx.ASGITransport(app=service.app)
    )
    report = await Outbox(ledgers[0], revoked).drain(reconcile_grace_s=None)
    assert report.credentials is not None and "401" in report.credentials
    assert (report.delivered, report.pending) == (0, 10)
    assert ledgers[1].count_undelivered() == 10
    assert Counter(service.faults.seen)["/v1/receipts"] == 1  # refused once, not tried again
