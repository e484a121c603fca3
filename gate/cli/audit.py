"""``gate audit``: review the audit ledger."""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated

import typer
from rich.table import Table

from gate.cli.common import AsJson, DatabaseUrl, err, fail, open_ledger, out, print_json

audit_app = typer.Typer(help="Review the audit ledger.", no_args_is_help=True)


@audit_app.command("list")
def audit_list(
    caller: Annotated[str | None, typer.Option(help="only this caller id")] = None,
    tool: Annotated[str | None, typer.Option(help="only this tool")] = None,
    outcome: Annotated[str | None, typer.Option(help="act, ask or abstain")] = None,
    status: Annotated[str | None, typer.Option(help="receipt status: succeeded, failed or skipped")] = None,
    violations: Annotated[bool, typer.Option("--violations", help="only executed after ask/abstain")] = False,
    undelivered: Annotated[
        bool, typer.Option("--undelivered", help="only receipts not yet delivered")
    ] = False,
    since: Annotated[str | None, typer.Option(help="ISO time or age (15m, 2h, 7d)")] = None,
    until: Annotated[str | None, typer.Option(help="ISO time or age")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000, help="rows per page")] = 20,
    page: Annotated[int, typer.Option(min=1, help="page number, newest first")] = 1,
    as_json: AsJson = False,
    database_url: DatabaseUrl = None,
) -> None:
    """Decisions and their receipts, newest first."""
    from gate.audit import AuditFilter, list_decisions, parse_time

    now = time.time()
    try:
        where = AuditFilter(
            caller=caller,
            tool=tool,
            outcome=outcome,
            status=status,
            violations=violations,
            undelivered=undelivered,
            since=parse_time(since, now=now) if since else None,
            until=parse_time(until, now=now) if until else None,
        )
    except ValueError as exc:
        fail(str(exc))
    ledger = open_ledger(database_url)
    rows = list_decisions(ledger, where, limit=limit, page=page)
    ledger.close()
    if as_json:
        print_json(rows)
        return
    table = Table(title=f"decisions, page {page}", expand=False)
    for col in ("time", "id", "caller", "tool", "outcome", "rule", "receipt", "delivered"):
        table.add_column(col, overflow="fold")
    for r in rows:
        delivered = "n/a" if r["delivered"] is None else "yes" if r["delivered"] else "NO"
        outcome_cell = r["outcome"] + (" (shadow)" if r["mode"] == "shadow" else "")
        receipt = (r["receipt"] or "-") + (" VIOLATED" if r["alignment"] == "violated" else "")
        table.add_row(r["time"], r["id"], r["caller"], r["tool"], outcome_cell, r["rule"], receipt, delivered)
    out.print(table)
    if not rows:
        out.print("no decisions match")


@audit_app.command("show")
def audit_show(
    decision_id: Annotated[str, typer.Argument(help="a decision id (gd_...)")],
    as_json: AsJson = False,
    database_url: DatabaseUrl = None,
) -> None:
    """The whole story of one decision."""
    from gate.audit import story

    ledger = open_ledger(database_url)
    found = story(ledger, decision_id)
    ledger.close()
    if found is None:
        fail(f"no decision {decision_id!r} in the ledger", 1)
    if as_json:
        print_json(found)
        return
    d = found["decision"]
    out.print(f"decision {d['id']}  {d['time']}  session {d['session']}", markup=False)
    out.print(f"caller     {d['caller']}", markup=False)
    out.print(f"tool       {d['tool']} -> {d['action']}  (call {d['tool_call_id']})", markup=False)
    out.print(f"arguments  {json.dumps(d['arguments'])}  digest {d['arguments_digest']}", markup=False)
    p = d["policy"]
    out.print(f"policy     {p['name']} {p['hash']} mode={p['mode']}", markup=False)
    out.print(f"outcome    {d['outcome']} by rule {d['rule']} (enforced: {d['enforced']})", markup=False)
    out.print(f"state      {d['state_version']}   latency {d['latency_ms']} ms", markup=False)
    trace = Table(title="rules", expand=False)
    for col in ("rule", "outcome", "detail"):
        trace.add_column(col, overflow="fold")
    for r in d["trace"]:
        trace.add_row(r["rule"], r["outcome"], r["detail"])
    out.print(trace)
    ev = found["evidence"]
    if ev:
        out.print(
            f"evidence   {ev['outcome']} ({ev['reason']}) service decision {ev['decision_id'] or '-'}",
            markup=False,
        )
        for m in ev["memories"]:
            trusted = "trusted" if m["trusted"] else "untrusted"
            out.print(
                f"  memory {m['id']} ({trusted}, {m['source']}, conf {m['confidence']}): {m['content']}",
                markup=False,
            )
    for c in found["confirmation_asked"]:
        out.print(
            f"asked      confirmation {c['id']} {c['status']}; caller said: {c['caller_words']!r}",
            markup=False,
        )
    c = found["confirmed_by"]
    if c:
        out.print(
            f"confirmed  by {c['id']} at {c['answered_at']}: caller said {c['caller_words']!r}", markup=False
        )
    rc = found["receipt"]
    if rc:
        dl = rc["delivery"]
        out.print(
            f"receipt    {rc['id']} {rc['status']} ref={rc['external_ref']} error={rc['error_code']} "
            f"key={rc['idempotency_key']}",
            markup=False,
        )
        out.print(
            f"delivery   attempts={dl['attempts']} delivered={dl['delivered_at']} "
            f"alignment={dl['policy_alignment']} last_error={dl['last_error']}",
            markup=False,
        )
    else:
        out.print("receipt    none yet")


