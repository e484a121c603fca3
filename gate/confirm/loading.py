"""Getting the answer reader ready before the first answer it reads.

Importing the reader's modules (compiling them when there is no bytecode cache), reading its
word data (every language's folder) and the learned reader's weights take from tens to a few
hundred milliseconds: a worker calls :func:`warm` off its event loop (``await
asyncio.to_thread(warm)``) at start, or lets the first confirmation do so (the session does, the
first time). This module imports none of it itself.
"""

from __future__ import annotations

import importlib
import threading

__all__ = ["ready", "warm"]

_done = threading.Event()


def ready() -> bool:
    """Whether :func:`warm` has run in this process."""
    return _done.is_set()


def warm() -> None:
    """Read every language's data, build the reader's tables and load the learned reader.

    Raises :class:`gate.lang.LanguageDataError` when a language folder is damaged (the reader
    would fail on it anyway); a missing weights file only turns the learned reader off.
    """
    for module in ("answer", "heard", "transcript", "pending"):
        importlib.import_module(f"gate.confirm.{module}")
    from gate import lang
    from gate import values as _values
    from gate.confirm import lexicon, model

    for code in lang.codes():
        lexicon.table(code)
        _values.find_mentions("1", code)
    lexicon.words()
    _values.find_mentions("1")
    model.load()
    _done.set()
