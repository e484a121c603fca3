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
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, and_, exists, func, or_, select, true

from gate.ledger import ConfirmationRow, DecisionRow, DeliveryRow, Ledger, ReceiptRow
from gate.ledger.chain import FORMATS, RecordDigest
from gate.ledger.tables import ChainRow

_D: Table = DecisionRow.__table__  # type: ignore[attr-defined]
_R: Table = ReceiptRow.__table__  # type: ignore[attr-defined]
_CF: Table = ConfirmationRow.__table__  # type: ignore[attr-defined]
_CH: Table = ChainRow.__table__  # type: ignore[attr-defined]
_V: Table = DeliveryRow.__table__  # type: ignore[attr-defined]
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


@dataclass(frozen=True)
class Page:
    """One page of decisions; ``next_after`` is the cursor of the next page (None on the last)."""

    rows: list[dict[str, Any]]
    next_after: str | None


def list_decisions(ledger: Ledger, where: AuditFilter, *, limit: int = 20, after: str | None = None) -> Page:
    """One page of decisions with their receipts, newest first, after the decision ``after``.

    Raises:
        LookupError: ``after`` names no decision in the ledger.
    """
    d, r = _D.c, _R.c
    limit = max(1, min(limit, MAX_PAGE))
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
            r.service_decision_id,
            _latest_delivery(_V.c.state).label("delivery"),
            _acknowledged(_V.c.policy_alignment).label("alignment"),
        )
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
        rows = conn.execute(where.apply(query)).all()
    more = len(rows) > limit
    rows = rows[:limit]
    listed = [
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
            "delivery": _delivery_word(row.status, row.service_decision_id, row.delivery),
            "alignment": row.alignment,
        }
        for row in rows
    ]
    return Page(listed, listed[-1]["id"] if more and listed else None)


def _delivery_word(status: str | None, service_decision_id: str | None, latest: str | None) -> str | None:
    if status is None:
        return None
    if latest is not None:
        return latest
    return "pending" if service_decision_id else "local"


