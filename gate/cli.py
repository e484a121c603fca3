"""The ``gate`` command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gate.config import GateSettings
from gate.errors import ConfigError
from gate.ledger import Ledger
from gate.policy_loader import load_policy_dir

app = typer.Typer(help="Action governance for LiveKit voice agents.", no_args_is_help=True)
audit = typer.Typer(help="Review the audit ledger.", no_args_is_help=True)
policy = typer.Typer(help="Write and check policies.", no_args_is_help=True)
app.add_typer(audit, name="audit")
app.add_typer(policy, name="policy")

out = Console()
err = Console(stderr=True)


def _open_ledger(database_url: str | None) -> Ledger:
    settings = GateSettings()
    url = database_url or settings.ledger_url()
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        if not path.exists():
            err.print(f"gate: no ledger at {path} (set GATE_HOME or GATE_DATABASE_URL)", soft_wrap=True)
            raise typer.Exit(2)
    try:
        return Ledger(url, create=False)
    except ConfigError as exc:
        err.print(f"gate: {exc}", soft_wrap=True, markup=False)
        raise typer.Exit(2) from None


@audit.command("verify")
def audit_verify(
    database_url: Annotated[str | None, typer.Option("--database-url", help="ledger URL")] = None,
) -> None:
    """Check the ledger's hash chain; exit 1 and name the first broken entry."""
    ledger = _open_ledger(database_url)
    report = ledger.verify()
    ledger.close()
    if report.ok:
        out.print(f"chain verified: {report.checked} entries")
        return
    err.print(f"chain broken: {report.first_broken}", soft_wrap=True, markup=False, highlight=False)
    raise typer.Exit(1)


@policy.command("check")
def policy_check(
    directory: Annotated[Path, typer.Argument(help="policy directory")] = Path("policies"),
) -> None:
    """Validate every policy file's shape; list every problem with file, line and field."""
    found, issues = load_policy_dir(directory)
    for issue in issues:
        err.print(str(issue), markup=False, highlight=False, soft_wrap=True)
    if issues:
        raise typer.Exit(1)
    out.print(f"{len(found)} policies valid in {directory}")


@app.command("demo")
def demo(
    home: Annotated[Path | None, typer.Option(help="where to keep the demo's state")] = None,
) -> None:
    """Run one scripted call through the gate, offline."""
    from gate.demo import run_demo

    raise typer.Exit(run_demo(home))


def main() -> None:
    app()
