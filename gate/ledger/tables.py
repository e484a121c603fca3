"""The audit ledger's tables.

``gate_decisions``, ``gate_confirmations`` and ``gate_receipts`` are the
gate's own record; ``gate_chain`` is the append-only hash chain over them.
``service_decisions`` and ``service_receipts`` belong to the embedded
decision service (the hosted contract's semantics, kept locally).

Unique constraints carry the exactly-once guarantees across processes:
one receipt per decision, one idempotency key per receipt, one chain entry
per sequence number and per previous hash.
"""

from __future__ import annotations

import re
import time
import uuid

from sqlalchemy import Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


class DecisionRow(SQLModel, table=True):
    __tablename__ = "gate_decisions"
    __table_args__ = (
        Index("ix_gate_decisions_caller_tool_time", "caller_id", "tool", "created_at"),
        Index("ix_gate_decisions_time", "created_at"),
    )

    id: str = Field(primary_key=True, max_length=64)
    created_at: float
    session_id: str = Field(max_length=128)
    caller_id: str = Field(max_length=128)
    caller_json: str = Field(sa_column=Column(Text, nullable=False))
    tool: str = Field(max_length=128)
    action_name: str = Field(max_length=128)
    args_json: str = Field(sa_column=Column(Text, nullable=False))
    args_digest: str = Field(max_length=80)
    action_digest: str = Field(max_length=80)
    policy_name: str = Field(max_length=128)
    policy_hash: str = Field(max_length=80)
    mode: str = Field(max_length=16)
    outcome: str = Field(max_length=16)
    enforced_outcome: str = Field(max_length=16)
    rule: str = Field(max_length=128)
    trace_json: str = Field(sa_column=Column(Text, nullable=False))
    evidence_json: str = Field(sa_column=Column(Text, nullable=False))
    service_decision_id: str | None = Field(default=None, max_length=128)
    state_version: str | None = Field(default=None, max_length=128)
    confirmation_id: str | None = Field(default=None, max_length=64)
    call_id: str | None = Field(default=None, max_length=128)
    latency_ms: float
    chain_seq: int | None = Field(default=None, index=True)


class ConfirmationRow(SQLModel, table=True):
    __tablename__ = "gate_confirmations"
    __table_args__ = (Index("ix_gate_confirmations_session", "session_id", "status"),)

    id: str = Field(primary_key=True, max_length=64)
    decision_id: str = Field(max_length=64, index=True)
    created_at: float
    expires_at: float
    session_id: str = Field(max_length=128)
    caller_id: str = Field(max_length=128)
    tool: str = Field(max_length=128)
    action_digest: str = Field(max_length=80)
    state_version: str | None = Field(default=None, max_length=128)
    memory_ids_json: str = Field(sa_column=Column(Text, nullable=False))
    status: str = Field(max_length=16)  # pending | confirmed | declined | expired | superseded
    words: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    answered_at: float | None = None
    answer_message_id: str | None = Field(default=None, max_length=128)
    chain_seq: int | None = Field(default=None, index=True)


class ReceiptRow(SQLModel, table=True):
    __tablename__ = "gate_receipts"
    __table_args__ = (
        UniqueConstraint("decision_id", name="uq_gate_receipts_decision"),
        UniqueConstraint("idempotency_key", name="uq_gate_receipts_key"),
        Index("ix_gate_receipts_delivery", "delivery_state"),
    )

    id: str = Field(primary_key=True, max_length=64)
    decision_id: str = Field(max_length=64)
    idempotency_key: str = Field(max_length=128)
    created_at: float
    caller_id: str = Field(max_length=128)
    action_name: str = Field(max_length=128)
    status: str = Field(max_length=16)  # succeeded | failed | skipped
    external_ref: str | None = Field(default=None, max_length=128)
    error_code: str | None = Field(default=None, max_length=128)
    chain_seq: int | None = Field(default=None, index=True)
    # Delivery to the decision service: mutable, so kept out of the chained payload.
    service_decision_id: str | None = Field(default=None, max_length=128)
    delivery_state: str = Field(default="pending", max_length=16)  # pending|delivered|conflict|rejected|local
    delivered_at: float | None = None
    attempts: int = 0
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    policy_alignment: str | None = Field(default=None, max_length=16)
    service_receipt_id: str | None = Field(default=None, max_length=128)


_REF = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")


def closing_receipt(
    decision: DecisionRow, status: str, *, external_ref: str | None = None, error_code: str | None = None
) -> ReceiptRow:
    """The terminal receipt of ``decision``: key derived from the decision, never random.

    An ``external_ref`` the contract would refuse (personal data, odd characters) is
    dropped; an ``error_code`` is kept only with ``failed``.
    """
    if external_ref is not None and not _REF.match(external_ref):
        external_ref = None
    return ReceiptRow(
        id=f"gr_{uuid.uuid4().hex}",
        decision_id=decision.id,
        idempotency_key=f"receipt-{decision.service_decision_id or decision.id}",
        created_at=time.time(),
        caller_id=decision.caller_id,
        action_name=decision.action_name,
        status=status,
        external_ref=external_ref,
        error_code=error_code if status == "failed" else None,
        service_decision_id=decision.service_decision_id,
        delivery_state="pending" if decision.service_decision_id else "local",
    )


class ChainRow(SQLModel, table=True):
    __tablename__ = "gate_chain"
    __table_args__ = (
        UniqueConstraint("prev_hash", name="uq_gate_chain_prev"),
        Index("ix_gate_chain_kind_ref", "kind", "ref_id"),
    )

    seq: int = Field(primary_key=True)
    at: float
    kind: str = Field(max_length=32)
    ref_id: str = Field(max_length=64)
    digest: str = Field(max_length=80)
    prev_hash: str = Field(max_length=80)
    hash: str = Field(max_length=80, unique=True)


class ServiceDecisionRow(SQLModel, table=True):
    __tablename__ = "service_decisions"

    id: str = Field(primary_key=True, max_length=64)
    user_id: str = Field(max_length=128, index=True)
    created_at: float
    query: str = Field(sa_column=Column(Text, nullable=False))
    outcome: str = Field(max_length=16)
    memory_ids_json: str = Field(sa_column=Column(Text, nullable=False))
    pending_ids_json: str = Field(sa_column=Column(Text, nullable=False))


class ServiceReceiptRow(SQLModel, table=True):
    __tablename__ = "service_receipts"
    __table_args__ = (
        UniqueConstraint("decision_id", name="uq_service_receipts_decision"),
        UniqueConstraint("user_id", "idempotency_key", name="uq_service_receipts_key"),
    )

    id: str = Field(primary_key=True, max_length=64)
    decision_id: str = Field(max_length=64)
    user_id: str = Field(max_length=128)
    idempotency_key: str = Field(max_length=128)
    fingerprint: str = Field(max_length=80)
    action_name: str = Field(max_length=128)
    status: str = Field(max_length=16)
    policy_alignment: str = Field(max_length=16)
    external_ref: str | None = Field(default=None, max_length=128)
    error_code: str | None = Field(default=None, max_length=128)
    created_at: float
