"""``gate audit``: review the audit ledger (read-only: works on a read-only copy or role).

Every record a command shows is checked against the chain as it is shown; a
record that does not verify is marked, and ``show`` (and ``list``) exit 1.
``keygen`` and ``checkpoint`` (in :mod:`gate.cli.checkpoints`) are the only
commands here that write, and only a key file or one checkpoint.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from gate.cli.checkpoints import checkpoint, checkpoints, keygen
from gate.cli.common import AsJson, DatabaseUrl, fail, open_ledger
from gate.cli.output import fields, human, line, print_json, table, terminal
from gate.cli.serve import serve
from gate.errors import ConfigError


def status_help() -> str:
    """Every status word the audit commands print, one per line (for ``--help``)."""
    from gate.audit import STATUS_WORDS

    width = max(len(w) for w in STATUS_WORDS)
    return "\n\n".join(f"{word.ljust(width)}  {meaning}" for word, meaning in STATUS_WORDS.items())


audit_app = typer.Typer(
    help="Review the audit ledger. Nothing here writes but keygen (a key file) and checkpoint "
    "(one signed checkpoint).\n\nStatus words:\n\n" + status_help(),
    no_args_is_help=True,
)
audit_app.command("serve")(serve)
audit_app.command("keygen")(keygen)
audit_app.command("checkpoint")(checkpoint)
audit_app.command("checkpoints")(checkpoints)


@audit_app.command("list", epilog="Status words: " + "; ".join(status_help().split("\n\n")))
def audit_list(
    caller: Annotated[str | None, typer.Option(help="only callers whose id starts with this")] = None,
    tool: Annotated[str | None, typer.Option(help="only tools whose name starts with this")] = None,
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
    short = terminal()
    rows = [
        [
            _short_time(r["time"]) if short else r["time"],
            r["id"],
            r["caller"],
            r["tool"],
            arguments_text(r["arguments"]),
            r["outcome"] + (" (shadow)" if r["mode"] == "shadow" else ""),
            r["rule"],
            r["receipt"],
            r["delivery"],
            r["alignment"],
            "ok" if r["problem"] is None else "BROKEN",
        ]
        for r in page.rows
    ]
    table(
        LIST_COLUMNS,
        rows,
        optional=("alignment", "delivery", "rule", "arguments", "tool", "caller"),
    )
    if page.next_after:
        line(f"next page: --after {page.next_after}")
    if page.problems:
        for r in page.rows:
            if r["problem"] is not None:
                sys.stderr.write(f"gate: does not verify: {r['problem']}\n")
        raise typer.Exit(1)


LIST_COLUMNS = (
    "time",
    "id",
    "caller",
    "tool",
    "arguments",
    "outcome",
    "rule",
    "receipt",
    "delivery",
    "alignment",
    "chain",
)


def _short_time(stamp: str) -> str:
    """``2026-11-30T08:45:11.566Z`` as ``2026-11-30 08:45:11`` (wraps at the space on a narrow terminal)."""
    return stamp.replace("T", " ")[:19]


def arguments_text(arguments: dict[str, Any]) -> str:
    """Arguments as ``name=value`` pairs; a masked one as ``name=(masked)``."""
    from gate.audit import is_masked

    if not arguments:
        return "-"
    return ", ".join(f"{k}={'(masked)' if is_masked(v) else human(v)}" for k, v in arguments.items())


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
    else:
        print_story(found)
    if not found["verified"]:
        for problem in found["problems"]:
            sys.stderr.write(f"gate: does not verify: {problem}\n")
        raise typer.Exit(1)


def iso(ts: float) -> str:
    from gate.audit import iso as _iso

    return _iso(ts) or "-"


def said(text: str | None, erased: str | None = None) -> str:
    """Personal text as shown: the words, or when they were erased."""
    if erased:
        return f"(erased on {erased[:10]})"
    return human(text)


def print_story(found: dict[str, Any]) -> None:
    """One decision's case file, top to bottom, as ``gate audit show`` prints it."""
    d = found["decision"]
    p = d["policy"]
    line(f"decision {d['id']}")
    if not found["verified"]:
        line("  DOES NOT VERIFY against the chain: what follows may not be what was recorded")
        for problem in found["problems"]:
            line(f"    {problem}")
    masked = d["masked"]
    state = human(d["state_version"])
    if d["confirmed_state_version"] is not None or found["confirmed_by"] is not None:
        state += f" (confirmed: {human(d['confirmed_state_version'])})"
    fields(
        [
            ("time", d["time"]),
            ("session", d["session"]),
            ("tool call", d["tool_call_id"]),
            ("caller", d["caller"]),
            ("tool", f"{d['tool']} -> {d['action']}"),
            (
                f"arguments (masked: {', '.join(masked)})" if masked else "arguments",
                arguments_text(d["arguments"]),
            ),
            ("args digest", d["arguments_digest"]),
            ("policy", f"{p['name']} ({p['mode']}) {p['hash']}"),
            ("outcome", f"{d['outcome']} by rule {d['rule']} (enforced: {d['enforced']})"),
            ("state", state),
            ("latency", f"{d['latency_ms']:g} ms"),
        ],
        indent="  ",
    )
    line()
    table(
        ("rule", "outcome", "detail", "words"),
        [
            [r.get("rule"), r.get("outcome"), r.get("detail"), said(r.get("words"), r.get("words_erased"))]
            for r in d["trace"]
        ],
    )
    _print_argument_trace(found["argument_trace"])
    _print_evidence(found["evidence"])
    talk = found["conversation"]
    if talk["question"] or talk.get("question_erased") or talk["answer"]:
        line()
        answer = talk["answer"] or {}
        fields(
            [
                ("agent asked", said(talk["question"], talk.get("question_erased"))),
                ("caller said", said(answer.get("words"), answer.get("erased"))),
                ("read as", answer.get("label")),
            ],
            indent="  ",
        )
    for c in found["confirmation_asked"]:
        line()
        line(f"confirmation {c['id']}: {c['status']}")
        fields(
            [
                ("asked", c["asked_at"]),
                ("expires", c["expires_at"]),
                ("state version", c["state_version"]),
                ("caller said", said(c["caller_words"], c["caller_words_erased"])),
                ("answered", c["answered_at"]),
                ("memories", c["memories"]),
                ("led to", ", ".join(f"{x['id']} ({x['outcome']})" for x in c["followed_by"]) or None),
            ],
            indent="  ",
        )
    c = found["confirmed_by"]
    if c:
        line()
        asked_in = c.get("asked_in")
        line(f"confirmed by {c['id']} at {human(c['answered_at'])}")
        fields(
            [
                ("asked in", f"{asked_in['id']} ({asked_in['outcome']})" if asked_in else None),
                ("caller said", said(c["caller_words"], c["caller_words_erased"])),
                ("confirmed version", c["state_version"]),
                ("executed version", d["state_version"]),
            ],
            indent="  ",
        )
    _print_receipt(found["receipt"])
    line()
    table(
        ("chain", "time", "kind", "record", "hash"),
        [[e["seq"], e["time"], e["kind"], e["ref_id"], e["hash"]] for e in found["chain"]],
        right=("chain",),
    )