@audit_app.command("verify")
def audit_verify(database_url: DatabaseUrl = None) -> None:
    """Check the hash chain; exit 1 and name the first broken entry."""
    ledger = open_ledger(database_url)
    report = ledger.verify()
    ledger.close()
    if report.ok:
        rate = report.checked / report.seconds if report.seconds else 0
        out.print(f"chain verified: {report.checked} entries ({rate:,.0f} entries/s)")
        return
    err.print(f"chain broken: {report.first_broken}", markup=False, highlight=False)
    raise typer.Exit(1)


@audit_app.command("export")
def audit_export(
    fmt: Annotated[str, typer.Option("--format", help="jsonl")] = "jsonl",
    since: Annotated[str | None, typer.Option(help="ISO time or age (15m, 2h, 7d)")] = None,
    database_url: DatabaseUrl = None,
) -> None:
    """One JSON object per event, in chain order (OpenTelemetry GenAI names where they fit)."""
    from gate.audit import export_events, parse_time

    if fmt != "jsonl":
        fail(f"unknown format {fmt!r} (expected jsonl)")
    try:
        start = parse_time(since, now=time.time()) if since else None
    except ValueError as exc:
        fail(str(exc))
    ledger = open_ledger(database_url)
    write = sys.stdout.write
    for item in export_events(ledger, since=start):
        write(json.dumps(item, ensure_ascii=False) + "\n")
    ledger.close()


@audit_app.command("stats")
def audit_stats(
    since: Annotated[str | None, typer.Option(help="ISO time or age (15m, 2h, 7d)")] = None,
    tool: Annotated[str | None, typer.Option(help="only this tool")] = None,
    as_json: AsJson = False,
    database_url: DatabaseUrl = None,
) -> None:
    """Counts by tool, outcome and receipt status; decision latency p50/p95."""
    from gate.audit import OUTCOMES, AuditFilter, parse_time, stats

    try:
        where = AuditFilter(tool=tool, since=parse_time(since, now=time.time()) if since else None)
    except ValueError as exc:
        fail(str(exc))
    ledger = open_ledger(database_url)
    result = stats(ledger, where)
    ledger.close()
    if as_json:
        print_json(result)
        return
    table = Table(title=f"{result['decisions']} decisions", expand=False)
    table.add_column("tool")
    for o in OUTCOMES:
        table.add_column(o, justify="right")
    for name, counts in sorted(result["by_tool"].items()):
        table.add_row(name, *(str(counts[o]) for o in OUTCOMES))
    out.print(table)
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(result["by_receipt_status"].items()))
    out.print(f"receipts: {statuses or 'none'}")
    lat = result["latency_ms"]
    out.print(f"decision latency: p50 {lat['p50']} ms, p95 {lat['p95']} ms")
