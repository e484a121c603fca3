"""The audit ledger: exactly one receipt per decision, and a chain that names tampering."""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

import gate
from gate.ledger import DecisionRow, ReceiptRow


def pg_url() -> str | None:
    # Read here rather than from the shared fixtures: worker processes import this
    # module, and it must stay light for them to start quickly.
    return os.environ.get("GATE_TEST_PG_URL")


def decision_row(**overrides: Any) -> DecisionRow:
    values: dict[str, Any] = dict(
        id=f"gd_{uuid.uuid4().hex}",
        created_at=time.time(),
        session_id="s1",
        caller_id="alice",
        caller_json="{}",
        tool="book_visit",
        action_name="booking.create",
        args_json='{"day":"Friday"}',
        args_digest="sha256:x",
        action_digest="sha256:y",
        policy_name="book_visit",
        policy_hash="sha256:z",
        mode="enforce",
        outcome="act",
        enforced_outcome="act",
        rule="evidence",
        trace_json="[]",
        evidence_json="{}",
        latency_ms=1.0,
    )
    values.update(overrides)
    return DecisionRow(**values)


def receipt_row(decision_id: str, key: str | None = None, status: str = "succeeded") -> ReceiptRow:
    return ReceiptRow(
        id=f"gr_{uuid.uuid4().hex}",
        decision_id=decision_id,
        idempotency_key=key or f"receipt-{decision_id}",
        created_at=time.time(),
        caller_id="alice",
        action_name="booking.create",
        status=status,
    )


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[gate.Ledger]:
    led = gate.Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    yield led
    led.close()


def test_receipt_is_written_once_and_replayed(ledger: gate.Ledger) -> None:
    d = decision_row()
    ledger.record_decision(d)
    first = ledger.record_receipt(receipt_row(d.id))
    again = ledger.record_receipt(receipt_row(d.id))
    assert first.created and not again.created and again.receipt.id == first.receipt.id
    with pytest.raises(gate.ReceiptConflict):
        ledger.record_receipt(receipt_row(d.id, status="failed"))
    with pytest.raises(gate.ReceiptConflict):
        ledger.record_receipt(receipt_row(d.id, key="another-key"))
    assert len(ledger.receipts()) == 1
    assert ledger.verify().ok


def _fill(ledger: gate.Ledger, n: int = 5) -> list[DecisionRow]:
    rows = [decision_row() for _ in range(n)]
    for row in rows:
        ledger.record_decision(row)
        ledger.record_receipt(receipt_row(row.id))
    return rows


def test_verify_passes_on_an_untouched_ledger(ledger: gate.Ledger) -> None:
    _fill(ledger)
    report = ledger.verify()
    assert report.ok and report.checked == 10


def test_verify_names_an_edited_record(ledger: gate.Ledger) -> None:
    rows = _fill(ledger)
    with ledger.engine.begin() as conn:
        conn.execute(
            text("UPDATE gate_decisions SET outcome='act', rule='forged' WHERE id=:i"), {"i": rows[2].id}
        )
    report = ledger.verify()
    assert not report.ok and report.first_broken is not None
    assert report.first_broken.ref_id == rows[2].id and report.first_broken.seq == 5
    assert "changed after it was recorded" in str(report.first_broken)


def test_verify_names_an_edited_chain_entry(ledger: gate.Ledger) -> None:
    _fill(ledger)
    with ledger.engine.begin() as conn:
        conn.execute(text("UPDATE gate_chain SET digest='sha256:forged' WHERE seq=4"))
    report = ledger.verify()
    assert report.first_broken is not None and report.first_broken.seq == 4
    assert "does not match its hash" in report.first_broken.reason


def test_verify_names_a_deleted_entry(ledger: gate.Ledger) -> None:
    _fill(ledger)
    with ledger.engine.begin() as conn:
        conn.execute(text("DELETE FROM gate_chain WHERE seq=3"))
    report = ledger.verify()
    assert report.first_broken is not None and report.first_broken.seq == 3
    assert "missing" in report.first_broken.reason


def test_verify_names_a_deleted_record(ledger: gate.Ledger) -> None:
    rows = _fill(ledger)
    with ledger.engine.begin() as conn:
        conn.execute(text("DELETE FROM gate_receipts WHERE decision_id=:i"), {"i": rows[1].id})
    report = ledger.verify()
    assert report.first_broken is not None and report.first_broken.reason == "receipt was deleted"
    assert report.first_broken.seq == 4


