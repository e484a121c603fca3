"""What the session's own transcript says about a pending confirmation.

Nothing the model passes to ``confirm_action`` is trusted: the gate reads the session's
``ChatContext`` itself. The caller's answer is their latest message after the question was
asked; the question they heard is the agent's last message before that answer (not any earlier
one, so a yes to a later side question never counts for the pending action).

**Barge-in.** When the caller cuts the agent off, LiveKit Agents (1.8) keeps the agent's message
with ``interrupted=True`` and, as its text, what had reached the caller: with a room's audio
output and synchronized transcription (the default), the words played up to the cut; in a
text-only session, the text already shown. An audio output without a transcript synchronizer
keeps everything generated so far, played or not: then an interrupted message tells nothing
about what the caller heard, and the gate counts none of it (:func:`plays_transcript`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from livekit.agents.llm import ChatContext, ChatMessage

__all__ = ["Exchange", "latest_exchange", "plays_transcript"]


@dataclass(frozen=True)
class Exchange:
    """The caller's answer and the agent message it answered (if any).

    ``interrupted``: the caller cut that message off; ``heard`` is then the part LiveKit kept.
    """

    answer: str
    answer_id: str
    answered_at: float
    heard: str | None
    heard_at: float | None
    interrupted: bool = False


def latest_exchange(history: ChatContext | None, *, since: float) -> Exchange | None:
    """The caller's latest answer newer than ``since`` and the agent's message just before it.

    Consecutive caller messages (a transcript split in two) are one answer.
    Agent messages after the answer are ignored. Returns None when the caller
    has said nothing since ``since``; ``heard`` is None when the agent said
    nothing between ``since`` and the answer (the question was never put).
    """
    if history is None:
        return None
    messages = [i for i in history.items if isinstance(i, ChatMessage) and i.created_at >= since]
    last = next((n for n in range(len(messages) - 1, -1, -1) if messages[n].role == "user"), None)
    if last is None:
        return None
    parts: list[ChatMessage] = []
    index = last
    while index >= 0 and messages[index].role in ("user", "assistant"):
        message = messages[index]
        if message.role == "assistant":
            if (message.text_content or "").strip():
                break
        else:
            parts.append(message)
        index -= 1
    words = " ".join((m.text_content or "").strip() for m in reversed(parts)).strip()
    if not words:
        return None
    answered = messages[last]
    if index < 0 or messages[index].role != "assistant":
        return Exchange(words, answered.id, answered.created_at, None, None)
    agent = messages[index]
    return Exchange(
        words,
        answered.id,
        answered.created_at,
        (agent.text_content or "").strip(),
        agent.created_at,
        interrupted=bool(agent.interrupted),
    )


def plays_transcript(session: Any) -> bool:
    """Whether an interrupted agent message of ``session`` holds only what reached the caller.

    True for a text-only session (no audio output: the text shown is what was read) and for an
    audio output chained through LiveKit's transcript synchronizer while it is enabled; False for
    any other audio output, whose interrupted messages keep text that was never played. Never
    raises: anything unexpected reads as False (count nothing).
    """
    try:
        output = getattr(session, "output", None)
        node = getattr(output, "audio", None)
        if node is None:
            return True
        seen = 0
        while node is not None and seen < 16:
            synchronizer = getattr(node, "_synchronizer", None)
            if type(node).__name__ == "_SyncedAudioOutput" and getattr(synchronizer, "enabled", False):
                return True
            node = getattr(node, "next_in_chain", None)
            seen += 1
    except Exception:
        return False
    return False
