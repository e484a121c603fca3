"""``gate demo``: the offline demo."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

# -- demo --------------------------------------------------------------------------


def demo(
    home: Annotated[
        Path | None,
        typer.Option(help="where to keep the demo's state (default: GATE_HOME, else ./.gate-demo)"),
    ] = None,
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            help="a ledger URL for the demo (GATE_DATABASE_URL is ignored); it must hold only demo runs",
        ),
    ] = None,
) -> None:
    """Two scripted calls through the real gate, offline, then the commands to review them.

    Re-run it as often as you like in the same home: each run is a fresh story,
    and the ledger keeps them all. It refuses a home or a ledger that holds
    anything but demo runs.
    """
    from gate.cli.demo_run import run_demo

    raise typer.Exit(run_demo(home, database_url))
