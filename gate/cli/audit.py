"""``gate audit``: review the audit ledger (read-only: works on a read-only copy or role)."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Annotated, Any

import typer

from gate.cli.common import AsJson, DatabaseUrl, fail, open_ledger
from gate.cli.output import fields, human, line, print_json, table
from gate.cli.serve import serve


def status_help() -> str:
    """Every status word the audit commands print, one per line (for ``--help``)."""
    from gate.audit import STATUS_WORDS

    width = max(len(w) for w in STATUS_WORDS)
    return "\n\n".join(f"{word.ljust(width)}  {meaning}" for word, meaning in STATUS_WORDS.items())


audit_app = typer.Typer(
    help="Review the audit ledger. Nothing here writes.\n\nStatus words:\n\n" + status_help(),
    no_args_is_help=True,
)
audit_app.command("serve")(serve)


@audit_app.command("list", epilog="Status words: " + "; ".join(status_help().split("\n\n")))
def audit_list(
    caller: Annotated[str | None, typer.Option(help="only this caller id")] = None,
    tool: Annotated[str | None, typer.Option(help="only this tool")] = None,
    outcome: Annotated[str | None, typer.Option(help="act, ask or abstain")] = None,
    status: Annotated[str | None, typer.Option(help="receipt status: succeeded, failed or skipped")] = None,
    violations: Annotated[
        bool, typer.Option("--violations", help="only receipts the service marked violated")
    ] = False,
    undelivered: Annotated[
        bool, typer.Option("--undelivered", help="only receipts not acknowledged by the service")
    ] = False,
    since: Annotated[str | None, typer.Option(help="ISO time or age (15m, 2h, 7d)")] = None,
    until: Annotated[str | None, typer.Option(help="ISO time or age")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000, help="rows per page")] = 20,
    after: Annotated[
        str | None, typer.Option(help="the next page: decisions older than this id (printed as 'next page')")
    ] = None,
    as_json: AsJson = False,
    database_url: DatabaseUrl = None,
) -> None:
    """Decisions and their receipts, newest first, a page at a time."""
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
    try:
        page = list_decisions(ledger, where, limit=limit, after=after)
    except LookupError as exc:
        fail(str(exc), 1)
    finally:
        ledger.close()
    if as_json:
        print_json({"decisions": page.rows, "next_after": page.next_after})
        return
    if not page.rows:
        line("no decisions match")
        return
    rows = [
        [
            r["time"],
            r["id"],
            r["caller"],
            r["tool"],
            r["outcome"] + (" (shadow)" if r["mode"] == "shadow" else ""),
            r["rule"],
            r["receipt"],
            r["delivery"],
            r["alignment"],
        ]
        for r in page.rows
    ]
    table(("time", "id", "caller", "tool", "outcome", "rule", "receipt", "delivery", "alignment"), rows)
    if page.next_after:
        line(f"next page: --after {page.next_after}")


@audit_app.command("show")
def audit_show(
    decision_id: Annotated[str, typer.Argument(help="a decision id (gd_...)")],
    as_json: AsJson = False,
    database_url: DatabaseUrl = None,
) -> None:
    """The whole story of one decision: request, policy, evidence, confirmation, receipt, delivery, chain."""
    from gate.audit import story

    ledger = open_ledger(database_url)
    try:
        found = story(ledger, decision_id)
    finally:
        ledger.close()
    if found is None:
        fail(f"no decision {decision_id} in the ledger", 1)
    if as_json:
        print_json(found)
        return
    _print_story(found)


def _print_story(found: dict[str, Any]) -> None:
    d = found["decision"]
    p = d["policy"]
    line(f"decision {d['id']}")
    fields(
        [
            ("time", d["time"]),
            ("session", d["session"]),
            ("tool call", d["tool_call_id"]),
            ("caller", d["caller"]),
            ("tool", f"{d['tool']} -> {d['action']}"),
            ("arguments", json.dumps(d["arguments"], ensure_ascii=False)),
            ("args digest", d["arguments_digest"]),
            ("policy", f"{p['name']} ({p['mode']}) {p['hash']}"),
            ("outcome", f"{d['outcome']} by rule {d['rule']} (enforced: {d['enforced']})"),
            ("state", d["state_version"]),
            ("latency", f"{d['latency_ms']:g} ms"),
        ],
        indent="  ",
    )
    line()
    table(
        ("rule", "outcome", "detail"),
        [[r.get("rule"), r.get("outcome"), r.get("detail")] for r in d["trace"]],
    )
    ev = found["evidence"]
    line()
    if ev:
        line(
            f"evidence: {ev.get('outcome')} ({ev.get('reason')}), "
            f"service decision {human(ev.get('decision_id'))}"
        )
        memories = ev.get("memories") or []
        if memories:
            table(
                ("memory", "counts", "trusted", "source", "confidence", "said"),
                [
                    [
                        m.get("id"),
                        "against" if m.get("against") else "for",
                        m.get("trusted"),
                        m.get("source"),
                        m.get("confidence"),
                        m.get("content"),
                    ]
                    for m in memories
                ],
            )
        else:
            line("  no memory bore on it")
    else:
        line("evidence: none asked for")
    for c in found["confirmation_asked"]:
        line()
        line(f"confirmation {c['id']}: {c['status']}")
        fields(
            [
                ("asked", c["asked_at"]),
                ("expires", c["expires_at"]),
                ("caller said", c["caller_words"]),
                ("answered", c["answered_at"]),
                ("memories", c["memories"]),
            ],
            indent="  ",
        )
    c = found["confirmed_by"]
    if c:
        line()
        line(
            f"confirmed by {c['id']} at {human(c['answered_at'])}: the caller said {human(c['caller_words'])}"
        )
    rc = found["receipt"]
    line()
    if rc is None:
        line("receipt: none yet")
    else:
        line(f"receipt {rc['id']}: {rc['status']}")
        fields(
            [
                ("external ref", rc["external_ref"]),
                ("error code", rc["error_code"]),
                ("key", rc["idempotency_key"]),
                ("delivery", rc["delivery_state"]),
                ("alignment", rc["policy_alignment"]),
            ],
            indent="  ",
        )
        if rc["delivery"]:
            table(
                ("attempt", "time", "state", "alignment", "service receipt", "error"),
                [
                    [
                        h["attempt"],
                        h["time"],
                        h["state"],
                        h["policy_alignment"],
                        h["service_receipt_id"],
                        h["error"],
                    ]
                    for h in rc["delivery"]
                ],
            )
    line()
    table(
        ("chain", "time", "kind", "record", "hash"),
        [[e["seq"], e["time"], e["kind"], e["ref_id"], e["hash"]] for e in found["chain"]],
        right=("chain",),
    )


@audit_app.command("verify")
def audit_verify(as_json: AsJson = False, database_url: DatabaseUrl = None) -> None:
    """Check the hash chain and every record against it; exit 1 naming the first broken entry."""
    ledger = open_ledger(database_url)
    try:
        report = ledger.verify()
    finally:
        ledger.close()
    broken = report.first_broken
    if as_json:
        print_json(
            {
                "ok": report.ok,
                "entries": report.checked,
                "seconds": round(report.seconds, 3),
                "first_broken": None
                if broken is None
                else {"seq": broken.seq, "record": broken.ref_id, "reason": broken.reason},
            }
        )
    elif report.ok:
        rate = report.checked / report.seconds if report.seconds else 0
        line(f"chain verified: {report.checked} entries ({rate:,.0f} entries/s)")
    else:
        sys.stderr.write(f"chain broken: {broken}\n")
    if not report.ok:
        raise typer.Exit(1)


@audit_app.command("export")
def audit_export(
    fmt: Annotated[str, typer.Option("--format", help="jsonl")] = "jsonl",
    since: Annotated[str | None, typer.Option(help="ISO time or age (15m, 2h, 7d)")] = None,
    database_url: DatabaseUrl = None,
) -> None:
    """Every chain entry as one JSON object a line, in chain order, with the state as of that entry.

    An entry whose record is missing is one error line on stderr, and the
    exit status is 1 (the events around it are still exported).
    """
    from gate.audit import export_jsonl, parse_time

    if fmt != "jsonl":
        fail(f"unknown format {fmt!r} (expected jsonl)")
    try:
        start = parse_time(since, now=time.time()) if since else None
    except ValueError as exc:
        fail(str(exc))
    ledger = open_ledger(database_url)
    write, missing = sys.stdout.write, 0
    try:
        for text, gone in export_jsonl(ledger, since=start):
            write(text)
            for item in gone:
                missing += 1
                sys.stderr.write(f"gate: {item}\n")
    except BrokenPipeError:
        # The reader stopped early (``| head``): not a failure of the export. Point
        # stdout at nothing so the interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(0) from None
    finally:
        ledger.close()
    if missing:
        sys.stderr.write(f"gate: {missing} chain entr{'y' if missing == 1 else 'ies'} without a record\n")
        raise typer.Exit(1)


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
    try:
        result = stats(ledger, where)
    finally:
        ledger.close()
    if as_json:
        print_json(result)
        return
    line(f"{result['decisions']} decisions")
    if result["by_tool"]:
        table(
            ("tool", *OUTCOMES),
            [[name, *(counts[o] for o in OUTCOMES)] for name, counts in sorted(result["by_tool"].items())],
            right=OUTCOMES,
        )
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(result["by_receipt_status"].items()))
    line(f"receipts: {statuses or 'none'}")
    lat = result["latency_ms"]
    if lat["p50"] is not None:
        line(f"decision latency: p50 {lat['p50']:g} ms, p95 {lat['p95']:g} ms")
