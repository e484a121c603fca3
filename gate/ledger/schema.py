"""The ledger's schema version: checked at open, created or upgraded by one process at a time.

The schema is versioned with Alembic (``gate/ledger/migrations``), the
sqlmodel tables being the source. A fresh database gets the current tables
and is stamped with the head revision; an existing one must be at the head
revision, or it is refused with a one-line :class:`LedgerOutOfDate` naming
``gate ledger upgrade``. A ledger written before versioning (tables, no
``alembic_version``) counts as the first revision.

Creation and upgrades are serialised across processes: a session-level
advisory lock on PostgreSQL, a file lock next to the database on SQLite.
Only the process holding it creates or migrates; the others wait, look
again and find the work done.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, MetaData, Table, inspect, text
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

from gate.errors import ConfigError

if TYPE_CHECKING:
    from alembic.script import ScriptDirectory

BASELINE = "0001"
HEAD = "0004"
MIGRATIONS = Path(__file__).parent / "migrations"
_PG_SCHEMA_LOCK = 0x6A7E_0002
_LOCK_WAIT_S = 120.0


class LedgerOutOfDate(ConfigError):
    """The ledger's schema is older (or newer) than this version of gate reads."""


class NotALedger(ConfigError):
    """The database holds no gate ledger (empty, or someone else's tables)."""


def revision(conn: Connection) -> str | None:
    """The schema revision the database is at; None when it holds no ledger at all."""
    names = set(inspect(conn).get_table_names())
    if "alembic_version" in names:
        found = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        return str(found) if found is not None else None
    return BASELINE if "gate_decisions" in names else None


def tables() -> list[Table]:
    """The ledger's tables (every sqlmodel table of :mod:`gate.ledger.tables`)."""
    from gate.ledger import tables as _tables  # noqa: F401  (registers the models)

    return [t for name, t in SQLModel.metadata.tables.items() if name.startswith(("gate_", "service_"))]


def ledger_metadata() -> MetaData:
    """The ledger's tables alone, as migrations compare against them."""
    only = MetaData()
    for table in tables():
        table.to_metadata(only)
    return only


@contextmanager
def schema_lock(engine: Engine) -> Iterator[None]:
    """Hold the ledger's schema lock: one creator or migrator at a time, across processes.

    Raises:
        ConfigError: the lock could not be taken within two minutes (SQLite), or
            the lock file cannot be created next to the database.
    """
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _PG_SCHEMA_LOCK})
            conn.commit()
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _PG_SCHEMA_LOCK})
                conn.commit()
        return
    from filelock import FileLock, Timeout

    database = engine.url.database
    if not database or database == ":memory:":
        yield
        return
    lock = FileLock(f"{database}.lock", timeout=_LOCK_WAIT_S)
    try:
        with lock:
            yield
    except Timeout:
        raise ConfigError(f"timed out waiting for the schema lock {database}.lock") from None


def create(engine: Engine) -> None:
    """Create the current tables on an empty database and stamp it with the head revision."""
    from alembic.runtime.migration import MigrationContext

    if engine.dialect.name == "sqlite":
        # WAL lets readers go on while one process writes; it is stored in the file,
        # so it is set once here (outside any transaction) and never again at connect.
        raw = engine.raw_connection()
        try:
            raw.cursor().execute("PRAGMA journal_mode=WAL")
        finally:
            raw.close()
    with engine.begin() as conn:
        SQLModel.metadata.create_all(conn, tables=tables())
        MigrationContext.configure(conn).stamp(_script(), HEAD)


def ensure(engine: Engine, url: str, *, create_if_empty: bool) -> None:
    """Check the schema at open; create it on an empty database when allowed.

    Raises:
        LedgerOutOfDate: the ledger is at another revision (one line naming the command).
        NotALedger: the database is empty and ``create_if_empty`` is false.
    """
    with engine.connect() as conn:
        found = revision(conn)
    if found == HEAD:
        return
    if found is None and create_if_empty:
        with schema_lock(engine):
            with engine.connect() as conn:
                found = revision(conn)
            if found is None:
                create(engine)
                return
        if found == HEAD:
            return
    if found is None:
        raise NotALedger(f"{url} is not a gate ledger (no ledger tables in it)")
    raise LedgerOutOfDate(
        f"the ledger at {url} has schema {found}, this gate needs {HEAD}: run `gate ledger upgrade`"
    )


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Bring the ledger to the head revision; returns (revision before, revision after).

    A database written before versioning is stamped with the baseline first.
    An empty database is created at the head. Runs under the schema lock.
    """
    with schema_lock(engine):
        with engine.connect() as conn:
            before = revision(conn)
        if before is None:
            create(engine)
            return None, HEAD
        if before == HEAD:
            return before, HEAD
        migrate(engine, "head", stamp_baseline=before == BASELINE)
        with engine.connect() as conn:
            return before, revision(conn) or HEAD


def migrate(engine: Engine, target: str, *, stamp_baseline: bool = False) -> None:
    """Run the Alembic migrations up to ``target`` in one transaction (no lock: see :func:`upgrade`).

    ``stamp_baseline`` first records a ledger written before versioning as the
    baseline revision, so only the migrations after it run.
    """
    from alembic import command
    from alembic.config import Config

    with engine.begin() as conn:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = conn
        if stamp_baseline and not inspect(conn).has_table("alembic_version"):
            command.stamp(config, BASELINE)
        command.upgrade(config, target)


def _script() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(MIGRATIONS))
