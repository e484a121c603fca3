"""``gate policy``: check, explain, test and replay policies."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from gate.cli.common import AsJson, DatabaseUrl, PolicyDir, err, fail, open_ledger, out, print_json
from gate.config import GateSettings
from gate.ledger import Ledger
from gate.policy.loader import load_policy_dir

policy_app = typer.Typer(help="Write, test and roll out policies.", no_args_is_help=True)

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


def _policies_orfail(directory: Path) -> dict[str, Any]:
    found, issues = load_policy_dir(directory)
    if issues:
        for issue in issues:
            err.print(str(issue), markup=False, highlight=False)
        fail(f"{len(issues)} problem(s) in {directory}; fix them first (gate policy check)", 1)
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
        fail(f"--args is not JSON: {exc}")
    if not isinstance(parsed, dict):
        fail("--args must be a JSON object")
    try:
        who = Caller(caller, verified=verified, roles=frozenset(role or []))
    except ValueError as exc:
        fail(str(exc))
    found = _policies_orfail(policies)
    if tool not in found:
        fail(f"no policy for tool {tool!r} in {policies} (have: {', '.join(sorted(found)) or 'none'})")
    settings = GateSettings()
    verdict = asyncio.run(_explain(found[tool].policy, who, parsed, settings, attested))
    if as_json:
        print_json(
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
    from gate.policy.explain import dry_run

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
    from gate.policy.tests import load_test_files, run_policy_tests

    found = _policies_orfail(directory)
    test_dir = tests or directory / "tests"
    if not test_dir.is_dir():
        fail(f"no test directory {test_dir}")
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
    from gate.policy.replay import replay

    try:
        start = parse_time(since, now=time.time()) if since else None
    except ValueError as exc:
        fail(str(exc))
    found = _policies_orfail(policies)
    ledger = open_ledger(database_url)
    report = asyncio.run(replay(ledger, found, since=start))
    ledger.close()
    if as_json:
        print_json(
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
