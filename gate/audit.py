"""Reading the audit ledger: filtered lists, one decision's story, export, statistics.

Everything here reads; nothing writes, so it all works on a ledger opened
read-only. Lists page by key (newest first, a cursor naming the last
decision seen), never by offset, so any page of a large ledger costs the
same; export walks the chain a page at a time in constant memory.

Status words, as the ledger and every command use them:

- decision outcome: ``act`` (the action may run), ``ask`` (the caller must
  confirm first), ``abstain`` (refused). ``shadow`` mode records the
  outcome but runs the tool as before.
- receipt status: ``succeeded``, ``failed`` (with an error code, e.g.
  ``outcome_unknown`` when a crashed call could not be reconciled),
  ``skipped`` (not executed).
- delivery to the decision service: ``local`` (the service holds no
  decision for it, so there is nothing to deliver), ``pending`` (not
  acknowledged yet; the next drain tries again), ``delivered``
  (acknowledged), ``conflict`` (the service holds a different receipt for
  the decision), ``rejected`` (the service refused the receipt for good).
- policy alignment, the service's verdict on a delivered receipt:
  ``aligned``, or ``violated`` (executed after ask or abstain).
- confirmation: ``pending``, ``confirmed``, ``declined``, ``expired``,
  ``superseded`` (a newer question replaced it).
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
import queue
import re
import statistics
import threading
from collections import deque
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, and_, exists, func, or_, select, true

from gate.ledger import ConfirmationRow, DecisionRow, DeliveryRow, Ledger, ReceiptRow, personal, spotcheck
from gate.ledger.chain import FORMATS, GENESIS, entry_hash
from gate.ledger.tables import ChainRow

_D: Table = DecisionRow.__table__  # type: ignore[attr-defined]
_R: Table = ReceiptRow.__table__  # type: ignore[attr-defined]
_CF: Table = ConfirmationRow.__table__  # type: ignore[attr-defined]
_CH: Table = ChainRow.__table__  # type: ignore[attr-defined]
_V: Table = DeliveryRow.__table__  # type: ignore[attr-defined]
_CONFIRMATION_KINDS = tuple(k for k, (t, _) in FORMATS.items() if t == "gate_confirmations")
_MASKED = re.compile(r"sha256:[0-9a-f]{64}")
_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)(s|m|h|d)$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}
OUTCOMES = ("act", "ask", "abstain")
STATUSES = ("succeeded", "failed", "skipped")
DELIVERY_STATES = ("local", "pending", "delivered", "conflict", "rejected")
ALIGNMENTS = ("aligned", "violated")
STATUS_WORDS: dict[str, str] = {
    "act": "decision: the action may run",
    "ask": "decision: the caller must confirm first",
    "abstain": "decision: refused",
    "shadow": "policy mode: the decision is recorded, the tool runs as before",
    "succeeded": "receipt: the action ran",
    "failed": "receipt: the action was tried and failed (error code says why)",
    "skipped": "receipt: not executed",
    "local": "delivery: the decision service holds no decision for it; nothing to deliver",
    "pending": "delivery: not acknowledged yet; the next `gate receipts drain` tries again",
    "delivered": "delivery: acknowledged by the decision service",
    "conflict": "delivery: the service holds a different receipt for this decision",
    "rejected": "delivery: the service refused the receipt for good (e.g. 400, 404)",
    "aligned": "alignment: what ran matches the service's decision",
    "violated": "alignment: executed after the service said ask or abstain",
}
MAX_PAGE = 1000


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


def _latest_delivery(column: Any) -> Any:
    v = _V.c
    return (
        select(column).where(v.receipt_id == _R.c.id).order_by(v.chain_seq.desc()).limit(1).scalar_subquery()
    )


def _acknowledged(column: Any) -> Any:
    v = _V.c
    return (
        select(column)
        .where(v.receipt_id == _R.c.id, v.state == "delivered")
        .order_by(v.chain_seq)
        .limit(1)
        .scalar_subquery()
    )


@dataclass(frozen=True)
class AuditFilter:
    """Which decisions to read. Every field narrows; None means any.

    ``caller`` and ``tool`` match by prefix (``demo-alice`` finds
    ``demo-alice-1``), case as written; an exact id is its own prefix.

    Raises ValueError (naming the allowed values) for an unknown outcome or status.
    """

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
        d, r, v = _D.c, _R.c, _V.c
        if self.caller is not None:
            query = query.where(_prefix(d.caller_id, self.caller))
        if self.tool is not None:
            query = query.where(_prefix(d.tool, self.tool))
        if self.outcome is not None:
            query = query.where(d.outcome == self.outcome)
        if self.since is not None:
            query = query.where(d.created_at >= self.since)
        if self.until is not None:
            query = query.where(d.created_at < self.until)
        if self.status is not None:
            query = query.where(r.status == self.status)
        if self.violations:
            query = query.where(exists().where(v.receipt_id == r.id, v.policy_alignment == "violated"))
        if self.undelivered:
            acked = exists().where(v.receipt_id == r.id, v.state == "delivered")
            query = query.where(r.service_decision_id.is_not(None), ~acked)
        return query

    def as_query(self) -> dict[str, str]:
        """The filter as URL query parameters (what the web viewer links with)."""
        found: dict[str, str] = {}
        for name in ("caller", "tool", "outcome", "status"):
            value = getattr(self, name)
            if value is not None:
                found[name] = str(value)
        if self.violations:
            found["violations"] = "1"
        if self.undelivered:
            found["undelivered"] = "1"
        return found


def _prefix(column: Any, prefix: str) -> Any:
    """``column`` starts with ``prefix``: LIKE with wildcards escaped, and a key range an index can use.

    The range (``prefix <= column < prefix + U+10FFFF``) also makes SQLite's
    case-blind LIKE case-sensitive; PostgreSQL's LIKE already is.
    """
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return and_(column >= prefix, column < prefix + "\U0010ffff", column.like(escaped + "%", escape="\\"))


@dataclass(frozen=True)
class Page:
    """One page of decisions; ``next_after`` is the cursor of the next page (None on the last).

    ``problems`` counts the rows that did not verify against the chain (each
    row says why in its ``problem``).
    """

    rows: list[dict[str, Any]]
    next_after: str | None

    @property
    def problems(self) -> int:
        return sum(1 for r in self.rows if r["problem"] is not None)


def is_masked(value: Any) -> bool:
    """Whether an argument value is the digest a masked argument is recorded as."""
    return isinstance(value, str) and _MASKED.fullmatch(value) is not None


def list_decisions(ledger: Ledger, where: AuditFilter, *, limit: int = 20, after: str | None = None) -> Page:
    """One page of decisions with their receipts, newest first, after the decision ``after``.

    Every record a row shows (the decision, its receipt, the receipt's
    delivery records) is checked against its chain entry as it is read; a
    row that does not verify says why in ``problem`` (None when it holds).

    Raises:
        LookupError: ``after`` names no decision in the ledger.
    """
    d, r = _D.c, _R.c
    limit = max(1, min(limit, MAX_PAGE))
    query = (
        select(_D, *[c.label(f"r_{c.name}") for c in _R.c])
        .select_from(_D.outerjoin(_R, r.decision_id == d.id))
        .order_by(d.created_at.desc(), d.id.desc())
        .limit(limit + 1)
    )
    with ledger.engine.connect() as conn:
        if after is not None:
            at = conn.execute(select(d.created_at).where(d.id == after)).scalar()
            if at is None:
                raise LookupError(f"no decision {after} to page after")
            query = query.where(or_(d.created_at < at, and_(d.created_at == at, d.id < after)))
        rows = [dict(row._mapping) for row in conn.execute(where.apply(query)).all()]
        more = len(rows) > limit
        rows = rows[:limit]
        receipts = [{c.name: row[f"r_{c.name}"] for c in _R.c} for row in rows]
        history = _deliveries_of(conn, [rc["id"] for rc in receipts if rc["id"] is not None])
        checked: list[tuple[str, Mapping[str, Any]]] = []
        for row, rc in zip(rows, receipts, strict=True):
            checked.append(("gate_decisions", row))
            if rc["id"] is not None:
                checked.append(("gate_receipts", rc))
                checked += [("gate_deliveries", v) for v in history.get(rc["id"], [])]
        verdicts = iter(spotcheck.check(conn, checked))
    listed = []
    for row, rc in zip(rows, receipts, strict=True):
        problems = [_named("decision", row["id"], next(verdicts))]
        delivered = history.get(rc["id"], []) if rc["id"] is not None else []
        if rc["id"] is not None:
            problems.append(_named("receipt", rc["id"], next(verdicts)))
            problems += [_named("delivery", v["id"], next(verdicts)) for v in delivered]
        acked = next((v for v in delivered if v["state"] == "delivered"), None)
        arguments = json.loads(row["args_json"])
        listed.append(
            {
                "id": row["id"],
                "time": iso(row["created_at"]),
                "caller": row["caller_id"],
                "tool": row["tool"],
                "action": row["action_name"],
                "arguments": arguments,
                "masked": sorted(k for k, v in arguments.items() if is_masked(v)),
                "outcome": row["outcome"],
                "enforced": row["enforced_outcome"],
                "rule": row["rule"],
                "mode": row["mode"],
                "latency_ms": row["latency_ms"],
                "receipt": rc["status"],
                "error_code": rc["error_code"],
                "delivery": _delivery_word(
                    rc["status"], rc["service_decision_id"], delivered[-1]["state"] if delivered else None
                ),
                "alignment": acked["policy_alignment"] if acked else None,
                "problem": "; ".join(p for p in problems if p) or None,
            }
        )
    return Page(listed, listed[-1]["id"] if more and listed else None)


def _named(noun: str, record_id: str, problem: str | None) -> str | None:
    return f"{noun} {record_id}: {problem}" if problem else None


def _deliveries_of(conn: Any, receipt_ids: list[str]) -> dict[str, list[Mapping[str, Any]]]:
    """Every delivery record of these receipts, each receipt's in chain order (one query per 500)."""
    found: dict[str, list[Mapping[str, Any]]] = {}
    for start in range(0, len(receipt_ids), 500):
        chunk = receipt_ids[start : start + 500]
        query = select(_V).where(_V.c.receipt_id.in_(chunk)).order_by(_V.c.chain_seq)
        for v in conn.execute(query):
            found.setdefault(v.receipt_id, []).append(dict(v._mapping))
    return found


