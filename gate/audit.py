"""Reading the audit ledger: filtered lists, one decision's story, export, statistics.

Everything here reads; nothing writes. Queries go to the database with the
filters applied there, newest first, so the first page of a large ledger
comes back without scanning it.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, func, select
from sqlmodel import Session

from gate.ledger import ConfirmationRow, DecisionRow, Ledger, ReceiptRow
from gate.ledger.tables import ChainRow

_D: Table = DecisionRow.__table__  # type: ignore[attr-defined]
_R: Table = ReceiptRow.__table__  # type: ignore[attr-defined]
_CF: Table = ConfirmationRow.__table__  # type: ignore[attr-defined]
_CH: Table = ChainRow.__table__  # type: ignore[attr-defined]
_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)(s|m|h|d)$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}
OUTCOMES = ("act", "ask", "abstain")
STATUSES = ("succeeded", "failed", "skipped")


def parse_time(text: str, *, now: float) -> float:
    """An ISO-8601 time (``2026-11-30T09:00``, UTC unless it says otherwise) or an age (``15m``, ``7d``).

    Raises ValueError naming what was expected.
    """
    m = _RELATIVE.match(text.strip())
    if m:
        return now - float(m.group(1)) * _UNIT[m.group(2)]
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"expected an ISO time (2026-11-30T09:00) or an age (15m, 2h, 7d), got {text!r}"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class AuditFilter:
    """Which decisions to read. Every field narrows; None means any."""

    caller: str | None = None
    tool: str | None = None
    outcome: str | None = None
    status: str | None = None
    violations: bool = False
    undelivered: bool = False
    since: float | None = None
    until: float | None = None

    def __post_init__(self) -> None:
        if self.outcome is not None and self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, got {self.outcome!r}")
        if self.status is not None and self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}, got {self.status!r}")

    def apply(self, query: Any) -> Any:
        d, r = _D.c, _R.c
        if self.caller is not None:
            query = query.where(d.caller_id == self.caller)
        if self.tool is not None:
            query = query.where(d.tool == self.tool)
        if self.outcome is not None:
            query = query.where(d.outcome == self.outcome)
        if self.since is not None:
            query = query.where(d.created_at >= self.since)
        if self.until is not None:
            query = query.where(d.created_at < self.until)
        if self.status is not None:
            query = query.where(r.status == self.status)
        if self.violations:
            query = query.where(r.policy_alignment == "violated")
        if self.undelivered:
            query = query.where(r.service_decision_id.is_not(None), r.delivered_at.is_(None))
        return query


def list_decisions(
    ledger: Ledger, where: AuditFilter, *, limit: int = 20, page: int = 1
) -> list[dict[str, Any]]:
    """One page of decisions with their receipts, newest first."""
    d, r = _D.c, _R.c
    query = (
        select(
            d.id,
            d.created_at,
            d.caller_id,
            d.tool,
            d.action_name,
            d.outcome,
            d.enforced_outcome,
            d.rule,
            d.mode,
            d.latency_ms,
            r.status,
            r.error_code,
            r.policy_alignment,
            r.delivered_at,
            r.service_decision_id,
        )
        .select_from(_D.outerjoin(_R, r.decision_id == d.id))
        .order_by(d.created_at.desc(), d.id.desc())
        .limit(limit)
        .offset((page - 1) * limit)
    )
    with Session(ledger.engine) as session:
        rows = session.execute(where.apply(query)).all()
    return [
        {
            "id": row.id,
            "time": iso(row.created_at),
            "caller": row.caller_id,
            "tool": row.tool,
            "action": row.action_name,
            "outcome": row.outcome,
            "enforced": row.enforced_outcome,
            "rule": row.rule,
            "mode": row.mode,
            "latency_ms": row.latency_ms,
            "receipt": row.status,
            "error_code": row.error_code,
            "alignment": row.policy_alignment,
            "delivered": None if row.service_decision_id is None else row.delivered_at is not None,
        }
        for row in rows
    ]


def story(ledger: Ledger, decision_id: str) -> dict[str, Any] | None:
    """Everything about one decision, from the request to the receipt's delivery."""
    with Session(ledger.engine) as session:
        decision = session.get(DecisionRow, decision_id)
        if decision is None:
            return None
        receipt = session.execute(select(ReceiptRow).where(_R.c.decision_id == decision_id)).scalar()
        asked = (
            session.execute(select(ConfirmationRow).where(_CF.c.decision_id == decision_id)).scalars().all()
        )
        attested = (
            session.get(ConfirmationRow, decision.confirmation_id) if decision.confirmation_id else None
        )
    return {
        "decision": {
            "id": decision.id,
            "time": iso(decision.created_at),
            "session": decision.session_id,
            "tool_call_id": decision.call_id,
            "caller": json.loads(decision.caller_json),
            "tool": decision.tool,
            "action": decision.action_name,
            "arguments": json.loads(decision.args_json),
            "arguments_digest": decision.args_digest,
            "action_digest": decision.action_digest,
            "policy": {"name": decision.policy_name, "hash": decision.policy_hash, "mode": decision.mode},
            "outcome": decision.outcome,
            "enforced": decision.enforced_outcome,
            "rule": decision.rule,
            "trace": json.loads(decision.trace_json),
            "state_version": decision.state_version,
            "latency_ms": decision.latency_ms,
        },
        "evidence": json.loads(decision.evidence_json) or None,
        "confirmation_asked": [_confirmation(c) for c in asked],
        "confirmed_by": _confirmation(attested) if attested else None,
        "receipt": _receipt(receipt) if receipt else None,
    }


