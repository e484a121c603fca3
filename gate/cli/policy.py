"""``gate policy``: check, explain, test and replay policies.

``check``, ``explain`` and ``test`` find the gated tools the way the worker
does (``--tools MODULE:NAME``, else ``tools`` in the ``[tool.gate]`` table of
``./pyproject.toml`` when the directory is the one it names) and run the
start-up check of :class:`gate.Gate` against them, so what passes here starts.
Without tools only the policies' shape can be checked: ``check`` then says so
and exits non-zero unless ``--shape-only`` asked for exactly that.
"""

from __future__ import annotations

import asyncio
import json
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from gate.cli.common import AsJson, DatabaseUrl, err, fail, load_tools, open_ledger, out, print_json
from gate.cli.output import table, terminal
from gate.config import GateSettings
from gate.errors import PolicyIssue
from gate.ledger import Ledger
from gate.policy.loader import LoadedPolicy, PolicyCheck, check_policy_dir, load_policy_dir

if TYPE_CHECKING:
    from gate.decorator import GatedTool

policy_app = typer.Typer(help="Write, test and roll out policies.", no_args_is_help=True)

Directory = Annotated[
    Path | None,
    typer.Argument(
        help="policy directory (default: policies in the tool.gate table of pyproject.toml, or policies)"
    ),
]
ToolsSpec = Annotated[
    str | None,
    typer.Option(
        "--tools",
        help="MODULE:NAME of your gated tools, imported from the current directory "
        "(default: tools in the tool.gate table of pyproject.toml)",
    ),
]
_NO_TOOLS = "no tools known (pass --tools MODULE:NAME or set tools in [tool.gate] of pyproject.toml)"
ShapeOnly = Annotated[
    bool,
    typer.Option(
        "--shape-only",
        help="check only the files' shape, without importing the tools "
        "(argument references are then not checked)",
    ),
]


@dataclass(frozen=True)
class _Target:
    """The policy directory to check and the tools it governs, when known."""

    directory: Path
    tools: list[GatedTool] | None
    tools_from: str | None
    note: str | None


