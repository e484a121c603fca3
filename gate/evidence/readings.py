"""Readings kept between the decisions of a call: each statement is read once per request.

A trace reads every turn of the call and the memories near the query on every
decision, and in a call of some tens of turns all but the newest were read
the same way for the previous decision. :func:`gate.evidence.reading.read` is
a pure function of the statement's words, who said them and how far they are
trusted, the request, and the similarities of those words (which one embedder
always gives the same), so its result can be kept and handed back with the
statement of this decision (its time, turn and message id) in place.

A :class:`ReadingCache` belongs to one decision backend (one embedder): the
similarities behind a reading are that embedder's. Bounded (least recently
used readings go first); not shared between threads (a backend runs its traces
on its event loop).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from typing import Any

from gate.evidence import reading as rd
from gate.evidence.meaning import Similarities
from gate.evidence.request import TraceRequest
from gate.evidence.statements import Statement

_SIZE = 4096


def _statement_key(s: Statement) -> tuple[Any, ...]:
    """What :func:`reading.read` reads of a statement (never its time, turn or message id)."""
    m = s.memory
    memory = None if m is None else (m.injection_suspect, m.negated)
    return (s.text, s.speaker, s.origin, s.trusted, memory)


class ReadingCache:
    """Readings by (request, statement), the least recently used dropped past ``size``."""

    def __init__(self, size: int = _SIZE) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[Any, ...], rd.Reading] = OrderedDict()

    def read(self, statement: Statement, request: TraceRequest, meaning: Similarities) -> rd.Reading:
        """``reading.read(statement, request, meaning)``, from the cache when it was read before."""
        key = (request.key, _statement_key(statement))
        kept = self._kept.get(key)
        if kept is not None:
            self._kept.move_to_end(key)
            return kept if kept.statement == statement else dataclasses.replace(kept, statement=statement)
        found = rd.read(statement, request, meaning)
        self._kept[key] = found
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)
        return found
