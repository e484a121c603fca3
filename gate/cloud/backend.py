"""The ContextDB Cloud backend, on the official ``CloudClient``.

The hosted evaluation cannot be slot-scoped or version-pinned, so gate does
on the host what the service cannot: an ``act`` counts only when a returned
memory supports the arguments by the same judgment the embedded engine
uses (:mod:`gate.evidence`: about the action by meaning, values as values,
not denied, the caller's own current wish; the query and the few returned
memories are embedded here with MiniLM). Otherwise it is reported as
``abstain`` (a trusted denial is cited against the action) and the action
is skipped, which the service records as aligned. A query over 2000
characters is refused here (400) and never sent. Every call is
made under the caller's deadline by the gate; the client's own 30 s default
never applies.

Errors: ``ApiError`` becomes :class:`~gate.errors.ServiceError` (404 ->
:class:`~gate.errors.DecisionNotFound`, 409 ->
:class:`~gate.errors.ReceiptConflict`), carrying the status, the code and,
for 429/503, the server's ``Retry-After``. Connection errors and timeouts
pass through as httpx errors.
"""

from __future__ import annotations

import contextvars
import hashlib
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import httpx
import numpy as np
from contextdb_cloud_client import ApiError, CloudClient, Memory

from gate.backends.base import ForgetResult
from gate.errors import ConfigError, DecisionNotFound, ReceiptConflict, ServiceError
from gate.evidence import (
    EvidenceMemory,
    EvidenceRequest,
    EvidenceSlot,
    ServiceDecision,
    ServiceReceipt,
    judge,
)
from gate.memory.embedder import MiniLMEmbedder

DEFAULT_URL = "https://api.contextdb.ai"
# The hosted contract: a query is 1-2000 characters (longer ones come back 400).
MAX_QUERY_CHARS = 2000
_retry_after: contextvars.ContextVar[float | None] = contextvars.ContextVar("gate_retry_after", default=None)
_replayed: contextvars.ContextVar[bool] = contextvars.ContextVar("gate_replayed", default=False)