def _project_config() -> dict[str, Any]:
    """The ``[tool.gate]`` table of ``./pyproject.toml`` (empty when there is none)."""
    path = Path("pyproject.toml")
    if not path.is_file():
        return {}
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("gate", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        fail(f"{path}: cannot read [tool.gate]: {exc}")
    if not isinstance(table, dict):
        fail(f"{path}: [tool.gate] must be a table")
    for key in ("tools", "policies"):
        if key in table and not isinstance(table[key], str):
            fail(f"{path}: [tool.gate] {key} must be a string, got {table[key]!r}")
    return table


def _target(directory: Path | None, tools: str | None) -> _Target:
    """Where the policies are and which tools they govern, as the worker would find them."""
    config = _project_config()
    configured = Path(config["policies"]) if "policies" in config else GateSettings().policies
    chosen = directory if directory is not None else configured
    if tools is not None:
        return _Target(chosen, load_tools(tools), tools, None)
    spec = config.get("tools")
    if spec is None:
        return _Target(chosen, None, None, _NO_TOOLS)
    if chosen.resolve() != configured.resolve():
        note = (
            f"[tool.gate] tools ({spec}) govern {configured}, "
            f"not {chosen} (pass --tools MODULE:NAME to check against tools)"
        )
        return _Target(chosen, None, None, note)
    tools_from = f"{spec} (pyproject.toml [tool.gate])"
    return _Target(chosen, load_tools(spec, source="pyproject.toml [tool.gate] tools ="), tools_from, None)


def _check(target: _Target) -> PolicyCheck:
    return check_policy_dir(target.directory, target.tools)


def _issue_dict(issue: PolicyIssue) -> dict[str, Any]:
    return {"file": issue.file, "line": issue.line, "field": issue.field, "message": issue.message}


def _print_issues(issues: list[PolicyIssue]) -> None:
    for issue in issues:
        err.print(str(issue), markup=False, highlight=False)


def _by_policy(check: PolicyCheck) -> dict[str, LoadedPolicy]:
    return {loaded.policy.tool: loaded for loaded in check.policies.values()}


def _unreadable(issues: list[PolicyIssue]) -> bool:
    """Whether the directory itself is the problem (missing, a file, no policy files in it).

    Then that one line says it all: there is nothing to count and nothing whose
    references could have been checked.
    """
    return len(issues) == 1 and issues[0].field == "(directory)"


def _refuse(issues: list[PolicyIssue], directory: Path) -> NoReturn:
    """Print the problems and exit 1: one line when the directory itself is the problem."""
    _print_issues(issues)
    if _unreadable(issues):
        raise typer.Exit(1)
    fail(f"{len(issues)} problem(s) in {directory}; fix them first (gate policy check)", 1)


def _checked_or_fail(target: _Target) -> PolicyCheck:
    check = _check(target)
    if check.issues:
        _refuse(check.issues, target.directory)
    return check


# -- check -------------------------------------------------------------------------


@policy_app.command("check")
def policy_check(
    directory: Directory = None,
    tools: ToolsSpec = None,
    shape_only: ShapeOnly = False,
    as_json: AsJson = False,
) -> None:
    """Check policies as the worker does at start-up; list every problem with file, line and field.

    Every problem of every file is reported in one pass. Exit 0 when every
    policy is valid, 1 when any problem is found, 2 when the tools cannot be
    imported, or are not known and --shape-only was not given (the argument
    references were then not checked).
    """
    if shape_only and tools is not None:
        fail("--shape-only checks without the tools: drop --tools, or --shape-only")
    target = _shape_only(directory) if shape_only else _target(directory, tools)
    check = _check(target)
    unchecked = not check.references_checked and not shape_only
    if as_json:
        print_json(
            {
                "directory": str(target.directory),
                "tools": target.tools_from,
                "references_checked": check.references_checked,
                "note": target.note,
                "ok": not check.issues and not unchecked,
                "policies": [
                    {"tool": p.policy.tool, "file": p.path, "hash": p.content_hash}
                    for p in _by_policy(check).values()
                ],
                "unused": [{"tool": p.policy.tool, "file": p.path} for p in check.unused],
                "issues": [_issue_dict(i) for i in check.issues],
            }
        )
        if check.issues or unchecked:
            raise typer.Exit(1 if check.issues else 2)
        return
    _print_issues(check.issues)
    if _unreadable(check.issues):
        raise typer.Exit(1)
    for unused in check.unused:
        err.print(
            f"gate: note: {unused.path} (tool: {unused.policy.tool}) governs none of {target.tools_from}",
            markup=False,
            highlight=False,
        )
    if check.issues:
        err.print(f"gate: {len(check.issues)} problem(s) in {target.directory}", markup=False)
    if unchecked:
        err.print(
            f"gate: references to tool arguments NOT checked: {target.note}; "
            "--shape-only checks the shape alone",
            markup=False,
            highlight=False,
        )
        raise typer.Exit(1 if check.issues else 2)
    if check.issues:
        raise typer.Exit(1)
    against = f" against {target.tools_from}" if target.tools_from else " (shape only: --shape-only)"
    out.print(f"{len(check.policies)} policies valid in {target.directory}{against}", markup=False)


def _shape_only(directory: Path | None) -> _Target:
    config = _project_config()
    configured = Path(config["policies"]) if "policies" in config else GateSettings().policies
    return _Target(directory if directory is not None else configured, None, None, None)


# -- explain -----------------------------------------------------------------------


@policy_app.command("explain")
def policy_explain(
    tool: Annotated[str, typer.Argument(help="the gated tool")],
    caller: Annotated[str, typer.Option(help="caller id (memory partition)")],
    args: Annotated[str, typer.Option("--args", help='arguments as JSON, e.g. \'{"day": "Friday"}\'')] = "{}",
    verified: Annotated[bool, typer.Option("--verified", help="the caller is verified")] = False,
    role: Annotated[list[str] | None, typer.Option("--role", help="a caller role (repeatable)")] = None,
    attested: Annotated[bool, typer.Option("--attested", help="as if the caller had confirmed")] = False,
    policies: Annotated[Path | None, typer.Option(help="policy directory")] = None,
    tools: ToolsSpec = None,
    as_json: AsJson = False,
) -> None:
    """Dry-run one decision with the trace of rules and evidence; nothing executed, nothing recorded.

    The arguments are checked as the tool checks them (unknown, missing or
    mistyped ones are refused in one line); without known tools, against the
    names the policy uses.
    """
    from gate.caller import Caller
    from gate.policy.explain import ArgumentProblem, check_arguments

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
    target = _target(policies, tools)
    check = _checked_or_fail(target)
    gated = {t.name: t for t in target.tools or []}
    found = check.policies if target.tools is not None else _by_policy(check)
    if tool not in found:
        have = ", ".join(sorted(found)) or "none"
        fail(f"no policy for tool {tool!r} in {target.directory} (have: {have})")
    loaded = found[tool]
    try:
        call_args = check_arguments(parsed, loaded.policy, gated.get(tool))
    except ArgumentProblem as exc:
        fail(f"--args: {exc}")
    settings = GateSettings()
    verdict = asyncio.run(_explain(loaded.policy, who, call_args, settings, attested))
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
        f"{tool} for {caller}: {verdict.outcome} (rule {verdict.rule}); dry run, nothing recorded",
        markup=False,
    )
    table(["rule", "outcome", "detail"], [[r.rule, r.outcome, r.detail] for r in verdict.trace])
    if verdict.evidence is not None:
        for m in verdict.evidence.memories:
            trust = "trusted" if m.trusted else "untrusted"
            out.print(f"  memory {m.id} ({trust}): {m.content}", markup=False)
    out.print("state: not read in a dry run (the tool's state reader runs only in the worker)", markup=False)


