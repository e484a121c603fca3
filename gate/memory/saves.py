"""Background memory saves, tracked per caller.

A reply never waits for the caller's words to be saved, with one exception:
a gated tool in that same reply that takes the caller's words as evidence.
:class:`SaveTracker` is how that tool's session waits for exactly those
saves (and only up to its own budget), while every other reply goes on.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import defaultdict
from collections.abc import Coroutine
from typing import Any

from gate.memory.embedder import WORK_FOR, hurry


class SaveTracker:
    """The saves started for each caller and not finished yet.

    One tracker is shared by the gate's sessions (``gate.saves``): the caller's
    memory agent tracks the saves it starts, the caller's gated tools wait on
    them. A failed or cancelled save counts as settled (nothing left to wait
    for); it is the saver's job to log it.
    """

    def __init__(self) -> None:
        self._pending: defaultdict[str, set[asyncio.Task[object]]] = defaultdict(set)

    def spawn(self, caller_id: str, work: Coroutine[Any, Any, object]) -> asyncio.Task[object]:
        """Run ``work`` (a save of ``caller_id``'s words) as a task, tracked until it is done.

        Its embedding runs in the background unless someone waits for it in
        :meth:`settled`, which makes it urgent.
        """
        context = contextvars.copy_context()
        context.run(WORK_FOR.set, caller_id)
        task = asyncio.get_running_loop().create_task(work, context=context)
        self.track(caller_id, task)
        return task

    def track(self, caller_id: str, task: asyncio.Task[object]) -> None:
        """Remember ``task`` as a save of ``caller_id``'s memory until it is done."""
        if task.done():
            return
        pending = self._pending[caller_id]
        pending.add(task)

        def _done(finished: asyncio.Task[object]) -> None:
            pending.discard(finished)
            if not pending and self._pending.get(caller_id) is pending:
                del self._pending[caller_id]

        task.add_done_callback(_done)

    def pending(self, caller_id: str) -> int:
        """How many saves of ``caller_id`` are still running."""
        return sum(not t.done() for t in self._pending.get(caller_id, ()))

    async def settled(self, caller_id: str, timeout_s: float) -> bool:
        """Wait (at most ``timeout_s``) for every save tracked for ``caller_id`` so far.

        Returns True when all of them are done, False when the time ran out
        first (the saves go on; nothing is cancelled). Never raises for a
        failed save. While waiting, the saves' embeddings go before other
        callers' background saves (started with :meth:`spawn`).
        """
        waiting = [t for t in self._pending.get(caller_id, ()) if not t.done()]
        if not waiting:
            return True
        with hurry(caller_id):
            _, left = await asyncio.wait(waiting, timeout=max(timeout_s, 0.0))
        return not left
