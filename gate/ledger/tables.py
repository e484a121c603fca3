"""The audit ledger's tables.

``gate_decisions``, ``gate_confirmations``, ``gate_receipts`` and
``gate_deliveries`` are the gate's own record; ``gate_chain`` is the
append-only hash chain over them. ``gate_personal`` holds the personal text
those records name (a caller's words, the question they heard, what a
memory said) apart from them: a record commits to each text by a salted
digest, so erasing the text and its salt leaves the chain whole.
``gate_checkpoints`` are signed heads of the chain, chained to each other.
A receipt never changes once written: each delivery attempt and each acknowledgement from the decision service
(with its ``policy_alignment``) is a new ``gate_deliveries`` row, chained
like everything else an auditor reads.
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
from dataclasses import dataclass

from pydantic import PrivateAttr
from sqlalchemy import Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


class DecisionRow(SQLModel, table=True):
    __tablename__ = "gate_decisions"
    __table_args__ = (
        Index("ix_gate_decisions_caller_tool_time", "caller_id", "tool", "created_at"),
        Index("ix_gate_decisions_time", "created_at"),
        # The decision a caller's yes led to, found from the question (the case file's link).
        Index("ix_gate_decisions_confirmation", "confirmation_id"),
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


@dataclass(frozen=True)
class Delivery:
    """Where a receipt stands with the decision service, summed up from its delivery records.

    ``state`` is ``local`` (no service decision to report to), ``pending`` (not
    acknowledged yet; tried again by the next drain), ``delivered``,
    ``conflict`` (the service holds a different receipt) or ``rejected`` (the
    service refused it for good).
    """

    state: str
    attempts: int = 0
    last_error: str | None = None
    delivered_at: float | None = None
    policy_alignment: str | None = None
    service_receipt_id: str | None = None


class ReceiptRow(SQLModel, table=True):
    """A decision's one terminal receipt. Immutable: delivery lives in :class:`DeliveryRow`.

    The read-only properties (``delivery_state``, ``attempts``, ...) sum up
    the receipt's delivery records when the ledger loaded them; a receipt that
    was just built reads as ``pending`` (or ``local``) with no attempts.
    """

    __tablename__ = "gate_receipts"
    __table_args__ = (
        UniqueConstraint("decision_id", name="uq_gate_receipts_decision"),
        UniqueConstraint("idempotency_key", name="uq_gate_receipts_key"),
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
    service_decision_id: str | None = Field(default=None, max_length=128)
    _delivery: Delivery | None = PrivateAttr(default=None)

    @property
    def delivery(self) -> Delivery:
        if self._delivery is not None:
            return self._delivery
        return Delivery("pending" if self.service_decision_id else "local")

    @property
    def delivery_state(self) -> str:
        return self.delivery.state

    @property
    def attempts(self) -> int:
        return self.delivery.attempts

    @property
    def last_error(self) -> str | None:
        return self.delivery.last_error

    @property
    def delivered_at(self) -> float | None:
        return self.delivery.delivered_at

    @property
    def policy_alignment(self) -> str | None:
        return self.delivery.policy_alignment

    @property
    def service_receipt_id(self) -> str | None:
        return self.delivery.service_receipt_id


DELIVERY_STATES = ("pending", "delivered", "conflict", "rejected")
FINAL_DELIVERY_STATES = ("delivered", "conflict", "rejected")


class DeliveryRow(SQLModel, table=True):
    """One delivery attempt of a receipt, or the service's acknowledgement of it. Append-only."""

    __tablename__ = "gate_deliveries"
    __table_args__ = (Index("ix_gate_deliveries_receipt", "receipt_id", "chain_seq"),)

    id: str = Field(primary_key=True, max_length=64)
    receipt_id: str = Field(max_length=64)
    at: float
    attempt: int
    state: str = Field(max_length=16)  # pending | delivered | conflict | rejected
    service_decision_id: str | None = Field(default=None, max_length=128)
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    policy_alignment: str | None = Field(default=None, max_length=16)
    service_receipt_id: str | None = Field(default=None, max_length=128)
    chain_seq: int | None = Field(default=None, index=True)


class OutboxRow(SQLModel, table=True):
    """A receipt still to be delivered: the drain's work queue, not part of the record.

    Written with the receipt, removed with the delivery record that settles it
    (delivered, conflict or rejected), so finding the pending receipts never
    scans the whole ledger. Nothing an auditor reads comes from here: the
    chained delivery records say the same, and the queue can be rebuilt from
    them.
    """

    __tablename__ = "gate_outbox"

    receipt_id: str = Field(primary_key=True, max_length=64)
    created_at: float = Field(index=True)
    # The drain that is sending it, and until when (see Ledger.claim_undelivered).
    claimed_by: str | None = Field(default=None, max_length=64)
    claimed_until: float | None = Field(default=None)


def summarise(receipt: ReceiptRow, deliveries: list[DeliveryRow]) -> Delivery:
    """The receipt's delivery as its records (in chain order) tell it."""
    if receipt.service_decision_id is None and not deliveries:
        return Delivery("local")
    if not deliveries:
        return Delivery("pending")
    last = deliveries[-1]
    acked = next((d for d in deliveries if d.state == "delivered"), None)
    return Delivery(
        state=last.state,
        attempts=max(d.attempt for d in deliveries),
        last_error=last.error,
        delivered_at=acked.at if acked else None,
        policy_alignment=acked.policy_alignment if acked else None,
        service_receipt_id=acked.service_receipt_id if acked else None,
    )


_REF = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")


def closing_receipt(
    decision: DecisionRow, status: str, *, external_ref: str | None = None, error_code: str | None = None
) -> ReceiptRow:
    """The terminal receipt of ``decision``: key derived from the decision, never random.

    An ``external_ref`` the contract would refuse (personal data, odd characters) is
    dropped; an ``error_code`` is kept only with ``failed``.
    """
    if external_ref is not None and not _REF.fullmatch(external_ref):
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


class PersonalRow(SQLModel, table=True):
    """One piece of personal text a chained record names by its salted digest.

    ``digest`` is ``sha256:`` over the salt's bytes followed by the text's
    UTF-8 bytes; the record holds ``personal:<digest>`` where the text was.
    Erased: ``text`` and ``salt`` are gone and ``erased_at`` says when; the
    digest stays, and without the salt it cannot be used to confirm a guess.
    """

    __tablename__ = "gate_personal"

    digest: str = Field(primary_key=True, max_length=80)
    record_id: str = Field(max_length=64, index=True)
    caller_id: str = Field(max_length=128, index=True)
    salt: str | None = Field(default=None, max_length=32)
    text: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    erased_at: float | None = None


class CheckpointRow(SQLModel, table=True):
    """A signed head of the chain: entry ``chain_seq`` had hash ``chain_hash`` at ``at``.

    ``prev`` is the hash of the checkpoint before it (its signed body and
    signature), so checkpoints form a chain of their own; one ``prev`` can be
    followed only once, so two processes signing at once cannot fork it.
    """

    __tablename__ = "gate_checkpoints"
    __table_args__ = (UniqueConstraint("prev", name="uq_gate_checkpoints_prev"),)

    seq: int = Field(primary_key=True)
    at: float
    chain_seq: int
    chain_hash: str = Field(max_length=80)
    prev: str = Field(max_length=80)
    key_id: str = Field(max_length=80)
    signature: str = Field(max_length=128)


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
