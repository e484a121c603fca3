"""A process that never closed its gate still exits.

The embedded engine (pycontextdb) talks to SQLite through aiosqlite, whose
worker thread is not a daemon. A script that never awaits ``Gate.aclose()``,
or is interrupted before it does, would hang at exit for good, with Python
waiting for that thread. The engines opened here are remembered (weakly); when
the interpreter shuts down, before it waits for non-daemon threads, each
connection still open is told to close, and a warning names the cause.

Closing at exit finishes the work already queued on the connection first, so
nothing queued is dropped; what was never started (a save still waiting for
its turn on the event loop) is lost with the loop, as it would be without this.
"""

from __future__ import annotations

import logging
import threading
import warnings
import weakref
from typing import Any

log = logging.getLogger("gate")

_open: weakref.WeakSet[Any] = weakref.WeakSet()


def remember(engine: Any) -> None:
    """Close ``engine``'s connection at exit if it is still open then (a pycontextdb client)."""
    _open.add(engine)


def _connection(engine: Any) -> Any:
    store = getattr(engine, "_store", None)
    conn = getattr(store, "_conn", None)
    return conn if getattr(conn, "_connection", None) is not None else None


def close_left_open() -> int:
    """Tell every remembered engine's open connection to close; returns how many were open."""
    left = [conn for engine in list(_open) if (conn := _connection(engine)) is not None]
    for conn in left:
        with warnings.catch_warnings():
            # aiosqlite asks for an event loop to report on; there is none running at exit.
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                conn.stop()
            except Exception as exc:  # at exit: say so, never raise
                log.warning("gate: could not close a memory engine connection at exit: %s", exc)
    if left:
        log.warning(
            "gate: the process is exiting with %d memory engine connection(s) open: "
            "await Gate.aclose() before exit; closed them now",
            len(left),
        )
    return len(left)


# Run before the interpreter joins non-daemon threads (atexit handlers run after that).
threading._register_atexit(close_left_open)  # type: ignore[attr-defined]