async def _explain(
    policy: Any, who: Any, args: dict[str, Any], settings: GateSettings, attested: bool
) -> Any:
    """Dry run against GATE_HOME's memory and ledger when they exist (nothing is created)."""
    from gate.policy.explain import dry_run, dry_run_engine

    memory = settings.home / "memory.db"
    ledger_path = settings.home / "ledger.db"
    ledger = (
        Ledger(settings.ledger_url(), create=False) if settings.database_url or ledger_path.exists() else None
    )
    engine = None
    if memory.exists() and ledger is not None:
        engine = dry_run_engine(settings.memory_url(), ledger, settings)
    try:
        return await dry_run(policy, who, args, engine=engine, ledger=ledger, attested=attested)
    finally:
        if engine is not None:
            await engine.aclose()
        if ledger is not None:
            ledger.close()


# -- test --------------------------------------------------------------------------


@policy_app.command("test")
def policy_test(
    directory: Directory = None,
    tests: Annotated[Path | None, typer.Option(help="test directory (default: DIRECTORY/tests)")] = None,
    tools: ToolsSpec = None,
    as_json: AsJson = False,
) -> None:
    """Run the policy unit tests written in YAML; exit 1 on any failure or problem.

    The policies are checked first, as gate policy check checks them, and
    each case's arguments as the tool would check them.
    """
    from gate.policy.tests import load_test_files, run_policy_tests

    target = _target(directory, tools)
    check = _checked_or_fail(target)
    test_dir = tests or target.directory / "tests"
    if not test_dir.is_dir():
        fail(f"no test directory {test_dir}")
    files, issues = load_test_files(test_dir)
    by_policy = {t.policy: t for t in target.tools} if target.tools is not None else None
    results, more = run_policy_tests(_by_policy(check), files, by_policy)
    issues += more
    failed = [r for r in results if not r.passed]
    tested = {f.value.tool for f in files}
    untested = sorted(set(_by_policy(check)) - tested)
    if as_json:
        print_json(
            {
                "directory": str(target.directory),
                "tests": str(test_dir),
                "passed": len(results) - len(failed),
                "failed": len(failed),
                "untested": untested,
                "results": [
                    {
                        "file": r.file,
                        "tool": r.tool,
                        "case": r.name,
                        "passed": r.passed,
                        "expected": r.expected,
                        "got": r.got,
                        "detail": r.detail,
                    }
                    for r in results
                ],
                "issues": [_issue_dict(i) for i in issues],
            }
        )
    else:
        _print_issues(issues)
        color = terminal()
        for r in results:
            mark = "PASS" if r.passed else "FAIL"
            if color:
                mark = f"[green]{mark}[/green]" if r.passed else f"[red]{mark}[/red]"
            line = f"{mark} {r.tool}: {_escape(r.name, color)}"
            if not r.passed:
                line += f"  expected {r.expected}, got {r.got} ({_escape(r.detail, color)})"
            out.print(line, markup=color, highlight=False)
        if untested:
            err.print(f"gate: note: no test cases for {', '.join(untested)}", markup=False)
        out.print(f"{len(results) - len(failed)} passed, {len(failed)} failed", markup=False)
    if failed or issues:
        raise typer.Exit(1)


