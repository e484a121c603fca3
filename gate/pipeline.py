"""The decision pipeline of one gated call: policy, state, evidence, combine, record.

Nothing here talks to LiveKit; :mod:`gate.session` calls it and carries out
the branch. Every decision is written to the ledger before anything
happens, and every decision is later closed by exactly one receipt.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import json
import re
import time
import unicodedata
import uuid
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypeVar

from tenacity import (
    AsyncRetrying,
    retry_if_exception_type,
    retry_if_not_exception_type,
    stop_after_attempt,
    stop_after_delay,
    wait_exponential,
)

from gate.backends.base import DecisionBackend, attest
from gate.caller import Caller
from gate.canonical import canonical_json, digest, mask_arguments
from gate.decorator import GatedTool, State
from gate.errors import ReceiptConflict, describe
from gate.evidence import (
    ActionTrace,
    ArgumentTrace,
    EvidenceContext,
    EvidenceSlot,
    ServiceDecision,
    Statement,
    Trace,
)
from gate.evidence.request import build as trace_request
from gate.ledger import ConfirmationRow, DecisionRow, Ledger, ReceiptRow
from gate.ledger.tables import closing_receipt
from gate.ledger.writer import Carried, carrying
from gate.log import event, warning
from gate.outbox import Outbox
from gate.policy.loader import LoadedPolicy
from gate.policy.rules import (
    RuleResult,
    Verdict,
    argument_rules,
    blocked,
    caller_rules,
    combine,
    limit_rules,
    run_rules,
)
from gate.policy.schema import MAX_QUERY_CHARS, Policy

T = TypeVar("T")


@dataclass
class Prepared:
    """Reads a decision started early (:meth:`Pipeline.prepare`)."""

    executed: asyncio.Task[int] | None = None


@dataclass
class Decision:
    """A recorded decision and what the session needs to carry it out."""

    row: DecisionRow
    policy: Policy
    args: dict[str, Any]
    state: State | None
    evidence: ServiceDecision | None
    trace: list[RuleResult] = field(default_factory=list)
    # When the call's time budget runs out (the event loop's clock), if it has one.
    deadline: float | None = None

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def outcome(self) -> str:
        """What the policy decided (recorded even in shadow mode)."""
        return self.row.outcome

    @property
    def enforced(self) -> str:
        """What the gate does: the outcome, or ``act`` in shadow mode."""
        return self.row.enforced_outcome

    @property
    def deciding(self) -> RuleResult:
        return next((r for r in self.trace if r.rule == self.row.rule), self.trace[-1])

    @property
    def pending_memory_ids(self) -> list[str]:
        return list(self.evidence.pending_ids) if self.evidence else []

    @property
    def idempotency_key(self) -> str:
        """The key the tool body gets: one per decision, stable across retries."""
        return f"gate-{self.row.id}"


def action_digest(
    tool: str, caller: Caller, args: dict[str, Any], state_version: str | None, policy_hash: str
) -> str:
    """The digest a confirmation is bound to: tool, caller, arguments, state and policy."""
    return digest(
        {"tool": tool, "caller": caller.id, "args": args, "state": state_version, "policy": policy_hash}
    )


def deadline_in(seconds: float) -> float:
    """The event loop's time ``seconds`` from now: one budget shared by several steps."""
    return asyncio.get_running_loop().time() + seconds


def time_left(deadline: float) -> float:
    """Seconds until ``deadline`` (never negative: a spent budget times out at once)."""
    return max(deadline - asyncio.get_running_loop().time(), 0.0)


_CODE_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")
MAX_ERROR_CODE = 64


def safe_error_code(code: str) -> str:
    """A receipt's error code as the service and the ledger take it: ``[A-Za-z0-9_.]``, at most 64.

    Letters with accents lose them (``Ä`` is ``A``); anything else becomes ``_``.
    An exception class may be named anything, and a code the service refuses
    would leave the receipt undelivered for good.
    """
    plain = unicodedata.normalize("NFKD", code).encode("ascii", "ignore").decode("ascii")
    cleaned = _CODE_UNSAFE.sub("_", plain)[:MAX_ERROR_CODE].strip("._")
    return cleaned or "error"


@dataclass(frozen=True)
class _Unwritten:
    """A receipt the ledger refused for the moment, kept until it can be written."""

    receipt: ReceiptRow
    decision: DecisionRow


