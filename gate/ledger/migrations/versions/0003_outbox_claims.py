"""The outbox's receipts are claimed by one drain at a time (``claimed_by``, ``claimed_until``).

Before this revision every process draining one shared ledger delivered
every pending receipt, so each receipt was sent (and recorded as
delivered) once per process. A drain now claims the receipts it sends for
a lease; another drain takes them only when the lease has run out (its
process died, or the service is down and the lease doubles as backoff).
The columns are the queue's bookkeeping, outside the chain, like the queue.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("gate_outbox") as batch:
        batch.add_column(sa.Column("claimed_by", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("claimed_until", sa.Float(), nullable=True))