class _HeaderTap(httpx.AsyncBaseTransport):
    """Keeps the response headers the client discards (Retry-After, Idempotency-Replayed)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        retry = response.headers.get("retry-after")
        try:
            _retry_after.set(float(retry) if retry is not None else None)
        except ValueError:
            _retry_after.set(None)
        _replayed.set(response.headers.get("idempotency-replayed", "").lower() == "true")
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def _service_error(exc: ApiError, what: str) -> ServiceError:
    message = str(exc).split(": ", 1)[-1]
    if exc.status == 404:
        return DecisionNotFound(what) if what.startswith("dec") else ServiceError(404, exc.code, message)
    if exc.status == 409:
        err: ServiceError = ReceiptConflict(f"{exc.code}: {message}")
        err.code = exc.code
        return err
    err = ServiceError(exc.status, exc.code, message)
    err.retry_after = _retry_after.get()
    return err


class CloudEngine:
    """The hosted decision service.

    Raises:
        ConfigError: from :meth:`from_env` when ``CONTEXTDB_API_KEY`` is missing or not a
            ``cdb_`` project key.
    """

    name = "cloud"

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        try:
            self.client = CloudClient(
                base_url,
                api_key,
                timeout=timeout_s,
                transport=_HeaderTap(transport or httpx.AsyncHTTPTransport()),
            )
        except ValueError as exc:
            raise ConfigError(f"CONTEXTDB_API_KEY: {exc}") from exc
        self._embedder = MiniLMEmbedder()

    @classmethod
    def from_env(cls, **kwargs: Any) -> CloudEngine:
        key = os.environ.get("CONTEXTDB_API_KEY")
        if not key:
            raise ConfigError("CONTEXTDB_API_KEY is not set")
        return cls(os.environ.get("CONTEXTDB_URL", DEFAULT_URL), key, **kwargs)

    async def evaluate_action(
        self,
        partition: str,
        query: str,
        *,
        top_k: int = 5,
        slot: EvidenceSlot | None = None,
        match: Sequence[Any] | Mapping[str, Any] = (),
    ) -> ServiceDecision:
        """Ask the hosted service; an ``act`` on memory that does not support ``match`` becomes abstain.

        Raises:
            ServiceError: 400 before any request when the query is empty or longer
                than 2000 characters; the service's own errors otherwise.
        """
        if not 1 <= len(query) <= MAX_QUERY_CHARS:
            raise ServiceError(400, "invalid_request", f"query must be 1-{MAX_QUERY_CHARS} characters")
        try:
            answer = await self.client.evaluate_action(partition, query, top_k=top_k)
        except ApiError as exc:
            raise _service_error(exc, "evaluate") from exc
        memories = [_evidence(m) for m in answer.memories if not m.superseded_by]
        outcome = answer.outcome if answer.outcome in ("act", "ask", "abstain") else "abstain"
        if outcome == "act":
            verdict = judge(await self._with_similarity(query, memories), EvidenceRequest.of(query, match))
            if verdict.outcome == "act":
                return replace(verdict, decision_id=answer.decision_id)
            cited = [m for m in verdict.memories if m.role == "against"]
            reason = verdict.reason if cited else "trusted memory does not support these arguments"
            return ServiceDecision(answer.decision_id, "abstain", cited, [], reason)
        if outcome == "ask":
            return ServiceDecision(
                answer.decision_id,
                "ask",
                memories,
                list(answer.pending_confirmation_ids),
                "memory needs the caller's confirmation",
            )
        return ServiceDecision(answer.decision_id, "abstain", [], [], "nothing on file supports this")

    async def _with_similarity(self, query: str, memories: list[EvidenceMemory]) -> list[EvidenceMemory]:
        """The memories with their cosine similarity to ``query`` (one embedding call for all)."""
        if not memories:
            return memories
        vectors = np.asarray(
            await self._embedder.embed([query, *(m.content for m in memories)], urgent=True), dtype=np.float32
        )
        norms = np.linalg.norm(vectors, axis=1)
        norms[norms == 0] = 1.0
        unit = vectors / norms[:, None]
        scores = unit[1:] @ unit[0]
        return [replace(m, similarity=float(s)) for m, s in zip(memories, scores, strict=True)]

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
        """Send the receipt; a same-key, same-payload replay answers with the stored receipt."""
        try:
            answer = await self.client.report_execution(
                partition,
                decision_id,
                action_name,
                status,
                idempotency_key=idempotency_key,
                external_ref=external_ref,
                error_code=error_code,
            )
        except ApiError as exc:
            raise _service_error(exc, decision_id) from exc
        r = answer.receipt
        return ServiceReceipt(r.id, r.decision_id, r.status, r.policy_alignment, replayed=_replayed.get())

    async def confirm(self, partition: str, memory_id: str, *, idempotency_key: str) -> None:
        try:
            await self.client.confirm(partition, memory_id, idempotency_key=idempotency_key)
        except ApiError as exc:
            raise _service_error(exc, memory_id) from exc

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
        """Store a memory; returns its id.

        Raises:
            ServiceError: 400 before any I/O when ``content`` is over the hosted
                4,000 characters (caller memory splits long content itself).
        """
        if not 1 <= len(content) <= 4000:
            raise ServiceError(400, "invalid_request", "content must be 1-4000 characters")
        try:
            memory = await self.client.remember(
                partition,
                content,
                source=source,
                confidence=confidence,
                action_relevant=action_relevant,
                entity=entity,
                attribute=attribute,
                idempotency_key=f"remember-{uuid.uuid4().hex}",
            )
        except ApiError as exc:
            raise _service_error(exc, "remember") from exc
        return str(memory.id)

    async def forget(self, partition: str) -> ForgetResult:
        try:
            answer = await self.client.forget(
                partition,
                erase_partition=True,
                confirmation=partition,
                # Keys never carry the raw caller id (the contract's pattern refuses "@" and "+").
                idempotency_key=f"forget-{hashlib.sha256(partition.encode()).hexdigest()[:24]}-{uuid.uuid4().hex}",
            )
        except ApiError as exc:
            raise _service_error(exc, "forget") from exc
        return ForgetResult(deleted=answer.deleted, verified=bool(answer.verified))

    async def aclose(self) -> None:
        await self.client.close()


def _evidence(m: Memory) -> EvidenceMemory:
    return EvidenceMemory(
        id=m.id,
        content=m.content,
        trusted=m.action_relevant and not m.requires_confirmation and not m.injection_suspect,
        requires_confirmation=m.requires_confirmation,
        injection_suspect=m.injection_suspect,
        slot_value=None,
        source=m.epistemic_source,
        confidence=m.confidence,
    )
