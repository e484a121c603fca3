"""Builds ``ledger_a2d3e17.sql``: a ledger written by gate's last unversioned schema, as an SQL dump.

Run it against that version of the code, e.g.::

    git archive a2d3e17 | tar -x -C /tmp/gate-a2d3e17
    PYTHONPATH=/tmp/gate-a2d3e17 python tests/data/make_ledger_a2d3e17.py tests/data/ledger_a2d3e17.sql

It holds every kind of record that version wrote: decisions (act, ask,
abstain), a confirmation asked then answered, and receipts delivered
(aligned and violated), still pending after a failed try, rejected, and
local (no service decision).
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
from pathlib import Path

from gate.ledger import ConfirmationRow, DecisionRow, Ledger, ReceiptRow

T0 = 1_764_489_600.0  # fixed times: the dump is the same on every run but for the ids


def decision(i: int, outcome: str, service: str | None) -> DecisionRow:
    return DecisionRow(
        id=f"gd_old{i:04d}",
        created_at=T0 + i,
        session_id=f"sess-{i % 3}",
        caller_id="alice" if i % 2 else "bob",
        caller_json='{"id": "alice", "verified": true, "roles": ["customer"]}',
        tool="book_visit",
        action_name="booking.create",
        args_json=f'{{"day": "day{i}"}}',
        args_digest=f"sha256:{i:064x}",
        action_digest=f"sha256:{i + 1:064x}",
        policy_name="book_visit",
        policy_hash="sha256:" + "ab" * 32,
        mode="enforce",
        outcome=outcome,
        enforced_outcome=outcome,
        rule="evidence" if outcome == "act" else "confirm",
        trace_json=json.dumps([{"rule": "evidence", "outcome": outcome, "detail": "old"}]),
        evidence_json=json.dumps(
            {"outcome": outcome, "reason": "old", "decision_id": service, "memories": []}
        ),
        service_decision_id=service,
        latency_ms=3.5 + i,
    )


def receipt(d: DecisionRow, status: str) -> ReceiptRow:
    return ReceiptRow(
        id=f"gr_old{d.id[-4:]}",
        decision_id=d.id,
        idempotency_key=f"receipt-{d.service_decision_id or d.id}",
        created_at=d.created_at + 0.5,
        caller_id=d.caller_id,
        action_name=d.action_name,
        status=status,
        external_ref=f"visit-{d.id[-4:]}" if status == "succeeded" else None,
        service_decision_id=d.service_decision_id,
        delivery_state="pending" if d.service_decision_id else "local",
    )


def build(path: Path) -> None:
    ledger = Ledger(f"sqlite:///{path}")
    rows = [
        decision(i, ("act", "ask", "abstain", "act", "act", "act")[i], f"sd_{i}" if i != 2 else None)
        for i in range(6)
    ]
    for d in rows:
        ledger.record_decision(d)
    ledger.record_confirmation(
        ConfirmationRow(
            id="gc_old0001",
            decision_id=rows[1].id,
            created_at=T0 + 1.2,
            expires_at=T0 + 10_000_000_000,
            session_id=rows[1].session_id,
            caller_id=rows[1].caller_id,
            tool="book_visit",
            action_digest=rows[1].action_digest,
            memory_ids_json='["mem_1"]',
            status="pending",
        )
    )
    ledger.answer_confirmation("gc_old0001", status="confirmed", words="yes please", message_id="msg-1")
    statuses = ["succeeded", "skipped", "skipped", "succeeded", "failed", "succeeded"]
    written = [ledger.record_receipt(receipt(d, s)).receipt for d, s in zip(rows, statuses, strict=True)]
    ledger.mark_delivery(written[0].id, state="pending", error="ServiceError: 503 unavailable: try later")
    ledger.mark_delivery(
        written[0].id, state="delivered", policy_alignment="aligned", service_receipt_id="rcpt_0"
    )
    ledger.mark_delivery(
        written[1].id, state="delivered", policy_alignment="aligned", service_receipt_id="rcpt_1"
    )
    ledger.mark_delivery(
        written[3].id, state="delivered", policy_alignment="violated", service_receipt_id="rcpt_3"
    )
    ledger.mark_delivery(written[4].id, state="pending", error="TimeoutError: ")
    ledger.mark_delivery(written[5].id, state="rejected", error="ServiceError: 400 bad_request: no")
    assert ledger.verify().ok
    ledger.close()


def main() -> None:
    target = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "ledger.db"
        build(db)
        conn = sqlite3.connect(db)
        dump = "\n".join(conn.iterdump()) + "\n"
        conn.close()
    target.write_text(dump)


if __name__ == "__main__":
    main()
