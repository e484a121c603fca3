"""Personal text is held apart from the chain (``gate_personal``); signed checkpoints (``gate_checkpoints``).

From this revision a decision's and a confirmation's personal text (the
caller's words, the question they heard, what a memory said) is stored in
``gate_personal`` and the record commits to a salted digest of it, so the
text can be erased and the chain still verifies. Records written before
keep their text inside what the chain hashes; nothing of them changes.
``gate_checkpoints`` holds Ed25519-signed heads of the chain, chained to
each other. The index on ``gate_decisions.confirmation_id`` finds the
decision a confirmation led to.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "gate_personal",
        sa.Column("digest", sa.String(length=80), primary_key=True),
        sa.Column("record_id", sa.String(length=64), nullable=False),
        sa.Column("caller_id", sa.String(length=128), nullable=False),
        sa.Column("salt", sa.String(length=32), nullable=True),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("erased_at", sa.Float(), nullable=True),
    )
    op.create_index("ix_gate_personal_record_id", "gate_personal", ["record_id"])
    op.create_index("ix_gate_personal_caller_id", "gate_personal", ["caller_id"])
    op.create_table(
        "gate_checkpoints",
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("chain_seq", sa.Integer(), nullable=False),
        sa.Column("chain_hash", sa.String(length=80), nullable=False),
        sa.Column("prev", sa.String(length=80), nullable=False),
        sa.Column("key_id", sa.String(length=80), nullable=False),
        sa.Column("signature", sa.String(length=128), nullable=False),
        sa.UniqueConstraint("prev", name="uq_gate_checkpoints_prev"),
    )
    op.create_index("ix_gate_decisions_confirmation", "gate_decisions", ["confirmation_id"])