def _print_argument_trace(trace: dict[str, Any] | None) -> None:
    if not trace:
        return
    line()
    line("argument trace:")
    table(
        ("argument", "value", "status", "source", "speaker", "turn", "words", "rule", "note"),
        [
            [
                a.get("name"),
                a.get("value"),
                a.get("status"),
                a.get("source"),
                a.get("speaker"),
                a.get("turn"),
                said(a.get("words"), a.get("words_erased")),
                a.get("rule"),
                a.get("note"),
            ]
            for a in trace["arguments"]
            if isinstance(a, dict)
        ],
        optional=("note", "rule", "speaker", "turn"),
    )
    accepted = [a for a in trace["arguments"] if isinstance(a, dict) and isinstance(a.get("accepted"), dict)]
    for a in accepted:
        yes = a["accepted"]
        line(f"  {a.get('name')}: accepted with {said(yes.get('words'), yes.get('words_erased'))}")
    action = trace.get("action")
    if isinstance(action, dict):
        line(
            f"  action: {human(action.get('status'))} by {human(action.get('rule'))}, "
            f"from {said(action.get('words'), action.get('words_erased'))}"
        )


def _print_evidence(ev: dict[str, Any] | None) -> None:
    line()
    if not ev:
        line("evidence: none asked for")
        return
    line(
        f"evidence: {ev.get('outcome')} ({ev.get('reason')}), service decision {human(ev.get('decision_id'))}"
    )
    memories = ev.get("memories") or []
    if not memories:
        line("  no memory bore on it")
        return
    table(
        ("memory", "counts", "trusted", "source", "confidence", "said"),
        [
            [
                m.get("id"),
                "against" if m.get("against") else "for",
                m.get("trusted"),
                m.get("source"),
                m.get("confidence"),
                said(m.get("content"), m.get("content_erased")),
            ]
            for m in memories
        ],
    )


