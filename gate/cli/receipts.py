"""``gate receipts``: deliver receipts to the decision service."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import typer

from gate.cli.common import DatabaseUrl, fail, open_ledger, out
from gate.config import GateSettings

receipts_app = typer.Typer(help="Deliver receipts to the decision service.", no_args_is_help=True)

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
            fail(f"--tools {tools}: {exc}")
        hooks = {t.name: t.reconcile for t in found if getattr(t, "reconcile", None) is not None}
    ledger = open_ledger(database_url)
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
