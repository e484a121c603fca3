"""What every command shares: the consoles, one-line failures, opening the ledger."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console

from gate.config import GateSettings
from gate.errors import ConfigError
from gate.ledger import Ledger

# Piped output is read by tools and wide terminals alike: don't fold it to 80 columns.
out = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 240)
err = Console(stderr=True, soft_wrap=True)

DatabaseUrl = Annotated[
    str | None, typer.Option("--database-url", help="ledger URL (default: GATE_DATABASE_URL or GATE_HOME)")
]
AsJson = Annotated[bool, typer.Option("--json", help="print JSON instead of a table")]
PolicyDir = Annotated[Path, typer.Argument(help="policy directory")]


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr, then exit with ``code`` (2: usage or environment, 1: a finding)."""
    err.print(f"gate: {message}", markup=False, highlight=False)
    raise typer.Exit(code)


def open_ledger(database_url: str | None) -> Ledger:
    """The ledger to read, or a one-line failure naming where it was looked for."""
    url = database_url or GateSettings().ledger_url()
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        if not path.exists():
            fail(f"no ledger at {path} (set GATE_HOME or GATE_DATABASE_URL, or pass --database-url)")
    try:
        return Ledger(url, create=False)
    except ConfigError as exc:
        fail(str(exc))


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")