def _print_receipt(rc: dict[str, Any] | None) -> None:
    line()
    if rc is None:
        line("receipt: none yet")
        return
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


@audit_app.command("verify")
def audit_verify(
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            help="public key (a .pub file from `gate audit keygen`, or base64): also check every "
            "signed checkpoint against it and against the chain",
        ),
    ] = None,
    kept: Annotated[
        Path | None,
        typer.Option(
            "--checkpoints",
            help="checkpoints kept elsewhere (`gate audit checkpoints --export`): each must still be in "
            "the ledger (needs --key)",
        ),
    ] = None,
    as_json: AsJson = False,
    database_url: DatabaseUrl = None,
) -> None:
    """Check the hash chain and every record against it; exit 1 naming the first broken entry.

    With --key, also check the signed checkpoints: every signature holds, they
    follow each other, and the chain at each one's entry still has the hash it
    signed, so a chain rewritten and recomputed, or cut at its tail, fails.
    """
    from gate.ledger.checkpoints import CheckpointReport, Verifier, read_kept, verify_checkpoints

    if kept is not None and key is None:
        fail("--checkpoints needs --key (the public key that signed them)")
    try:
        verifier = Verifier.from_spec(key) if key is not None else None
        kept_list = read_kept(kept) if kept is not None else []
    except ConfigError as exc:
        fail(str(exc))
    ledger = open_ledger(database_url)
    signed: CheckpointReport | None = None
    try:
        report = ledger.verify()
        if verifier is not None:
            with ledger.engine.connect() as conn:
                signed = verify_checkpoints(conn, verifier, kept_list)
    finally:
        ledger.close()
    broken = report.first_broken
    ok = report.ok and (signed is None or signed.ok)
    if as_json:
        out: dict[str, Any] = {
            "ok": ok,
            "entries": report.checked,
            "seconds": round(report.seconds, 3),
            "first_broken": None
            if broken is None
            else {"seq": broken.seq, "record": broken.ref_id, "reason": broken.reason},
        }
        if signed is not None:
            out["checkpoints"] = {
                "ok": signed.ok,
                "checked": signed.checked,
                "problem": signed.problem,
                "newest": signed.newest.as_dict() if signed.newest else None,
                "unsigned_entries": signed.unsigned,
            }
        print_json(out)
    else:
        if report.ok:
            rate = report.checked / report.seconds if report.seconds else 0
            line(f"chain verified: {report.checked} entries ({rate:,.0f} entries/s)")
        else:
            sys.stderr.write(f"chain broken: {broken}\n")
        if signed is not None and signed.ok:
            newest = signed.newest
            if newest is None:
                line("checkpoints: none signed yet (nothing pins the chain)")
            else:
                line(
                    f"checkpoints verified: {signed.checked}, the newest ({iso(newest.at)}) signs entry "
                    f"{newest.chain_seq}; {signed.unsigned} entr{'y' if signed.unsigned == 1 else 'ies'} "
                    "after it not signed yet"
                )
        elif signed is not None:
            sys.stderr.write(f"checkpoints broken: {signed.problem}\n")
    if not ok:
        raise typer.Exit(1)


@audit_app.command("export")
def audit_export(
    fmt: Annotated[str, typer.Option("--format", help="jsonl")] = "jsonl",
    since: Annotated[str | None, typer.Option(help="ISO time or age (15m, 2h, 7d)")] = None,
    database_url: DatabaseUrl = None,
) -> None:
    """Every chain entry as one JSON object a line, in chain order, with the state as of that entry.

    Each record is checked against the chain as it is written out
    (``gate.chain.verified``, and ``gate.chain.problem`` saying why not).
    An entry whose record is missing is one error line on stderr; either
    makes the exit status 1 (the events around it are still exported).
    """
    from gate.audit import export_jsonl, parse_time

    if fmt != "jsonl":
        fail(f"unknown format {fmt!r} (expected jsonl)")
    try:
        start = parse_time(since, now=time.time()) if since else None
    except ValueError as exc:
        fail(str(exc))
    ledger = open_ledger(database_url)
    write, missing, unverified = sys.stdout.write, 0, 0
    try:
        for text, gone in export_jsonl(ledger, since=start):
            write(text)
            unverified += text.count('"gate.chain.verified": false')
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
    if unverified:
        sys.stderr.write(
            f"gate: {unverified} exported record{'' if unverified == 1 else 's'} do not verify against the "
            'chain (marked "gate.chain.verified": false)\n'
        )
    if missing or unverified:
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
