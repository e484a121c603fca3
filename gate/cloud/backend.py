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
for 429/503, the server's ``Retry-After`` (seconds or an HTTP date; a value
that is neither, negative or not finite is ignored). A 2xx answer whose body
is not the contract's shape (not JSON, not an object, a field missing or of
the wrong kind, a receipt for another decision) is :class:`MalformedAnswer`:
a transport fault, retryable, never a verdict on the request. Connection
errors and timeouts pass through as httpx errors.
"""

from __future__ import annotations

import contextlib
import contextvars
import email.utils
import hashlib
import math
import os
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import httpx
from contextdb_cloud_client import ApiError, CloudClient, Memory

from gate import evidence
from gate.backends.base import ForgetResult, remember_and_confirm
from gate.errors import ConfigError, DecisionNotFound, ReceiptConflict, ServiceError
from gate.evidence import EvidenceContext, EvidenceMemory, EvidenceSlot, ServiceDecision, ServiceReceipt
from gate.evidence.meaning import Meaning
from gate.evidence.reading import base_texts, bearing, pointer_texts, texts_for
from gate.evidence.readings import ReadingCache
from gate.memory.embedder import judge_embedder

DEFAULT_URL = "https://api.contextdb.ai"
# The hosted contract: a query is 1-2000 characters (longer ones come back 400).
MAX_QUERY_CHARS = 2000
_retry_after: contextvars.ContextVar[float | None] = contextvars.ContextVar("gate_retry_after", default=None)
_replayed: contextvars.ContextVar[bool] = contextvars.ContextVar("gate_replayed", default=False)
# The status of the latest answer in this task (None: no answer came), to tell a broken
# answer (the request got through) from a failure before any answer.
_answered: contextvars.ContextVar[int | None] = contextvars.ContextVar("gate_answered", default=None)


class MalformedAnswer(ServiceError):
    """The service answered 2xx, but not with the contract's shape: a transport fault.

    Nothing says the request was refused (it may well have been processed), so
    it is retryable: the same request under the same idempotency key gets the
    stored answer again.
    """

    def __init__(self, status: int, what: str, detail: str) -> None:
        self.what, self.detail = what, detail
        super().__init__(status, "malformed_answer", f"the answer to {what} is not the contract's ({detail})")

    @property
    def retryable(self) -> bool:
        return True


def retry_after_seconds(value: str | None, *, now: float | None = None) -> float | None:
    """A ``Retry-After`` header in seconds: delta-seconds or an HTTP date; None when unusable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
        seconds = max(seconds, 0.0)
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return seconds