def _delivery_word(status: str | None, service_decision_id: str | None, latest: str | None) -> str | None:
    if status is None:
        return None
    if latest is not None:
        return latest
    return "pending" if service_decision_id else "local"


def story(ledger: Ledger, decision_id: str) -> dict[str, Any] | None:
    """Everything about one decision, from the request to the receipt's delivery: its case file.

    Every record shown is checked against the chain as it is read:
    ``verified`` is False and ``problems`` names each record that does not
    hold. Personal text is read back from where it is kept apart; erased
    text is None beside an ``..._erased`` time. The ask that led here
    (``asked_in``) and the decision a confirmation led to (``followed_by``)
    are linked both ways.
    """
    with ledger.engine.connect() as conn:
        decision = conn.execute(select(_D).where(_D.c.id == decision_id)).first()
        if decision is None:
            return None
        d = dict(decision._mapping)
        receipt = conn.execute(select(_R).where(_R.c.decision_id == decision_id)).first()
        rm = dict(receipt._mapping) if receipt is not None else None
        asked = [
            dict(c._mapping)
            for c in conn.execute(
                select(_CF).where(_CF.c.decision_id == decision_id).order_by(_CF.c.created_at)
            ).all()
        ]
        attested_row = (
            conn.execute(select(_CF).where(_CF.c.id == d["confirmation_id"])).first()
            if d["confirmation_id"]
            else None
        )
        attested = dict(attested_row._mapping) if attested_row is not None else None
        deliveries = _deliveries_of(conn, [rm["id"]]).get(rm["id"], []) if rm is not None else []
        records: list[tuple[str, str, Mapping[str, Any]]] = [("decision", "gate_decisions", d)]
        if rm is not None:
            records.append(("receipt", "gate_receipts", rm))
        records += [("delivery", "gate_deliveries", v) for v in deliveries]
        records += [("confirmation", "gate_confirmations", c) for c in asked]
        if attested is not None and all(c["id"] != attested["id"] for c in asked):
            records.append(("confirmation", "gate_confirmations", attested))
        verdicts = spotcheck.check(conn, [(table, rec) for _, table, rec in records])
        problems = [_named(noun, rec["id"], p) for (noun, _, rec), p in zip(records, verdicts, strict=True)]
        # The decisions each question led to, and the one the yes that led here answered.
        followed = _followed_by(conn, [c["id"] for c in asked])
        asked_in = (
            conn.execute(
                select(_D.c.id, _D.c.outcome, _D.c.state_version).where(_D.c.id == attested["decision_id"])
            ).first()
            if attested is not None
            else None
        )
        entries = _entries_of(conn, [rec for _, _, rec in records], [c["id"] for c in asked])
        texts = personal.lookup(
            conn,
            [*personal.refs("gate_decisions", d)]
            + [
                t
                for c in [*asked, *([attested] if attested else [])]
                for t in personal.refs("gate_confirmations", c)
            ],
        )
    trace = json.loads(d["trace_json"])
    evidence = json.loads(d["evidence_json"]) or None
    problems += [
        f"decision {d['id']}: {p}" for p in personal.reveal_slots(personal.trace_slots(trace), texts, iso)
    ]
    problems += [
        f"decision {d['id']}: {p}"
        for p in personal.reveal_slots(personal.evidence_slots(evidence), texts, iso)
    ]
    shown_asked = [_confirmation(c, texts, problems) for c in asked]
    for c in shown_asked:
        c["followed_by"] = followed.get(c["id"], [])
    confirmed_by = _confirmation(attested, texts, problems) if attested is not None else None
    if confirmed_by is not None:
        confirmed_by["asked_in"] = (
            {"id": asked_in.id, "outcome": asked_in.outcome, "state_version": asked_in.state_version}
            if asked_in is not None
            else None
        )
    receipt_story = None
    if rm is not None:
        history = [_delivery(v) for v in deliveries]
        acked = next((h for h in history if h["state"] == "delivered"), None)
        receipt_story = {
            "id": rm["id"],
            "status": rm["status"],
            "idempotency_key": rm["idempotency_key"],
            "external_ref": rm["external_ref"],
            "error_code": rm["error_code"],
            "time": iso(rm["created_at"]),
            "service_decision_id": rm["service_decision_id"],
            "chain_seq": rm["chain_seq"],
            "delivery_state": history[-1]["state"]
            if history
            else ("pending" if rm["service_decision_id"] else "local"),
            "policy_alignment": acked["policy_alignment"] if acked else None,
            "delivery": history,
        }
    arguments = json.loads(d["args_json"])
    found_problems = [p for p in problems if p]
    return {
        "verified": not found_problems,
        "problems": found_problems,
        "decision": {
            "id": d["id"],
            "time": iso(d["created_at"]),
            "session": d["session_id"],
            "tool_call_id": d["call_id"],
            "caller": json.loads(d["caller_json"]),
            "tool": d["tool"],
            "action": d["action_name"],
            "arguments": arguments,
            "masked": sorted(k for k, v in arguments.items() if is_masked(v)),
            "arguments_digest": d["args_digest"],
            "action_digest": d["action_digest"],
            "policy": {"name": d["policy_name"], "hash": d["policy_hash"], "mode": d["mode"]},
            "outcome": d["outcome"],
            "enforced": d["enforced_outcome"],
            "rule": d["rule"],
            "trace": trace,
            "state_version": d["state_version"],
            "confirmed_state_version": attested["state_version"] if attested is not None else None,
            "latency_ms": d["latency_ms"],
            "chain_seq": d["chain_seq"],
        },
        "evidence": evidence,
        "argument_trace": _argument_trace(evidence),
        "confirmation_asked": shown_asked,
        "confirmed_by": confirmed_by,
        "conversation": conversation(trace),
        "receipt": receipt_story,
        "chain": entries,
    }


