"""Who said what, and when: the call's own turns and the caller's memories as one kind of thing.

The trace reads :class:`Statement` objects in the order they were said:
memories from earlier calls first (oldest first), then the turns of this
call from its transcript (the session's ``ChatContext``), caller and agent
alike. Only the caller's words can carry a request; the agent's words count
only as offers the caller took up.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gate.evidence.types import EvidenceMemory

CALLER_SOURCES = frozenset({"user_stated", "", "none"})


@dataclass(frozen=True)
class Statement:
    """One thing somebody said: in this call (``origin="call"``) or remembered (``"memory"``).

    ``turn`` is its index among the call's messages (None for a memory).
    ``trusted``: it may gate an action by itself (this call's own words of the
    authenticated caller; a memory the engine trusts). ``interrupted``: an
    agent message the caller cut off (``played`` is the part they heard, when
    known).
    """

    text: str
    speaker: Literal["caller", "agent", "other"]
    at: float | None
    origin: Literal["call", "memory"]
    turn: int | None = None
    message_id: str | None = None
    memory: EvidenceMemory | None = None
    trusted: bool = True
    interrupted: bool = False
    # A sentence of a longer turn of the caller's, read again on its own for the values it
    # gives ("What else is there? I'd leave on the 14th."); the turn as a whole decides the rest.
    part: bool = False
    # The caller asks with only whether there is room as a condition ("book a table at 8 if
    # there's room"): a request said with a hedge, which the caller's yes confirms. Set by the
    # trace on the turn and so on its parts (a part may not hold the words of the hedge).
    hedged: bool = False

    @property
    def memory_id(self) -> str | None:
        return self.memory.id if self.memory is not None else None

    @property
    def by_caller(self) -> bool:
        return self.speaker == "caller"


def from_history(history: Any) -> list[Statement]:
    """The call's spoken turns from a LiveKit ``ChatContext`` (or anything with ``.items``).

    Tool calls, tool outputs and empty messages are left out; a caller's message
    and the agent's keep their time, id and whether they were interrupted.
    """
    items = getattr(history, "items", None)
    if items is None:
        return []
    out: list[Statement] = []
    for item in items:
        role = getattr(item, "role", None)
        if role not in ("user", "assistant"):
            continue
        text = (getattr(item, "text_content", None) or "").strip()
        if not text:
            continue
        out.append(
            Statement(
                text=text,
                speaker="caller" if role == "user" else "agent",
                at=getattr(item, "created_at", None),
                origin="call",
                turn=len(out),
                message_id=getattr(item, "id", None),
                trusted=True,
                interrupted=bool(getattr(item, "interrupted", False)),
            )
        )
    return out


def speaker_of(memory: EvidenceMemory) -> Literal["caller", "agent", "other"]:
    if memory.said_by in ("agent", "assistant"):
        return "agent"
    if memory.said_by not in (None, "", "caller", "user"):
        return "other"
    if (memory.source or "").casefold() not in CALLER_SOURCES:
        return "agent" if (memory.source or "").casefold() == "agent_inferred" else "other"
    return "caller"


def from_memories(memories: Iterable[EvidenceMemory]) -> list[Statement]:
    """Memories as statements, oldest first (a memory without a time keeps its place)."""
    listed = list(memories)
    order = sorted(
        range(len(listed)), key=lambda i: (listed[i].created_at is None, listed[i].created_at or 0, i)
    )
    return [
        Statement(
            text=listed[i].content,
            speaker=speaker_of(listed[i]),
            at=listed[i].created_at,
            origin="memory",
            memory=listed[i],
            trusted=listed[i].trusted,
        )
        for i in order
    ]


def with_parts(statements: Sequence[Statement]) -> list[Statement]:
    """``statements``, each of the caller's turns in this call of two sentences or more followed by
    its sentences, as parts (:attr:`Statement.part`)."""
    out: list[Statement] = []
    for s in statements:
        out.append(s)
        if s.origin != "call" or s.speaker != "caller" or s.part:
            continue
        sentences = _sentences(s.text)
        if len(sentences) > 1:
            out += [dataclasses.replace(s, text=sentence, part=True) for sentence in sentences]
    return out


# A sentence ends at ".", "!" or "?" followed by a space and more words (not "3.5" or "a.m.").
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[^\W\d_]|\d)")


_ABBREVIATION = re.compile(r"(?:\b[a-z]\.[a-z]\.|\b(?:mr|mrs|ms|dr|st|no|vs|etc|approx)\.)$", re.IGNORECASE)


def _sentences(text: str) -> list[str]:
    pieces: list[str] = []
    for piece in _SENTENCE_END.split(text):
        if pieces and _ABBREVIATION.search(pieces[-1]):
            pieces[-1] = f"{pieces[-1]} {piece}"  # "at 7 a.m. on Friday" is one sentence
        else:
            pieces.append(piece)
    return [p.strip() for p in pieces if re.search(r"[^\W_]", p)]


def _folded(text: str) -> str:
    """Words only, folded: a turn's part saved on its own loses its punctuation and case."""
    return " ".join(re.findall(r"[^\W_]+(?:['’][^\W_]+)*", text.casefold()))


def combined(memories: Sequence[Statement], call: Sequence[Statement]) -> list[Statement]:
    """Memories then the call, without the memories that are this call's own turns saved again.

    The caller's turns are also saved to memory as they are said, whole or a sentence or
    clause of them at a time; a memory from the call's own time that repeats a turn of
    this call, or a part of one word for word, is that turn (read again out of its place,
    it would seem to say something anew after what followed it). A memory written during
    the call (the gate's record of a request the caller just confirmed) takes its place
    among the call's turns by its time.
    """
    said: dict[str, list[str]] = {}
    for s in call:
        said.setdefault(s.speaker, []).append(f" {_folded(s.text)} ")
    start = min((s.at for s in call if s.at is not None), default=None)

    def repeats(m: Statement) -> bool:
        text = _folded(m.text)
        return bool(text) and any(f" {text} " in turn for turn in said.get(m.speaker, ()))

    kept = [
        m for m in memories if not (repeats(m) and (start is None or m.at is None or m.at >= start - 1.0))
    ]
    before = [m for m in kept if start is None or m.at is None or m.at < start]
    out = list(call)
    for m in (m for m in kept if m not in before):
        at = m.at or 0.0
        place = next((i for i, s in enumerate(out) if s.at is not None and s.at > at), len(out))
        out.insert(place, m)
    return [*before, *out]
