"""Replay SGD's transactional dialogues through live gate sessions, and measure.

For each sampled transaction (spread over the split's services), in a text-mode
``AgentSession`` with a verified caller, ``MemoryAgent`` memory and the generated tools
(:mod:`bench.sgd.tools`, ``confirm: always``, evidence required):

1. the caller's own turns are typed one by one; the model answers each with the agent's
   own next utterance from the dialogue;
2. at the agent's first confirmation question, the model calls the tool instead, with
   the values of the dialogue's service call (typed as the tool takes them) and says the
   gate's question from the tool's output (when the gate did not ask, it says what the
   gate answered and the replay ends there);
3. the caller gives the dialogue's own answer, and the model calls ``confirm_action``.
   When the answer changes something, the dialogue is followed: at each further
   confirmation question of the agent the model calls the tool again with the values it
   confirms, says the gate's new question, and calls ``confirm_action`` on the dialogue's
   final answer.

Measured: **completed** (the tool executed with the service call's values), the first
decision's outcome and deciding rule, and **traced at the first decision** (its record's
``evidence_json["arguments"]``: every argument ``traced`` or ``default``; a decision with
no ``arguments`` is "no trace recorded" and counts as not traced).

``--variant negative``: the same dialogues with one required argument replaced by a value
of the same kind the caller never said (:mod:`bench.sgd.negative`), under ``confirm:
when_unsure`` so a supported call would act at once: **acted at the first decision** and
**traced for the replaced argument** (both should be 0). The replay stops at the first
decision.

Run: python -m bench.sgd.transactions --split dev --sample 300 [--seed 1] [--workers 2]
     [--variant negative] [--out report.json] [--sgd DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gate
from bench.sgd import data, negative
from bench.sgd.model import relay
from bench.sgd.replay import Call, Replayer, Setup, Table, caller_turns, run, spread, timing, timing_line
from bench.sgd.tools import IntentTool
from gate.testing.llm import call, say

TRACED = ("traced", "default")


@dataclass(frozen=True)
class Job:
    """One transaction to replay, and for the negative variant the argument to replace."""

    number: int
    tx: data.Transaction
    variant: str = "plain"
    replace: tuple[str, str] | None = None


def confirms(turn: data.Turn) -> dict[str, str]:
    """The values an agent confirmation question confirms (slot -> canonical value)."""
    return {a.slot: a.canonical[0] for a in turn.acts if a.act == "CONFIRM" and a.canonical}


def first_values(tx: data.Transaction) -> dict[str, str]:
    """What the model first calls the tool with.

    The service call's values, unless the caller changed something at the
    confirmation: then the values the first question confirmed, over the call's.
    """
    if data.label(tx.answer) != "change":
        return dict(tx.parameters)
    return {**tx.parameters, **confirms(tx.question)}


def value_turns(tx: data.Transaction) -> int:
    """How many of the caller's turns before the question give a value of the call (1: all in one)."""
    slots = set(tx.parameters)
    return sum(
        1
        for t in tx.before
        if t.speaker == "caller" and any(a.act == "INFORM" and a.slot in slots for a in t.acts)
    )


def matches(done: dict[str, Any], wanted: dict[str, Any]) -> bool:
    return all(done.get(k) == v for k, v in wanted.items())


