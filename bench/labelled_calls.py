"""The labelled evidence sets said in a call: found and false supports of the trace, per set.

``tests/test_evidence_set.py`` reads each labelled case as the caller's stored memories. A caller
says the same words in a call as well, where the trace reads them as the call's turns: there a
turn may give values in answer to the agent, so what names the action is read differently. This
replays every case whose memories are all the caller's own plain words (no other source, no
agent, no other caller) as the first turns of a call, through the same trace the gate runs
(:func:`gate.evidence.trace` with the MiniLM embedder), and counts:

  found   true supports the trace supports (the action asked for, every value traced)
  false   the other cases (look-alikes, negations, questions, ...) it supports

Nothing is written anywhere; the figures are the trace's alone (a live decision adds the policy
and the caller's memory to it).

Run: python bench/labelled_calls.py [SET.yaml ...]   (default: the three sets in tests/data)
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import string
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from gate.evidence import Meaning, Statement, from_match
from gate.evidence.reading import pointer_texts, texts_for
from gate.memory.embedder import MiniLMEmbedder

# The module, not the function ``gate.evidence.trace`` that shadows its name on the package.
_trace = importlib.import_module("gate.evidence.trace")
SETS = ("evidence_set.yaml", "evidence_paraphrases.yaml", "evidence_everyday.yaml")
_CALL_STARTS = datetime(2026, 3, 6, 12, 0, tzinfo=UTC).timestamp()


def _spoken(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


async def measure(path: Path, meaning: Meaning) -> dict[str, Any]:
    """Found and false supports of one labelled set, read as calls."""
    labelled = yaml.safe_load(path.read_text())
    found = supports = false = others = 0
    false_cases: list[list[str]] = []
    missed_cases: list[list[str]] = []
    for case in labelled["cases"]:
        if not all(isinstance(m, str) for m in case["memories"]):
            continue  # another source, the agent or another caller: not the caller's own turns
        tool = labelled["tools"][case["tool"]]
        query = string.Formatter().vformat(
            tool["query"], (), {k: _spoken(v) for k, v in case["args"].items()}
        )
        request = from_match(query, {k: case["args"][k] for k in tool["match"]})
        turns = [
            Statement(words, "caller", _CALL_STARTS + 10 * i, "call", turn=2 * i)
            for i, words in enumerate(case["memories"])
        ]
        # what a backend prepares for a call's turns: their texts and each pair a pointer joins
        prepared = await meaning.prepare([*texts_for(request, turns), *pointer_texts(request, turns)])
        supported = _trace.trace(request, turns, prepared).verdict == "supported"
        if case["expect"] == "support":
            supports += 1
            found += supported
            if not supported:
                missed_cases.append(case["memories"])
        else:
            others += 1
            if supported:
                false += 1
                false_cases.append(case["memories"])
    return {
        "set": path.name,
        "found": found,
        "supports": supports,
        "false": false,
        "others": others,
        "cases": false_cases,
        "missed": missed_cases,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sets", nargs="*", type=Path)
    parser.add_argument("--show", action="store_true", help="list the false supports")
    parser.add_argument("--missed", action="store_true", help="list the true supports not found")
    args = parser.parse_args()
    paths = args.sets or [Path(__file__).resolve().parent.parent / "tests" / "data" / name for name in SETS]
    meaning = Meaning(MiniLMEmbedder())
    print("| set (said in a call) | found | false supports |")
    print("|---|---|---|")
    for path in paths:
        row = await measure(path, meaning)
        share = row["found"] / row["supports"] if row["supports"] else 0.0
        found = f"{row['found']} of {row['supports']} ({share:.1%})"
        print(f"| {row['set']} | {found} | {row['false']} of {row['others']} |")
        if args.show:
            for said in row["cases"]:
                print(f"|   | | {said} |")
        if args.missed:
            for said in row["missed"]:
                print(f"|   | missed: {said} | |")


if __name__ == "__main__":
    asyncio.run(main())