def _followed_by(conn: Any, confirmation_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    if not confirmation_ids:
        return found
    d = _D.c
    query = (
        select(d.id, d.outcome, d.state_version, d.confirmation_id, d.created_at)
        .where(d.confirmation_id.in_(confirmation_ids))
        .order_by(d.created_at)
    )
    for row in conn.execute(query):
        found.setdefault(row.confirmation_id, []).append(
            {
                "id": row.id,
                "outcome": row.outcome,
                "state_version": row.state_version,
                "time": iso(row.created_at),
            }
        )
    return found


def _entries_of(
    conn: Any, records: list[Mapping[str, Any]], confirmation_ids: list[str]
) -> list[dict[str, Any]]:
    """The chain entries of the records shown: by sequence number, and every entry of each confirmation."""
    seqs = [r["chain_seq"] for r in records if r.get("chain_seq") is not None]
    entries = conn.execute(
        select(_CH.c.seq, _CH.c.at, _CH.c.kind, _CH.c.ref_id, _CH.c.hash, _CH.c.prev_hash)
        .where(
            or_(
                _CH.c.seq.in_(seqs),
                and_(_CH.c.kind.in_(_CONFIRMATION_KINDS), _CH.c.ref_id.in_(confirmation_ids)),
            )
        )
        .order_by(_CH.c.seq)
    ).all()
    return [
        {
            "seq": e.seq,
            "time": iso(e.at),
            "kind": e.kind,
            "ref_id": e.ref_id,
            "hash": e.hash,
            "prev_hash": e.prev_hash,
        }
        for e in entries
    ]


def conversation(trace: list[Any]) -> dict[str, Any]:
    """The question the caller heard and their answer, from the trace: the answer's words and label apart.

    Read from the ``confirmation.heard`` and ``confirmation.answer`` rule
    results: their ``words`` (the person's own words), the answer's label
    from its detail. Rows written before words were kept apart held
    ``agent: QUESTION`` and ``caller: WORDS (LABEL)`` in the detail.
    """
    by_rule = {t.get("rule"): t for t in trace if isinstance(t, dict)}
    heard, answer = by_rule.get("confirmation.heard"), by_rule.get("confirmation.answer")
    out: dict[str, Any] = {"question": None, "answer": None}
    if heard is not None:
        if "words" in heard:
            out["question"] = heard["words"]
            if heard.get("words_erased"):
                out["question_erased"] = heard["words_erased"]
        else:
            out["question"] = str(heard.get("detail") or "").removeprefix("agent: ") or None
    if answer is not None:
        if "words" in answer:
            shown = {"words": answer["words"], "label": answer.get("detail") or None}
            if answer.get("words_erased"):
                shown["erased"] = answer["words_erased"]
        else:
            said = str(answer.get("detail") or "").removeprefix("caller: ")
            words, label = said, None
            if said.endswith(")") and " (" in said:
                words, _, label = said[:-1].rpartition(" (")
            shown = {"words": words or None, "label": label}
        out["answer"] = shown
    return out


def _argument_trace(evidence: Any) -> dict[str, Any] | None:
    """Each argument the policy binds, with the words that stated it (None for a decision without a trace)."""
    if not isinstance(evidence, dict) or not isinstance(evidence.get("arguments"), list):
        return None
    return {"arguments": evidence["arguments"], "action": evidence.get("action")}


def _confirmation(
    row: Mapping[str, Any], texts: Mapping[str, Any], problems: list[str | None]
) -> dict[str, Any]:
    holder = {"words": row["words"]}
    problems += [
        f"confirmation {row['id']}: {p}" for p in personal.reveal_slots([(holder, "words")], texts, iso)
    ]
    return {
        "id": row["id"],
        "decision_id": row["decision_id"],
        "status": row["status"],
        "asked_at": iso(row["created_at"]),
        "expires_at": iso(row["expires_at"]),
        "state_version": row["state_version"],
        "action_digest": row["action_digest"],
        "memories": json.loads(row["memory_ids_json"]),
        "caller_words": holder["words"],
        "caller_words_erased": holder.get("words_erased"),
        "answered_at": iso(row["answered_at"]),
        "answer_message_id": row["answer_message_id"],
        "session": row["session_id"],
    }


def _delivery(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "attempt": row["attempt"],
        "time": iso(row["at"]),
        "state": row["state"],
        "service_decision_id": row["service_decision_id"],
        "error": row["error"],
        "policy_alignment": row["policy_alignment"],
        "service_receipt_id": row["service_receipt_id"],
        "chain_seq": row["chain_seq"],
    }


# -- the chain, browsed -------------------------------------------------------------


def chain_entries(ledger: Ledger, *, before: int | None = None, limit: int = 50) -> dict[str, Any]:
    """One page of chain entries, newest first, before sequence number ``before``, each checked.

    Each entry says which decision's case file holds its record
    (``decision_id``) and whether it holds: its hash, its links, and its
    record's digest (``problem`` None when all three do). ``next_before``
    is the cursor of the next (older) page.
    """
    limit = max(1, min(limit, MAX_PAGE))
    c = _CH.c
    query = select(c.seq).order_by(c.seq.desc()).limit(limit + 1)
    if before is not None:
        query = query.where(c.seq < before)
    with ledger.engine.connect() as conn:
        seqs = [int(s) for s in conn.execute(query).scalars()]
        more = len(seqs) > limit
        seqs = seqs[:limit]
        found = spotcheck.entries(conn, seqs)
        shown = [found[s] for s in seqs if s in found]
        records: dict[str, dict[str, Mapping[str, Any]]] = {t: {} for t in _TABLE_OF_PREFIX.values()}
        for table in records:
            ids = [e.ref_id for e in shown if FORMATS.get(e.kind, ("",))[0] == table]
            for start in range(0, len(ids), 500):
                rel = {
                    "gate_decisions": _D,
                    "gate_confirmations": _CF,
                    "gate_receipts": _R,
                    "gate_deliveries": _V,
                }[table]
                for row in conn.execute(select(rel).where(rel.c.id.in_(ids[start : start + 500]))):
                    records[table][row.id] = dict(row._mapping)
        receipts_of_deliveries = {
            v["receipt_id"]
            for v in records["gate_deliveries"].values()
            if v["receipt_id"] not in records["gate_receipts"]
        }
        if receipts_of_deliveries:
            for row in conn.execute(
                select(_R.c.id, _R.c.decision_id).where(_R.c.id.in_(sorted(receipts_of_deliveries)))
            ):
                records["gate_receipts"].setdefault(row.id, {"id": row.id, "decision_id": row.decision_id})
    listed = []
    for e in shown:
        table = FORMATS.get(e.kind, ("",))[0]
        record = records.get(table, {}).get(e.ref_id)
        problem = spotcheck.entry_problem(e, found.get(e.seq - 1), found.get(e.seq + 1))
        if problem is None:
            if record is None:
                problem = "its record is missing"
            elif record["chain_seq"] == e.seq:
                problem = spotcheck.record_problem(table, record, found)
            elif table == "gate_confirmations" and (record["chain_seq"] or 0) > e.seq:
                problem = spotcheck.earlier_problem(e.kind, record, e.digest)
            else:
                problem = "its record points at another chain entry"
        listed.append(
            {
                "seq": e.seq,
                "time": iso(e.at),
                "kind": e.kind,
                "ref_id": e.ref_id,
                "hash": e.hash,
                "prev_hash": e.prev_hash,
                "decision_id": _decision_of(table, record, records),
                "problem": problem,
            }
        )
    return {"entries": listed, "next_before": listed[-1]["seq"] if more and listed else None}


def _decision_of(
    table: str, record: Mapping[str, Any] | None, records: Mapping[str, Mapping[str, Mapping[str, Any]]]
) -> str | None:
    """The decision whose case file shows ``record``."""
    if record is None:
        return None
    if table == "gate_decisions":
        return str(record["id"])
    if table in ("gate_confirmations", "gate_receipts"):
        return str(record["decision_id"])
    receipt = records["gate_receipts"].get(record["receipt_id"])
    return str(receipt["decision_id"]) if receipt is not None else None


# -- export ---------------------------------------------------------------------------

_EXPORT_PAGE = 2000


@dataclass(frozen=True)
class MissingRecord:
    """A chain entry whose record is not in the ledger (deleted, or never written)."""

    seq: int
    kind: str
    ref_id: str

    def __str__(self) -> str:
        return f"entry {self.seq} ({self.ref_id}): the {self.kind.split('.')[0]} it records is missing"


def _columns_of(table: str) -> tuple[str, ...]:
    """Every column any format of ``table`` commits to, and its ``chain_seq``."""
    found: list[str] = []
    for t, columns in FORMATS.values():
        if t == table:
            found += [c for c in columns if c not in found]
    return (*found, "chain_seq")


# Every column an entry's digest covers, so each exported record is checked as it is written out.
_EXPORTED: dict[str, tuple[str, ...]] = {
    "d": _columns_of("gate_decisions"),
    "cf": _columns_of("gate_confirmations"),
    "r": _columns_of("gate_receipts"),
    "v": _columns_of("gate_deliveries"),
}
_TABLE_OF_PREFIX = {
    "d": "gate_decisions",
    "cf": "gate_confirmations",
    "r": "gate_receipts",
    "v": "gate_deliveries",
}
_PREFIX_OF_KIND = {
    kind: next(p for p, t in _TABLE_OF_PREFIX.items() if t == table) for kind, (table, _) in FORMATS.items()
}


def _export_page(after: int, since: float | None, *, lateral: bool, upto: int | None = None) -> Any:
    """One page of the chain (by key) with every record joined in.

    The page is cut first, in a subquery, so each join is an index look-up
    for its rows only and a page costs the same however large the ledger.
    ``lateral`` (PostgreSQL) says so to the planner, which would otherwise
    hash whole tables for a 2,000-row page; SQLite looks rows up that way
    already.
    """
    c = _CH.c
    page = select(c.seq, c.at, c.kind, c.ref_id, c.digest, c.prev_hash, c.hash).where(c.seq > after)
    if upto is not None:
        page = page.where(c.seq <= upto)
    if since is not None:
        page = page.where(c.at >= since)
    ch = page.order_by(c.seq).limit(_EXPORT_PAGE).subquery("ch")

    def record(table: Table, name: str, kinds: tuple[str, ...], wanted: tuple[str, ...]) -> tuple[Any, Any]:
        if lateral:
            # LIMIT keeps the planner from flattening the lateral into a plain join.
            columns = [table.c[n] for n in wanted]
            found = select(*columns).where(table.c.id == ch.c.ref_id, ch.c.kind.in_(kinds))
            return found.limit(1).lateral(name), true()
        alias = table.alias(name)
        return alias, and_(ch.c.kind.in_(kinds), alias.c.id == ch.c.ref_id)

    def kinds(prefix: str) -> tuple[str, ...]:
        return tuple(k for k, p in _PREFIX_OF_KIND.items() if p == prefix)

    d, d_on = record(_D, "d", kinds("d"), _EXPORTED["d"])
    cf, cf_on = record(_CF, "cf", kinds("cf"), _EXPORTED["cf"])
    r, r_on = record(_R, "r", kinds("r"), _EXPORTED["r"])
    v, v_on = record(_V, "v", kinds("v"), _EXPORTED["v"])
    rd = _D.alias("rd")  # the decision a receipt closes
    cols: list[Any] = list(ch.c)
    for prefix, rel in (("d", d), ("cf", cf), ("r", r), ("v", v)):
        cols += [rel.c[n].label(f"{prefix}_{n}") for n in _EXPORTED[prefix]]
    cols += [rd.c.tool.label("rd_tool"), rd.c.call_id.label("rd_call_id")]
    joined = (
        ch.outerjoin(d, d_on)
        .outerjoin(cf, cf_on)
        .outerjoin(r, r_on)
        .outerjoin(rd, rd.c.id == r.c.decision_id)
        .outerjoin(v, v_on)
    )
    return select(*cols).select_from(joined).order_by(ch.c.seq)


def export_events(
    ledger: Ledger, *, since: float | None = None, after: int = 0, upto: int | None = None
) -> Iterator[dict[str, Any] | MissingRecord]:
    """One object per chain entry in chain order, each with the state as of that entry.

    Reads the chain a page at a time by key (one query per page, every record
    joined in), so memory stays flat however large the ledger: at most two
    pages are held. The next page is read in a background thread while this
    one is turned into events, so the database and the formatting overlap. A
    confirmation's first entry is shown as it was asked (pending), not as it
    was later answered. An entry whose record is missing yields a
    :class:`MissingRecord` instead of an event. OpenTelemetry GenAI names are
    used where they fit. ``after`` and ``upto`` bound the entries by sequence
    number. A database error while reading is raised here.
    """
    pages: queue.Queue[_ExportPage | BaseException | None] = queue.Queue(maxsize=2)
    stop = threading.Event()

    def put(item: _ExportPage | BaseException | None) -> None:
        while not stop.is_set():
            try:
                pages.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

    def read() -> None:
        lateral = ledger.engine.dialect.name == "postgresql"
        last = after
        last_hash: str | None = None
        try:
            with ledger.engine.connect() as conn:
                while not stop.is_set():
                    result = conn.execute(_export_page(last, since, lateral=lateral, upto=upto))
                    keys = list(result.keys())
                    rows = [dict(zip(keys, row, strict=True)) for row in result]
                    # What each entry must follow: the entry before it, read when not on this page.
                    for m in rows:
                        if last_hash is None or m["seq"] != last + 1:
                            last_hash = _hash_before(conn, m["seq"])
                        m["expected_prev"] = last_hash
                        last, last_hash = m["seq"], m["hash"]
                    texts = personal.lookup(conn, [t for m in rows for t in _refs_of(m)])
                    put(_ExportPage(rows, texts))
                    if len(rows) < _EXPORT_PAGE:
                        break
            put(None)
        except BaseException as exc:  # handed to the reading side, which raises it
            put(exc)

    reader = threading.Thread(target=read, name="gate-export", daemon=True)
    reader.start()
    try:
        while True:
            item = pages.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            for m in item.rows:
                yield _event(m, item.texts)
    finally:
        stop.set()
        reader.join()


@dataclass(frozen=True)
class _ExportPage:
    rows: list[dict[str, Any]]
    texts: dict[str, personal.Stored]


def _hash_before(conn: Any, seq: int) -> str | None:
    """The hash entry ``seq`` must name as its previous one (None: that entry is missing)."""
    if seq == 1:
        return GENESIS
    found = conn.execute(select(_CH.c.hash).where(_CH.c.seq == seq - 1)).scalar()
    return str(found) if found is not None else None


def _refs_of(m: Mapping[str, Any]) -> list[str]:
    if m["d_id"] is not None:
        return personal.refs(
            "gate_decisions", {"trace_json": m["d_trace_json"], "evidence_json": m["d_evidence_json"]}
        )
    if m["cf_id"] is not None:
        return personal.refs("gate_confirmations", {"words": m["cf_words"]})
    return []


_PARALLEL_EXPORT_ABOVE = 100_000
_EXPORT_CHUNK = 25_000


def export_jsonl(
    ledger: Ledger, *, since: float | None = None, parallel: bool | None = None
) -> Iterator[tuple[str, list[MissingRecord]]]:
    """The export as JSON Lines, a block of text at a time in chain order, with each block's missing records.

    ``parallel`` (default: automatic above 100,000 entries on a machine with
    more than one core) formats ranges of the chain in worker processes, as
    :meth:`gate.Ledger.verify` checks in parallel; at most two blocks per
    worker are in flight, so memory stays flat. Covers the chain as it was
    when the export started.
    """
    with ledger.engine.connect() as conn:
        size = int(conn.execute(select(func.coalesce(func.max(_CH.c.seq), 0))).scalar_one())
    workers = min(os.cpu_count() or 1, 4)
    if parallel is None:
        parallel = size > _PARALLEL_EXPORT_ABOVE and workers > 1
    if not parallel:
        yield from _blocks(export_events(ledger, since=since, upto=size))
        return
    bounds = iter([(lo, min(lo + _EXPORT_CHUNK, size)) for lo in range(0, size, _EXPORT_CHUNK)])
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:

        def submit(bound: tuple[int, int]) -> Future[tuple[str, list[MissingRecord]]]:
            return pool.submit(_export_range, ledger.url, ledger.read_only, bound[0], bound[1], since)

        running = deque(submit(b) for b in itertools.islice(bounds, workers * 2))
        while running:
            block = running.popleft().result()
            nxt = next(bounds, None)
            if nxt is not None:
                running.append(submit(nxt))
            yield block


def _blocks(
    events: Iterator[dict[str, Any] | MissingRecord], size: int = _EXPORT_PAGE
) -> Iterator[tuple[str, list[MissingRecord]]]:
    """Events as JSON Lines text, ``size`` entries a block."""
    encode = json.JSONEncoder(ensure_ascii=False).encode
    lines: list[str] = []
    missing: list[MissingRecord] = []
    for item in events:
        if isinstance(item, MissingRecord):
            missing.append(item)
        else:
            lines.append(encode(item) + "\n")
        if len(lines) + len(missing) >= size:
            yield "".join(lines), missing
            lines, missing = [], []
    if lines or missing:
        yield "".join(lines), missing


def _export_range(
    url: str, read_only: bool, after: int, upto: int, since: float | None
) -> tuple[str, list[MissingRecord]]:
    """Entries ``(after, upto]`` as JSON Lines, in a worker process with its own connection."""
    ledger = Ledger(url, create=False, read_only=read_only)
    try:
        blocks = list(_blocks(export_events(ledger, since=since, after=after, upto=upto), size=_EXPORT_CHUNK))
    finally:
        ledger.close()
    return "".join(text for text, _ in blocks), [m for _, gone in blocks for m in gone]


def _event(m: Any, texts: Mapping[str, personal.Stored]) -> dict[str, Any] | MissingRecord:
    kind = m["kind"]
    prefix = _PREFIX_OF_KIND.get(kind)
    if prefix is None or m[f"{prefix}_id"] is None:
        return MissingRecord(m["seq"], kind, m["ref_id"])
    record = {c: m[f"{prefix}_{c}"] for c in _EXPORTED[prefix]}
    problem = _entry_problem(m, kind, record)
    base = {"time": iso(m["at"]), "gate.chain.seq": m["seq"], "gate.chain.hash": m["hash"]}
    if prefix == "d":
        event, problems = _decision_event(m, texts)
    elif prefix == "cf":
        event, problems = _confirmation_event(m, record, texts)
    elif prefix == "r":
        event, problems = _receipt_event(m), []
    else:
        event, problems = _delivery_event(m), []
    problem = "; ".join(p for p in [problem, *problems] if p) or None
    return {**base, **event, "gate.chain.verified": problem is None, "gate.chain.problem": problem}


def _entry_problem(m: Mapping[str, Any], kind: str, record: Mapping[str, Any]) -> str | None:
    """The entry checked as it streams past: its hash, its link, and its record's digest."""
    if entry_hash(m["prev_hash"], m["seq"], m["at"], kind, m["ref_id"], m["digest"]) != m["hash"]:
        return "its chain entry does not match its hash"
    if m["expected_prev"] is None:
        return "the chain entry before it is missing"
    if m["prev_hash"] != m["expected_prev"]:
        return "its chain entry does not follow the entry before it"
    if record["chain_seq"] != m["seq"]:
        if FORMATS[kind][0] == "gate_confirmations" and record["chain_seq"] is not None:
            # An earlier entry of a confirmation answered later: it recorded the question as asked.
            return spotcheck.earlier_problem(kind, record, m["digest"])
        return "its record points at another chain entry"
    values = [record[c] for c in FORMATS[kind][1]]
    if spotcheck.digest_of(kind, values) != m["digest"]:
        return "it was changed after it was recorded"
    return None


def _decision_event(m: Any, texts: Mapping[str, personal.Stored]) -> tuple[dict[str, Any], list[str]]:
    trace = json.loads(m["d_trace_json"])
    evidence = json.loads(m["d_evidence_json"]) or None
    problems = personal.reveal_slots(personal.trace_slots(trace), texts, iso)
    problems += personal.reveal_slots(personal.evidence_slots(evidence), texts, iso)
    talk = conversation(trace)
    answer = talk["answer"] or {}
    event = {
        "event.name": "gate.decision",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": m["d_tool"],
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.id": m["d_call_id"],
        "gen_ai.conversation.id": m["d_session_id"],
        "session.id": m["d_session_id"],
        "enduser.id": m["d_caller_id"],
        "gate.decision.id": m["d_id"],
        "gate.action.name": m["d_action_name"],
        "gate.arguments": json.loads(m["d_args_json"]),
        "gate.arguments.digest": m["d_args_digest"],
        "gate.policy.name": m["d_policy_name"],
        "gate.policy.hash": m["d_policy_hash"],
        "gate.policy.mode": m["d_mode"],
        "gate.outcome": m["d_outcome"],
        "gate.outcome.enforced": m["d_enforced_outcome"],
        "gate.rule": m["d_rule"],
        "gate.trace": trace,
        "gate.evidence": evidence,
        "gate.confirmation.id": m["d_confirmation_id"],
        "gate.confirmation.question": talk["question"],
        "gate.confirmation.answer.words": answer.get("words"),
        "gate.confirmation.answer.label": answer.get("label"),
        "gate.state.version": m["d_state_version"],
        "gate.latency_ms": m["d_latency_ms"],
    }
    if talk.get("question_erased"):
        event["gate.confirmation.question.erased_at"] = talk["question_erased"]
    if answer.get("erased"):
        event["gate.confirmation.answer.erased_at"] = answer["erased"]
    return event, problems


def _confirmation_event(
    m: Any, record: Mapping[str, Any], texts: Mapping[str, personal.Stored]
) -> tuple[dict[str, Any], list[str]]:
    values = dict(record)
    if m["seq"] != record["chain_seq"]:
        values = spotcheck.asked_form(values)
    holder = {"words": values["words"]}
    problems = personal.reveal_slots([(holder, "words")], texts, iso)
    event = {
        "event.name": "gate.confirmation",
        "gate.confirmation.id": values["id"],
        "gate.confirmation.status": values["status"],
        "gate.decision.id": values["decision_id"],
        "gen_ai.tool.name": values["tool"],
        "enduser.id": values["caller_id"],
        "session.id": values["session_id"],
        "gate.state.version": values["state_version"],
        "gate.confirmation.words": holder["words"],
        "gate.confirmation.answered_at": iso(values["answered_at"]),
    }
    if holder.get("words_erased"):
        event["gate.confirmation.words.erased_at"] = holder["words_erased"]
    return event, problems


def _receipt_event(m: Any) -> dict[str, Any]:
    return {
        "event.name": "gate.receipt",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": m["rd_tool"],
        "gen_ai.tool.call.id": m["rd_call_id"],
        "enduser.id": m["r_caller_id"],
        "gate.decision.id": m["r_decision_id"],
        "gate.receipt.id": m["r_id"],
        "gate.receipt.status": m["r_status"],
        "gate.receipt.external_ref": m["r_external_ref"],
        "error.type": m["r_error_code"],
    }


def _delivery_event(m: Any) -> dict[str, Any]:
    return {
        "event.name": "gate.delivery",
        "gate.receipt.id": m["v_receipt_id"],
        "gate.delivery.attempt": m["v_attempt"],
        "gate.delivery.state": m["v_state"],
        "gate.delivery.error": m["v_error"],
        "gate.service.decision.id": m["v_service_decision_id"],
        "gate.service.receipt.id": m["v_service_receipt_id"],
        "gate.receipt.policy_alignment": m["v_policy_alignment"],
    }


# -- statistics -----------------------------------------------------------------------


def stats(ledger: Ledger, where: AuditFilter, *, bins: int = 20) -> dict[str, Any]:
    """Counts by tool and outcome, by receipt status, and decision latency p50/p95 with a histogram."""
    d, r = _D.c, _R.c
    both = _D.outerjoin(_R, r.decision_id == d.id)
    grouped_q = select(d.tool, d.outcome, r.status, func.count()).select_from(both)
    latency_q = select(d.latency_ms).select_from(both)
    with ledger.engine.connect() as conn:
        grouped = conn.execute(where.apply(grouped_q).group_by(d.tool, d.outcome, r.status)).all()
        latencies = [v for (v,) in conn.execute(where.apply(latency_q))]
    by_tool: dict[str, dict[str, int]] = {}
    by_status: dict[str, int] = {}
    total = 0
    for tool, outcome, status, count in grouped:
        by_tool.setdefault(tool, {o: 0 for o in OUTCOMES})[outcome] += count
        by_status[status or "none"] = by_status.get(status or "none", 0) + count
        total += count
    latency: dict[str, float | None] = {"p50": None, "p95": None, "max": None}
    histogram: list[dict[str, float | int]] = []
    if latencies:
        qs = (
            statistics.quantiles(latencies, n=100, method="inclusive")
            if len(latencies) > 1
            else latencies * 99
        )
        top = max(latencies)
        latency = {"p50": round(qs[49], 3), "p95": round(qs[94], 3), "max": round(top, 3)}
        width = top / bins if top > 0 else 1.0
        counts = [0] * bins
        for v in latencies:
            counts[min(int(v / width), bins - 1)] += 1
        histogram = [
            {"from_ms": round(i * width, 3), "to_ms": round((i + 1) * width, 3), "count": n}
            for i, n in enumerate(counts)
        ]
    return {
        "decisions": total,
        "by_tool": by_tool,
        "by_receipt_status": by_status,
        "latency_ms": latency,
        "latency_histogram": histogram,
    }