async def replay(replayer: Replayer, job: Job) -> dict[str, Any]:
    """Replay one transaction; the per-dialogue record of the report."""
    tx = job.tx
    spec = replayer.tool_for(tx.intent)
    values = first_values(tx)
    if job.replace is not None:
        values[job.replace[0]] = job.replace[1]
    record: dict[str, Any] = {
        "dialogue_id": tx.dialogue_id,
        "service": tx.intent.service,
        "tool": spec.name,
        "answer": data.label(tx.answer),
        "called_with": spec.typed(values),
    }
    record["value_turns"] = value_turns(tx)
    if job.replace is not None:
        was = first_values(tx)[job.replace[0]]
        record["replaced"] = {"name": job.replace[0], "value": job.replace[1], "was": was}
    pairs = caller_turns(tx.before)
    if not pairs:
        raise ValueError("no caller turn before the confirmation question")
    session = await replayer.call(f"sgd.{job.variant}.{job.number}.{tx.dialogue_id}")
    try:
        for words, agent in pairs[:-1]:
            await session.turn(words.text, say(agent.text if agent else "Okay."))
        await session.turn(pairs[-1][0].text, call(spec.name, **spec.typed(values)), relay)
        first = session.decisions()
        record["first"] = _first(first[0], spec) if first else None
        asked = bool(first) and first[0].enforced_outcome == "ask"
        if job.variant == "plain" and asked:
            await _answer(session, tx, spec, values)
        wanted = spec.typed(tx.parameters)
        runs = replayer.executions.for_caller(session.caller.id)
        record["completed"] = any(matches(r.arguments, wanted) for r in runs)
        record["executed_other"] = [r.arguments for r in runs if not matches(r.arguments, wanted)]
        record["decisions"] = [{"outcome": d.outcome, "rule": d.rule} for d in session.decisions()]
        record["caller_turns"] = len(pairs) + len(caller_turns((tx.answer, *tx.after)))
        record["overruns"] = session.overruns
        record["told"] = [
            f"{o.tool}: {o.output.splitlines()[0] if o.output else ''}" for o in session.outputs
        ]
    finally:
        await session.aclose()
    if job.replace is not None and record["first"] is not None:
        statuses = record["first"]["arguments"] or {}
        record["replaced"]["status"] = statuses.get(job.replace[0], {}).get("status")
    return record


async def _answer(session: Call, tx: data.Transaction, spec: IntentTool, values: dict[str, str]) -> None:
    """From the caller's answer to the dialogue's final yes, as the dialogue goes."""
    rest = caller_turns((tx.answer, *tx.after))
    questions = [agent for _, agent in rest if agent is not None and confirms(agent)]
    for words, agent in rest:
        if agent is None:  # the dialogue's final answer: its service call comes next
            await session.turn(words.text, call(gate.CONFIRM_TOOL), relay)
        elif confirms(agent):
            # The caller changed something and the agent confirms again: the model calls
            # the tool with what that question confirms (the last one: the service call's).
            values = dict(tx.parameters) if agent is questions[-1] else {**values, **confirms(agent)}
            await session.turn(words.text, call(spec.name, **spec.typed(values)), relay)
        else:
            await session.turn(words.text, say(agent.text))


def _first(row: Any, spec: IntentTool) -> dict[str, Any]:
    """The first decision as the report keeps it: outcome, rule, and the argument trace."""
    evidence = json.loads(row.evidence_json or "{}")
    trace = evidence.get("arguments")
    arguments = None
    if isinstance(trace, list):
        arguments = {
            str(a.get("name")): {k: a.get(k) for k in ("status", "source", "speaker", "rule", "turn")}
            for a in trace
            if isinstance(a, dict)
        }
    deciding: dict[str, Any] = next(
        (r for r in json.loads(row.trace_json or "[]") if r.get("rule") == row.rule), {}
    )
    return {
        "outcome": row.outcome,
        "enforced": row.enforced_outcome,
        "rule": row.rule,
        "detail": deciding.get("detail", ""),
        "arguments": arguments,
        "traced": None if arguments is None else _traced(arguments, spec),
    }


def _traced(arguments: dict[str, dict[str, Any]], spec: IntentTool) -> bool:
    """Every argument of the tool is in the trace as traced or default."""
    return all(arguments.get(p.name, {}).get("status") in TRACED for p in spec.params)


# -- the run -------------------------------------------------------------------------


def jobs(base: Path, split: str, sample: int, seed: int, variant: str) -> tuple[list[Job], int]:
    """The sampled jobs, and how many transactions could not get a negative value."""
    everything = list(data.transactions(base, split))
    chosen = spread(everything, sample, key=lambda t: t.intent.service, seed=seed)
    if variant == "plain":
        return [Job(n, tx) for n, tx in enumerate(chosen)], 0
    from bench.sgd.tools import Executions, make_tools

    specs = make_tools(data.intents(base, split).values(), Executions())
    found = negative.pools(everything)
    out: list[Job] = []
    skipped = 0
    for n, tx in enumerate(chosen):
        spec = specs[(tx.intent.service, tx.intent.name)]
        replace = negative.choose(tx, spec, first_values(tx), found, seed=seed)
        if replace is None:
            skipped += 1
            continue
        out.append(Job(n, tx, variant, replace))
    return out, skipped


