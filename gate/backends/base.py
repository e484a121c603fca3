"""The decision service as gate sees it: one protocol, several backends."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from gate.canonical import digest
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

    async def attest(
        self,
        partition: str,
        content: str,
        *,
        query: str,
        entity: str | None = None,
        attribute: str | None = None,
        pending: Sequence[str] = (),
    ) -> list[str]:
        """Record the caller's own request, so the next evaluation of ``query`` answers on it.

        ``content`` is the request as a first-person statement, stored as a
        confirmed memory of the caller (in the slot ``entity``/``attribute``
        when given); ``pending`` are memories the caller has just confirmed
        (those that made the gate ask). Returns the ids confirmed, the new
        memory's last. A service without its own way does :func:`remember_and_confirm`.

        Raises what :meth:`remember` and :meth:`confirm` raise (a foreign
        pending id: ServiceError 404); then nothing may act on the request.
        """
        return await remember_and_confirm(
            self, partition, content, entity=entity, attribute=attribute, pending=pending
        )

    async def forget(self, partition: str) -> ForgetResult:
        """Erase the caller's whole partition and verify it is gone."""
        ...

    async def aclose(self) -> None:
        """Release connections and files."""
        ...


async def remember_and_confirm(
    service: DecisionBackend,
    partition: str,
    content: str,
    *,
    entity: str | None = None,
    attribute: str | None = None,
    pending: Sequence[str] = (),
) -> list[str]:
    """:meth:`DecisionBackend.attest` through the hosted contract: ``remember``, then ``confirm`` each.

    Every confirmation's idempotency key is derived from the new memory and
    the one confirmed, so a retry confirms nothing twice. Raises what the
    service raises.
    """
    memory_id = await service.remember(
        partition,
        content,
        source="user_stated",
        confidence=1.0,
        action_relevant=True,
        entity=entity,
        attribute=attribute,
    )
    confirmed = [*pending, memory_id]
    key_base = digest([partition, memory_id])[7:39]
    for one in confirmed:
        await service.confirm(partition, one, idempotency_key=f"confirm-{key_base}-{digest(one)[7:23]}")
    return confirmed


async def attest(
    service: DecisionBackend,
    partition: str,
    content: str,
    *,
    query: str,
    entity: str | None = None,
    attribute: str | None = None,
    pending: Sequence[str] = (),
) -> list[str]:
    """``service.attest(...)``, or :func:`remember_and_confirm` for a service that has no ``attest``."""
    own = getattr(service, "attest", None)
    if own is None:
        return await remember_and_confirm(
            service, partition, content, entity=entity, attribute=attribute, pending=pending
        )
    confirmed: list[str] = await own(
        partition, content, query=query, entity=entity, attribute=attribute, pending=pending
    )
    return confirmed
