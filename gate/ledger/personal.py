"""Personal text held apart from what the chain hashes, so it can be erased and the chain still verifies.

A record names each piece of personal text by a salted digest: 16 random
bytes of salt, then ``sha256:`` over the salt's bytes followed by the text's
UTF-8 bytes. The record (what its chain entry commits to) holds
``personal:sha256:<hex>`` where the text was; ``gate_personal`` holds the
digest, the salt (hex) and the text. Erasing a caller removes the text and
the salt and notes when: the record, its entry and the digest are untouched,
so the chain verifies as before, and without the salt the digest cannot be
used to test a guess of what was said.

Personal text is known by field, never by reading the content:

- a decision's trace: every rule result's ``words``;
- a decision's evidence: every memory's ``content``, every traced argument's
  ``words`` and ``accepted.words``, the action's ``words``;
- a confirmation's ``words`` (the caller's answer).

Rows written before this scheme (entry kinds ``decision`` and
``confirmation``) keep their text inside the hashed record; they verify and
display as they always did, and cannot be erased without breaking the chain.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from gate.canonical import canonical_json

PREFIX = "personal:"
_DIGEST_LEN = len("sha256:") + 64
_LOOKUP_CHUNK = 500


@dataclass(frozen=True)
class Sealed:
    """One text taken out of a record: what ``gate_personal`` stores for it."""

    digest: str
    salt: str
    text: str


@dataclass(frozen=True)
class Stored:
    """What ``gate_personal`` holds for one digest (``text`` and ``salt`` None once erased)."""

    digest: str
    salt: str | None
    text: str | None
    erased_at: float | None

    def problem(self) -> str | None:
        """Why this row cannot be trusted, or None: erased cleanly, or the text matches its digest."""
        if self.erased_at is not None:
            if self.text is not None or self.salt is not None:
                return "personal text marked erased is still there"
            return None
        if self.text is None or self.salt is None:
            return "personal text was removed without being erased"
        try:
            salt = bytes.fromhex(self.salt)
        except ValueError:
            return "personal text's salt is not hex"
        if text_digest(salt, self.text) != self.digest:
            return "personal text was changed after it was recorded"
        return None


def text_digest(salt: bytes, text: str) -> str:
    """``sha256:`` over ``salt`` then the text's UTF-8 bytes."""
    return "sha256:" + hashlib.sha256(salt + text.encode()).hexdigest()


def seal(text: str) -> Sealed:
    """A fresh salt and the digest of ``text`` under it."""
    salt = os.urandom(16)
    return Sealed(text_digest(salt, text), salt.hex(), text)


def is_ref(value: Any) -> bool:
    """Whether ``value`` is a reference to personal text held apart."""
    return (
        isinstance(value, str)
        and value.startswith(PREFIX + "sha256:")
        and len(value) == len(PREFIX) + _DIGEST_LEN
    )


def ref_digest(value: str) -> str:
    return value[len(PREFIX) :]


def trace_slots(trace: Any) -> Iterator[tuple[dict[str, Any], str]]:
    """Where a decision's trace holds personal text: each rule result's ``words``."""
    if isinstance(trace, list):
        for entry in trace:
            if isinstance(entry, dict) and isinstance(entry.get("words"), str):
                yield entry, "words"


def evidence_slots(evidence: Any) -> Iterator[tuple[dict[str, Any], str]]:
    """Where a decision's evidence holds personal text (memories, argument trace, action)."""
    if not isinstance(evidence, dict):
        return
    for memory in _dicts(evidence.get("memories")):
        if isinstance(memory.get("content"), str):
            yield memory, "content"
    for argument in _dicts(evidence.get("arguments")):
        if isinstance(argument.get("words"), str):
            yield argument, "words"
        accepted = argument.get("accepted")
        if isinstance(accepted, dict) and isinstance(accepted.get("words"), str):
            yield accepted, "words"
    action = evidence.get("action")
    if isinstance(action, dict) and isinstance(action.get("words"), str):
        yield action, "words"


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        yield from (v for v in value if isinstance(v, dict))


