"""The ``gate`` command line: audit review and policy tooling.

Tables for people, ``--json`` for machines. Every expected failure (no
ledger, an unknown id, a bad filter, a broken policy) is one clear line on
stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from gate.config import GateSettings
from gate.errors import ConfigError
from gate.ledger import Ledger
from gate.policy_loader import load_policy_dir

app = typer.Typer(
    help="Action governance for LiveKit voice agents.", no_args_is_help=True, pretty_exceptions_enable=False
)
audit_app = typer.Typer(help="Review the audit ledger.", no_args_is_help=True)
policy_app = typer.Typer(help="Write, test and roll out policies.", no_args_is_help=True)
receipts_app = typer.Typer(help="Deliver receipts to the decision service.", no_args_is_help=True)
app.add_typer(audit_app, name="audit")
app.add_typer(policy_app, name="policy")
app.add_typer(receipts_app, name="receipts")

# Piped output is read by tools and wide terminals alike: don't fold it to 80 columns.
out = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 240)
err = Console(stderr=True, soft_wrap=True)

DatabaseUrl = Annotated[
    str | None, typer.Option("--database-url", help="ledger URL (default: GATE_DATABASE_URL or GATE_HOME)")
]
AsJson = Annotated[bool, typer.Option("--json", help="print JSON instead of a table")]
PolicyDir = Annotated[Path, typer.Argument(help="policy directory")]


def _fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"gate: {message}", markup=False, highlight=False)
    raise typer.Exit(code)


def _open_ledger(database_url: str | None) -> Ledger:
    url = database_url or GateSettings().ledger_url()
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        if not path.exists():
            _fail(f"no ledger at {path} (set GATE_HOME or GATE_DATABASE_URL, or pass --database-url)")
    try:
        return Ledger(url, create=False)
    except ConfigError as exc:
        _fail(str(exc))


def _print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


# -- audit -------------------------------------------------------------------------


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
        _fail(str(exc))
    ledger = _open_ledger(database_url)
    rows = list_decisions(ledger, where, limit=limit, page=page)
    ledger.close()
    if as_json:
        _print_json(rows)
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

    ledger = _open_ledger(database_url)
    found = story(ledger, decision_id)
    ledger.close()
    if found is None:
        _fail(f"no decision {decision_id!r} in the ledger", 1)
    if as_json:
        _print_json(found)
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
    ledger = _open_ledger(database_url)
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
        _fail(f"unknown format {fmt!r} (expected jsonl)")
    try:
        start = parse_time(since, now=time.time()) if since else None
    except ValueError as exc:
        _fail(str(exc))
    ledger = _open_ledger(database_url)
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
        _fail(str(exc))
    ledger = _open_ledger(database_url)
    result = stats(ledger, where)
    ledger.close()
    if as_json:
        _print_json(result)
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


# -- policy ------------------------------------------------------------------------


@policy_app.command("check")
def policy_check(directory: PolicyDir = Path("policies")) -> None:
    """Validate every policy file; list every problem with file, line and field."""
    found, issues = load_policy_dir(directory)
    for issue in issues:
        err.print(str(issue), markup=False, highlight=False)
    if issues:
        raise typer.Exit(1)
    out.print(f"{len(found)} policies valid in {directory}")


def _policies_or_fail(directory: Path) -> dict[str, Any]:
    found, issues = load_policy_dir(directory)
    if issues:
        for issue in issues:
            err.print(str(issue), markup=False, highlight=False)
        _fail(f"{len(issues)} problem(s) in {directory}; fix them first (gate policy check)", 1)
    return found


@policy_app.command("explain")
def policy_explain(
    tool: Annotated[str, typer.Argument(help="the gated tool")],
    caller: Annotated[str, typer.Option(help="caller id (memory partition)")],
    args: Annotated[str, typer.Option("--args", help='arguments as JSON, e.g. \'{"day": "Friday"}\'')] = "{}",
    verified: Annotated[bool, typer.Option("--verified", help="the caller is verified")] = False,
    role: Annotated[list[str] | None, typer.Option("--role", help="a caller role (repeatable)")] = None,
    attested: Annotated[bool, typer.Option("--attested", help="as if the caller had confirmed")] = False,
    policies: Annotated[Path, typer.Option(help="policy directory")] = Path("policies"),
    as_json: AsJson = False,
) -> None:
    """Dry-run one decision with the trace of rules and evidence; nothing executed, nothing recorded."""
    from gate.caller import Caller

    try:
        parsed = json.loads(args)
    except ValueError as exc:
        _fail(f"--args is not JSON: {exc}")
    if not isinstance(parsed, dict):
        _fail("--args must be a JSON object")
    try:
        who = Caller(caller, verified=verified, roles=frozenset(role or []))
    except ValueError as exc:
        _fail(str(exc))
    found = _policies_or_fail(policies)
    if tool not in found:
        _fail(f"no policy for tool {tool!r} in {policies} (have: {', '.join(sorted(found)) or 'none'})")
    settings = GateSettings()
    verdict = asyncio.run(_explain(found[tool].policy, who, parsed, settings, attested))
    if as_json:
        _print_json(
            {
                "tool": tool,
                "outcome": verdict.outcome,
                "rule": verdict.rule,
                "trace": [r.as_dict() for r in verdict.trace],
                "evidence": None
                if verdict.evidence is None
                else {
                    "outcome": verdict.evidence.outcome,
                    "reason": verdict.evidence.reason,
                    "memories": [
                        {"id": m.id, "content": m.content, "trusted": m.trusted}
                        for m in verdict.evidence.memories
                    ],
                },
            }
        )
        return
    out.print(
        f"[bold]{tool}[/bold] for {caller}: [bold]{verdict.outcome}[/bold] (rule {verdict.rule}); "
        "dry run, nothing recorded"
    )
    table = Table(expand=False)
    for col in ("rule", "outcome", "detail"):
        table.add_column(col, overflow="fold")
    for r in verdict.trace:
        table.add_row(r.rule, r.outcome, r.detail)
    out.print(table)
    if verdict.evidence is not None:
        for m in verdict.evidence.memories:
            out.print(
                f"  memory {m.id} ({'trusted' if m.trusted else 'untrusted'}): {m.content}", markup=False
            )
    out.print("state: not read in a dry run (the tool's state reader runs only in the worker)")


async def _explain(
    policy: Any, who: Any, args: dict[str, Any], settings: GateSettings, attested: bool
) -> Any:
    """Dry run against GATE_HOME's memory and ledger when they exist (nothing is created)."""
    from gate.backends.local import LocalEngine
    from gate.explain import dry_run

    memory = settings.home / "memory.db"
    ledger_path = settings.home / "ledger.db"
    ledger = (
        Ledger(settings.ledger_url(), create=False) if settings.database_url or ledger_path.exists() else None
    )
    engine = None
    if memory.exists() and ledger is not None:
        engine = LocalEngine(settings.memory_url(), ledger)
    try:
        return await dry_run(policy, who, args, engine=engine, ledger=ledger, attested=attested)
    finally:
        if engine is not None:
            await engine.aclose()
        if ledger is not None:
            ledger.close()


