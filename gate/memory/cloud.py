"""Caller memory on ContextDB Cloud, through the official client.

What is kept is decided as on the embedded engine (:mod:`gate.memory.facts`):
the caller's facts as ``user_stated`` below the trust bar, the agent's words
(filler aside) as ``agent_inferred`` and never action-relevant; questions,
greetings and filler are not sent at all.

Two limits of the hosted contract are kept here: ``remember`` content is
1-4,000 characters, so longer content is split at sentence (or word)
boundaries into several memories and nothing is lost; and every
``Idempotency-Key`` matches ``^[A-Za-z0-9._:-]{8,128}$``, so keys are derived
from a digest of the caller id, never the raw id (which may hold ``@`` or
``+``).

Saves survive a passing fault: a 429, a 5xx, a 2xx answer that is not the
contract's, a connection error or a timeout is tried again (at most
:data:`SAVE_ATTEMPTS` tries, all within :data:`SAVE_DEADLINE_S`, waiting
what the service's ``Retry-After`` asks up to :data:`SAVE_RETRY_AFTER_CAP_S`)
under the same idempotency key, so a try that did get through is not kept
twice. A refused key (401/403) or any other 4xx is a verdict and is not
retried. Saves run in the background (:class:`~gate.memory.agent.MemoryAgent`),
so no reply waits for these tries; after the last one the error is raised
and the agent logs it once (``gate.memory.save_failed``).

Errors: the service's ``ApiError`` becomes :class:`~gate.errors.ServiceError`
(with the HTTP status, code and ``Retry-After``; a broken 2xx answer is
:class:`~gate.cloud.backend.MalformedAnswer`); connection errors and
timeouts pass through as httpx errors.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
import uuid
from collections.abc import Awaitable, Callable

import httpx
from contextdb_cloud_client import Memory
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    stop_any,
    stop_before_delay,
    wait_exponential_jitter,
)
from tenacity.stop import stop_base

from gate.backends.base import ForgetResult
from gate.cloud.backend import CloudEngine, contract_answer
from gate.errors import ServiceError
from gate.log import event
from gate.memory.base import Recall, Recalled
from gate.memory.facts import agent_statement, caller_facts
from gate.memory.local import SAID_CONFIDENCE

MAX_CONTENT = 4000
MAX_QUERY = 2000

# Tries per save (one memory, or one part of a long one): the first and two more. A fault that
# outlasts three tries a few seconds apart is an outage, not a blip; the save is reported.
SAVE_ATTEMPTS = 3
# Everything one save does, tries and waits together, ends within this. A save is background
# work, so this delays no reply; it bounds how long a failing save lingers (the client's own
# per-request timeout is 10 s, so one slow try still fits with a quick retry after it).
SAVE_DEADLINE_S = 15.0
# The longest a save waits on the service's Retry-After. The service asking for longer is told
# it will be left alone: the save stops there (and is reported) instead of coming back early.
SAVE_RETRY_AFTER_CAP_S = 5.0
# The first wait between tries (doubled, with jitter, up to 4 s) when the service names none.
SAVE_BACKOFF_S = 0.5
_SNAPSHOT_QUESTION = "What is known about this caller: preferences, plans, open requests, past calls?"
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")


class CloudMemory:
    """Memory in the hosted service, one partition per caller."""

    name = "cloud"

    def __init__(
        self,
        engine: CloudEngine,
        *,
        save_attempts: int = SAVE_ATTEMPTS,
        save_deadline_s: float = SAVE_DEADLINE_S,
        retry_after_cap_s: float = SAVE_RETRY_AFTER_CAP_S,
        backoff_s: float = SAVE_BACKOFF_S,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.engine = engine
        self.client = engine.client
        self.save_attempts = max(1, save_attempts)
        self.save_deadline_s = save_deadline_s
        self.retry_after_cap_s = retry_after_cap_s
        self._backoff = wait_exponential_jitter(initial=backoff_s, max=max(backoff_s, 4.0))
        # Injectable so tests can see (and skip) the waits between tries.
        self._sleep = sleep or asyncio.sleep

    async def recall(self, caller_id: str, question: str, *, top_k: int = 5) -> Recall:
        """What the service recalls for ``question`` (its own ranking), at most ``top_k``."""
        with contract_answer("POST /v1/recall"):
            found = await self.client.recall(caller_id, question[:MAX_QUERY] or "caller", top_k=top_k)
            return Recall([_recalled(m) for m in found.memories], context=found.context)

    async def snapshot(self, caller_id: str, *, limit: int = 12) -> Recall:
        return await self.recall(caller_id, _SNAPSHOT_QUESTION, top_k=limit)

    async def save_exchange(self, caller_id: str, caller_said: str, agent_said: str) -> None:
        """Keep the facts in what the caller said and the agent's words (as the agent's)."""
        for statement in caller_facts(caller_said):
            await self._remember(caller_id, statement.text, source="user_stated", confidence=SAID_CONFIDENCE)
        spoken = agent_statement(agent_said)
        if spoken is not None:
            await self._remember(
                caller_id, spoken, source="agent_inferred", confidence=SAID_CONFIDENCE, action_relevant=False
            )

    async def remember(self, caller_id: str, content: str, *, source: str, confidence: float) -> str:
        """Keep one fact; content over 4,000 characters becomes several memories. Returns the first id."""
        ids = await self._remember(caller_id, content, source=source, confidence=confidence)
        return ids[0]

    async def _remember(
        self,
        caller_id: str,
        content: str,
        *,
        source: str,
        confidence: float,
        action_relevant: bool | None = None,
    ) -> list[str]:
        # One key per logical save, reused by nothing else; the part number keeps
        # the parts of one long content apart.
        base = idempotency_key("remember", caller_id)
        ids = []
        for part, chunk in enumerate(split_content(content)):

            async def send(chunk: str = chunk, key: str = f"{base}.{part}") -> Memory:
                kept: Memory = await self.client.remember(
                    caller_id,
                    chunk,
                    source=source,
                    confidence=confidence,
                    action_relevant=action_relevant,
                    idempotency_key=key,
                )
                return kept

            memory = await self._saved(caller_id, send)
            ids.append(str(memory.id))
        return ids

    async def _saved(self, caller_id: str, send: Callable[[], Awaitable[Memory]]) -> Memory:
        """``send()`` until the service keeps it, within the bounds above; raises the last failure."""
        started = time.monotonic()

        def wait(state: RetryCallState) -> float:
            base = float(self._backoff(state))
            hint = _retry_after(state)
            return max(base, min(hint, self.retry_after_cap_s)) if hint else base

        def retrying(state: RetryCallState) -> None:
            failure = state.outcome.exception() if state.outcome else None
            event(
                "gate.memory.save_retry",
                caller=caller_id,
                attempt=state.attempt_number,
                error=type(failure).__name__,
                wait_s=round(state.upcoming_sleep, 3),
            )

        tries = AsyncRetrying(
            stop=stop_any(
                stop_after_attempt(self.save_attempts),
                stop_before_delay(self.save_deadline_s),
                _AsksTooLong(self.retry_after_cap_s),
            ),
            wait=wait,
            retry=retry_if_exception(transient),
            before_sleep=retrying,
            reraise=True,
            sleep=self._sleep,
        )
        saved: Memory | None = None
        async for attempt in tries:
            with attempt:
                left = self.save_deadline_s - (time.monotonic() - started)
                if left <= 0:
                    raise TimeoutError(f"the save took longer than {self.save_deadline_s:g} s")
                async with asyncio.timeout(left):
                    with contract_answer("POST /v1/remember"):
                        saved = await send()
        assert saved is not None
        return saved

    async def forget(self, caller_id: str) -> ForgetResult:
        """Erase the caller's partition; the service verifies it."""
        with contract_answer("POST /v1/forget"):
            answer = await self.client.forget(
                caller_id,
                erase_partition=True,
                confirmation=caller_id,
                idempotency_key=idempotency_key("forget", caller_id),
            )
        return ForgetResult(deleted=answer.deleted, verified=bool(answer.verified))

    async def aclose(self) -> None:
        """The engine belongs to the gate; it closes it."""


