"""The receipt outbox: committed locally first, delivered until acknowledged.

Every receipt is written to the ledger before delivery is tried, so an
outage, a slow network or a crash loses nothing: undelivered receipts are
sent again (same idempotency key, same payload) until the decision service
acknowledges them. Delivery retries with exponential backoff and jitter on
connection errors, timeouts, 429 (honouring ``Retry-After``) and 5xx, never
on 400/401/403/404. A conflicting 409 is flagged in the ledger, never dropped.
Every attempt is a chained delivery record in the ledger, with its cause.

A 401 or 403 says our credentials are wrong, not that the receipt is: the
receipt stays ``pending``, the drain stops trying (every other receipt
would fail the same way) and reports :attr:`DrainReport.credentials`; the
next drain with the right key delivers it.

A 2xx answer that is not the contract's (not JSON, no receipt in it) says
nothing about the receipt either: it is a transport fault, retried like a
503, and the receipt stays ``pending`` (the same key replays the stored
receipt if the first try did get through).

A ``Retry-After`` is honoured up to :data:`RETRY_AFTER_CAP_S`. A service that
asks for longer is left alone: the drain stops, every receipt stays
``pending`` for a later drain, and :attr:`DrainReport.deferred` says why.

Decisions a dead process left without a receipt are reconciled: never acted
on (ask/abstain) -> ``skipped``; acted on -> the tool's reconcile hook looks
the idempotency key up in its own system (found -> ``succeeded``, not found ->
``failed``/``not_executed``); with no hook -> ``failed``/``outcome_unknown``.
Nothing is ever guessed as succeeded.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    stop_any,
    wait_exponential_jitter,
)
from tenacity.stop import stop_base

from gate.backends.base import DecisionBackend
from gate.decorator import Executed, ReconcileHook
from gate.errors import ReceiptConflict, ServiceError
from gate.ledger import DecisionRow, DeliveryRow, Ledger, ReceiptRow
from gate.ledger.tables import closing_receipt
from gate.log import event, warning


def credentials_refused(exc: BaseException) -> bool:
    """The service refused our API key (401) or its rights (403): nothing about the receipt."""
    return isinstance(exc, ServiceError) and exc.status in (401, 403)


def retryable(exc: BaseException) -> bool:
    """Whether a failed delivery is worth trying again within this drain."""
    if isinstance(exc, ReceiptConflict):
        return "in_progress" in getattr(exc, "code", "")
    if isinstance(exc, ServiceError):
        return exc.retryable
    return isinstance(exc, TimeoutError | httpx.TransportError | ConnectionError | OSError)


def _retry_after(exc: BaseException | None) -> float | None:
    hint = getattr(exc, "retry_after", None)
    return float(hint) if isinstance(hint, int | float) and hint > 0 else None


def _state_after(exc: BaseException) -> str:
    if retryable(exc) or credentials_refused(exc):
        return "pending"
    return "conflict" if isinstance(exc, ReceiptConflict) else "rejected"


def cause(exc: BaseException, *, timeout_s: float | None = None) -> str:
    """One line saying why a delivery failed, for the ledger and the drain's report."""
    if credentials_refused(exc):
        assert isinstance(exc, ServiceError)
        what = "rejected the API key" if exc.status == 401 else "refused the API key's rights"
        return f"ContextDB {what} ({exc.status}): set CONTEXTDB_API_KEY to a valid project key"
    if isinstance(exc, TimeoutError):
        after = f" after {timeout_s:g} s" if timeout_s else ""
        return f"TimeoutError: no answer from the decision service{after}"
    if isinstance(exc, httpx.TransportError | ConnectionError):
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"{type(exc).__name__}: cannot reach the decision service ({detail})"
    if isinstance(exc, ServiceError) and exc.code == "malformed_answer":
        # A 2xx that is not the contract's (gate.cloud.backend.MalformedAnswer): say which request.
        what = getattr(exc, "what", "the request")
        detail = getattr(exc, "detail", "")
        return (
            f"{type(exc).__name__}: the decision service answered {exc.status} to {what} with a body that "
            f"is not the contract's ({detail}); a transport fault, the receipt stays pending"
        )[:500]
    text = str(exc).strip().splitlines()
    line = f"{type(exc).__name__}: {text[0] if text else 'no detail'}"
    hint = _retry_after(exc)
    if hint is not None:
        line += f" (Retry-After {hint:g} s)"
    return line[:500]


