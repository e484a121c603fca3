"""gate's log events, through the standard ``logging`` module.

Every event (``gate.decision``, ``gate.receipt``, ...) is a record on the
``gate`` logger. Its message is ``<event> key=value ...`` and each field is
also an attribute of the record (``record.decision_id``, ``record.outcome``;
a field whose name ``logging`` reserves gets a ``gate_`` prefix), with
``record.gate_event`` naming the event: the host's handlers render it the way
they render every other record, and a JSON formatter gets the fields as keys.

The library configures nothing: it adds a ``NullHandler`` to ``gate`` (as the
logging HOWTO asks of libraries), so nothing is printed unless the host
configured logging. structlog is only the front-end (a ``BoundLogger`` over
the stdlib logger, context bound with ``structlog.contextvars`` included);
structlog's global configuration is never touched. While
``structlog.testing.capture_logs()`` is active, events go to it instead, so
tests can assert on them.

:func:`configure_cli` is for gate's own command line only: one stderr
handler, dependencies at WARNING, gate at the level asked for (the worker
leaves handlers to LiveKit's CLI and sets the levels).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

import structlog
from structlog.testing import LogCapture
from structlog.typing import EventDict, WrappedLogger

LEVEL_VARIABLE = "GATE_LOG_LEVEL"
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

_stdlib = logging.getLogger("gate")
_stdlib.addHandler(logging.NullHandler())

# Names a LogRecord already has: passing them in ``extra`` raises KeyError in makeRecord.
_RESERVED = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


def _text(value: Any) -> str:
    text = str(value)
    # Quoted when it would otherwise blur into the next pair or run onto another line.
    return repr(text) if not text or any(ch.isspace() or ch in "=\"'" for ch in text) else text


def _to_record(_: WrappedLogger, __: str, event_dict: EventDict) -> EventDict:
    """Turn the event into ``Logger`` keyword arguments: a key=value message and the fields as extras."""
    name = str(event_dict.pop("event"))
    # A field with no value is left out of the text (the record still carries it as None).
    message = " ".join([name, *(f"{k}={_text(v)}" for k, v in event_dict.items() if v is not None)])
    extra = {(f"gate_{k}" if k in _RESERVED else k): v for k, v in event_dict.items()}
    extra["gate_event"] = name
    # No positional args go to ``logging``, so a ``%`` in a value is never read as a directive.
    return {"msg": message, "extra": extra}


_logger: structlog.stdlib.BoundLogger = structlog.wrap_logger(
    _stdlib,
    wrapper_class=structlog.stdlib.BoundLogger,
    processors=[structlog.contextvars.merge_contextvars, _to_record],
)


def _capturing() -> bool:
    return any(isinstance(p, LogCapture) for p in structlog.get_config()["processors"])


def _emit(level: int, name: str, fields: dict[str, Any]) -> None:
    # ``level`` and ``event`` name the record itself in structlog's API: keep fields off them.
    for taken in ("level", "event"):
        if taken in fields:
            fields[f"gate_{taken}"] = fields.pop(taken)
    if _capturing():
        structlog.get_logger("gate").log(level, name, **fields)
    elif _stdlib.isEnabledFor(level):
        _logger.log(level, name, **fields)


def event(name: str, /, **fields: Any) -> None:
    """Emit one event at INFO (``gate.decision``, ``gate.receipt``, ...); never raises for a field."""
    _emit(logging.INFO, name, fields)


def warning(name: str, /, **fields: Any) -> None:
    """Emit one event at WARNING (something went wrong and gate carried on)."""
    _emit(logging.WARNING, name, fields)


def level_from_env(default: str) -> int:
    """The level ``GATE_LOG_LEVEL`` asks for, else ``default``.

    Raises:
        gate.ConfigError: the variable is set to something that is not a level name.
    """
    from gate.errors import ConfigError

    raw = os.environ.get(LEVEL_VARIABLE, "").strip().upper() or default.upper()
    if raw == "WARN":
        raw = "WARNING"
    if raw not in LEVELS:
        raise ConfigError(f"{LEVEL_VARIABLE}={raw!r}: expected one of {', '.join(LEVELS)}")
    return logging.getLevelName(raw)  # type: ignore[no-any-return]


def configure_cli(gate_level: int, *, dependencies: int = logging.WARNING) -> None:
    """Logging for gate's own command line: one line per record on stderr, stdout left to results.

    Dependencies log at ``dependencies`` (WARNING: no DEBUG flood), gate at
    ``gate_level``. Only for processes gate owns; a host configures its own.
    """
    handler = _Stderr()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _Stderr)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(dependencies)
    _stdlib.setLevel(gate_level)


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record comes, not what it was at set-up.

    A command run inside another program (a test runner swapping the streams)
    must not keep writing to a stream that was closed after it.
    """

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _: Any) -> None:
        pass
