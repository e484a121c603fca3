"""Identical calls that overlap execute once.

A model can emit the same tool call twice in one step, or re-call it while
the first is still running (a barge-in). Both would otherwise decide and act
twice. :class:`InFlight` keys each call by caller, tool and canonical
arguments; while one runs, the others wait for it and get its result, or
its error. It is per process: processes share the ledger, where the rate
limit's reservations keep them honest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from gate.log import event

T = TypeVar("T")


class InFlight:
    """Runs at most one call per key at a time; overlapping callers share its outcome."""

    def __init__(self) -> None:
        self._running: dict[str, asyncio.Future[Any]] = {}

    def __contains__(self, key: str) -> bool:
        return key in self._running

    async def run(self, key: str, work: Callable[[], Awaitable[T]], **fields: Any) -> T:
        """Run ``work`` unless a call with ``key`` is running; then wait for that one.

        Raises whatever the first call raised, to every caller that waited on it.
        Cancelling a waiter does not cancel the first call.
        """
        first = self._running.get(key)
        if first is not None:
            event("gate.dedupe", in_flight=True, **fields)
            result: T = await asyncio.shield(first)
            return result
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._running[key] = future
        try:
            value = await work()
        except BaseException as exc:
            if not future.done():
                future.set_exception(exc)
                future.exception()  # retrieved: no "never retrieved" warning when nobody waited
            raise
        else:
            future.set_result(value)
            return value
        finally:
            self._running.pop(key, None)
