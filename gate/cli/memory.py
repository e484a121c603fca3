"""``gate forget``: erase a caller's memory."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import typer

from gate.cli.common import fail, out
from gate.config import GateSettings
from gate.ledger import Ledger

# -- forget ------------------------------------------------------------------------


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
        fail(str(exc))
    settings = GateSettings()  # a malformed setting fails before anything is asked
    if not yes and not typer.confirm(f"Erase all memory of {caller}?"):
        raise typer.Exit(1)
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

    try:
        result = asyncio.run(run())
    finally:
        ledger.close()
    state = "verified" if result.verified else "NOT verified"
    out.print(f"forgot {caller}: {result.deleted} memories erased, {state}", markup=False)
    if not result.verified:
        raise typer.Exit(1)
