"""Shadow replay: re-decide recorded decisions under candidate policies.

Each recorded decision is decided again by the live rules with the facts it
was decided on: the caller and arguments as recorded, the rate count at that
moment, the recorded state read and the recorded evidence answer. Nothing is
executed and nothing is written, and nothing is guessed:

- caller, argument-limit and rate rules need only the record, so they are
  always re-run, also for a decision an earlier rule refused;
- a decision that the candidate lets past the rule that refused it, where
  what comes next (the evidence) was never looked up, is reported as
  *unsettled*: it would no longer be refused there, and its final outcome
  is not known;
- an argument recorded only as a digest (``audit.mask``) cannot be compared
  with a limit: limits on it are not re-run, and the report says so;
- a decision whose arguments never reached the gate is skipped, with why.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from gate.caller import Caller
from gate.decorator import State
from gate.evidence import EvidenceMemory, ServiceDecision
from gate.ledger import DecisionRow, Ledger
from gate.policy.loader import LoadedPolicy
from gate.policy.rules import EvidenceNotRecorded, run_rules


@dataclass(frozen=True)
class Flip:
    """A recorded decision that the candidate policy would decide differently."""

    decision_id: str
    time: float
    caller: str
    tool: str
    recorded: str
    recorded_rule: str
    candidate: str
    candidate_rule: str
    detail: str


@dataclass
class ReplayReport:
    """What a replay found.

    ``flips``: decided differently under the candidate. ``unsettled``: let
    past the rule that refused them, with the rest never recorded (their
    ``candidate`` is ``unknown`` and ``candidate_rule`` names what is
    missing). ``skipped``: (decision id, why) for decisions that cannot be
    replayed. ``notes``: (decision id, what was not re-run and why).
    """

    checked: int = 0
    flips: list[Flip] = field(default_factory=list)
    unsettled: list[Flip] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)


def _is_digest(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("sha256:") and len(value) == 71


def _decisions(ledger: Ledger, tools: list[str], since: float | None) -> Iterator[DecisionRow]:
    table = DecisionRow.__table__  # type: ignore[attr-defined]
    query = select(DecisionRow).where(table.c.tool.in_(tools)).order_by(table.c.created_at)
    if since is not None:
        query = query.where(table.c.created_at >= since)
    with Session(ledger.engine) as session:
        yield from session.execute(query.execution_options(yield_per=1000)).scalars()


async def replay(
    ledger: Ledger, candidates: dict[str, LoadedPolicy], *, since: float | None = None
) -> ReplayReport:
    """Re-decide every recorded decision of the candidates' tools; list the flips."""
    report = ReplayReport()
    for row in _decisions(ledger, sorted(candidates), since):
        report.checked += 1
        reason = await _replay_one(ledger, row, candidates[row.tool], report)
        if reason is not None:
            report.skipped.append((row.id, reason))
    return report


async def _replay_one(
    ledger: Ledger, row: DecisionRow, loaded: LoadedPolicy, report: ReplayReport
) -> str | None:
    policy = loaded.policy
    if row.rule == "arguments.invalid":
        return "its arguments were rejected before the gate saw them"
    info = json.loads(row.caller_json)
    try:
        caller = Caller(
            info["id"], verified=bool(info.get("verified")), roles=frozenset(info.get("roles", []))
        )
    except ValueError:
        return f"its caller id {info['id']!r} is not one gate accepts any more"
    recorded_args = json.loads(row.args_json)
    masked = sorted(n for n, v in recorded_args.items() if _is_digest(v))
    args = {n: v for n, v in recorded_args.items() if n not in masked}
    limited = sorted(n for n in masked if n in policy.limits)
    if limited:
        report.notes.append(
            (row.id, f"limits on {', '.join(limited)} not re-run: recorded only as a digest (audit.mask)")
        )
    trace = {r["rule"]: r for r in json.loads(row.trace_json)}
    recorded_evidence = json.loads(row.evidence_json)

    async def executed(window_s: float) -> int:
        return ledger.count_executed(row.caller_id, row.tool, row.created_at - window_s, until=row.created_at)

    async def evidence() -> ServiceDecision:
        if "evidence.timeout" in trace:
            raise TimeoutError
        if "evidence.unavailable" in trace:
            raise ConnectionError(trace["evidence.unavailable"]["detail"])
        if not recorded_evidence:
            raise EvidenceNotRecorded
        memories = [
            EvidenceMemory(
                id=m["id"],
                content=m.get("content", ""),
                trusted=bool(m.get("trusted")),
                role=m.get("role", "support"),
            )
            for m in recorded_evidence.get("memories", [])
        ]
        return ServiceDecision(
            recorded_evidence.get("decision_id", ""),
            recorded_evidence["outcome"],
            memories,
            list(recorded_evidence.get("pending", [])),
            recorded_evidence.get("reason", ""),
        )

    async def state() -> State | None:
        if "state.unavailable" in trace:
            raise RuntimeError("state reader failed")
        conflict = trace.get("state.conflict")
        unavailable = str(conflict["detail"]) if conflict is not None else None
        if row.state_version is None and unavailable is None:
            return None
        return State(version=row.state_version or 0, unavailable=unavailable)

    has_state = row.state_version is not None or "state.unavailable" in trace or "state.conflict" in trace
    try:
        verdict = await run_rules(
            policy,
            caller,
            args,
            executed=executed,
            evidence=evidence,
            state=state if has_state else None,
            attested=row.confirmation_id is not None,
            force_ask="state.changed" if "state.changed" in trace else None,
        )
    except EvidenceNotRecorded:
        # The candidate lets it past the rule that refused it; what comes next was never looked up.
        report.unsettled.append(
            Flip(
                row.id,
                row.created_at,
                row.caller_id,
                row.tool,
                row.outcome,
                row.rule,
                "unknown",
                "evidence",
                f"no longer refused by {row.rule}; the evidence was never looked up for it",
            )
        )
        return None
    if verdict.outcome != row.outcome:
        report.flips.append(
            Flip(
                row.id,
                row.created_at,
                row.caller_id,
                row.tool,
                row.outcome,
                row.rule,
                verdict.outcome,
                verdict.rule,
                verdict.deciding.detail,
            )
        )
    return None
