"""``gate forget``: erase a caller's memory, and their personal text in the audit ledger."""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated, Any

import typer

from gate.cli.common import fail, out
from gate.config import GateSettings
from gate.ledger import Erasure, Ledger

# -- forget ------------------------------------------------------------------------


def forget(
    caller: Annotated[str, typer.Argument(help="the caller id to erase")],
    yes: Annotated[bool, typer.Option("--yes", help="do not ask for confirmation")] = False,
) -> None:
    """Erase everything remembered about a caller, on the active backends, and verify it.

    The audit ledger keeps its decisions and its chain (ids, digests,
    outcomes, times, masked arguments); the caller's words, the questions they
    heard and what memories said are erased from it, and the chain still
    verifies. Without a terminal to ask on, ``--yes`` is required.
    """
    from gate.caller import Caller
    from gate.gate import _default_backend, _default_memory, forget_everywhere

    try:
        Caller(caller)
    except ValueError as exc:
        fail(str(exc))
    settings = GateSettings()  # a malformed setting fails before anything is asked
    if not yes:
        if not sys.stdin.isatty():
            fail(f"nothing erased: no terminal to confirm on; pass --yes to erase {caller} without asking")
        if not typer.confirm(f"Erase all memory of {caller}?"):
            raise typer.Exit(1)
    settings.ensure_home()
    ledger = Ledger(settings.ledger_url())

    async def run() -> tuple[Any, Erasure]:
        # The ledger's text first: it is erased even when a memory service is down.
        erased = await ledger.aerase_caller(caller)
        backend = _default_backend(settings, ledger)
        memory = _default_memory(settings, backend)
        try:
            return await forget_everywhere(memory, backend, caller), erased
        finally:
            await memory.aclose()
            await backend.aclose()

    try:
        result, erased = asyncio.run(run())
    finally:
        ledger.close()
    state = "verified" if result.verified else "NOT verified"
    out.print(f"forgot {caller}: {result.deleted} memories erased, {state}", markup=False)
    texts = f"audit ledger: {erased.erased} text{'' if erased.erased == 1 else 's'} erased, the chain kept"
    if erased.kept_in_chain:
        texts += (
            f"; {erased.kept_in_chain} older record{'' if erased.kept_in_chain == 1 else 's'} keep their "
            "text inside the chain (written before it was kept apart)"
        )
    out.print(texts, markup=False)
    if not result.verified:
        raise typer.Exit(1)