def test_verify_names_reordered_entries(ledger: gate.Ledger) -> None:
    _fill(ledger)
    with ledger.engine.begin() as conn:
        conn.execute(text("UPDATE gate_chain SET seq=-1 WHERE seq=6"))
        conn.execute(text("UPDATE gate_chain SET seq=6 WHERE seq=7"))
        conn.execute(text("UPDATE gate_chain SET seq=7 WHERE seq=-1"))
    report = ledger.verify()
    assert report.first_broken is not None and report.first_broken.seq == 6
    assert "does not follow" in report.first_broken.reason


def _race(url: str, decision_id: str, index: int, same_key: bool, barrier: Any, out: Any) -> None:
    led = gate.Ledger(url, create=False)
    key = f"receipt-{decision_id}" if same_key else f"receipt-{decision_id}-{index}"
    barrier.wait()
    try:
        out.put("created" if led.record_receipt(receipt_row(decision_id, key=key)).created else "replayed")
    except gate.ReceiptConflict:
        out.put("conflict")
    finally:
        led.close()


def _race_eight(url: str, same_key: bool) -> None:
    ledger = gate.Ledger(url)
    d = decision_row()
    ledger.record_decision(d)
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(8), ctx.Queue()
    procs = [ctx.Process(target=_race, args=(url, d.id, i, same_key, barrier, out)) for i in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    results = sorted(out.get(timeout=5) for _ in procs)
    assert results.count("created") == 1
    assert set(results) - {"created"} == ({"replayed"} if same_key else {"conflict"})
    assert [r.decision_id for r in ledger.receipts()] == [d.id]
    assert ledger.verify().ok
    ledger.close()


@pytest.mark.parametrize("same_key", [True, False])
def test_eight_processes_racing_on_sqlite_leave_one_receipt(tmp_path: Path, same_key: bool) -> None:
    _race_eight(f"sqlite:///{tmp_path / 'race.db'}", same_key)


@pytest.mark.postgres
@pytest.mark.parametrize("same_key", [True, False])
def test_eight_processes_racing_on_postgres_leave_one_receipt(pg_database: str, same_key: bool) -> None:
    _race_eight(pg_database, same_key)


def test_verify_names_a_confirmation_set_back(ledger: gate.Ledger) -> None:
    from gate.ledger import ConfirmationRow

    row = ConfirmationRow(
        id="gc_1",
        decision_id="gd_1",
        created_at=time.time(),
        expires_at=time.time() + 60,
        session_id="s",
        caller_id="alice",
        tool="book_visit",
        action_digest="sha256:a",
        memory_ids_json="[]",
        status="pending",
    )
    ledger.record_confirmation(row)
    first_seq = row.chain_seq
    ledger.answer_confirmation("gc_1", status="declined", words="no", message_id="m1")
    assert ledger.verify().ok
    with ledger.engine.begin() as conn:
        conn.execute(
            text(
                "UPDATE gate_confirmations SET status='pending', words=NULL, answered_at=NULL, "
                "answer_message_id=NULL, chain_seq=:s WHERE id='gc_1'"
            ),
            {"s": first_seq},
        )
    report = ledger.verify()
    assert report.first_broken is not None
    assert report.first_broken.reason == "confirmation was set back to an earlier version"


@pytest.mark.parametrize("parallel", [False, True])
def test_parallel_and_serial_verification_agree(ledger: gate.Ledger, parallel: bool) -> None:
    rows = _fill(ledger, 4)
    assert ledger.verify(parallel=parallel).ok
    with ledger.engine.begin() as conn:
        conn.execute(
            text("UPDATE gate_receipts SET external_ref='forged' WHERE decision_id=:i"), {"i": rows[3].id}
        )
        conn.execute(text("UPDATE gate_decisions SET rule='forged' WHERE id=:i"), {"i": rows[1].id})
    report = ledger.verify(parallel=parallel)
    assert report.first_broken is not None
    assert (report.first_broken.seq, report.first_broken.ref_id) == (3, rows[1].id)


# -- everything an auditor reads is chained -------------------------------------------


def _delivered(ledger: gate.Ledger, n: int = 3) -> list[tuple[DecisionRow, ReceiptRow]]:
    """Decisions with receipts that were tried once (503) and then acknowledged."""
    made = []
    for _ in range(n):
        d = decision_row(service_decision_id=f"sd_{uuid.uuid4().hex[:8]}")
        ledger.record_decision(d)
        r = receipt_row(d.id)
        r.service_decision_id = d.service_decision_id
        ledger.record_receipt(r)
        ledger.record_delivery(r.id, state="pending", error="ServiceError: 503 unavailable: later")
        ledger.record_delivery(
            r.id, state="delivered", policy_alignment="violated", service_receipt_id="rc_1"
        )
        made.append((d, r))
    return made


def test_delivery_history_is_read_back_from_its_records(ledger: gate.Ledger) -> None:
    ((d, r),) = _delivered(ledger, 1)
    stored = ledger.receipt_for(d.id)
    assert stored is not None
    assert (stored.delivery_state, stored.attempts, stored.policy_alignment) == ("delivered", 2, "violated")
    assert [v.state for v in ledger.deliveries(r.id)] == ["pending", "delivered"]
    assert ledger.undelivered() == []
    again = ledger.record_receipt(receipt_row(d.id))  # a retry after a crash sees where it stands
    assert not again.created and again.receipt.delivery_state == "delivered"
    assert ledger.verify().ok


# (table, column, forged value): every column `gate audit show` displays.
EDITS = [
    ("gate_deliveries", "policy_alignment", "'aligned'"),
    ("gate_deliveries", "state", "'rejected'"),
    ("gate_deliveries", "service_receipt_id", "'rc_forged'"),
    ("gate_deliveries", "error", "'forged'"),
    ("gate_deliveries", "at", "0.5"),
    ("gate_deliveries", "attempt", "7"),
    ("gate_deliveries", "service_decision_id", "'sd_forged'"),
    ("gate_receipts", "status", "'skipped'"),
    ("gate_receipts", "external_ref", "'ref-forged'"),
    ("gate_receipts", "error_code", "'forged'"),
    ("gate_receipts", "service_decision_id", "NULL"),
    ("gate_receipts", "idempotency_key", "'receipt-forged'"),
    ("gate_decisions", "outcome", "'abstain'"),
    ("gate_decisions", "rule", "'forged'"),
    ("gate_decisions", "args_json", "'{}'"),
    ("gate_decisions", "evidence_json", '\'{"outcome": "act"}\''),
    ("gate_decisions", "trace_json", "'[{}]'"),
    ("gate_decisions", "policy_hash", "'sha256:forged'"),
    ("gate_decisions", "caller_json", '\'{"id": "mallory"}\''),
    ("gate_decisions", "latency_ms", "0.1"),
]


@pytest.mark.parametrize(("table", "column", "value"), EDITS, ids=[f"{t}.{c}" for t, c, _ in EDITS])
def test_editing_any_column_an_auditor_reads_fails_verify(
    ledger: gate.Ledger, table: str, column: str, value: str
) -> None:
    made = _delivered(ledger)
    assert ledger.verify().ok
    # The second decision's records; for deliveries, its acknowledgement.
    d, r = made[1]
    where = {
        "gate_deliveries": ("receipt_id = :ref AND state = 'delivered'", r.id),
        "gate_receipts": ("id = :ref", r.id),
        "gate_decisions": ("id = :ref", d.id),
    }[table]
    with ledger.engine.begin() as conn:
        seq = conn.execute(
            text(f"SELECT chain_seq, id FROM {table} WHERE {where[0]}"), {"ref": where[1]}
        ).one()
        conn.execute(text(f"UPDATE {table} SET {column} = {value} WHERE {where[0]}"), {"ref": where[1]})
    report = ledger.verify()
    assert report.first_broken is not None
    assert (report.first_broken.seq, report.first_broken.ref_id) == (seq[0], seq[1])
    assert "changed after it was recorded" in report.first_broken.reason


def test_deleting_a_delivery_record_fails_verify(ledger: gate.Ledger) -> None:
    made = _delivered(ledger)
    (ack,) = [v for v in ledger.deliveries(made[0][1].id) if v.state == "delivered"]
    with ledger.engine.begin() as conn:
        conn.execute(text("DELETE FROM gate_deliveries WHERE id = :i"), {"i": ack.id})
    report = ledger.verify()
    assert report.first_broken is not None
    assert (report.first_broken.seq, report.first_broken.ref_id) == (ack.chain_seq, ack.id)
    assert report.first_broken.reason == "delivery was deleted"


def test_reordering_delivery_records_fails_verify(ledger: gate.Ledger) -> None:
    made = _delivered(ledger)
    first, second = ledger.deliveries(made[0][1].id)
    # Swap which entry each record claims: the acknowledgement now looks like the first try.
    with ledger.engine.begin() as conn:
        conn.execute(text("UPDATE gate_deliveries SET chain_seq = -1 WHERE id = :i"), {"i": first.id})
        conn.execute(
            text("UPDATE gate_deliveries SET chain_seq = :s WHERE id = :i"),
            {"s": first.chain_seq, "i": second.id},
        )
        conn.execute(
            text("UPDATE gate_deliveries SET chain_seq = :s WHERE id = :i"),
            {"s": second.chain_seq, "i": first.id},
        )
    report = ledger.verify()
    assert report.first_broken is not None
    assert (report.first_broken.seq, report.first_broken.ref_id) == (first.chain_seq, second.id)
    assert report.first_broken.reason == "delivery is not in the chain"


def test_a_delivery_added_behind_the_chains_back_fails_verify(ledger: gate.Ledger) -> None:
    made = _delivered(ledger)
    with ledger.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO gate_deliveries (id, receipt_id, at, attempt, state, policy_alignment) "
                "VALUES ('gv_forged', :r, 1.0, 3, 'delivered', 'aligned')"
            ),
            {"r": made[2][1].id},
        )
    report = ledger.verify()
    assert report.first_broken is not None
    assert report.first_broken.ref_id == "gv_forged" and "not in the chain" in report.first_broken.reason


