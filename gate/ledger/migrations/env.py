"""Alembic environment of the ledger: runs on the connection gate hands it (see gate.ledger.schema).

The sqlmodel tables are the source of truth (``target_metadata``); SQLite
runs in batch mode, since it can drop or change a column only by copying
its table.
"""

from __future__ import annotations

from alembic import context

from gate.ledger.schema import ledger_metadata


def run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("run the ledger's migrations with `gate ledger upgrade`, not the alembic command")
    context.configure(
        connection=connection,
        target_metadata=ledger_metadata(),
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


run()