class Pipeline:
    """Decides and records; shared by every session of a :class:`gate.Gate`.

    Args:
        receipt_attempts / receipt_retry_s: how often, and for how long at most, a
            receipt is written again when the ledger refuses it after the tool ran.
    """

    def __init__(
        self,
        ledger: Ledger,
        backend: DecisionBackend,
        outbox: Outbox,
        *,
        receipt_attempts: int = 4,
        receipt_retry_s: float = 2.0,
    ) -> None:
        self.ledger = ledger
        self.backend = backend
        self.outbox = outbox
        self.receipt_attempts = receipt_attempts
        self.receipt_retry_s = receipt_retry_s
        # Receipts the ledger could not take yet, by decision id: written on the next
        # ledger write, by a background retry, and on aclose(); never dropped.
        self._unwritten: dict[str, _Unwritten] = {}
        self._retrying: asyncio.Task[None] | None = None
        self._deliveries: set[asyncio.Task[Any]] = set()
        self._preparing: set[asyncio.Task[Any]] = set()

    def prepare(
        self, tool: GatedTool, loaded: LoadedPolicy, caller: Caller, args: dict[str, Any]
    ) -> Prepared | None:
        """Start, in the background, the reads a decision on ``args`` will need.

        For a call that first waits for the caller's words to be saved: what
        does not depend on them is read during the wait instead of after it.
        The caller's executed actions for the rate limit are counted (an ``act``
        still reserves its slot when it is recorded, so a count taken a moment
        early never lets an action past the limit), and a backend with a
        ``prepare(partition, query)`` hook gets the query (the embedded engine
        embeds it). The state is not read early: it must be as fresh as the
        decision. Returns what to hand to :meth:`decide`, or None when the
        policy refuses these arguments before any read. Never raises: a failed
        read is made again by the decision, which records its failure.
        """
        policy = loaded.policy
        if blocked(caller_rules(policy, caller) + argument_rules(args) + limit_rules(policy, args)):
            return None
        prepared = Prepared()
        if policy.rate is not None:
            since = time.time() - policy.rate.seconds
            prepared.executed = self._background(self.ledger.acount_executed(caller.id, tool.name, since))
        hook = getattr(self.backend, "prepare", None)
        # A request the gate records first is answered from that record: no query to read ahead.
        if hook is not None and not records_request(policy):
            try:
                query = evidence_request(policy, args)[0]
            except Exception:  # the decision itself meets the same problem and records it
                return prepared
            self._background(hook(caller.id, query))
        return prepared

    def _background(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.ensure_future(work)
        self._preparing.add(task)
        task.add_done_callback(self._prepared)
        return task

    def _prepared(self, task: asyncio.Task[Any]) -> None:
        self._preparing.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: the decision makes a failed read again and records it

    async def decide(
        self,
        *,
        tool: GatedTool,
        loaded: LoadedPolicy,
        caller: Caller,
        session_id: str,
        args: dict[str, Any],
        attested: ConfirmationRow | None = None,
        force_ask: str | None = None,
        forced: RuleResult | None = None,
        call_id: str | None = None,
        notes: list[RuleResult] | None = None,
        deadline: float | None = None,
        prepared: Prepared | None = None,
        heard: Sequence[Statement] = (),
        since: float | None = None,
        today: date | None = None,
        lang: str | None = None,
    ) -> Decision:
        """Run the policy, the state read and the evidence look-up; record the decision.

        ``attested``: the confirmation the caller said yes to; the state must
        still be at the version they confirmed, or the gate asks again.
        When the policy acts without requiring evidence, the request is first
        recorded with the decision service (see :meth:`attest`), so the service
        itself answers ``act`` and the receipt is aligned. ``notes``: trace entries
        to keep (e.g. what the caller heard and answered).

        ``deadline`` (event loop time): when the call's budget runs out; the state
        read and the evidence look-up (with any request recorded before it) share
        what is left of it. Default: the policy's ``timeout_s`` from now.
        ``prepared``: reads started by :meth:`prepare` for this call.
        ``heard``: this call's turns so far (the session's transcript), which the
        request is traced over with the caller's memory; ``since`` when the call
        began, ``today`` the call's date (relative dates are read against it) and
        ``lang`` the caller's language. When every bound argument is traced to the
        caller's words but the hosted service answered otherwise, the caller's
        request is recorded with it (see :meth:`attest`) and it is asked again.

        Never raises for a failing rule, state reader or decision service:
        each of those becomes an ``abstain`` with the rule that failed (a state
        reader past the budget is ``state.unavailable``). Raises only if the
        ledger itself cannot be written (then nothing executes).
        """
        started = time.perf_counter()
        policy = loaded.policy
        if deadline is None:
            deadline = deadline_in(policy.timeout_s)
        budget_end = deadline

        async def executed(window_s: float) -> int:
            early = prepared.executed if prepared is not None else None
            if early is not None:
                with contextlib.suppress(Exception):  # counted again below, failing for real
                    return await early
            since = time.time() - window_s
            return await self.ledger.acount_executed(caller.id, tool.name, since)

        async def read_state() -> State | None:
            # A reader that hangs must not hold the call (and the session's close) forever.
            return await asyncio.wait_for(tool.read_state(caller, args), timeout=time_left(budget_end))

        enforce = policy.mode == "enforce"
        record_request = attested is None and force_ask is None and records_request(policy)
        ahead = self._read_ahead(policy, lambda: self._context(tool, policy, args, heard, since, today, lang))

        async def evidence() -> ServiceDecision:
            # Rendering the query can fail (too long): inside, so the failure is recorded as
            # the evidence rule's own.
            context = ahead or self._context(tool, policy, args, heard, since, today, lang)

            async def ask() -> ServiceDecision:
                if record_request:
                    await self.attest(caller, loaded, args, kind="request", deadline=budget_end)
                found = await self._ask_service(policy, caller, args, context)
                if (
                    enforce
                    and not record_request
                    and attested is None
                    and found.rule == "evidence.trace"
                    and found.outcome != "act"
                ):
                    # The caller's words in this call ask for exactly this, and the hosted
                    # service, which never heard them, did not answer act: record the
                    # request with it, so that its answer is act and the receipt aligned.
                    await self.attest(caller, loaded, args, kind="request", deadline=budget_end)
                    again = await self._ask_service(policy, caller, args, context)
                    # The trace that stands is the one over the caller's words, not over the
                    # record of them just written.
                    found = dataclasses.replace(again, trace=found.trace) if again.outcome == "act" else again
                return found

            return await asyncio.wait_for(ask(), timeout=time_left(budget_end))

        # Kept receipts first, so that after the evaluation the next ledger write of this
        # task is the decision, which carries the service's record of it.
        await self.flush_unwritten()
        with carrying() as carried:
            try:
                verdict = await run_rules(
                    policy,
                    caller,
                    args,
                    executed=executed,
                    evidence=evidence,
                    state=read_state if tool.state is not None else None,
                    attested=attested is not None,
                    force_ask=force_ask,
                    confirmed_version=(attested.state_version or "") if attested and tool.state else None,
                    service_must_act=enforce,
                    forced=forced,
                )
                if (
                    attested is not None
                    and verdict.evidence is not None
                    and verdict.evidence.trace is not None
                ):
                    # After the caller's yes, the values it carried are traced to it.
                    verdict.evidence = dataclasses.replace(
                        verdict.evidence, trace=confirmed(verdict.evidence.trace, attested)
                    )
                row = await self._record(
                    tool, loaded, caller, session_id, args, verdict, notes, attested, call_id, started
                )
            finally:
                await self._release(carried)
        trace = verdict.trace + list(notes or [])
        event(
            "gate.decision",
            decision_id=row.id,
            caller=caller.id,
            tool=tool.name,
            outcome=row.outcome,
            enforced=row.enforced_outcome,
            rule=row.rule,
            latency_ms=row.latency_ms,
        )
        return Decision(row, policy, args, verdict.state, verdict.evidence, trace, deadline)

    async def _record(
        self,
        tool: GatedTool,
        loaded: LoadedPolicy,
        caller: Caller,
        session_id: str,
        args: dict[str, Any],
        verdict: Verdict,
        notes: list[RuleResult] | None,
        attested: ConfirmationRow | None,
        call_id: str | None,
        started: float,
    ) -> DecisionRow:
        """Write the decision (one transaction, with the service's record of its evaluation)."""
        policy = loaded.policy
        trace = verdict.trace + list(notes or [])
        row = self._row(tool, loaded, caller, session_id, args, verdict, trace, attested, call_id)
        row.latency_ms = round((time.perf_counter() - started) * 1000, 3)
        reserve = None
        if policy.rate is not None and verdict.outcome == "act":
            reserve = (policy.rate.max, time.time() - policy.rate.seconds)
        if not await self.ledger.arecord_decision(row, reserve=reserve):
            # Another call of this caller took the last slot while this one was deciding.
            assert policy.rate is not None
            verdict.trace.append(
                RuleResult(
                    "rate", "abstain", f"{policy.rate.max} of {policy.rate.max} per {policy.rate.per} in use"
                )
            )
            verdict.outcome, verdict.rule = combine(verdict.trace)
            trace = verdict.trace + list(notes or [])
            row = self._row(tool, loaded, caller, session_id, args, verdict, trace, attested, call_id)
            row.latency_ms = round((time.perf_counter() - started) * 1000, 3)
            await self.ledger.arecord_decision(row)
        return row

    @staticmethod
    async def _release(carried: Carried) -> None:
        """Write what no decision carried (the decision was never written); never raises over it."""
        try:
            await carried.release()
        except Exception as exc:
            warning("gate.service_record.unwritten", error=type(exc).__name__, detail=describe(exc)[:200])

    def _row(
        self,
        tool: GatedTool,
        loaded: LoadedPolicy,
        caller: Caller,
        session_id: str,
        args: dict[str, Any],
        verdict: Verdict,
        trace: list[RuleResult],
        attested: ConfirmationRow | None,
        call_id: str | None,
    ) -> DecisionRow:
        state = verdict.state
        return _decision_row(
            tool.name,
            loaded,
            caller,
            session_id,
            args,
            outcome=verdict.outcome,
            enforced="act" if loaded.policy.mode == "shadow" else verdict.outcome,
            rule=verdict.rule,
            trace=[r.as_dict() for r in trace],
            evidence=verdict.evidence,
            state_version=None if state is None else str(state.version),
            confirmation_id=attested.id if attested else None,
            call_id=call_id,
        )

    async def attest(
        self,
        caller: Caller,
        loaded: LoadedPolicy,
        args: dict[str, Any],
        *,
        kind: str,
        pending: list[str] | None = None,
        deadline: float | None = None,
    ) -> list[str]:
        """Record the caller's confirmed (or policy-allowed) request with the decision service.

        Stores the request as a first-person memory of what the caller asked
        for (``kind``: ``confirm`` after their yes, ``request`` when the policy
        acts without requiring evidence), then confirms it and the memories that caused the question,
        so the service's next evaluation of this action answers ``act`` on the
        caller's record rather than the gate acting over the service's head.
        Returns the ids confirmed.

        ``deadline`` (event loop time): the save and every confirm share what is
        left until then (default: the policy's ``timeout_s`` from now), so many
        waiting memories never add up to more than one budget.

        Raises:
            Exception: whatever the service raised, or TimeoutError past the
                policy's budget. The caller then must not act (fail closed).
        """
        policy = loaded.policy
        query, slot, _, _ = evidence_request(policy, args)
        content = attestation_text(kind, query)
        end = deadline if deadline is not None else deadline_in(policy.timeout_s)
        async with asyncio.timeout_at(end):
            confirmed = await attest(
                self.backend,
                caller.id,
                content,
                query=query,
                entity=slot.entity if slot else None,
                attribute=slot.attribute if slot else None,
                pending=list(pending or []),
            )
        event("gate.attested", caller=caller.id, kind=kind, memories=len(confirmed))
        return confirmed

    async def record_rejected(
        self,
        *,
        tool: GatedTool,
        loaded: LoadedPolicy,
        caller: Caller,
        session_id: str,
        args: dict[str, Any],
        error: str,
        call_id: str | None,
    ) -> Decision:
        """Record a call whose arguments LiveKit refused before the gate saw it (an abstain)."""
        rule = "arguments.invalid"
        row = _decision_row(
            tool.name,
            loaded,
            caller,
            session_id,
            args,
            outcome="abstain",
            enforced="abstain",  # the tool cannot run on arguments that failed validation
            rule=rule,
            trace=[{"rule": rule, "outcome": "abstain", "detail": error[:1000]}],
            evidence=None,
            state_version=None,
            confirmation_id=None,
            call_id=call_id,
        )
        await self.flush_unwritten()
        await self.ledger.arecord_decision(row)
        detail = error.splitlines()[0][:300] if error else "invalid arguments"
        event(
            "gate.decision",
            decision_id=row.id,
            caller=caller.id,
            tool=tool.name,
            outcome="abstain",
            rule=rule,
            detail=detail,
        )
        return Decision(row, loaded.policy, args, None, None, [])

    def _read_ahead(
        self, policy: Policy, context_of: Callable[[], EvidenceContext | None]
    ) -> EvidenceContext | None:
        """The evidence context (``context_of()``), with the backend's reading of it started.

        A backend that embeds what a trace compares (``read_ahead``) starts that work here, as the
        decision begins, so it runs beside the ledger's and the rules' work instead of after it.
        None (the evidence step builds the context and meets any fault itself) when the policy
        has no evidence section, the backend reads nothing ahead, or the query cannot be rendered.
        """
        read_ahead = getattr(self.backend, "read_ahead", None)
        if read_ahead is None or policy.evidence is None:
            return None
        try:
            context = context_of()
        except Exception:  # recorded by the evidence step, which renders it again
            return None
        if context is not None:
            read_ahead(context)
        return context

    def _context(
        self,
        tool: GatedTool,
        policy: Policy,
        args: dict[str, Any],
        heard: Sequence[Statement],
        since: float | None,
        today: date | None,
        lang: str | None,
    ) -> EvidenceContext | None:
        """The request to trace, with this call's turns; None for a policy without evidence.

        Raises what rendering the query raises (the evidence step records it).
        """
        if policy.evidence is None:
            return None
        query = evidence_request(policy, args)[0]
        request = trace_request(tool, policy, args, query=query, today=today, lang=lang)
        return EvidenceContext(request, tuple(heard), since)

    async def _ask_service(
        self, policy: Policy, caller: Caller, args: dict[str, Any], context: EvidenceContext | None = None
    ) -> ServiceDecision:
        query, slot, match, top_k = evidence_request(policy, args)
        extra = {"context": context} if context is not None and _takes_context(self.backend) else {}
        return await self.backend.evaluate_action(
            caller.id, query, top_k=top_k, slot=slot, match=match, **extra
        )

    # -- receipts ----------------------------------------------------------------

    async def close(
        self,
        decision: Decision,
        status: str,
        *,
        external_ref: str | None = None,
        error_code: str | None = None,
        executed: bool = False,
    ) -> ReceiptRow | None:
        """Write the decision's one terminal receipt; its delivery to the service goes on in the background.

        The receipt is committed locally first, so a failed delivery loses
        nothing; the delivery attempt and its error are recorded with it. The
        reply never waits for the delivery: the background drain sends it
        (:meth:`gate.Gate.start`), or else one try starts at once and
        :meth:`delivered` / :meth:`aclose` wait for it. ``error_code`` is made
        safe for the service and the ledger (see :func:`safe_error_code`).

        Never raises for the ledger: ``executed`` (the tool ran) retries a
        refused write a few times within ``receipt_retry_s``; a receipt still
        refused then (or at once, when nothing ran) is kept and written later
        (:meth:`flush_unwritten`), with one warning. A decision that reconciliation
        closed first (``gate receipts drain`` while the tool was running) keeps
        that receipt, with a warning. Returns the receipt in the ledger, or None
        when it is not there yet or another receipt closed the decision.
        """
        row = decision.row
        code = safe_error_code(error_code) if error_code is not None else None
        receipt = closing_receipt(row, status, external_ref=external_ref, error_code=code)
        if external_ref is not None and receipt.external_ref is None:
            warning("gate.receipt.external_ref_dropped", decision_id=row.id)
        await self.flush_unwritten()
        written = await self._write_receipt(row, receipt, attempts=self.receipt_attempts if executed else 1)
        if written is not None:
            self._deliver(written)
        return written

    async def _write_receipt(
        self, row: DecisionRow, receipt: ReceiptRow, *, attempts: int
    ) -> ReceiptRow | None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            try:
                # The usual case first, with no retry machinery: on SQLite the write is
                # applied at once when nobody else is writing.
                async with asyncio.timeout(self.receipt_retry_s):
                    written = (await self.ledger.arecord_receipt(receipt)).receipt
            except ReceiptConflict:
                raise
            except Exception:
                if attempts <= 1:
                    raise
                written = await self._write_again(receipt, attempts - 1, started)
        except ReceiptConflict:
            await self._closed_before(row, receipt)
            return None
        except Exception as exc:
            self._keep(row, receipt, exc)
            return None
        self._written(row, written)
        return written

    async def _write_again(self, receipt: ReceiptRow, attempts: int, started: float) -> ReceiptRow:
        """Retry a refused receipt write, within what is left of ``receipt_retry_s`` since ``started``."""
        loop = asyncio.get_running_loop()
        retrying = AsyncRetrying(
            stop=stop_after_attempt(attempts)
            | stop_after_delay(self.receipt_retry_s - (loop.time() - started)),
            wait=wait_exponential(multiplier=0.1, max=0.8),
            retry=retry_if_exception_type(Exception) & retry_if_not_exception_type(ReceiptConflict),
            reraise=True,
        )
        await asyncio.sleep(0.1)
        async for attempt in retrying:
            with attempt:
                left = max(self.receipt_retry_s - (loop.time() - started), 0.05)
                return (await asyncio.wait_for(self.ledger.arecord_receipt(receipt), timeout=left)).receipt
        raise AssertionError("unreachable")  # pragma: no cover

    def _written(self, row: DecisionRow, written: ReceiptRow, **late: Any) -> None:
        event(
            "gate.receipt",
            decision_id=row.id,
            caller=row.caller_id,
            tool=row.tool,
            outcome=row.outcome,
            status=written.status,
            error_code=written.error_code,
            **late,
        )

    async def _closed_before(self, row: DecisionRow, receipt: ReceiptRow) -> None:
        """Another receipt closes the decision: reconciliation ran while the tool was running.

        The ledger keeps the receipt it has (its hash chain is append-only and it
        has no record for a late outcome); the outcome seen here goes to the log.
        """
        existing = None
        with contextlib.suppress(Exception):
            existing = await asyncio.to_thread(self.ledger.receipt_for, row.id)
        warning(
            "gate.receipt.closed_by_reconciliation",
            decision_id=row.id,
            caller=row.caller_id,
            tool=row.tool,
            recorded=None if existing is None else existing.status,
            recorded_error_code=None if existing is None else existing.error_code,
            status=receipt.status,
            external_ref=receipt.external_ref,
            error_code=receipt.error_code,
        )

    def _keep(self, row: DecisionRow, receipt: ReceiptRow, exc: BaseException) -> None:
        self._unwritten[row.id] = _Unwritten(receipt, row)
        warning(
            "gate.receipt.deferred",
            decision_id=row.id,
            caller=row.caller_id,
            tool=row.tool,
            status=receipt.status,
            error=type(exc).__name__,
            detail=describe(exc)[:200],
        )
        self._retry_later()

    def _retry_later(self) -> None:
        loop = asyncio.get_running_loop()
        if self._retrying is not None and not self._retrying.done() and self._retrying.get_loop() is loop:
            return
        self._retrying = loop.create_task(self._retry_loop(), name="gate-receipts-retry")

    async def _retry_loop(self, first_s: float = 1.0, max_s: float = 30.0) -> None:
        wait = first_s
        while self._unwritten:
            await asyncio.sleep(wait)
            with contextlib.suppress(Exception):
                await self.flush_unwritten()
            wait = min(wait * 2, max_s)

    @property
    def unwritten(self) -> int:
        """How many receipts are waiting for the ledger to take them."""
        return len(self._unwritten)

    async def flush_unwritten(self) -> int:
        """Try once more to write the receipts the ledger refused; returns how many still wait.

        Runs before every ledger write of the pipeline, in the background while
        any wait, and from :meth:`aclose`. Never raises.
        """
        for item in list(self._unwritten.values()):
            if self._unwritten.get(item.decision.id) is not item:
                continue  # another flush has it
            del self._unwritten[item.decision.id]
            try:
                written = (await self.ledger.arecord_receipt(item.receipt)).receipt
            except ReceiptConflict:
                await self._closed_before(item.decision, item.receipt)
                continue
            except Exception:
                self._unwritten.setdefault(item.decision.id, item)
                break  # the ledger still refuses: the others wait with it
            self._written(item.decision, written, late=True)
            self._deliver(written)
        return len(self._unwritten)

    def _deliver(self, written: ReceiptRow) -> None:
        """Start delivering a receipt just written, off the caller's path (never waits)."""
        if written.delivery_state != "pending":
            return
        if self.outbox.running:
            self.outbox.notify()
            return
        task = asyncio.get_running_loop().create_task(self.outbox.deliver(written, attempts=1))
        self._deliveries.add(task)
        task.add_done_callback(self._delivered)

    async def delivered(self) -> None:
        """Wait for the deliveries started in the background (each is one bounded try)."""
        loop = asyncio.get_running_loop()
        while pending := {task for task in self._deliveries if task.get_loop() is loop}:
            await asyncio.wait(pending)

    def _delivered(self, task: asyncio.Task[Any]) -> None:
        self._deliveries.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            # The receipt is in the ledger: the next drain delivers it.
            warning("gate.receipt.undelivered", error=type(exc).__name__, detail=describe(exc)[:200])

    async def aclose(self, *, timeout_s: float = 5.0) -> None:
        """Write the receipts kept after a failed write, and finish background deliveries (bounded).

        A receipt the ledger still refuses at the end is logged whole at warning
        level (``gate.receipt.unwritten``); its decision stays open in the ledger
        until reconciliation closes it (the tool's reconcile hook looks it up).
        Never raises.
        """
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout_s
        if self._retrying is not None:
            if self._retrying.get_loop() is loop:
                self._retrying.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self._retrying
            self._retrying = None
        pause = 0.1
        while await self.flush_unwritten() and loop.time() + pause < end:
            await asyncio.sleep(pause)
            pause = min(pause * 2, 1.0)
        for item in self._unwritten.values():
            receipt = item.receipt
            warning(
                "gate.receipt.unwritten",
                decision_id=receipt.decision_id,
                caller=receipt.caller_id,
                tool=item.decision.tool,
                status=receipt.status,
                external_ref=receipt.external_ref,
                error_code=receipt.error_code,
                idempotency_key=receipt.idempotency_key,
            )
        pending = {task for task in self._deliveries if task.get_loop() is loop}
        if pending:
            _, late = await asyncio.wait(pending, timeout=max(end - loop.time(), 0.0))
            for task in late:
                task.cancel()  # still pending in the ledger: the next drain sends it
            if late:
                await asyncio.wait(late)

    def confirmation_for(self, decision: Decision, session_id: str) -> ConfirmationRow:
        """A pending confirmation bound to the decision's action digest."""
        now = time.time()
        return ConfirmationRow(
            id=f"gc_{uuid.uuid4().hex}",
            decision_id=decision.id,
            created_at=now,
            expires_at=now + decision.policy.confirm_ttl_s,
            session_id=session_id,
            caller_id=decision.row.caller_id,
            tool=decision.row.tool,
            action_digest=decision.row.action_digest,
            state_version=decision.row.state_version,
            memory_ids_json=canonical_json(decision.pending_memory_ids),
            status="pending",
        )


def _decision_row(
    tool: str,
    loaded: LoadedPolicy,
    caller: Caller,
    session_id: str,
    args: dict[str, Any],
    *,
    outcome: str,
    enforced: str,
    rule: str,
    trace: list[dict[str, str]],
    evidence: ServiceDecision | None,
    state_version: str | None,
    confirmation_id: str | None,
    call_id: str | None,
) -> DecisionRow:
    """The ledger row of one decision; masked arguments are stored only as digests."""
    policy = loaded.policy
    canonical_args = json.loads(canonical_json(args))
    return DecisionRow(
        id=f"gd_{uuid.uuid4().hex}",
        created_at=time.time(),
        session_id=session_id,
        caller_id=caller.id,
        caller_json=canonical_json(caller.describe()),
        tool=tool,
        action_name=policy.action,
        args_json=canonical_json(mask_arguments(canonical_args, policy.audit.mask)),
        args_digest=digest(canonical_args),
        action_digest=action_digest(tool, caller, canonical_args, state_version, loaded.content_hash),
        policy_name=loaded.name,
        policy_hash=loaded.content_hash,
        mode=policy.mode,
        outcome=outcome,
        enforced_outcome=enforced,
        rule=rule,
        trace_json=canonical_json(trace),
        evidence_json=canonical_json(_evidence_record(evidence)),
        service_decision_id=evidence.decision_id if evidence and evidence.decision_id else None,
        state_version=state_version,
        confirmation_id=confirmation_id,
        call_id=call_id,
        latency_ms=0.0,
    )


def records_request(policy: Policy) -> bool:
    """Whether a fresh call of this policy records the caller's request with the service before deciding.

    So it is: when the policy acts without requiring evidence (and without
    asking first), the request itself is what the service decides on.
    """
    return (
        policy.mode == "enforce"
        and policy.confirm != "always"
        and (policy.evidence is None or not policy.evidence.required)
    )


def attestation_text(kind: str, query: str) -> str:
    """The memory that records a caller's confirmed (``confirm``) or plain (``request``) request.

    A plain first-person statement of the request and nothing else: the words
    themselves (which may be a question, or quote the agent) are kept in the
    ledger with the confirmation, not in memory, where they would read as
    something else.
    """
    lead = "I confirm" if kind == "confirm" else "I request"
    return f"{lead}: {query.rstrip('.?! ')}."


def evidence_request(
    policy: Policy, args: dict[str, Any]
) -> tuple[str, EvidenceSlot | None, dict[str, Any], int]:
    """The query, slot, values to match and top_k the decision service is asked with.

    Without an ``evidence`` section the query names the action and its unmasked
    arguments, and nothing is matched: the answer is recorded, not required.

    Raises:
        QueryTooLong: the rendered query exceeds the hosted limit and the policy
            does not say to shorten it (``evidence.long_query: truncate``).
    """
    ev = policy.evidence
    if ev is None:
        visible = {k: v for k, v in args.items() if k not in policy.audit.mask}
        query = " ".join([policy.action, *(f"{k} {v}" for k, v in visible.items())])[:MAX_QUERY_CHARS]
        return query, None, {}, 5
    slot = EvidenceSlot(ev.slot.entity, ev.slot.attribute) if ev.slot else None
    query = ev.rendered_query(args)
    # Raw values, so their kinds survive (1500.0 stays a number, "0042" an identifier).
    return query, slot, {n: args[n] for n in ev.match_names() if n in args}, ev.top_k


def confirmed(found: Trace, answered: ConfirmationRow) -> Trace:
    """The trace of a request the caller said yes to: what their words did not trace, their yes does.

    The yes was to the gate's question carrying every value, so each argument not
    traced to what they said before is traced to that answer (``trace.confirmed``).
    """
    args = tuple(
        a
        if a.status in ("traced", "default", "unchecked")
        else ArgumentTrace(
            name=a.name,
            value=a.value,
            status="traced",
            rule="trace.confirmed",
            note="in the question the caller said yes to",
            source="confirmation",
            speaker="caller",
            at=answered.answered_at,
            message_id=answered.answer_message_id,
            words=answered.words,
        )
        for a in found.arguments
    )
    action = found.action
    if action.status != "requested":
        action = ActionTrace(
            status="requested",
            rule="trace.confirmed",
            note="the caller said yes to the question",
            words=answered.words,
            at=answered.answered_at,
            message_id=answered.answer_message_id,
            speaker="caller",
        )
    return dataclasses.replace(
        found, action=action, arguments=args, verdict="supported", rule="trace.confirmed", reason="confirmed"
    )


def _takes_context(backend: DecisionBackend) -> bool:
    """Whether the backend's ``evaluate_action`` takes the call's context (a backend of one's own may not)."""
    try:
        params = inspect.signature(backend.evaluate_action).parameters
    except (TypeError, ValueError):
        return False
    return "context" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _evidence_record(evidence: ServiceDecision | None) -> dict[str, Any]:
    if evidence is None:
        return {}
    traced = evidence.trace.as_record() if evidence.trace is not None else {}
    return {
        **traced,
        "rule": evidence.rule,
        "decision_id": evidence.decision_id,
        "outcome": evidence.outcome,
        "reason": evidence.reason,
        "memories": [
            {
                "id": m.id,
                "content": m.content[:300],
                "trusted": m.trusted,
                "source": m.source,
                "confidence": m.confidence,
                "role": m.role,
                "note": m.note,
                "similarity": None if m.similarity is None else round(m.similarity, 3),
            }
            for m in evidence.memories
        ],
        "pending": evidence.pending_ids,
    }