def seal_record(table: str, values: dict[str, Any]) -> tuple[dict[str, Any], list[Sealed]]:
    """The record as stored (each personal text replaced by its reference), and the texts taken out.

    ``values`` is not changed. Texts already replaced by references are left
    as they are (a confirmation rewritten from its stored form). An empty
    text is not personal text and stays.
    """
    sealed: list[Sealed] = []

    def take(slots: Iterable[tuple[dict[str, Any], str]]) -> bool:
        changed = False
        for container, key in slots:
            text = container[key]
            if text == "" or is_ref(text):
                continue
            found = seal(text)
            sealed.append(found)
            container[key] = PREFIX + found.digest
            changed = True
        return changed

    stored = dict(values)
    if table == "gate_decisions":
        trace = json.loads(values["trace_json"])
        if take(trace_slots(trace)):
            stored["trace_json"] = canonical_json(trace)
        evidence = json.loads(values["evidence_json"])
        if take(evidence_slots(evidence)):
            stored["evidence_json"] = canonical_json(evidence)
    elif table == "gate_confirmations":
        holder = {"words": values.get("words")}
        if isinstance(holder["words"], str) and take([(holder, "words")]):
            stored["words"] = holder["words"]
    return stored, sealed


def refs(table: str, values: Mapping[str, Any]) -> list[str]:
    """The digests of the personal text a stored record names."""
    found: list[str] = []
    if table == "gate_decisions":
        slots = [*trace_slots(json.loads(values["trace_json"]))]
        slots += evidence_slots(json.loads(values["evidence_json"]))
        found = [ref_digest(c[k]) for c, k in slots if is_ref(c[k])]
    elif table == "gate_confirmations" and is_ref(values.get("words")):
        found = [ref_digest(values["words"])]
    return found


def lookup(conn: Any, digests: Iterable[str]) -> dict[str, Stored]:
    """What ``gate_personal`` holds for these digests (absent ones are left out)."""
    from gate.ledger.tables import PersonalRow

    table = PersonalRow.__table__  # type: ignore[attr-defined]
    wanted = sorted(set(digests))
    found: dict[str, Stored] = {}
    for start in range(0, len(wanted), _LOOKUP_CHUNK):
        chunk = wanted[start : start + _LOOKUP_CHUNK]
        query = select(table.c.digest, table.c.salt, table.c.text, table.c.erased_at).where(
            table.c.digest.in_(chunk)
        )
        for digest, salt, text, erased_at in conn.execute(query):
            found[digest] = Stored(digest, salt, text, erased_at)
    return found


@dataclass(frozen=True)
class Revealed:
    """One reference read back: the text, or when it was erased, or what is wrong with it."""

    text: str | None
    erased_at: float | None = None
    problem: str | None = None


def reveal(value: Any, texts: Mapping[str, Stored]) -> Revealed:
    """The text a stored value stands for; a value that is no reference is the text itself."""
    if not is_ref(value):
        return Revealed(value)
    stored = texts.get(ref_digest(value))
    if stored is None:
        return Revealed(None, problem="personal text is missing from the ledger (it was not erased)")
    problem = stored.problem()
    if problem is not None:
        return Revealed(None, problem=problem)
    if stored.erased_at is not None:
        return Revealed(None, erased_at=stored.erased_at)
    return Revealed(stored.text)


def reveal_slots(
    slots: Iterable[tuple[dict[str, Any], str]],
    texts: Mapping[str, Stored],
    when: Callable[[float], Any] = float,
) -> list[str]:
    """Put each slot's text back in place, noting erasure (``<key>_erased``) and problems.

    An erased or untrustworthy text becomes None; ``<key>_erased`` holds the
    time it was erased (``when`` of the timestamp), ``<key>_problem`` what is
    wrong. Returns the problems found.
    """
    problems: list[str] = []
    for container, key in list(slots):
        found = reveal(container[key], texts)
        container[key] = found.text
        if found.erased_at is not None:
            container[f"{key}_erased"] = when(found.erased_at)
        if found.problem is not None:
            container[f"{key}_problem"] = found.problem
            problems.append(found.problem)
    return problems


def restore_record(table: str, values: Mapping[str, Any], texts: Mapping[str, Stored]) -> dict[str, Any]:
    """A stored record with its personal text put back (None where it was erased or is missing)."""
    out = dict(values)
    if table == "gate_decisions":
        for name, slots in (("trace_json", trace_slots), ("evidence_json", evidence_slots)):
            holder = json.loads(values[name])
            changed = False
            for container, key in list(slots(holder)):
                if is_ref(container[key]):
                    container[key] = reveal(container[key], texts).text
                    changed = True
            if changed:
                out[name] = canonical_json(holder)
    elif table == "gate_confirmations" and is_ref(values.get("words")):
        out["words"] = reveal(values["words"], texts).text
    return out