def story(ledger: Ledger, decision_id: str) -> dict[str, Any] | None:
    """Everything about one decision, from the request to the receipt's delivery, with its chain entries."""
    with ledger.engine.connect() as conn:
        decision = conn.execute(select(_D).where(_D.c.id == decision_id)).first()
        if decision is None:
            return None
        d = decision._mapping
        receipt = conn.execute(select(_R).where(_R.c.decision_id == decision_id)).first()
        asked = conn.execute(
            select(_CF).where(_CF.c.decision_id == decision_id).order_by(_CF.c.created_at)
        ).all()
        attested = (
            conn.execute(select(_CF).where(_CF.c.id == d["confirmation_id"])).first()
            if d["confirmation_id"]
            else None
        )
        deliveries = (
            conn.execute(
                select(_V).where(_V.c.receipt_id == receipt._mapping["id"]).order_by(_V.c.chain_seq)
            ).all()
            if receipt is not None
            else []
        )
        # By sequence number where the record names its one entry (an index look-up
        # each); a confirmation has one entry per state, found by kind and id.
        seqs = [d["chain_seq"]] + ([receipt._mapping["chain_seq"]] if receipt is not None else [])
        seqs += [v._mapping["chain_seq"] for v in deliveries]
        asked_ids = [c._mapping["id"] for c in asked]
        entries = conn.execute(
            select(_CH.c.seq, _CH.c.at, _CH.c.kind, _CH.c.ref_id, _CH.c.hash, _CH.c.prev_hash)
            .where(
                or_(
                    _CH.c.seq.in_([s for s in seqs if s is not None]),
                    and_(_CH.c.kind == "confirmation", _CH.c.ref_id.in_(asked_ids)),
                )
            )
            .order_by(_CH.c.seq)
        ).all()
    chain = [
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
    evidence = json.loads(d["evidence_json"]) or None
    trace = json.loads(d["trace_json"])
    # The person's own words are in "words"; decisions recorded before that held them in "detail".
    said = {
        t.get("rule"): str(t["words"] if "words" in t else t.get("detail") or "")
        for t in trace
        if isinstance(t, dict)
    }
    heard = said.get("confirmation.heard")
    answer = said.get("confirmation.answer")
    receipt_story = None
    if receipt is not None:
        rm = receipt._mapping
        history = [_delivery(v._mapping) for v in deliveries]
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
    return {
        "decision": {
            "id": d["id"],
            "time": iso(d["created_at"]),
            "session": d["session_id"],
            "tool_call_id": d["call_id"],
            "caller": json.loads(d["caller_json"]),
            "tool": d["tool"],
            "action": d["action_name"],
            "arguments": json.loads(d["args_json"]),
            "arguments_digest": d["args_digest"],
            "action_digest": d["action_digest"],
            "policy": {"name": d["policy_name"], "hash": d["policy_hash"], "mode": d["mode"]},
            "outcome": d["outcome"],
            "enforced": d["enforced_outcome"],
            "rule": d["rule"],
            "trace": trace,
            "state_version": d["state_version"],
            "latency_ms": d["latency_ms"],
            "chain_seq": d["chain_seq"],
        },
        "evidence": evidence,
        "confirmation_asked": [_confirmation(c._mapping) for c in asked],
        "confirmed_by": _confirmation(attested._mapping) if attested is not None else None,
        "conversation": {
            "question": heard.removeprefix("agent: ") if heard else None,
            "answer": answer.removeprefix("caller: ") if answer else None,
        },
        "receipt": receipt_story,
        "chain": chain,
    }


def _confirmation(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "status": row["status"],
        "asked_at": iso(row["created_at"]),
        "expires_at": iso(row["expires_at"]),
        "state_version": row["state_version"],
        "action_digest": row["action_digest"],
        "memories": json.loads(row["memory_ids_json"]),
        "caller_words": row["words"],
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


# -- export ---------------------------------------------------------------------------

_EXPORT_PAGE = 2000
_PENDING_DIGEST = RecordDigest(_CF, FORMATS["confirmation"][1])


@dataclass(frozen=True)
class MissingRecord:
    """A chain entry whose record is not in the ledger (deleted, or never written)."""

    seq: int
    kind: str
    ref_id: str

    def __str__(self) -> str:
        return f"entry {self.seq} ({self.ref_id}): the {self.kind.split('.')[0]} it records is missing"


_EXPORTED: dict[str, tuple[str, ...]] = {
    "d": (
        "id",
        "tool",
        "call_id",
        "session_id",
        "caller_id",
        "action_name",
        "args_json",
        "args_digest",
        "policy_name",
        "policy_hash",
        "mode",
        "outcome",
        "enforced_outcome",
        "rule",
        "state_version",
        "latency_ms",
    ),
    "cf": (*FORMATS["confirmation"][1], "chain_seq"),
    "r": ("id", "decision_id", "caller_id", "status", "external_ref", "error_code"),
    "v": (
        "id",
        "receipt_id",
        "attempt",
        "state",
        "error",
        "service_decision_id",
        "service_receipt_id",
        "policy_alignment",
    ),
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
    page = select(c.seq, c.at, c.kind, c.ref_id, c.digest, c.hash).where(c.seq > after)
    if upto is not None:
        page = page.where(c.seq <= upto)
    if since is not None:
        page = page.where(c.at >= since)
    ch = page.order_by(c.seq).limit(_EXPORT_PAGE).subquery("ch")

    def record(table: Table, name: str, kinds: tuple[str, ...], wanted: tuple[str, ...]) -> tuple[Any, Any]:
        # Only the columns an event shows: the JSON blobs it leaves out are most of a row.
        if lateral:
            # LIMIT keeps the planner from flattening the lateral into a plain join.
            columns = [table.c[n] for n in wanted]
            found = select(*columns).where(table.c.id == ch.c.ref_id, ch.c.kind.in_(kinds))
            return found.limit(1).lateral(name), true()
        alias = table.alias(name)
        return alias, and_(ch.c.kind.in_(kinds), alias.c.id == ch.c.ref_id)

    d, d_on = record(_D, "d", ("decision",), _EXPORTED["d"])
    cf, cf_on = record(_CF, "cf", ("confirmation",), _EXPORTED["cf"])
    r, r_on = record(_R, "r", ("receipt", "receipt.2"), _EXPORTED["r"])
    v, v_on = record(_V, "v", ("delivery",), _EXPORTED["v"])
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
    pages: queue.Queue[list[dict[str, Any]] | BaseException | None] = queue.Queue(maxsize=2)
    stop = threading.Event()

    def put(item: list[dict[str, Any]] | BaseException | None) -> None:
        while not stop.is_set():
            try:
                pages.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

    def read() -> None:
        lateral = ledger.engine.dialect.name == "postgresql"
        last = after
        try:
            with ledger.engine.connect() as conn:
                while not stop.is_set():
                    result = conn.execute(_export_page(last, since, lateral=lateral, upto=upto))
                    keys = list(result.keys())
                    rows = [dict(zip(keys, row, strict=True)) for row in result]
                    put(rows)
                    if len(rows) < _EXPORT_PAGE:
                        break
                    last = rows[-1]["seq"]
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
            for m in item:
                yield _event(m)
    finally:
        stop.set()
        reader.join()


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


def _event(m: Any) -> dict[str, Any] | MissingRecord:
    kind = m["kind"]
    base = {"time": iso(m["at"]), "gate.chain.seq": m["seq"], "gate.chain.hash": m["hash"]}
    if kind == "decision":
        if m["d_id"] is None:
            return MissingRecord(m["seq"], kind, m["ref_id"])
        return {**base, **_decision_event(m)}
    if kind == "confirmation":
        if m["cf_id"] is None:
            return MissingRecord(m["seq"], kind, m["ref_id"])
        return {**base, **_confirmation_event(m)}
    if kind in ("receipt", "receipt.2"):
        if m["r_id"] is None:
            return MissingRecord(m["seq"], kind, m["ref_id"])
        return {**base, **_receipt_event(m)}
    if kind == "delivery":
        if m["v_id"] is None:
            return MissingRecord(m["seq"], kind, m["ref_id"])
        return {**base, **_delivery_event(m)}
    return MissingRecord(m["seq"], kind, m["ref_id"])


def _decision_event(m: Any) -> dict[str, Any]:
    return {
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
        "gate.state.version": m["d_state_version"],
        "gate.latency_ms": m["d_latency_ms"],
    }


def _confirmation_event(m: Any) -> dict[str, Any]:
    values = {name: m[f"cf_{name}"] for name in FORMATS["confirmation"][1]}
    if m["seq"] != m["cf_chain_seq"]:
        # An earlier entry of a confirmation that was answered (or superseded) later:
        # it recorded the question as asked. Rebuilt, and checked against its digest.
        asked = {**values, "status": "pending", "words": None, "answered_at": None, "answer_message_id": None}
        values = asked if _PENDING_DIGEST.of_mapping(asked) == m["digest"] else {**values, "status": None}
    return {
        "event.name": "gate.confirmation",
        "gate.confirmation.id": values["id"],
        "gate.confirmation.status": values["status"],
        "gate.decision.id": values["decision_id"],
        "gen_ai.tool.name": values["tool"],
        "enduser.id": values["caller_id"],
        "session.id": values["session_id"],
        "gate.confirmation.words": values["words"],
        "gate.confirmation.answered_at": iso(values["answered_at"]),
    }


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
