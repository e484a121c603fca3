"""The decision pipeline of one gated call: policy, state, evidence, combine, record.

Nothing here talks to LiveKit; :mod:`gate.session` calls it and carries out
the branch. Every decision is written to the ledger before anything
happens, and every decision is later closed by exactly one receipt.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from gate.backends.base import DecisionBackend
from gate.caller import Caller
from gate.canonical import canonical_json, digest, mask_arguments
from gate.decorator import GatedTool, State
from gate.evidence import EvidenceSlot, ServiceDecision
from gate.ledger import ConfirmationRow, DecisionRow, Ledger, ReceiptRow
from gate.ledger.tables import closing_receipt
from gate.log import event, warning
from gate.outbox import Outbox
from gate.policy.loader import LoadedPolicy
from gate.policy.rules import RuleResult, Verdict, combine, run_rules
from gate.policy.schema import MAX_QUERY_CHARS, Policy


@dataclass
class Decision:
    """A recorded decision and what the session needs to carry it out."""

    row: DecisionRow
    policy: Policy
    args: dict[str, Any]
    state: State | None
    evidence: ServiceDecision | None
    trace: list[RuleResult] = field(default_factory=list)

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


class Pipeline:
    """Decides and records; shared by every session of a :class:`gate.Gate`."""

    def __init__(self, ledger: Ledger, backend: DecisionBackend, outbox: Outbox) -> None:
        self.ledger = ledger
        self.backend = backend
        self.outbox = outbox

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
    ) -> Decision:
        """Run the policy, the state read and the evidence look-up; record the decision.

        ``attested``: the confirmation the caller said yes to; the state must
        still be at the version they confirmed, or the gate asks again.
        When the policy acts without requiring evidence, the request is first
        recorded with the decision service (see :meth:`attest`), so the service
        itself answers ``act`` and the receipt is aligned. ``notes``: trace entries
        to keep (e.g. what the caller heard and answered).

        Never raises for a failing rule, state reader or decision service:
        each of those becomes an ``abstain`` with the rule that failed. Raises
        only if the ledger itself cannot be written (then nothing executes).
        """
        started = time.perf_counter()
        policy = loaded.policy

        async def executed(window_s: float) -> int:
            since = time.time() - window_s
            return await self.ledger.acount_executed(caller.id, tool.name, since)

        async def read_state() -> State | None:
            return await tool.read_state(caller, args)

        enforce = policy.mode == "enforce"
        record_request = (
            enforce
            and attested is None
            and force_ask is None
            and policy.confirm != "always"
            and (policy.evidence is None or not policy.evidence.required)
        )

        async def evidence() -> ServiceDecision:
            if record_request:
                await self.attest(caller, loaded, args, kind="request")
            return await self._ask_service(policy, caller, args)

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
        return Decision(row, policy, args, verdict.state, verdict.evidence, trace)

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
    ) -> list[str]:
        """Record the caller's confirmed (or policy-allowed) request with the decision service.

        Stores the request as a first-person memory of what the caller asked
        for (``kind``: ``confirm`` after their yes, ``request`` when the policy
        acts without requiring evidence), then confirms it and the memories that caused the question,
        so the service's next evaluation of this action answers ``act`` on the
        caller's record rather than the gate acting over the service's head.
        Returns the ids confirmed.

        Raises:
            Exception: whatever the service raised, or TimeoutError past the
                policy's budget. The caller then must not act (fail closed).
        """
        policy = loaded.policy
        query, slot, _, _ = evidence_request(policy, args)
        content = attestation_text(kind, query)
        budget = policy.timeout_s
        memory_id = await asyncio.wait_for(
            self.backend.remember(
                caller.id,
                content,
                source="user_stated",
                confidence=1.0,
                action_relevant=True,
                entity=slot.entity if slot else None,
                attribute=slot.attribute if slot else None,
            ),
            timeout=budget,
        )
        confirmed = [*(pending or []), memory_id]
        key_base = digest([caller.id, memory_id])[7:39]
        for memory_id in confirmed:
            await asyncio.wait_for(
                self.backend.confirm(
                    caller.id, memory_id, idempotency_key=f"confirm-{key_base}-{digest(memory_id)[7:23]}"
                ),
                timeout=budget,
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

    async def _ask_service(self, policy: Policy, caller: Caller, args: dict[str, Any]) -> ServiceDecision:
        query, slot, match, top_k = evidence_request(policy, args)
        return await self.backend.evaluate_action(caller.id, query, top_k=top_k, slot=slot, match=match)

    # -- receipts ----------------------------------------------------------------

    async def close(
        self,
        decision: Decision,
        status: str,
        *,
        external_ref: str | None = None,
        error_code: str | None = None,
    ) -> ReceiptRow:
        """Write the decision's one terminal receipt, then deliver it to the service.

        The receipt is committed locally first, so a failed delivery loses
        nothing; the delivery attempt and its error are recorded with it.
        """
        row = decision.row
        receipt = closing_receipt(row, status, external_ref=external_ref, error_code=error_code)
        if external_ref is not None and receipt.external_ref is None:
            warning("gate.receipt.external_ref_dropped", decision_id=row.id)
        written = (await self.ledger.arecord_receipt(receipt)).receipt
        event(
            "gate.receipt",
            decision_id=row.id,
            caller=row.caller_id,
            tool=row.tool,
            outcome=row.outcome,
            status=written.status,
            error_code=written.error_code,
        )
        if written.delivery_state == "pending":
            if self.outbox.running:
                self.outbox.notify()  # the reply never waits on delivery
            else:
                await self.outbox.deliver(written, attempts=1)
        return written

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


def _evidence_record(evidence: ServiceDecision | None) -> dict[str, Any]:
    if evidence is None:
        return {}
    return {
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