def _confirmation(row: ConfirmationRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "status": row.status,
        "asked_at": iso(row.created_at),
        "expires_at": iso(row.expires_at),
        "state_version": row.state_version,
        "action_digest": row.action_digest,
        "memories": json.loads(row.memory_ids_json),
        "caller_words": row.words,
        "answered_at": iso(row.answered_at),
        "answer_message_id": row.answer_message_id,
        "session": row.session_id,
    }


def _receipt(row: ReceiptRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "status": row.status,
        "idempotency_key": row.idempotency_key,
        "external_ref": row.external_ref,
        "error_code": row.error_code,
        "time": iso(row.created_at),
        "delivery": {
            "service_decision_id": row.service_decision_id,
            "attempts": row.attempts,
            "delivered_at": iso(row.delivered_at),
            "last_error": row.last_error,
            "policy_alignment": row.policy_alignment,
            "service_receipt_id": row.service_receipt_id,
        },
    }


def export_events(ledger: Ledger, *, since: float | None = None) -> Iterator[dict[str, Any]]:
    """One object per recorded event in chain order, with OpenTelemetry GenAI names where they fit."""
    with Session(ledger.engine) as session:
        decisions: dict[str, DecisionRow] = {}
        c = _CH.c
        query = select(c.seq, c.kind, c.ref_id, c.at, c.hash).order_by(c.seq)
        if since is not None:
            query = query.where(c.at >= since)
        for seq, kind, ref_id, at, hashed in session.execute(query.execution_options(yield_per=2000)):
            base = {"time": iso(at), "gate.chain.seq": seq, "gate.chain.hash": hashed}
            if kind == "decision":
                d = session.get(DecisionRow, ref_id)
                if d is None:
                    continue
                decisions[d.id] = d
                yield {**base, **_decision_event(d)}
            elif kind == "receipt":
                r = session.get(ReceiptRow, ref_id)
                if r is None:
                    continue
                d = decisions.get(r.decision_id) or session.get(DecisionRow, r.decision_id)
                yield {**base, **_receipt_event(r, d)}
            elif kind == "confirmation":
                conf = session.get(ConfirmationRow, ref_id)
                if conf is None:
                    continue
                yield {
                    **base,
                    "event.name": "gate.confirmation",
                    "gate.confirmation.id": conf.id,
                    "gate.confirmation.status": conf.status,
                    "gate.decision.id": conf.decision_id,
                    "gen_ai.tool.name": conf.tool,
                    "enduser.id": conf.caller_id,
                    "session.id": conf.session_id,
                    "gate.confirmation.words": conf.words,
                }
            session.expunge_all()


def _decision_event(d: DecisionRow) -> dict[str, Any]:
    return {
        "event.name": "gate.decision",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": d.tool,
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.id": d.call_id,
        "gen_ai.conversation.id": d.session_id,
        "session.id": d.session_id,
        "enduser.id": d.caller_id,
        "gate.decision.id": d.id,
        "gate.action.name": d.action_name,
        "gate.arguments": json.loads(d.args_json),
        "gate.arguments.digest": d.args_digest,
        "gate.policy.name": d.policy_name,
        "gate.policy.hash": d.policy_hash,
        "gate.policy.mode": d.mode,
        "gate.outcome": d.outcome,
        "gate.rule": d.rule,
        "gate.state.version": d.state_version,
        "gate.latency_ms": d.latency_ms,
    }


def _receipt_event(r: ReceiptRow, d: DecisionRow | None) -> dict[str, Any]:
    return {
        "event.name": "gate.receipt",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": d.tool if d else None,
        "gen_ai.tool.call.id": d.call_id if d else None,
        "enduser.id": r.caller_id,
        "gate.decision.id": r.decision_id,
        "gate.receipt.id": r.id,
        "gate.receipt.status": r.status,
        "gate.receipt.external_ref": r.external_ref,
        "error.type": r.error_code,
        "gate.receipt.delivered": r.delivered_at is not None,
        "gate.receipt.policy_alignment": r.policy_alignment,
    }


def stats(ledger: Ledger, where: AuditFilter) -> dict[str, Any]:
    """Counts by tool and outcome, by receipt status, and decision latency p50/p95."""
    d, r = _D.c, _R.c
    both = _D.outerjoin(_R, r.decision_id == d.id)
    grouped_q = select(d.tool, d.outcome, r.status, func.count()).select_from(both)
    latency_q = select(d.latency_ms).select_from(both)
    with Session(ledger.engine) as session:
        grouped = session.execute(where.apply(grouped_q).group_by(d.tool, d.outcome, r.status)).all()
        latencies = [v for (v,) in session.execute(where.apply(latency_q))]
    by_tool: dict[str, dict[str, int]] = {}
    by_status: dict[str, int] = {}
    total = 0
    for tool, outcome, status, count in grouped:
        by_tool.setdefault(tool, {o: 0 for o in OUTCOMES})[outcome] += count
        by_status[status or "none"] = by_status.get(status or "none", 0) + count
        total += count
    latency: dict[str, float | None] = {"p50": None, "p95": None}
    if latencies:
        qs = (
            statistics.quantiles(latencies, n=100, method="inclusive")
            if len(latencies) > 1
            else latencies * 99
        )
        latency = {"p50": round(qs[49], 3), "p95": round(qs[94], 3)}
    return {"decisions": total, "by_tool": by_tool, "by_receipt_status": by_status, "latency_ms": latency}