def _escape(text: str, markup: bool) -> str:
    if not markup:
        return text
    from rich.markup import escape

    return escape(text)


# -- replay ------------------------------------------------------------------------


@policy_app.command("replay")
def policy_replay(
    policies: Annotated[Path, typer.Option("--policies", help="candidate policy directory")],
    since: Annotated[str | None, typer.Option(help="ISO time or age (15m, 2h, 7d)")] = None,
    as_json: AsJson = False,
    database_url: DatabaseUrl = None,
) -> None:
    """Re-decide recorded decisions under candidate policies; list those that would flip.

    Caller, limit and rate rules are re-run from the recorded arguments, also
    for decisions an earlier rule refused. A decision the candidate lets past
    the rule that refused it, whose evidence was never looked up, is listed
    as unsettled. Limits on a masked argument (recorded only as a digest) are
    not re-run, and the output says so.
    """
    from gate.audit import iso, parse_time
    from gate.policy.replay import Flip, replay

    try:
        start = parse_time(since, now=time.time()) if since else None
    except ValueError as exc:
        fail(str(exc))
    found, issues = load_policy_dir(policies)
    if issues:
        _refuse(issues, policies)
    ledger = open_ledger(database_url)
    report = asyncio.run(replay(ledger, found, since=start))
    ledger.close()
    if as_json:
        print_json(
            {
                "checked": report.checked,
                "flips": [f.__dict__ | {"time": iso(f.time)} for f in report.flips],
                "unsettled": [f.__dict__ | {"time": iso(f.time)} for f in report.unsettled],
                "skipped": [{"decision_id": d, "reason": r} for d, r in report.skipped],
                "notes": [{"decision_id": d, "note": n} for d, n in report.notes],
            }
        )
        return

    def rows(flips: list[Flip]) -> list[list[str]]:
        return [
            [
                iso(f.time) or "",
                f.decision_id,
                f.caller,
                f.tool,
                f"{f.recorded} ({f.recorded_rule})",
                f"{f.candidate} ({f.candidate_rule})",
                f.detail,
            ]
            for f in flips
        ]

    columns = ["time", "decision", "caller", "tool", "recorded", "candidate", "because"]
    out.print(f"{len(report.flips)} of {report.checked} decisions would flip", markup=False)
    if report.flips:
        table(columns, rows(report.flips))
    if report.unsettled:
        out.print(
            f"{len(report.unsettled)} would no longer be refused by the rule that refused them; their "
            "evidence was never looked up, so what the candidate finally decides is not known:",
            markup=False,
        )
        table(columns, rows(report.unsettled))
    for note, count in _counted(n for _, n in report.notes).items():
        out.print(f"note: {count} decision(s): {note}", markup=False)
    for reason, count in _counted(r for _, r in report.skipped).items():
        out.print(f"{count} not replayable: {reason}", markup=False)


def _counted(texts: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for text in texts:
        counts[text] = counts.get(text, 0) + 1
    return counts
