"""The first versioned schema: the ledger as gate wrote it before migrations existed.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _s(n: int) -> sa.types.String:
    return sa.String(length=n)


def upgrade() -> None:
    op.create_table(
        "gate_decisions",
        sa.Column("id", _s(64), primary_key=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("session_id", _s(128), nullable=False),
        sa.Column("caller_id", _s(128), nullable=False),
        sa.Column("caller_json", sa.Text(), nullable=False),
        sa.Column("tool", _s(128), nullable=False),
        sa.Column("action_name", _s(128), nullable=False),
        sa.Column("args_json", sa.Text(), nullable=False),
        sa.Column("args_digest", _s(80), nullable=False),
        sa.Column("action_digest", _s(80), nullable=False),
        sa.Column("policy_name", _s(128), nullable=False),
        sa.Column("policy_hash", _s(80), nullable=False),
        sa.Column("mode", _s(16), nullable=False),
        sa.Column("outcome", _s(16), nullable=False),
        sa.Column("enforced_outcome", _s(16), nullable=False),
        sa.Column("rule", _s(128), nullable=False),
        sa.Column("trace_json", sa.Text(), nullable=False),
        sa.Column("evidence_json", sa.Text(), nullable=False),
        sa.Column("service_decision_id", _s(128), nullable=True),
        sa.Column("state_version", _s(128), nullable=True),
        sa.Column("confirmation_id", _s(64), nullable=True),
        sa.Column("call_id", _s(128), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("chain_seq", sa.Integer(), nullable=True),
    )
    op.create_index(
        "ix_gate_decisions_caller_tool_time", "gate_decisions", ["caller_id", "tool", "created_at"]
    )
    op.create_index("ix_gate_decisions_time", "gate_decisions", ["created_at"])
    op.create_index("ix_gate_decisions_chain_seq", "gate_decisions", ["chain_seq"])

    op.create_table(
        "gate_confirmations",
        sa.Column("id", _s(64), primary_key=True),
        sa.Column("decision_id", _s(64), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.Column("session_id", _s(128), nullable=False),
        sa.Column("caller_id", _s(128), nullable=False),
        sa.Column("tool", _s(128), nullable=False),
        sa.Column("action_digest", _s(80), nullable=False),
        sa.Column("state_version", _s(128), nullable=True),
        sa.Column("memory_ids_json", sa.Text(), nullable=False),
        sa.Column("status", _s(16), nullable=False),
        sa.Column("words", sa.Text(), nullable=True),
        sa.Column("answered_at", sa.Float(), nullable=True),
        sa.Column("answer_message_id", _s(128), nullable=True),
        sa.Column("chain_seq", sa.Integer(), nullable=True),
    )
    op.create_index("ix_gate_confirmations_session", "gate_confirmations", ["session_id", "status"])
    op.create_index("ix_gate_confirmations_decision_id", "gate_confirmations", ["decision_id"])
    op.create_index("ix_gate_confirmations_chain_seq", "gate_confirmations", ["chain_seq"])

    op.create_table(
        "gate_receipts",
        sa.Column("id", _s(64), primary_key=True),
        sa.Column("decision_id", _s(64), nullable=False),
        sa.Column("idempotency_key", _s(128), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("caller_id", _s(128), nullable=False),
        sa.Column("action_name", _s(128), nullable=False),
        sa.Column("status", _s(16), nullable=False),
        sa.Column("external_ref", _s(128), nullable=True),
        sa.Column("error_code", _s(128), nullable=True),
        sa.Column("chain_seq", sa.Integer(), nullable=True),
        sa.Column("service_decision_id", _s(128), nullable=True),
        sa.Column("delivery_state", _s(16), nullable=False),
        sa.Column("delivered_at", sa.Float(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("policy_alignment", _s(16), nullable=True),
        sa.Column("service_receipt_id", _s(128), nullable=True),
        sa.UniqueConstraint("decision_id", name="uq_gate_receipts_decision"),
        sa.UniqueConstraint("idempotency_key", name="uq_gate_receipts_key"),
    )
    op.create_index("ix_gate_receipts_delivery", "gate_receipts", ["delivery_state"])
    op.create_index("ix_gate_receipts_chain_seq", "gate_receipts", ["chain_seq"])

    op.create_table(
        "gate_chain",
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("kind", _s(32), nullable=False),
        sa.Column("ref_id", _s(64), nullable=False),
        sa.Column("digest", _s(80), nullable=False),
        sa.Column("prev_hash", _s(80), nullable=False),
        sa.Column("hash", _s(80), nullable=False, unique=True),
        sa.UniqueConstraint("prev_hash", name="uq_gate_chain_prev"),
    )
    op.create_index("ix_gate_chain_kind_ref", "gate_chain", ["kind", "ref_id"])

    op.create_table(
        "service_decisions",
        sa.Column("id", _s(64), primary_key=True),
        sa.Column("user_id", _s(128), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("outcome", _s(16), nullable=False),
        sa.Column("memory_ids_json", sa.Text(), nullable=False),
        sa.Column("pending_ids_json", sa.Text(), nullable=False),
    )
    op.create_index("ix_service_decisions_user_id", "service_decisions", ["user_id"])

    op.create_table(
        "service_receipts",
        sa.Column("id", _s(64), primary_key=True),
        sa.Column("decision_id", _s(64), nullable=False),
        sa.Column("user_id", _s(128), nullable=False),
        sa.Column("idempotency_key", _s(128), nullable=False),
        sa.Column("fingerprint", _s(80), nullable=False),
        sa.Column("action_name", _s(128), nullable=False),
        sa.Column("status", _s(16), nullable=False),
        sa.Column("policy_alignment", _s(16), nullable=False),
        sa.Column("external_ref", _s(128), nullable=True),
        sa.Column("error_code", _s(128), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.UniqueConstraint("decision_id", name="uq_service_receipts_decision"),
        sa.UniqueConstraint("user_id", "idempotency_key", name="uq_service_receipts_key"),
    )