class _HeaderTap(httpx.AsyncBaseTransport):
    """Keeps the response headers the client discards (Retry-After, Idempotency-Replayed)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        _answered.set(response.status_code)
        _retry_after.set(retry_after_seconds(response.headers.get("retry-after")))
        _replayed.set(response.headers.get("idempotency-replayed", "").lower() == "true")
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def service_error(exc: ApiError) -> ServiceError:
    """The client's ``ApiError`` as a :class:`ServiceError`, with ``Retry-After`` when the answer had one.

    A 2xx status here means the body was unreadable (the client raises for a
    non-JSON or non-object body): :class:`MalformedAnswer`.
    """
    message = str(exc).split(": ", 1)[-1]
    if 200 <= exc.status < 300:
        return MalformedAnswer(exc.status, "the request", f"{exc.code}: {message}")
    return ServiceError(exc.status, exc.code, message, retry_after=_retry_after.get())


def _service_error(exc: ApiError, what: str) -> ServiceError:
    message = str(exc).split(": ", 1)[-1]
    if exc.status == 404:
        return DecisionNotFound(what) if what.startswith("dec") else ServiceError(404, exc.code, message)
    if exc.status == 409:
        err: ServiceError = ReceiptConflict(f"{exc.code}: {message}")
        err.code = exc.code
        return err
    return service_error(exc)


@contextlib.contextmanager
def contract_answer(what: str, *, ident: str | None = None) -> Iterator[None]:
    """Around a client call: errors as :class:`ServiceError`, a broken 2xx answer :class:`MalformedAnswer`.

    ``what`` names the request in messages (``POST /v1/receipts``); ``ident``
    is the decision or memory id a 404 is about (404 on a decision id is
    :class:`~gate.errors.DecisionNotFound`). Only a failure after a 2xx
    answer arrived is taken for a malformed answer; anything raised before
    an answer (the client's own checks of what we send) passes through.
    """
    _answered.set(None)
    try:
        yield
    except ApiError as exc:
        if 200 <= exc.status < 300:
            message = str(exc).split(": ", 1)[-1]
            raise MalformedAnswer(exc.status, what, f"{exc.code}: {message}") from exc
        if ident is None:
            raise service_error(exc) from exc
        raise _service_error(exc, ident) from exc
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        status = _answered.get()
        if status is None or not 200 <= status < 300:
            raise
        raise MalformedAnswer(status, what, _missing(exc)) from exc


def _missing(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r}" if exc.args else "a field is missing"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


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
        self._embedder = judge_embedder()
        self._meaning = Meaning(self._embedder)
        # The judge's readings of each turn and memory, kept between a call's decisions.
        self._readings = ReadingCache()

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
        context: EvidenceContext | None = None,
    ) -> ServiceDecision:
        """Ask the hosted service, and trace the request on the host.

        The hosted answer is the service's own (its decision id is what the receipt
        closes); the trace over the memories it returns and this call's turns
        (``context``) says whether the caller asked for these arguments. An ``act``
        the trace does not support becomes the trace's answer; a trace the hosted
        answer does not share keeps the hosted outcome, with the trace, so the gate
        can record the caller's request with the service before acting on it.
        Hosted memories carry no time: they are read as older than this call.

        Raises:
            ServiceError: 400 before any request when the query is empty or longer
                than 2000 characters; the service's own errors otherwise.
        """
        if not 1 <= len(query) <= MAX_QUERY_CHARS:
            raise ServiceError(400, "invalid_request", f"query must be 1-{MAX_QUERY_CHARS} characters")
        with contract_answer("POST /v1/recall_for_action", ident="evaluate"):
            answer = await self.client.evaluate_action(partition, query, top_k=top_k)
            memories = [_evidence(m) for m in answer.memories if not m.superseded_by]
        outcome = answer.outcome if answer.outcome in ("act", "ask", "abstain") else "abstain"
        request = context.request if context is not None else evidence.from_match(query, match, slot=slot)
        call = list(context.call) if context is not None else []
        statements = evidence.combined(evidence.from_memories(memories), call)
        first = await self._meaning.prepare(base_texts(request, statements))
        near = bearing(request, statements, first)
        prepared = await self._meaning.prepare(
            [
                *base_texts(request, statements),
                *texts_for(request, near),
                *pointer_texts(request, statements, near),
            ]
        )
        found = evidence.trace(
            request, statements, prepared, since=context.since if context else None, readings=self._readings
        )
        verdict = evidence.decision_of(found, memories)
        if outcome == "act":
            if verdict.outcome == "act":
                return replace(verdict, decision_id=answer.decision_id)
            if verdict.outcome == "abstain" and verdict.rule == "evidence.missing":
                return replace(
                    verdict,
                    decision_id=answer.decision_id,
                    reason="trusted memory does not support these arguments",
                )
            return replace(verdict, decision_id=answer.decision_id)
        if verdict.rule == "evidence.denied":
            return replace(verdict, decision_id=answer.decision_id)
        if outcome == "ask":
            return ServiceDecision(
                answer.decision_id,
                "ask",
                memories,
                list(answer.pending_confirmation_ids),
                "memory needs the caller's confirmation",
                trace=found,
                rule="evidence.trace"
                if found.verdict == "supported" and found.trusted
                else "evidence.untrusted",
            )
        return ServiceDecision(
            answer.decision_id,
            "abstain",
            [],
            [],
            "nothing on file supports this",
            trace=found,
            rule="evidence.trace"
            if found.verdict == "supported" and found.trusted
            else "evidence.untrusted"
            if found.verdict == "supported"
            else "evidence.missing",
        )

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
        """Send the receipt; a same-key, same-payload replay answers with the stored receipt.

        Raises:
            MalformedAnswer: a 2xx answer that is not a receipt for this decision
                (the receipt may be stored: sending it again replays it).
        """
        what = "POST /v1/receipts"
        with contract_answer(what, ident=decision_id):
            answer = await self.client.report_execution(
                partition,
                decision_id,
                action_name,
                status,
                idempotency_key=idempotency_key,
                external_ref=external_ref,
                error_code=error_code,
            )
            r = answer.receipt
        code = _answered.get() or 200
        # The client turns a null id into "None": no receipt id came back either way.
        if not r.id or r.id == "None":
            raise MalformedAnswer(code, what, "the receipt has no id")
        if r.decision_id != decision_id:
            raise MalformedAnswer(code, what, f"a receipt for another decision, {r.decision_id[:80]!r}")
        if r.policy_alignment not in ("aligned", "violated"):
            alignment = str(r.policy_alignment)[:40]
            raise MalformedAnswer(code, what, f"policy_alignment {alignment!r} is not aligned or violated")
        return ServiceReceipt(r.id, r.decision_id, r.status, r.policy_alignment, replayed=_replayed.get())

    async def confirm(self, partition: str, memory_id: str, *, idempotency_key: str) -> None:
        with contract_answer("POST /v1/confirm", ident=memory_id):
            await self.client.confirm(partition, memory_id, idempotency_key=idempotency_key)

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
        with contract_answer("POST /v1/remember", ident="remember"):
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
        return str(memory.id)

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
        """The caller's request as the hosted contract records it: ``remember``, then ``confirm`` each.

        ``query`` is not sent (the hosted evaluation reads memory, not attestations).
        Raises what :meth:`remember` and :meth:`confirm` raise.
        """
        return await remember_and_confirm(
            self, partition, content, entity=entity, attribute=attribute, pending=pending
        )

    async def forget(self, partition: str) -> ForgetResult:
        with contract_answer("POST /v1/forget", ident="forget"):
            answer = await self.client.forget(
                partition,
                erase_partition=True,
                confirmation=partition,
                # Keys never carry the raw caller id (the contract's pattern refuses "@" and "+").
                idempotency_key=f"forget-{hashlib.sha256(partition.encode()).hexdigest()[:24]}-{uuid.uuid4().hex}",
            )
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