# -- reservations for rate limits -------------------------------------------------------


def test_count_executed_holds_running_succeeded_and_unknown_releases_the_rest(ledger: gate.Ledger) -> None:
    since = time.time() - 60

    def decided(outcome: str = "act") -> DecisionRow:
        d = decision_row(outcome=outcome, enforced_outcome=outcome)
        assert ledger.record_decision(d)
        return d

    running = decided()
    done = decided()
    ledger.record_receipt(receipt_row(done.id))
    unknown = decided()
    ledger.record_receipt(_failed(unknown, "outcome_unknown"))
    assert ledger.count_executed("alice", "book_visit", since) == 3
    not_run = decided()
    ledger.record_receipt(_failed(not_run, "not_executed"))
    skipped = decided()
    ledger.record_receipt(receipt_row(skipped.id, status="skipped"))
    decided("ask")
    assert ledger.count_executed("alice", "book_visit", since) == 3
    assert ledger.count_executed("alice", "book_visit", since, until=running.created_at) == 0
    assert not ledger.record_decision(decision_row(), reserve=(3, since))
    assert ledger.record_decision(decision_row(), reserve=(4, since))
    assert ledger.count_executed("bob", "book_visit", since) == 0


async def test_an_event_loop_counts_on_its_own_thread_and_a_busy_file_on_a_pool_thread(
    ledger: gate.Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    since = time.time() - 60
    for outcome in ("act", "act", "ask"):
        assert ledger.record_decision(decision_row(outcome=outcome, enforced_outcome=outcome))
    hops: list[str] = []
    to_thread = asyncio.to_thread

    async def counted(fn: Any, *args: Any) -> Any:
        hops.append(fn.__name__)
        return await to_thread(fn, *args)

    monkeypatch.setattr("gate.ledger.store.asyncio.to_thread", counted)
    assert await ledger.acount_executed("alice", "book_visit", since) == 2
    assert hops == []  # read where the loop is, no trip to a thread

    # Another connection cannot make a WAL reader busy at will (readers never wait for the
    # writer); a connection that fails as a locked file does stands in for one.
    class Busy:
        def connect(self) -> Any:
            raise OperationalError("SELECT", {}, sqlite3.OperationalError("database is locked"))

    monkeypatch.setattr(ledger, "_inline_reads", lambda: Busy())
    assert await ledger.acount_executed("alice", "book_visit", since) == 2
    assert hops == ["count_executed"]  # the thread waits for the lock, the loop does not


def _failed(d: DecisionRow, code: str) -> ReceiptRow:
    r = receipt_row(d.id, status="failed")
    r.error_code = code
    return r


def _reserve(url: str, barrier: Any, out: Any) -> None:
    led = gate.Ledger(url, create=False)
    barrier.wait()
    try:
        out.put(led.record_decision(decision_row(), reserve=(1, time.time() - 3600)))
    finally:
        led.close()


def _race_reservations(url: str, n: int = 6) -> None:
    ledger = gate.Ledger(url)
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=_reserve, args=(url, barrier, out)) for _ in range(n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    results = [out.get(timeout=5) for _ in procs]
    assert results.count(True) == 1 and results.count(False) == n - 1
    assert len(ledger.decisions()) == 1 and ledger.verify().ok
    ledger.close()


def test_processes_racing_for_the_last_slot_on_sqlite_get_exactly_one(tmp_path: Path) -> None:
    _race_reservations(f"sqlite:///{tmp_path / 'reserve.db'}")


@pytest.mark.postgres
def test_processes_racing_for_the_last_slot_on_postgres_get_exactly_one(pg_database: str) -> None:
    _race_reservations(pg_database)
