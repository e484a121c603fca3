"""The Schema-Guided Dialogue dataset (SGD, Rastogi et al. 2020), read for gate's replays.

SGD is not shipped with gate (CC BY-SA 4.0; get it with
``git clone https://github.com/google-research-datasets/dstc8-schema-guided-dialogue``).
Point the replays at the checkout with ``--sgd DIR`` or ``GATE_SGD_DIR``.

Only the ``train`` and ``dev`` splits are read: gate is developed and calibrated
on them, and the ``test`` split is kept for judging the work (:func:`dialogues`
refuses it).

Two views of the data:

- :func:`transactions`: every call of a transactional intent (a booking, a
  transfer, a purchase), with the turns before the agent first asked to confirm
  it, the values of the real service call, and the intent's schema (required and
  optional slots, their descriptions, categorical values, defaults).
- :func:`confirmations`: every agent confirmation question (``CONFIRM`` acts)
  and the caller's answer, labelled from the caller's acts: ``yes``
  (``AFFIRM``), ``yes_question`` (``AFFIRM`` + ``REQUEST``: a yes with a side
  question) or ``change`` (``NEGATE`` / ``INFORM``: a no or a new value).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

SPLITS = ("train", "dev")
Label = Literal["yes", "yes_question", "change", "other"]


class SGDMissing(Exception):
    """The dataset is not where it was looked for (the message says where and how to get it)."""


@dataclass(frozen=True)
class Slot:
    """A slot of a service's schema."""

    name: str
    description: str
    categorical: bool
    values: tuple[str, ...]  # possible values of a categorical slot


@dataclass(frozen=True)
class Intent:
    """A transactional intent and the slots its service call takes."""

    service: str
    name: str
    description: str
    required: tuple[Slot, ...]
    optional: tuple[tuple[Slot, str], ...]  # (slot, default value)


@dataclass(frozen=True)
class Act:
    act: str
    slot: str
    values: tuple[str, ...]
    canonical: tuple[str, ...]


@dataclass(frozen=True)
class Turn:
    """One utterance: ``caller`` (SGD's USER) or ``agent`` (SYSTEM), with its acts for one service."""

    speaker: Literal["caller", "agent"]
    text: str
    acts: tuple[Act, ...]
    # Non-categorical slot values said in this turn, with their character span.
    spans: tuple[tuple[str, int, int], ...] = ()


@dataclass(frozen=True)
class Transaction:
    """One transactional service call and the dialogue that led to it.

    ``before``: every turn before the agent's first confirmation question of this
    call (both speakers, in order). ``question`` / ``answer``: that question and the
    caller's reply; ``after``: the turns from there to the service call (further
    questions and answers when the caller changed something). ``parameters``: the
    service call's values (canonical forms: ``2019-03-05``, ``11:45``, ``"2"``,
    ``"False"``).
    """

    dialogue_id: str
    split: str
    intent: Intent
    before: tuple[Turn, ...]
    question: Turn
    answer: Turn
    after: tuple[Turn, ...]
    parameters: dict[str, str] = field(default_factory=dict)
    # Every value the caller's own acts give up to the service call, for any service, as said
    # and in its canonical form, folded ("san fran" and "san francisco"): SGD's labels of what
    # the caller said, whatever form the words took.
    caller_values: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Confirmation:
    """An agent confirmation question and the caller's answer to it.

    ``pending``: the slots the question confirms, with their canonical values
    (``2019-03-08``, ``19:30``) and the values as the agent said them
    (``March 8th``, ``7:30 pm``).
    """

    dialogue_id: str
    split: str
    service: str
    intent: str
    question: str
    answer: str
    label: Label
    pending: dict[str, tuple[str, str]]  # slot -> (canonical, as spoken)
    requested: tuple[str, ...] = ()  # the slots a side question asks about
    changed: tuple[str, ...] = ()  # the slots a change names
    before: tuple[Turn, ...] = ()  # every turn before the question (both speakers, in order)


def root(path: str | os.PathLike[str] | None = None) -> Path:
    """The SGD checkout: ``path``, else ``GATE_SGD_DIR``.

    Raises:
        SGDMissing: neither is given, or the directory has no train/dev split.
    """
    given = path or os.environ.get("GATE_SGD_DIR")
    if not given:
        raise SGDMissing(
            "no SGD checkout: pass --sgd DIR or set GATE_SGD_DIR (git clone "
            "https://github.com/google-research-datasets/dstc8-schema-guided-dialogue)"
        )
    base = Path(given).expanduser()
    if not any((base / split / "schema.json").is_file() for split in SPLITS):
        raise SGDMissing(f"{base}: no train/schema.json or dev/schema.json (is it an SGD checkout?)")
    return base


def _split_dir(base: Path, split: str) -> Path:
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: gate reads only {', '.join(SPLITS)} (test judges the work)")
    directory = base / split
    if not (directory / "schema.json").is_file():
        raise SGDMissing(f"{directory}: no schema.json")
    return directory


