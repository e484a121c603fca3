"""Delivery results become chained records (``gate_deliveries``), pending ones a queue (``gate_outbox``).

Before this revision a receipt's delivery state, attempts, last error,
policy alignment and service receipt id were mutable columns outside the
chain. Each receipt that had been tried is carried over as one delivery
record holding what those columns said, appended to the chain now; then the
columns are dropped, so nothing an auditor reads is left unchained. The
receipts still pending go into ``gate_outbox``, the drain's work queue.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import time
import uuid

import sqlalchemy as sa
from alembic import op

from gate.ledger.chain import FORMATS, GENESIS, RecordDigest, entry_hash

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_OLD_COLUMNS = (
    "delivery_state",
    "delivered_at",
    "attempts",
    "last_error",
    "policy_alignment",
    "service_receipt_id",
)


def upgrade() -> None:
    deliveries = op.create_table(
        "gate_deliveries",
        sa.Column("id", sa.String(length=64), primary_key=True),
        sa.Column("receipt_id", sa.String(length=64), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("service_decision_id", sa.String(length=128), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("policy_alignment", sa.String(length=16), nullable=True),
        sa.Column("service_receipt_id", sa.String(length=128), nullable=True),
        sa.Column("chain_seq", sa.Integer(), nullable=True),
    )
    op.create_index("ix_gate_deliveries_receipt", "gate_deliveries", ["receipt_id", "chain_seq"])
    op.create_index("ix_gate_deliveries_chain_seq", "gate_deliveries", ["chain_seq"])
    _carry_over(deliveries)
    op.create_table(
        "gate_outbox",
        sa.Column("receipt_id", sa.String(length=64), primary_key=True),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_gate_outbox_created_at", "gate_outbox", ["created_at"])
    op.execute(
        "INSERT INTO gate_outbox (receipt_id, created_at) SELECT id, created_at FROM gate_receipts "
        "WHERE service_decision_id IS NOT NULL AND delivery_state = 'pending'"
    )
    with op.batch_alter_table("gate_receipts") as batch:
        batch.drop_index("ix_gate_receipts_delivery")
        for name in _OLD_COLUMNS:
            batch.drop_column(name)


def _carry_over(deliveries: sa.Table) -> None:
    conn = op.get_bind()
    if conn.dialect.name == "postgresql":
        # The same lock every chain writer takes: no entry can slip in between ours.
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": 0x6A7E_0001})
    digest = RecordDigest(deliveries, FORMATS["delivery"][1])
    tried = conn.execute(
        sa.text(
            "SELECT id, created_at, service_decision_id, delivery_state, delivered_at, attempts, "
            "last_error, policy_alignment, service_receipt_id FROM gate_receipts "
            "WHERE service_decision_id IS NOT NULL AND (delivery_state <> 'pending' OR attempts > 0) "
            "ORDER BY chain_seq"
        )
    ).all()
    tail = conn.execute(sa.text("SELECT seq, hash FROM gate_chain ORDER BY seq DESC LIMIT 1")).first()
    seq, prev = (tail[0], tail[1]) if tail else (0, GENESIS)
    for rid, created, sdid, state, delivered_at, attempts, error, alignment, srid in tried:
        seq += 1
        delivered = state == "delivered"
        row = {
            "id": f"gv_{uuid.uuid4().hex}",
            "receipt_id": rid,
            "at": float(delivered_at or created),
            "attempt": max(int(attempts or 0), 1),
            "state": state if state in ("pending", "delivered", "conflict", "rejected") else "pending",
            "service_decision_id": sdid,
            "error": error,
            "policy_alignment": alignment if delivered else None,
            "service_receipt_id": srid if delivered else None,
        }
        hashed_digest = digest.of_mapping(row)
        at = time.time()
        hashed = entry_hash(prev, seq, at, "delivery", row["id"], hashed_digest)
        conn.execute(
            sa.text(
                "INSERT INTO gate_chain (seq, at, kind, ref_id, digest, prev_hash, hash) "
                "VALUES (:seq, :at, 'delivery', :ref, :digest, :prev, :hash)"
            ),
            {"seq": seq, "at": at, "ref": row["id"], "digest": hashed_digest, "prev": prev, "hash": hashed},
        )
        conn.execute(sa.insert(deliveries), [{**row, "chain_seq": seq}])
        prev = hashed
