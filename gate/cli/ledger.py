"""``gate ledger``: the ledger's schema (``gate ledger upgrade``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gate.cli.common import AsJson, DatabaseUrl, fail
from gate.cli.output import line, print_json
from gate.config import GateSettings

ledger_app = typer.Typer(help="The audit ledger's schema.", no_args_is_help=True)


@ledger_app.command("upgrade")
def ledger_upgrade(
    as_json: AsJson = False,
    database_url: DatabaseUrl = None,
    create: Annotated[
        bool,
        typer.Option(
            "--create", help="create the ledger (and a SQLite file's directory) where there is none"
        ),
    ] = False,
) -> None:
    """Bring the ledger's schema to this version of gate.

    A ledger that does not exist (no SQLite file, or a database without the
    ledger's tables) is refused, as every other command refuses it, so a
    mistyped GATE_HOME does not start a new, empty ledger; ``--create``
    creates it. Safe to run while workers are stopped or from many processes
    at once: the upgrade holds the schema lock (an advisory lock on
    PostgreSQL, a file lock next to a SQLite file), and the chain is kept:
    verify it afterwards with ``gate audit verify``.
    """
    from sqlalchemy.exc import DatabaseError

    from gate.ledger import schema
    from gate.ledger.store import Ledger, normalise_url

    url = normalise_url(database_url or GateSettings().ledger_url())
    shown = _shown(url)
    path = _sqlite_file(url)
    if path is not None and not path.exists():
        if not create:
            fail(f"no ledger at {path} (check GATE_HOME or GATE_DATABASE_URL; --create creates one there)")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            fail(f"cannot create {path.parent}: {exc.strerror or exc}")
    try:
        engine = Ledger._make_engine(url)
        try:
            if not create:
                with engine.connect() as conn:
                    found = schema.revision(conn)
                if found is None:
                    fail(f"{shown} is not a gate ledger (no ledger tables in it; --create creates one there)")
            before, after = schema.upgrade(engine)
        finally:
            engine.dispose()
    except DatabaseError as exc:
        first = str(getattr(exc, "orig", exc)).strip().splitlines()
        fail(f"cannot upgrade the ledger at {shown}: {first[0] if first else type(exc).__name__}")
    if as_json:
        print_json({"ledger": shown, "before": before, "after": after})
    elif before == after:
        line(f"ledger at {shown} is up to date (schema {after})")
    elif before is None:
        line(f"created a ledger at {shown} (schema {after})")
    else:
        line(f"upgraded the ledger at {shown} from schema {before} to {after}")


def _sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL; None for PostgreSQL and in-memory SQLite."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    if parsed.database.startswith("file:"):  # a SQLite URI filename: sqlite resolves it
        return None
    return Path(parsed.database)


def _shown(url: str) -> str:
    """The URL as printed: a PostgreSQL password is never shown."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return url
    return url if parsed.get_backend_name() == "sqlite" else parsed.render_as_string(hide_password=True)