# The longest a drain waits on the service's Retry-After before trying a receipt again.
# `gate receipts drain` is run by someone watching it, and the background drain delays the
# receipts behind the one waiting: 30 s covers the usual rate-limit windows (a second to a
# minute's budget), and a service that asks for longer is taken at its word and left alone
# (the drain stops, the receipts stay pending for a later drain) instead of holding the
# drain for as long as the header says, which is unbounded (Retry-After: 3600, or a date).
RETRY_AFTER_CAP_S = 30.0
# The longest the background drain stays away after such an answer (then it asks again).
_MAX_HOLD_S = 600.0


# How long a drain woken by a new receipt waits for more before it starts.
LINGER_S = 0.1

# Receipts claimed at a time; a drain claims again while it keeps getting full batches.
_CLAIM = 100


class CredentialsRefused(Exception):
    """Raised inside a drain to stop it: the service refused our credentials."""


class ServiceDeferred(Exception):
    """Raised inside a drain to stop it: the service asked us to wait longer than we do."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


def deferred_cause(retry_after_s: float, cap_s: float) -> str:
    """One line saying the service asked for a longer wait than a drain gives it."""
    return (
        f"the decision service asked to wait {retry_after_s:g} s before trying again (Retry-After), "
        f"more than the {cap_s:g} s a drain waits"
    )


class _Backoff:
    """Exponential backoff with jitter; a server's Retry-After wins when longer (up to ``cap``)."""

    def __init__(self, initial: float, maximum: float, cap: float = RETRY_AFTER_CAP_S) -> None:
        self._jitter = wait_exponential_jitter(initial=initial, max=maximum)
        self._max = maximum
        self.cap = cap

    def __call__(self, state: RetryCallState) -> float:
        base = float(self._jitter(state))
        hint = _retry_after(state.outcome.exception() if state.outcome else None)
        if hint is not None:
            # Past the cap the retrying stops instead (see ``too_long``): never wait longer.
            return max(base, min(hint, self.cap))
        return base

    @property
    def too_long(self) -> stop_base:
        """A stop condition: the service asked for a longer wait than ``cap``."""
        return _AsksTooLong(self.cap)


class _AsksTooLong(stop_base):
    """Stop retrying when the service's Retry-After asks for more than ``cap`` seconds."""

    def __init__(self, cap: float) -> None:
        self.cap = cap

    def __call__(self, retry_state: RetryCallState) -> bool:
        hint = _retry_after(retry_state.outcome.exception() if retry_state.outcome else None)
        return hint is not None and hint > self.cap


@dataclass(frozen=True)
class DrainFailure:
    """A receipt the drain could not deliver, the state it is left in, and why."""

    receipt_id: str
    decision_id: str
    state: str
    cause: str


@dataclass
class DrainReport:
    """What one drain did. ``credentials`` is set when the service refused our key (the drain stopped)."""

    delivered: int = 0
    pending: int = 0
    conflicts: int = 0
    rejected: int = 0
    reconciled: dict[str, int] = field(default_factory=dict)
    failures: list[DrainFailure] = field(default_factory=list)
    credentials: str | None = None
    #: Set when the service asked for a longer wait than :data:`RETRY_AFTER_CAP_S` (the drain stopped).
    deferred: str | None = None
    retry_after_s: float | None = None