def idempotency_key(kind: str, caller_id: str) -> str:
    """A fresh key for one request about ``caller_id``: ``kind``, a digest of the id, a nonce.

    Always matches the contract's ``^[A-Za-z0-9._:-]{8,128}$`` whatever the caller id holds.
    """
    digest = hashlib.sha256(caller_id.encode("utf-8")).hexdigest()[:24]
    return f"{kind}-{digest}-{uuid.uuid4().hex}"


def split_content(content: str, limit: int = MAX_CONTENT) -> list[str]:
    """``content`` in parts of at most ``limit`` characters, cut between sentences where possible.

    Joined with single spaces the parts give back the content (whitespace runs at
    the cuts aside, and a single word longer than ``limit`` is cut inside); nothing
    is dropped. Raises ValueError for empty content.
    """
    text = content.strip()
    if not text:
        raise ValueError("content is empty")
    if len(text) <= limit:
        return [text]
    parts: list[str] = []
    current = ""
    for piece in _pieces(text, limit):
        if current and len(current) + 1 + len(piece) > limit:
            parts.append(current)
            current = piece
        else:
            current = f"{current} {piece}" if current else piece
    if current:
        parts.append(current)
    return parts


def _pieces(text: str, limit: int) -> list[str]:
    """Sentences, then words, then fixed cuts: each at most ``limit`` characters."""
    out: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        if len(sentence) <= limit:
            out.append(sentence)
            continue
        for word in sentence.split():
            out.extend(word[i : i + limit] for i in range(0, len(word), limit))
    return out


def _recalled(m: Memory) -> Recalled:
    said_by = {"user_stated": "caller", "agent_inferred": "agent"}.get(m.epistemic_source, "other")
    return Recalled(m.id, m.content, said_by, None, m.injection_suspect)


def transient(exc: BaseException) -> bool:
    """Whether a failed save is worth another try: nothing in the failure is about the memory.

    429, 5xx and a broken 2xx answer (:attr:`ServiceError.retryable`), a
    connection error or timeout. A refused key (401/403) and every other 4xx
    are the service's answer and are not retried.
    """
    if isinstance(exc, ServiceError):
        return exc.retryable
    return isinstance(exc, httpx.TransportError | TimeoutError)


class _AsksTooLong(stop_base):
    """Stop: the service asked for a longer wait than ``cap`` seconds (it is left alone)."""

    def __init__(self, cap: float) -> None:
        self.cap = cap

    def __call__(self, retry_state: RetryCallState) -> bool:
        hint = _retry_after(retry_state)
        return hint is not None and hint > self.cap


def _retry_after(state: RetryCallState) -> float | None:
    failure = state.outcome.exception() if state.outcome else None
    hint = getattr(failure, "retry_after", None)
    return float(hint) if isinstance(hint, int | float) and hint > 0 else None