@policy_app.command("test")
def policy_test(
    directory: PolicyDir = Path("policies"),
    tests: Annotated[Path | None, typer.Option(help="test directory (default: DIRECTORY/tests)")] = None,
) -> None:
    """Run the policy unit tests written in YAML; exit 1 on any failure."""
    from gate.policy_tests import load_test_files, run_policy_tests

    found = _policies_or_fail(directory)
    test_dir = tests or directory / "tests"
    if not test_dir.is_dir():
        _fail(f"no test directory {test_dir}")
    files, issues = load_test_files(test_dir)
    results, more = run_policy_tests(found, files)
    issues += more
    for issue in issues:
        err.print(str(issue), markup=False, highlight=False)
    failed = [r for r in results if not r.passed]
    for r in results:
        mark = "[green]PASS[/green]" if r.passed else "[red]FAIL[/red]"
        line = f"{mark} {r.tool}: {r.name}"
        if not r.passed:
            line += f"  expected {r.expected}, got {r.got} ({r.detail})"
        out.print(line)
    out.print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    if failed or issues:
        raise typer.Exit(1)


@policy_app.command("replay")
def policy_replay(
    policies: Annotated[Path, typer.Option("--policies", help="candidate policy directory")],
    since: Annotated[str | None, typer.Option(help="ISO time or age (15m, 2h, 7d)")] = None,
    as_json: AsJson = False,
    database_url: DatabaseUrl = None,
) -> None:
    """Re-decide recorded decisions under candidate policies; list those that would flip."""
    from gate.audit import iso, parse_time
    from gate.replay import replay

    try:
        start = parse_time(since, now=time.time()) if since else None
    except ValueError as exc:
        _fail(str(exc))
    found = _policies_or_fail(policies)
    ledger = _open_ledger(database_url)
    report = asyncio.run(replay(ledger, found, since=start))
    ledger.close()
    if as_json:
        _print_json(
            {
                "checked": report.checked,
                "flips": [f.__dict__ | {"time": iso(f.time)} for f in report.flips],
                "skipped": [{"decision_id": d, "reason": r} for d, r in report.skipped],
            }
        )
        return
    table = Table(title=f"{len(report.flips)} of {report.checked} decisions would flip", expand=False)
    for col in ("time", "decision", "caller", "tool", "recorded", "candidate", "because"):
        table.add_column(col, overflow="fold")
    for f in report.flips:
        table.add_row(
            iso(f.time),
            f.decision_id,
            f.caller,
            f.tool,
            f"{f.recorded} ({f.recorded_rule})",
            f"{f.candidate} ({f.candidate_rule})",
            f.detail,
        )
    out.print(table)
    if report.skipped:
        out.print(
            f"{len(report.skipped)} not replayable, e.g. {report.skipped[0][0]}: {report.skipped[0][1]}"
        )


