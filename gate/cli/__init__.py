"""The ``gate`` command line: audit review, policy tooling, receipts, memory, the demo.

Tables for people, ``--json`` for machines. Every expected failure (no
ledger, an unknown id, a bad filter, a broken policy) is one clear line on
stderr and a non-zero exit, never a traceback. One module per command group.
"""

from __future__ import annotations

import sys

import typer

from gate.cli.audit import audit_app
from gate.cli.common import err
from gate.cli.demo import demo
from gate.cli.memory import forget
from gate.cli.policy import policy_app
from gate.cli.receipts import receipts_app

app = typer.Typer(
    help="Action governance for LiveKit voice agents.", no_args_is_help=True, pretty_exceptions_enable=False
)
app.add_typer(audit_app, name="audit")
app.add_typer(policy_app, name="policy")
app.add_typer(receipts_app, name="receipts")
app.command("forget")(forget)
app.command("demo")(demo)


def main() -> None:
    """Entry point: expected failures are one line on stderr, never a traceback."""
    from sqlalchemy.exc import SQLAlchemyError

    from gate.errors import GateError

    try:
        app()
    except (SQLAlchemyError, GateError, OSError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        err.print(f"gate: {type(exc).__name__}: {first}", markup=False, highlight=False)
        sys.exit(2)