def intents(base: Path, split: str) -> dict[tuple[str, str], Intent]:
    """The transactional intents of a split's schema, by (service, intent)."""
    out: dict[tuple[str, str], Intent] = {}
    for service in json.loads((_split_dir(base, split) / "schema.json").read_text()):
        slots = {
            s["name"]: Slot(
                s["name"], s["description"], bool(s["is_categorical"]), tuple(s["possible_values"])
            )
            for s in service["slots"]
        }
        for intent in service["intents"]:
            if not intent["is_transactional"]:
                continue
            out[(service["service_name"], intent["name"])] = Intent(
                service=service["service_name"],
                name=intent["name"],
                description=intent["description"],
                required=tuple(slots[n] for n in intent["required_slots"]),
                optional=tuple((slots[n], v) for n, v in intent["optional_slots"].items()),
            )
    return out


def dialogues(base: Path, split: str, *, limit_files: int | None = None) -> Iterator[dict[str, Any]]:
    """The split's dialogues as SGD stores them, file by file in name order."""
    files = sorted(_split_dir(base, split).glob("dialogues_*.json"))
    for path in files[:limit_files]:
        yield from json.loads(path.read_text())


def _turn(raw: dict[str, Any], service: str) -> Turn:
    speaker: Literal["caller", "agent"] = "caller" if raw["speaker"] == "USER" else "agent"
    acts: list[Act] = []
    spans: list[tuple[str, int, int]] = []
    for frame in raw["frames"]:
        if frame["service"] != service:
            continue
        for a in frame["actions"]:
            acts.append(
                Act(
                    a["act"],
                    a.get("slot", ""),
                    tuple(a.get("values", [])),
                    tuple(a.get("canonical_values", [])),
                )
            )
        spans += [(s["slot"], s["start"], s["exclusive_end"]) for s in frame.get("slots", [])]
    return Turn(speaker, raw["utterance"], tuple(acts), tuple(spans))


def _caller_values(turns: list[dict[str, Any]]) -> frozenset[str]:
    return frozenset(
        v.casefold()
        for t in turns
        if t["speaker"] == "USER"
        for frame in t["frames"]
        for a in frame["actions"]
        for v in (*a.get("values", []), *a.get("canonical_values", []))
    )


def _confirms(turn: dict[str, Any], service: str) -> bool:
    return any(a["act"] == "CONFIRM" for f in turn["frames"] if f["service"] == service for a in f["actions"])


def transactions(base: Path, split: str, *, limit_files: int | None = None) -> Iterator[Transaction]:
    """Every transactional service call of the split, with the dialogue before it."""
    known = intents(base, split)
    for dialogue in dialogues(base, split, limit_files=limit_files):
        turns = dialogue["turns"]
        start = 0  # the turns of an earlier transaction's confirmation are not this one's
        for i, turn in enumerate(turns):
            if turn["speaker"] != "SYSTEM":
                continue
            for frame in turn["frames"]:
                call = frame.get("service_call")
                intent = known.get((frame["service"], call["method"])) if call else None
                if call is None or intent is None:
                    continue
                service = frame["service"]
                first = next(
                    (
                        j
                        for j in range(start, i)
                        if turns[j]["speaker"] == "SYSTEM" and _confirms(turns[j], service)
                    ),
                    None,
                )
                start = i + 1
                if first is None or first + 1 >= i:
                    continue
                yield Transaction(
                    dialogue_id=dialogue["dialogue_id"],
                    split=split,
                    intent=intent,
                    before=tuple(_turn(t, service) for t in turns[:first]),
                    question=_turn(turns[first], service),
                    answer=_turn(turns[first + 1], service),
                    after=tuple(_turn(t, service) for t in turns[first + 2 : i]),
                    parameters=dict(call["parameters"]),
                    caller_values=_caller_values(turns[:i]),
                )


def label(answer: Turn) -> Label:
    """What a caller's answer to a confirmation question is, from its acts (see :func:`confirmations`)."""
    return _label(answer)


def _label(answer: Turn) -> Label:
    kinds = {a.act for a in answer.acts}
    if "NEGATE" in kinds or "INFORM" in kinds:
        return "change"
    if "AFFIRM" in kinds:
        return "yes_question" if "REQUEST" in kinds else "yes"
    return "other"


def confirmations(base: Path, split: str, *, limit_files: int | None = None) -> Iterator[Confirmation]:
    """Every agent confirmation question of the split and the caller's answer, labelled by its acts."""
    for dialogue in dialogues(base, split, limit_files=limit_files):
        turns = dialogue["turns"]
        for i in range(len(turns) - 1):
            raw = turns[i]
            if raw["speaker"] != "SYSTEM":
                continue
            for frame in raw["frames"]:
                service = frame["service"]
                if not _confirms(raw, service):
                    continue
                question = _turn(raw, service)
                answer = _turn(turns[i + 1], service)
                pending = {
                    a.slot: (a.canonical[0] if a.canonical else "", a.values[0] if a.values else "")
                    for a in question.acts
                    if a.act == "CONFIRM"
                }
                yield Confirmation(
                    dialogue_id=dialogue["dialogue_id"],
                    split=split,
                    service=service,
                    intent=next(
                        (
                            f["state"]["active_intent"]
                            for f in turns[i + 1]["frames"]
                            if f["service"] == service and "state" in f
                        ),
                        "",
                    ),
                    question=raw["utterance"],
                    answer=answer.text,
                    label=_label(answer),
                    pending=pending,
                    requested=tuple(a.slot for a in answer.acts if a.act == "REQUEST"),
                    changed=tuple(a.slot for a in answer.acts if a.act == "INFORM"),
                    before=tuple(_turn(t, service) for t in turns[:i]),
                )
                break
