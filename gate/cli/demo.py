"""``gate demo``: the offline demo."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

# -- demo --------------------------------------------------------------------------


def demo(home: Annotated[Path | None, typer.Option(help="where to keep the demo's state")] = None) -> None:
    """Run one scripted call through the gate, offline."""
    from gate.cli.demo_run import run_demo

    raise typer.Exit(run_demo(home))
