"""The decision pipeline of one gated call: policy, state, evidence, combine, record.

Nothing here talks to LiveKit; :mod:`gate.session` calls it and carries out
the branch. Every decision is written to the ledger before anything
happens, and every decision is later closed by exactly one receipt.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from gate.backends.base import DecisionBackend
from gate.caller import Caller
from gate.canonical import canonical_json, digest, mask_arguments
from gate.decorator import GatedTool, State
from gate.errors import ReceiptConflict
from gate.evidence import EvidenceSlot, ServiceDecision
from gate.ledger import ConfirmationRow, DecisionRow, Ledger, ReceiptRow
from gate.log import event, warning
from gate.policy import RESTRICTIVENESS, Policy, placeholders, render
from gate.policy_loader import LoadedPolicy

_REF = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")
_RECEIPT_DEADLINE_S = 2.0


@dataclass(frozen=True)
class RuleResult:
    """One rule's verdict, kept in the decision's trace."""

    rule: str
    outcome: str
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "outcome": self.outcome, "detail": self.detail}


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

    def __init__(self, ledger: Ledger, backend: DecisionBackend) -> None:
        self.ledger = ledger
        self.backend = backend

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
        call_id: str | None = None,
    ) -> Decision:
        """Run the policy, the state read and the evidence look-up; record the decision.

        Never raises for a failing rule, state reader or decision service:
        each of those becomes an ``abstain`` with the rule that failed. Raises
        only if the ledger itself cannot be written (then nothing executes).
        """
        started = time.perf_counter()
        policy = loaded.policy
        trace: list[RuleResult] = []
        trace += _caller_rules(policy, caller)
        trace += _limit_rules(policy, args)
        if policy.rate is not None and not _blocked(trace):
            since = time.time() - policy.rate.seconds
            used = await asyncio.to_thread(self.ledger.count_executed, caller.id, tool.name, since)
            if used >= policy.rate.max:
                trace.append(
                    RuleResult("rate", "abstain", f"{used} of {policy.rate.max} per {policy.rate.per} used")
                )
        state: State | None = None
        if tool.state is not None and not _blocked(trace):
            try:
                state = await tool.read_state(caller, args)
                trace.append(RuleResult("state", "act", f"version {state.version}" if state else ""))
            except Exception as exc:  # a broken reader must not let the action through
                trace.append(RuleResult("state.unavailable", "abstain", type(exc).__name__))
        if force_ask:
            trace.append(RuleResult(force_ask, "ask", "the state moved since the caller was asked"))
        evidence: ServiceDecision | None = None
        if not _blocked(trace):
            evidence, rule = await self._evidence(policy, caller, args)
            if attested is not None and rule.outcome == "ask":
                # The caller's spoken yes to this exact action is the confirmation
                # the unsure evidence asked for.
                rule = RuleResult("evidence", "act", f"{rule.detail}; confirmed by the caller")
            trace.append(rule)
        trace += _confirm_rules(policy, trace, attested)

        outcome = min((r.outcome for r in trace), key=RESTRICTIVENESS.__getitem__, default="act")
        deciding = _deciding_rule(trace, outcome)
        state_version = None if state is None else str(state.version)
        canonical_args = json.loads(canonical_json(args))
        row = DecisionRow(
            id=f"gd_{uuid.uuid4().hex}",
            created_at=time.time(),
            session_id=session_id,
            caller_id=caller.id,
            caller_json=canonical_json(caller.describe()),
            tool=tool.name,
            action_name=policy.action,
            args_json=canonical_json(mask_arguments(canonical_args, policy.audit.mask)),
            args_digest=digest(canonical_args),
            action_digest=action_digest(
                tool.name, caller, canonical_args, state_version, loaded.content_hash
            ),
            policy_name=loaded.name,
            policy_hash=loaded.content_hash,
            mode=policy.mode,
            outcome=outcome,
            enforced_outcome="act" if policy.mode == "shadow" else outcome,
            rule=deciding,
            trace_json=canonical_json([r.as_dict() for r in trace]),
            evidence_json=canonical_json(_evidence_record(evidence)),
            service_decision_id=evidence.decision_id if evidence and evidence.decision_id else None,
            state_version=state_version,
            confirmation_id=attested.id if attested else None,
            call_id=call_id,
            latency_ms=0.0,
        )
        row.latency_ms = round((time.perf_counter() - started) * 1000, 3)
        await asyncio.to_thread(self.ledger.record_decision, row)
        event(
            "gate.decision",
            decision_id=row.id,
            caller=caller.id,
            tool=tool.name,
            outcome=outcome,
            enforced=row.enforced_outcome,
            rule=deciding,
            latency_ms=row.latency_ms,
        )
        return Decision(row, policy, args, state, evidence, trace)

    async def _evidence(
        self, policy: Policy, caller: Caller, args: dict[str, Any]
    ) -> tuple[ServiceDecision | None, RuleResult]:
        ev = policy.evidence
        visible = {k: v for k, v in args.items() if k not in policy.audit.mask}
        if ev is not None:
            query = render(ev.query, args)
            names = placeholders(ev.slot.value) if ev.slot and ev.slot.value else placeholders(ev.query)
            match = [str(args[n]) for n in names if n in args]
            slot = EvidenceSlot(ev.slot.entity, ev.slot.attribute) if ev.slot else None
            top_k, required = ev.top_k, ev.required
        else:
            query = " ".join([policy.action, *(f"{k} {v}" for k, v in visible.items())])[:2000]
            match, slot, top_k, required = [], None, 5, False
        try:
            found = await asyncio.wait_for(
                self.backend.evaluate_action(caller.id, query, top_k=top_k, slot=slot, match=match),
                timeout=policy.timeout_s,
            )
        except TimeoutError:
            return None, RuleResult("evidence.timeout", "abstain", f"no answer within {policy.timeout_s}s")
        except Exception as exc:
            return None, RuleResult("evidence.unavailable", "abstain", f"{type(exc).__name__}: {exc}"[:300])
        outcome = found.outcome if found.outcome in RESTRICTIVENESS else "abstain"
        if not required and outcome == "abstain":
            return found, RuleResult("evidence", "act", "not required; " + found.reason)
        return found, RuleResult("evidence", outcome, found.reason)

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
        if external_ref is not None and not _REF.match(external_ref):
            warning("gate.receipt.external_ref_dropped", decision_id=row.id)
            external_ref = None
        receipt = ReceiptRow(
            id=f"gr_{uuid.uuid4().hex}",
            decision_id=row.id,
            idempotency_key=f"receipt-{row.service_decision_id or row.id}",
            created_at=time.time(),
            caller_id=row.caller_id,
            action_name=row.action_name,
            status=status,
            external_ref=external_ref,
            error_code=error_code if status == "failed" else None,
            service_decision_id=row.service_decision_id,
        )
        written = (await asyncio.to_thread(self.ledger.record_receipt, receipt)).receipt
        event(
            "gate.receipt",
            decision_id=row.id,
            caller=row.caller_id,
            tool=row.tool,
            outcome=row.outcome,
            status=written.status,
            error_code=written.error_code,
        )
        if written.service_decision_id and written.delivered_at is None:
            await self.deliver(written)
        return written

    async def deliver(self, receipt: ReceiptRow) -> bool:
        """Send one receipt to the decision service; records the attempt either way."""
        assert receipt.service_decision_id is not None
        try:
            answer = await asyncio.wait_for(
                self.backend.report_execution(
                    receipt.caller_id,
                    receipt.service_decision_id,
                    receipt.action_name,
                    receipt.status,
                    idempotency_key=receipt.idempotency_key,
                    external_ref=receipt.external_ref,
                    error_code=receipt.error_code,
                ),
                timeout=_RECEIPT_DEADLINE_S,
            )
        except (TimeoutError, ReceiptConflict, Exception) as exc:
            await asyncio.to_thread(
                self.ledger.mark_delivery,
                receipt.id,
                delivered=False,
                error=f"{type(exc).__name__}: {exc}"[:500],
            )
            warning("gate.receipt.undelivered", receipt_id=receipt.id, error=type(exc).__name__)
            return False
        await asyncio.to_thread(
            self.ledger.mark_delivery,
            receipt.id,
            delivered=True,
            policy_alignment=answer.policy_alignment,
            service_receipt_id=answer.receipt_id,
        )
        return True

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


def _blocked(trace: list[RuleResult]) -> bool:
    return any(r.outcome == "abstain" for r in trace)


def _caller_rules(policy: Policy, caller: Caller) -> list[RuleResult]:
    out: list[RuleResult] = []
    if policy.caller.verified and not caller.verified:
        out.append(RuleResult("caller.verified", "abstain", "the caller is not verified"))
    if policy.caller.roles and not caller.roles.intersection(policy.caller.roles):
        out.append(RuleResult("caller.roles", "abstain", f"needs one of: {', '.join(policy.caller.roles)}"))
    return out


def _limit_rules(policy: Policy, args: dict[str, Any]) -> list[RuleResult]:
    out: list[RuleResult] = []
    for name, limit in policy.limits.items():
        if name not in args:
            continue
        value = args[name]
        if limit.allowed is not None and value not in limit.allowed:
            allowed = ", ".join(str(a) for a in limit.allowed)
            out.append(RuleResult(f"limits.{name}.allowed", "abstain", f"{name} must be one of: {allowed}"))
        if limit.max_length is not None and len(str(value)) > limit.max_length:
            out.append(RuleResult(f"limits.{name}.max_length", "abstain", f"{name} is too long"))
        if limit.min is None and limit.max is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            out.append(RuleResult(f"limits.{name}", "abstain", f"{name} must be a number"))
            continue
        if limit.max is not None and value > limit.max:
            out.append(
                RuleResult(
                    f"limits.{name}.max", "abstain", f"{name} {value:g} is above the limit of {limit.max:g}"
                )
            )
        if limit.min is not None and value < limit.min:
            out.append(
                RuleResult(
                    f"limits.{name}.min", "abstain", f"{name} {value:g} is below the minimum of {limit.min:g}"
                )
            )
    return out


def _confirm_rules(
    policy: Policy, trace: list[RuleResult], attested: ConfirmationRow | None
) -> list[RuleResult]:
    if _blocked(trace):
        return []
    if policy.confirm == "always" and attested is None:
        return [RuleResult("confirm.always", "ask", "this action is always confirmed by the caller")]
    if policy.confirm == "never" and any(r.outcome == "ask" for r in trace):
        return [RuleResult("confirm.never", "abstain", "evidence is unsure and this tool never asks")]
    return []


def _deciding_rule(trace: list[RuleResult], outcome: str) -> str:
    for result in trace:
        if result.outcome == outcome and not (outcome == "act" and result.rule == "state"):
            return result.rule
    return "default" if outcome == "act" else trace[-1].rule


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
            }
            for m in evidence.memories
        ],
        "pending": evidence.pending_ids,
    }
