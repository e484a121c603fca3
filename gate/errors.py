"""The exceptions gate raises.

GateError
├── ConfigError          a setting is missing or malformed (raised at start-up)
├── PolicyError          a policy file is invalid (names file, line and field)
│   └── MissingPolicy    a gated tool has no policy
├── ToolDefinitionError  a gated tool is declared wrongly (e.g. an identity parameter)
├── StaleState           the state a tool acts on changed (raised by the tool's compare-and-set)
└── ServiceError         the decision service answered with an error
    ├── DecisionNotFound     the decision is not in that caller's partition (404)
    └── ReceiptConflict      a different terminal receipt already exists (409)

:func:`describe` turns any exception a command or the worker can meet into
one line that says what to do: the command line and the worker print it on
stderr instead of a traceback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class GateError(Exception):
    """Base class of every error gate raises on purpose."""


class ConfigError(GateError):
    """A setting is missing or malformed."""


@dataclass(frozen=True)
class PolicyIssue:
    """One problem in one policy file: where it is and what was expected."""

    file: str
    field: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field}: {self.message}"


class LedgerGone(GateError):
    """The ledger's SQLite file was deleted or replaced while this process had it open.

    Writes would go to a file nobody can open again, so every write is refused
    (the call fails closed) until the process is started on the right file.
    """


class PolicyError(GateError):
    """One or more policy files are invalid; ``issues`` lists every problem found."""

    def __init__(self, issues: list[PolicyIssue]) -> None:
        self.issues = issues
        super().__init__("\n".join(str(i) for i in issues))


class MissingPolicy(PolicyError):
    """A gated tool has no policy file, so it refuses to start."""


class ToolDefinitionError(GateError):
    """A gated tool's function cannot be gated as written."""


class StaleState(GateError):
    """The state a tool was about to change is no longer at the version it read.

    Tools raise it from their own compare-and-set. The gate records the
    outcome as ``failed`` / ``current_state_changed`` and tells the model
    that nothing was done.
    """

    def __init__(self, message: str = "state changed", *, current_version: object = None) -> None:
        self.current_version = current_version
        super().__init__(message)


class ServiceError(GateError):
    """The decision service answered with an error status."""

    def __init__(self, status: int, code: str, message: str, *, retry_after: float | None = None) -> None:
        self.status = status
        self.code = code
        self.retry_after = retry_after
        super().__init__(f"{status} {code}: {message}")

    @property
    def retryable(self) -> bool:
        """Worth trying again: rate limited or a server-side failure, never a 4xx verdict."""
        return self.status == 429 or self.status >= 500


class DecisionNotFound(ServiceError):
    """The decision id is unknown in that caller's partition."""

    def __init__(self, decision_id: str) -> None:
        super().__init__(404, "not_found", f"decision {decision_id} not found")


class ReceiptConflict(ServiceError):
    """A receipt with other content, or under another key, already closes the decision."""

    def __init__(self, message: str) -> None:
        super().__init__(409, "conflict", message)


_DRIVER_CLASS = re.compile(r"\((?:[A-Za-z_]\w*\.)*[A-Za-z_]*Error\)\s*")
_LEDGER_HINT = "point GATE_HOME, GATE_DATABASE_URL or --database-url at a gate ledger"


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _database_hint(text: str) -> str | None:
    """What the user can do about a database driver's complaint, when it is a known one."""
    low = text.lower()
    if "file is not a database" in low:
        return f"the file is not a SQLite database: {_LEDGER_HINT}"
    if "not a gate ledger" in low:
        return None
    if "no such table: gate_" in low or ('relation "gate_' in low and "does not exist" in low):
        return f"not a gate ledger: {_LEDGER_HINT}"
    if "unable to open database file" in low:
        return "check that the file's directory exists and can be read"
    if any(s in low for s in ("connection refused", "could not connect", "connection failed")):
        return "is the database server running, and is the URL right?"
    if "password authentication failed" in low or ("role" in low and "does not exist" in low):
        return "check the user and password in the URL"
    return None


def _database_problem(message: str, cause: BaseException | None = None) -> str:
    """A database error's first line without the driver's class name, plus what to do."""
    text = _DRIVER_CLASS.sub("", _first_line(message))
    hint = _database_hint(f"{message}\n{cause if cause is not None else ''}")
    return f"{text} ({hint})" if hint and hint not in text else text


def describe(exc: BaseException) -> str:
    """One line for ``exc``: what went wrong and, where it is known, what to do.

    Never raises. A policy error with several problems gives the first and a
    count; a database error loses the driver's class name and SQLAlchemy's
    trailing links; an error gate did not expect is named by its type.
    """
    try:
        return _describe(exc)
    except Exception:  # the description of a failure must not fail in turn
        return f"{type(exc).__name__}: {_first_line(str(exc))}"


def _describe(exc: BaseException) -> str:
    import yaml
    from pydantic import ValidationError
    from sqlalchemy.exc import SQLAlchemyError

    if isinstance(exc, PolicyError) and len(exc.issues) > 1:
        return f"{exc.issues[0]} (and {len(exc.issues) - 1} more: run gate policy check)"
    if isinstance(exc, ConfigError) and isinstance(exc.__cause__, SQLAlchemyError):
        return _database_problem(str(exc), exc.__cause__)
    if isinstance(exc, GateError):
        return _first_line(str(exc)) or type(exc).__name__
    if isinstance(exc, SQLAlchemyError):
        return f"ledger: {_database_problem(str(exc))}"
    if isinstance(exc, ValidationError):
        from gate.config import GateSettings, settings_problem

        if exc.title == GateSettings.__name__:
            return settings_problem(exc)
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or exc.title
        return f"{exc.title}: {where}: {first['msg']}"
    if isinstance(exc, yaml.YAMLError):
        mark = getattr(exc, "problem_mark", None)
        where = f"{mark.name}:{mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or _first_line(str(exc))
        return f"{where}not valid YAML: {problem}"
    if isinstance(exc, OSError) and "portaudio" in str(exc).lower():
        return "the audio library PortAudio is missing: apt-get install libportaudio2"
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.strerror or _first_line(str(exc))}: {exc.filename}"
    if isinstance(exc, OverflowError):
        return f"a number given is too large ({_first_line(str(exc))})"
    text = _first_line(str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
