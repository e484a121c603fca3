"""``gate receipts``: deliver receipts to the decision service."""

from __future__ import annotations

import asyncio
import math
import sys
from dataclasses import asdict
from typing import Annotated, Any

import typer

from gate.cli.common import AsJson, DatabaseUrl, load_tools, open_ledger
from gate.cli.output import line, print_json
from gate.config import GateSettings

receipts_app = typer.Typer(
    help=(
        "Deliver receipts to the decision service.\n\n"
        "Delivery states: pending (not acknowledged yet; the next drain tries again), "
        "delivered (acknowledged), conflict (the service holds a different receipt for the decision), "
        "rejected (the service refused the receipt for good), local (the service holds no decision "
        "for it; nothing to deliver)."
    ),
    no_args_is_help=True,
)


def _grace(value: float) -> float:
    """--grace: a finite number of seconds, 0 or more.

    0 is meaningful (every worker is stopped, so whatever is open is dead, and is closed now);
    a negative age or NaN means nothing, and infinity would silently never reconcile.
    """
    if not math.isfinite(value) or value < 0:
        raise typer.BadParameter(f"{value:g}: expected a finite number of seconds, 0 or more")
    return value


@receipts_app.command("drain")
def receipts_drain(
    tools: Annotated[
        str | None, typer.Option(help="MODULE:NAME of your gated tools, for their reconcile hooks")
    ] = None,
    grace: Annotated[
        float,
        typer.Option(
            callback=_grace,
            help=(
                "reconcile decisions without a receipt older than this (s; finite, 0 or more: "
                "0 closes every open decision, for when no worker is running)"
            ),
        ),
    ] = 120.0,
    attempts: Annotated[int, typer.Option(min=1, help="tries per receipt")] = 5,
    as_json: AsJson = False,
    database_url: DatabaseUrl = None,
) -> None:
    """Reconcile decisions a dead process left open, then deliver every pending receipt.

    Exits 1 when anything is left undelivered, naming the cause of each
    failure; when ContextDB refuses the API key (401/403) the drain stops at
    once, says so in one line, and keeps every receipt pending for the next
    drain with the right key. A Retry-After over 30 s stops the drain the
    same way (the receipts stay pending for a later drain).
    """
    from gate.gate import _default_backend
    from gate.outbox import Outbox

    hooks: dict[str, Any] = {}
    if tools:
        hooks = {t.name: t.reconcile for t in load_tools(tools) if getattr(t, "reconcile", None) is not None}
    ledger = open_ledger(database_url, write=True)
    settings = GateSettings()

    async def run() -> Any:
        backend = _default_backend(settings, ledger)
        outbox = Outbox(ledger, backend, hooks=hooks, attempts=attempts)
        try:
            # Asked for by hand: everything waiting, also what a worker's drain holds.
            return await outbox.drain(reconcile_grace_s=grace, take_held=True)
        finally:
            await backend.aclose()

    try:
        report = asyncio.run(run())
    finally:
        ledger.close()
    failed = bool(
        report.pending or report.conflicts or report.rejected or report.credentials or report.deferred
    )
    if as_json:
        print_json(asdict(report))
    else:
        reconciled = ", ".join(f"{k} {v}" for k, v in sorted(report.reconciled.items())) or "none"
        line(
            f"delivered {report.delivered}, still pending {report.pending}, conflicts {report.conflicts}, "
            f"rejected {report.rejected}; reconciled: {reconciled}"
        )
        for f in report.failures:
            sys.stderr.write(
                f"gate: receipt {f.receipt_id} (decision {f.decision_id}) {f.state}: {f.cause}\n"
            )
        if report.credentials:
            sys.stderr.write(f"gate: {report.credentials}; receipts kept pending for the next drain\n")
        elif report.deferred:
            n = report.pending
            sys.stderr.write(
                f"gate: {report.deferred}: stopped, {n} receipt{'s' if n != 1 else ''} kept pending "
                "for a later drain\n"
            )
    if failed:
        raise typer.Exit(1)