# -- receipts ----------------------------------------------------------------------


@receipts_app.command("drain")
def receipts_drain(
    tools: Annotated[
        str | None, typer.Option(help="module:attribute of your gated tools, for their reconcile hooks")
    ] = None,
    grace: Annotated[
        float, typer.Option(help="reconcile decisions without a receipt older than this (s)")
    ] = 120.0,
    attempts: Annotated[int, typer.Option(min=1, help="tries per receipt")] = 5,
    database_url: DatabaseUrl = None,
) -> None:
    """Reconcile decisions a dead process left open, then deliver every pending receipt."""
    import importlib

    from gate.gate import _default_backend
    from gate.outbox import Outbox

    hooks: dict[str, Any] = {}
    if tools:
        module_name, _, attr = tools.partition(":")
        try:
            found = getattr(importlib.import_module(module_name), attr or "TOOLS")
        except (ImportError, AttributeError) as exc:
            _fail(f"--tools {tools}: {exc}")
        hooks = {t.name: t.reconcile for t in found if getattr(t, "reconcile", None) is not None}
    ledger = _open_ledger(database_url)
    settings = GateSettings()

    async def run() -> Any:
        backend = _default_backend(settings, ledger)
        outbox = Outbox(ledger, backend, hooks=hooks, attempts=attempts)
        try:
            return await outbox.drain(reconcile_grace_s=grace)
        finally:
            await backend.aclose()

    report = asyncio.run(run())
    ledger.close()
    reconciled = ", ".join(f"{k} {v}" for k, v in sorted(report.reconciled.items())) or "none"
    out.print(
        f"delivered {report.delivered}, still pending {report.pending}, conflicts {report.conflicts}, "
        f"rejected {report.rejected}; reconciled: {reconciled}"
    )
    if report.pending or report.conflicts or report.rejected:
        raise typer.Exit(1)


# -- forget ------------------------------------------------------------------------


@app.command("forget")
def forget(
    caller: Annotated[str, typer.Argument(help="the caller id to erase")],
    yes: Annotated[bool, typer.Option("--yes", help="do not ask for confirmation")] = False,
) -> None:
    """Erase everything remembered about a caller, on the active backends, and verify it.

    The audit ledger keeps its decisions (their arguments are masked or digested).
    """
    from gate.caller import Caller
    from gate.gate import _default_backend, _default_memory, forget_everywhere

    try:
        Caller(caller)
    except ValueError as exc:
        _fail(str(exc))
    if not yes and not typer.confirm(f"Erase all memory of {caller}?"):
        raise typer.Exit(1)
    settings = GateSettings()
    settings.ensure_home()
    ledger = Ledger(settings.ledger_url())

    async def run() -> Any:
        backend = _default_backend(settings, ledger)
        memory = _default_memory(settings, backend)
        try:
            return await forget_everywhere(memory, backend, caller)
        finally:
            await memory.aclose()
            await backend.aclose()

    result = asyncio.run(run())
    ledger.close()
    state = "verified" if result.verified else "NOT verified"
    out.print(f"forgot {caller}: {result.deleted} memories erased, {state}", markup=False)
    if not result.verified:
        raise typer.Exit(1)


# -- demo --------------------------------------------------------------------------


@app.command("demo")
def demo(home: Annotated[Path | None, typer.Option(help="where to keep the demo's state")] = None) -> None:
    """Run one scripted call through the gate, offline."""
    from gate.demo import run_demo

    raise typer.Exit(run_demo(home))


def main() -> None:
    """Entry point: expected failures are one line on stderr, never a traceback."""
    from sqlalchemy.exc import SQLAlchemyError

    from gate.errors import GateError

    try:
        app()
    except (SQLAlchemyError, GateError, OSError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        err.print(f"gate: {type(exc).__name__}: {first}", markup=False, highlight=False)
        sys.exit(2)