def summarise(results: list[dict[str, Any]], variant: str) -> dict[str, Any]:
    """The figures, overall and per service, and the first decisions' rules."""
    ok = [r for r in results if "error" not in r]
    rules = Counter(f"{r['first']['enforced']} {r['first']['rule']}" for r in ok if r.get("first"))
    if variant == "negative":
        table = Table(["n", "acted", "traced_repl", "asked", "abstained", "no_trace", "error"])
    else:
        table = Table(["n", "completed", "traced", "asked", "abstained", "acted", "no_trace", "wrong_exec"])
        table.columns.append("error")
    for r in results:
        service = r.get("service", "?")
        if "error" in r:
            table.add(service, n=1, error=1)
            continue
        first = r.get("first") or {}
        enforced = first.get("enforced")
        common = {
            "n": 1,
            "asked": enforced == "ask",
            "abstained": enforced == "abstain",
            "no_trace": first.get("arguments") is None,
        }
        if variant == "negative":
            status = r.get("replaced", {}).get("status")
            table.add(service, **common, acted=enforced == "act", traced_repl=status == "traced")
        else:
            table.add(
                service,
                **common,
                completed=r["completed"],
                traced=first.get("traced") is True,
                acted=enforced == "act",
                wrong_exec=bool(r["executed_other"]),
            )
    spread_over: dict[str, list[int]] = {}
    for r in ok:
        key = "values in one caller turn" if r["value_turns"] <= 1 else "values over several caller turns"
        counts = spread_over.setdefault(key, [0, 0])
        counts[0] += bool(r.get("completed"))
        counts[1] += 1
    return {
        "table": table.rows,
        "rendered": table.render(),
        "first_decision_rules": dict(rules.most_common()),
        "completed_by_spread": {k: {"completed": v[0], "n": v[1]} for k, v in sorted(spread_over.items())},
        "seconds_per_dialogue": timing(results),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", default="dev", choices=data.SPLITS)
    parser.add_argument(
        "--sample", type=int, default=300, help="transactions to replay (spread over services)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="processes (each with its own gate)")
    parser.add_argument("--variant", default="plain", choices=["plain", "negative"])
    parser.add_argument(
        "--evidence",
        default="required",
        choices=["required", "recorded"],
        help="recorded: evidence never decides (measures the confirmation leg alone)",
    )
    parser.add_argument("--timeout-s", type=float, default=5.0, help="the policies' decision budget")
    parser.add_argument("--sgd", help="the SGD checkout (default: GATE_SGD_DIR)")
    parser.add_argument("--out", help="write the JSON report here")
    args = parser.parse_args(argv)
    try:
        base = data.root(args.sgd)
        todo, skipped = jobs(base, args.split, args.sample, args.seed, args.variant)
    except (data.SGDMissing, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    setup = Setup(
        sgd=str(base),
        split=args.split,
        confirm="when_unsure" if args.variant == "negative" else "always",
        evidence_required=args.evidence == "required",
        timeout_s=args.timeout_s,
    )
    started = time.perf_counter()
    results = run(todo, replay, setup, workers=args.workers, progress=True, quiet=True)
    wall = time.perf_counter() - started
    summary = summarise(results, args.variant)
    print(
        f"SGD {args.split}, {len(results)} transactions, variant {args.variant}, "
        f"evidence {args.evidence}, seed {args.seed}"
    )
    if skipped:
        print(f"({skipped} sampled transactions had no required argument a never-said value could replace)")
    print(summary["rendered"])
    print("first decision (enforced outcome, deciding rule):")
    for rule, n in summary["first_decision_rules"].items():
        print(f"  {n:5}  {rule}")
    if args.variant == "plain":
        for key, c in summary["completed_by_spread"].items():
            print(f"completed, {key}: {c['completed']} of {c['n']}")
    if all(r.get("first", {}) and r["first"].get("arguments") is None for r in results if "error" not in r):
        print("no trace recorded: no first decision has evidence_json['arguments']")
    print(timing_line(wall, args.workers, summary["seconds_per_dialogue"]))
    if args.out:
        report = {
            "split": args.split,
            "variant": args.variant,
            "sample": args.sample,
            "seed": args.seed,
            "workers": args.workers,
            "timeout_s": args.timeout_s,
            "evidence": args.evidence,
            "skipped": skipped,
            "wall_s": round(wall, 1),
            "summary": {k: v for k, v in summary.items() if k != "rendered"},
            "dialogues": results,
        }
        Path(args.out).write_text(json.dumps(report, indent=1, default=str))
        print(f"report: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