class Outbox:
    """Delivers the ledger's receipts to the decision service.

    Args:
        attempts: tries per delivery before leaving it for the next drain.
        attempt_timeout_s: our deadline on each try (the client's own is too long).
        backoff_s / max_backoff_s: the first wait and the cap between tries.
        retry_after_cap_s: the longest wait on the service's ``Retry-After``
            (:data:`RETRY_AFTER_CAP_S`); a longer ask stops the drain.
        hooks: reconcile hooks by tool name.
        lease_s: how long a drain holds the receipts it claimed (see
            :meth:`~gate.ledger.Ledger.claim_undelivered`); drains of other
            processes on the same ledger leave them alone until then.
    """

    def __init__(
        self,
        ledger: Ledger,
        backend: DecisionBackend,
        *,
        attempts: int = 5,
        attempt_timeout_s: float = 3.0,
        backoff_s: float = 0.2,
        max_backoff_s: float = 30.0,
        retry_after_cap_s: float = RETRY_AFTER_CAP_S,
        hooks: Mapping[str, ReconcileHook] | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        lease_s: float = 60.0,
    ) -> None:
        self.ledger = ledger
        self.lease_s = lease_s
        # Who holds a claim: unique per Outbox, so two in one process never share one.
        self.owner = f"{socket.gethostname()[:32]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        self.backend = backend
        self.attempts = attempts
        self.attempt_timeout_s = attempt_timeout_s
        self._wait = _Backoff(backoff_s, max_backoff_s, retry_after_cap_s)
        self.hooks = dict(hooks or {})
        # Injectable so tests can see (and skip) the waits between tries.
        self._sleep = sleep or asyncio.sleep
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    # -- delivery ------------------------------------------------------------------

    async def deliver(self, receipt: ReceiptRow, *, attempts: int | None = None) -> str:
        """Deliver one receipt with retries; returns its delivery state afterwards.

        ``delivered`` and ``conflict``/``rejected`` are final; ``pending`` means it will be
        tried again by the next drain (also when the service refused our credentials).
        Each attempt is recorded in the ledger with its cause when it failed.
        """
        try:
            state, _ = await self._deliver(receipt, attempts=attempts)
        except (CredentialsRefused, ServiceDeferred):
            return "pending"
        return state

    async def _deliver(self, receipt: ReceiptRow, *, attempts: int | None = None) -> tuple[str, str | None]:
        if receipt.service_decision_id is None:
            return "local", None
        settled = await self._settle_here(receipt)
        if settled is not None:
            return settled, None
        retrying = AsyncRetrying(
            stop=stop_any(stop_after_attempt(attempts or self.attempts), self._wait.too_long),
            wait=self._wait,
            retry=retry_if_exception(retryable),
            reraise=True,
            sleep=self._sleep,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    answer = await self._attempt(receipt)
        except Exception as exc:
            state = _state_after(exc)
            name = "gate.receipt.conflict" if state == "conflict" else "gate.receipt.undelivered"
            why = cause(exc, timeout_s=self.attempt_timeout_s)
            # Info, not warning: the ledger keeps the attempt and its cause, and whoever
            # drains (the background loop below, or `gate receipts drain`) reports it once.
            event(name, receipt_id=receipt.id, decision_id=receipt.decision_id, state=state, cause=why)
            if credentials_refused(exc):
                raise CredentialsRefused(why) from exc
            hint = _retry_after(exc)
            if hint is not None and hint > self._wait.cap:
                raise ServiceDeferred(deferred_cause(hint, self._wait.cap), hint) from exc
            return state, why
        written = await self.ledger.arecord_delivery(
            receipt.id,
            state="delivered",
            policy_alignment=answer.policy_alignment,
            service_receipt_id=answer.receipt_id,
        )
        # Another process may have settled it first; the ledger keeps that record, not a second.
        return (written.state if written is not None else "delivered"), None

    async def _settle_here(self, receipt: ReceiptRow) -> str | None:
        """Deliver to a decision service that keeps its records in this very ledger, in one transaction.

        The embedded engine's receipt and the delivery record that says it was
        taken are then written together (one commit, where a delivery was a
        write to the service and another to the chain). Returns the receipt's
        delivery state, or None when the service is elsewhere or refused it
        (then the ordinary delivery runs and records why).
        """
        service_job = getattr(self.backend, "receipt_job", None)
        if service_job is None or getattr(self.backend, "ledger", None) is not self.ledger:
            return None
        assert receipt.service_decision_id is not None
        try:
            served = service_job(
                receipt.caller_id,
                receipt.service_decision_id,
                receipt.action_name,
                receipt.status,
                idempotency_key=receipt.idempotency_key,
                external_ref=receipt.external_ref,
                error_code=receipt.error_code,
            )
        except Exception:  # refused before any write: the ordinary delivery records why
            return None
        record = self.ledger._delivery_job

        def both(conn: Any) -> DeliveryRow | None:
            answer = served(conn)
            settled: DeliveryRow | None = record(
                receipt.id, "delivered", None, answer.policy_alignment, answer.receipt_id
            )(conn)
            return settled

        try:
            # The ledger's own writer: the delivery record is a chain append.
            written = await self.ledger._writer.acall(both)
        except Exception:
            return None
        return written.state if written is not None else "delivered"

    async def _attempt(self, receipt: ReceiptRow) -> Any:
        assert receipt.service_decision_id is not None
        try:
            # asyncio.timeout: a cancellation (stop) is never swallowed by an answer landing with it.
            async with asyncio.timeout(self.attempt_timeout_s):
                return await self.backend.report_execution(
                    receipt.caller_id,
                    receipt.service_decision_id,
                    receipt.action_name,
                    receipt.status,
                    idempotency_key=receipt.idempotency_key,
                    external_ref=receipt.external_ref,
                    error_code=receipt.error_code,
                )
        except Exception as exc:
            # Every failed try is on record, with the state it leaves the receipt in and why.
            await self.ledger.arecord_delivery(
                receipt.id,
                state=_state_after(exc),
                error=cause(exc, timeout_s=self.attempt_timeout_s),
            )
            raise

    # -- reconciliation ------------------------------------------------------------

    async def reconcile(self, *, grace_s: float = 120.0) -> dict[str, int]:
        """Close decisions left without a receipt for longer than ``grace_s``."""
        counts: dict[str, int] = {}
        for decision in await asyncio.to_thread(self.ledger.unclosed, time.time() - grace_s):
            outcome = await self._reconcile_one(decision)
            if outcome is not None:
                counts[outcome] = counts.get(outcome, 0) + 1
        return counts

    async def _reconcile_one(self, decision: DecisionRow) -> str | None:
        status, ref, code = "skipped", None, None
        if decision.enforced_outcome == "act":
            hook = self.hooks.get(decision.tool)
            if hook is None:
                status, code = "failed", "outcome_unknown"
            else:
                try:
                    found = await hook(f"gate-{decision.id}")
                except Exception as exc:
                    warning("gate.reconcile.hook_failed", decision_id=decision.id, error=type(exc).__name__)
                    return None  # ask again on the next drain; never guess
                if found is None or found is False:
                    status, code = "failed", "not_executed"
                else:
                    status = "succeeded"
                    ref = (
                        found.external_ref
                        if isinstance(found, Executed)
                        else found
                        if isinstance(found, str)
                        else None
                    )
        receipt = closing_receipt(decision, status, external_ref=ref, error_code=code)
        written = await self.ledger.arecord_receipt(receipt)
        event(
            "gate.receipt",
            decision_id=decision.id,
            caller=decision.caller_id,
            tool=decision.tool,
            outcome=decision.outcome,
            status=written.receipt.status,
            reconciled=True,
        )
        return f"{status}/{code}" if code else status

    # -- draining ------------------------------------------------------------------

    async def drain(
        self,
        *,
        reconcile_grace_s: float | None = 120.0,
        attempts: int | None = None,
        take_held: bool = False,
    ) -> DrainReport:
        """Reconcile dead processes' decisions, then deliver every pending receipt once (with retries).

        Receipts are claimed first (:meth:`~gate.ledger.Ledger.claim_undelivered`),
        so the drains of several processes on one ledger share the work
        instead of each sending everything; receipts another drain holds are
        left to it until its lease runs out, unless ``take_held`` (an
        operator's drain: everything waiting is sent now).
        """
        report = DrainReport()
        if reconcile_grace_s is not None:
            report.reconciled = await self.reconcile(grace_s=reconcile_grace_s)
        seen: set[str] = set()
        while True:
            claimed = await self.ledger.aclaim_undelivered(
                self.owner, lease_s=self.lease_s, limit=_CLAIM, take_held=take_held
            )
            waiting = [r for r in claimed if r.id not in seen]
            seen.update(r.id for r in waiting)
            if not await self._send(waiting, report, attempts) or len(claimed) < _CLAIM:
                if report.credentials or report.deferred:
                    # Nothing more goes through with this key (or this run): all that waits is
                    # still pending, not only the batch this drain had claimed.
                    report.pending = await asyncio.to_thread(self.ledger.count_undelivered)
                return report

    async def _send(self, waiting: list[ReceiptRow], report: DrainReport, attempts: int | None) -> bool:
        """Deliver ``waiting`` into ``report``; False when there was nothing, or the drain must stop."""
        if not waiting:
            return False
        for done, receipt in enumerate(waiting):
            try:
                state, why = await self._deliver(receipt, attempts=attempts)
            except CredentialsRefused as exc:
                # Every other receipt would be refused the same way: keep them all for
                # the next drain, with the right key.
                report.credentials = str(exc)
                report.pending += len(waiting) - done
                return False
            except ServiceDeferred as exc:
                # The service asked to be left alone for longer than we wait: leave it alone,
                # every receipt stays pending for a later drain.
                report.deferred = str(exc)
                report.retry_after_s = exc.retry_after_s
                report.pending += len(waiting) - done
                return False
            if state == "delivered":
                report.delivered += 1
                continue
            if state == "conflict":
                report.conflicts += 1
            elif state == "rejected":
                report.rejected += 1
            else:
                report.pending += 1
            report.failures.append(DrainFailure(receipt.id, receipt.decision_id, state, why or state))
        return True

    def start(
        self, *, interval_s: float = 5.0, reconcile_grace_s: float = 120.0, linger_s: float = LINGER_S
    ) -> None:
        """Drain in the background: now, shortly after every :meth:`notify`, and every ``interval_s``.

        A notified drain starts ``linger_s`` after the first notice, so the
        receipts written meanwhile go in the same drain (one claim for all of
        them) and the delivery runs after the reply that wrote the receipt, not
        during it. Dead processes' decisions are reconciled on the first drain
        and then at most every ``interval_s``, not on every notice.
        """
        if self.running:
            return

        async def loop() -> None:
            hold_until = 0.0  # the service asked to be left alone until then (monotonic clock)
            reconciled = -math.inf  # when dead processes' decisions were last looked for
            while True:
                wait = interval_s
                early = hold_until - time.monotonic()
                if early > 0:
                    # Woken (a new receipt) while the service asked for quiet: it waits its turn.
                    await self._nap(early)
                    continue
                try:
                    due = time.monotonic() - reconciled >= interval_s
                    if due:
                        reconciled = time.monotonic()
                    report = await self.drain(reconcile_grace_s=reconcile_grace_s if due else None)
                    if report.credentials:
                        warning("gate.outbox.credentials", cause=report.credentials, pending=report.pending)
                        # Nothing gets through until someone fixes the key: don't knock every few seconds.
                        wait = max(interval_s, 60.0)
                    if report.deferred:
                        warning("gate.outbox.deferred", cause=report.deferred, pending=report.pending)
                        hold = min(report.retry_after_s or interval_s, _MAX_HOLD_S)
                        hold_until = time.monotonic() + hold
                        wait = max(interval_s, hold)
                    for failure in report.failures:
                        warning(
                            "gate.receipt.undelivered",
                            receipt_id=failure.receipt_id,
                            decision_id=failure.decision_id,
                            state=failure.state,
                            cause=failure.cause,
                        )
                except Exception as exc:  # keep the loop alive; the ledger still holds everything
                    warning("gate.outbox.error", error=type(exc).__name__)
                if await self._nap(wait) and linger_s > 0:
                    await asyncio.sleep(linger_s)

        self._wake = asyncio.Event()
        self._task = asyncio.create_task(loop(), name="gate-outbox")

    async def _nap(self, seconds: float) -> bool:
        """Wait for :meth:`notify` or ``seconds``, whichever comes first; True when notified.

        ``asyncio.timeout``, not ``wait_for``: on Python 3.11 ``wait_for`` swallows a
        cancellation that lands as the event is set (a notify right before :meth:`stop`),
        and the loop would then never end.
        """
        self._wake.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._wake.wait()
                return True
        return False

    def notify(self) -> None:
        """Wake the background drain (after a new receipt)."""
        self._wake.set()

    async def stop(self, *, flush_timeout_s: float = 5.0) -> None:
        """Stop the background drain after one last bounded attempt to deliver everything."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.drain(reconcile_grace_s=None, attempts=1), timeout=flush_timeout_s)
