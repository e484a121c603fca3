"""The decision service as gate sees it: one protocol, several backends."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from gate.evidence import EvidenceContext, EvidenceSlot, ServiceDecision, ServiceReceipt


@dataclass(frozen=True)
class ForgetResult:
    """What erasing a caller's partition did."""

    deleted: int
    verified: bool


@runtime_checkable
class DecisionBackend(Protocol):
    """What a decision service must offer the gate.

    Every method may raise :class:`gate.errors.ServiceError` (the service
    answered with an error) or any connection error; the gate puts its own
    deadline around each call and fails closed.
    """

    name: str

    async def evaluate_action(
        self,
        partition: str,
        query: str,
        *,
        top_k: int = 5,
        slot: EvidenceSlot | None = None,
        match: Sequence[Any] | Mapping[str, Any] = (),
        context: EvidenceContext | None = None,
    ) -> ServiceDecision:
        """Decide act/ask/abstain for ``query``; each call creates a durable decision.

        ``match``: the values a supporting memory must hold, as a mapping from
        argument name to the raw argument (kinds kept: 1500.0 is a number) or
        as a list of spoken values. ``context``: the request to trace and this
        call's own turns (see :class:`gate.evidence.EvidenceContext`); the answer
        carries the argument trace. A query over 2000 characters is refused with
        ServiceError(400) before anything is sent.
        """
        ...

    async def report_execution(
        self,
        partition: str,
        decision_id: str,
        action_name: str,
        status: str,
        *,
        idempotency_key: str,
        external_ref: str | None = None,
        error_code: str | None = None,
    ) -> ServiceReceipt:
        """Close a decision with its terminal receipt (idempotent on the key)."""
        ...

    async def confirm(self, partition: str, memory_id: str, *, idempotency_key: str) -> None:
        """Mark a memory as confirmed by the caller."""
        ...

    async def remember(
        self,
        partition: str,
        content: str,
        *,
        source: str,
        confidence: float,
        action_relevant: bool | None = None,
        entity: str | None = None,
        attribute: str | None = None,
    ) -> str:
        """Store a memory; returns its id."""
        ...

    async def forget(self, partition: str) -> ForgetResult:
        """Erase the caller's whole partition and verify it is gone."""
        ...

    async def aclose(self) -> None:
        """Release connections and files."""
        ...
