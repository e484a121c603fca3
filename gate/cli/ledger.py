"""``gate ledger``: the ledger's schema (``gate ledger upgrade``)."""

from __future__ import annotations

import typer

from gate.cli.common import AsJson, DatabaseUrl, fail
from gate.cli.output import line, print_json
from gate.config import GateSettings

ledger_app = typer.Typer(help="The audit ledger's schema.", no_args_is_help=True)


@ledger_app.command("upgrade")
def ledger_upgrade(as_json: AsJson = False, database_url: DatabaseUrl = None) -> None:
    """Bring the ledger's schema to this version of gate (creating it if the database is empty).

    Safe to run while workers are stopped or from many processes at once: the
    upgrade holds the schema lock (an advisory lock on PostgreSQL, a file
    lock next to a SQLite file), and the chain is kept: verify it afterwards
    with ``gate audit verify``.
    """
    from sqlalchemy.exc import DatabaseError

    from gate.ledger import schema
    from gate.ledger.store import Ledger, normalise_url

    url = normalise_url(database_url or GateSettings().ledger_url())
    try:
        engine = Ledger._make_engine(url)
        try:
            before, after = schema.upgrade(engine)
        finally:
            engine.dispose()
    except DatabaseError as exc:
        first = str(getattr(exc, "orig", exc)).strip().splitlines()
        fail(f"cannot upgrade the ledger at {url}: {first[0] if first else type(exc).__name__}")
    if as_json:
        print_json({"ledger": url, "before": before, "after": after})
    elif before == after:
        line(f"ledger at {url} is up to date (schema {after})")
    elif before is None:
        line(f"created a ledger at {url} (schema {after})")
    else:
        line(f"upgraded the ledger at {url} from schema {before} to {after}")
