"""Replay SGD's confirmation questions and the callers' answers through live gate sessions.

For each sampled confirmation (spread over the split's services), in a text-mode
``AgentSession`` with a verified caller, ``MemoryAgent`` memory and the generated tools
(``confirm: always``; evidence recorded, not required, so the caller's answer is what
decides):

1. the caller's turns before the question are typed one by one, the model answering
   each with the agent's own next utterance;
2. at the question, the model calls the tool with the values the dialogue has at that
   point (the question's own, and the earlier turns' for the rest) and then speaks the
   **dataset's own** confirmation question, not the gate's;
3. the caller gives the dataset's own answer and the model calls ``confirm_action``.

Labels come from the caller's acts (:func:`bench.sgd.data.confirmations`): ``yes``,
``yes_question`` (a yes with a side question), ``change`` (a no or a new value).
Measured: **false yes** (a change executed), **missed plain yes** (a yes not executed),
**yes + side question executed**, and whether the model was then **told the caller's
question** (its words are in what ``confirm_action`` returned). The yes figures are over
questions that name every value the tool gets (the gate rightly holds a yes to a
question that left a value out; those are counted apart); false yes is over all.

By default the tool gets the values as the agent says them ("March 8th", "7:30 pm");
``--variant canonical`` calls it with canonical values (``2019-03-08``, ``19:30``) while
the agent still says them its way.

Run: python -m bench.sgd.confirmations --split dev --sample 300 [--seed 1] [--workers 2]
     [--variant canonical] [--out report.json] [--sgd DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gate
from bench.sgd import data
from bench.sgd.model import relay
from bench.sgd.replay import Replayer, Setup, Table, caller_turns, run, spread, timing, timing_line
from bench.sgd.tools import IntentTool, Param
from gate.testing.llm import call, say

_VALUE_ACTS = ("INFORM", "OFFER", "CONFIRM")


@dataclass(frozen=True)
class Job:
    number: int
    item: data.Confirmation
    variant: str = "spoken"


def known_values(conf: data.Confirmation, canonical: bool) -> dict[str, str]:
    """Every slot value the dialogue has at the question: the latest said, then the question's own."""
    values: dict[str, str] = {}
    for turn in conf.before:
        for act in turn.acts:
            if act.act in _VALUE_ACTS and act.slot and act.values:
                values[act.slot] = act.canonical[0] if canonical and act.canonical else act.values[0]
    for slot, (canon, spoken) in conf.pending.items():
        values[slot] = canon if canonical or not spoken else spoken
    return values


def arguments(spec: IntentTool, conf: data.Confirmation, canonical: bool) -> dict[str, str] | None:
    """What the tool is called with (slot -> SGD text), or None when a required value is unknown.

    A typed parameter (a number, a flag) always takes the canonical value: that is the
    only form the tool accepts.
    """
    spoken = known_values(conf, canonical)
    canon = known_values(conf, True)
    out: dict[str, str] = {}
    for p in spec.params:
        if p.name not in canon:
            if p.required:
                return None
            continue
        out[p.name] = spoken[p.name] if p.kind == "str" else canon[p.name]
    return out


def names_every_value(spec: IntentTool, conf: data.Confirmation, args: dict[str, str]) -> bool:
    """The question names every value the tool gets that is said as a value (a flag is not)."""
    typed = {p.name: (p.typed(args[p.name]) if p.name in args else p.default) for p in spec.params}
    return all(p.name in conf.pending for p in spec.params if _spoken(p, typed[p.name]))


def _spoken(param: Param, value: Any) -> bool:
    return value is not None and value != "" and param.kind != "bool"


def side_questions(answer: str) -> list[str]:
    """The caller's questions in an answer: its sentences that end with "?" (else the whole answer)."""
    found = [s.strip() for s in re.findall(r"[^.!?]*\?", answer) if s.strip(" ?")]
    return found or [answer.strip()]


def _folded(text: str) -> str:
    return " ".join(re.sub(r"[^\w']+", " ", text.lower()).split())


def told(output: str, answer: str) -> bool:
    """Every side question of the answer is, word for word, in what the model was given."""
    got = _folded(output)
    return all(_folded(q) in got for q in side_questions(answer))


def _reading(output: str, executed: bool) -> str:
    """What the gate did with the answer, from what it told the model (for studying failures)."""
    if executed:
        return "executed"
    for phrase, name in (
        ("not to the pending question", "not_heard"),
        ("did not clearly say yes", "unclear"),
        ("wants something different", "change"),
        ("said no", "no"),
        ("no action waiting", "nothing_pending"),
    ):
        if phrase in output:
            return name
    return "other"


async def replay(replayer: Replayer, job: Job) -> dict[str, Any]:
    conf = job.item
    intent = replayer.intents.get((conf.service, conf.intent))
    record: dict[str, Any] = {
        "dialogue_id": conf.dialogue_id,
        "service": conf.service,
        "label": conf.label,
    }
    if intent is None:
        return {**record, "skipped": f"{conf.intent or 'no intent'} is not a transactional intent"}
    spec = replayer.tool_for(intent)
    args = arguments(spec, conf, canonical=job.variant == "canonical")
    if args is None:
        return {**record, "skipped": "a required value is not in the dialogue"}
    pairs = caller_turns(conf.before)
    if not pairs:
        return {**record, "skipped": "no caller turn before the question"}
    record["tool"] = spec.name
    record["called_with"] = spec.typed(args)
    record["complete"] = names_every_value(spec, conf, args)
    session = await replayer.call(f"sgd.conf.{job.variant}.{job.number}.{conf.dialogue_id}")
    try:
        for words, agent in pairs[:-1]:
            await session.turn(words.text, say(agent.text if agent else "Okay."))
        await session.turn(pairs[-1][0].text, call(spec.name, **spec.typed(args)), say(conf.question))
        first = session.decisions()
        record["asked"] = bool(first) and first[0].enforced_outcome == "ask"
        outputs = await session.turn(conf.answer, call(gate.CONFIRM_TOOL), relay)
        output = next((o.output for o in outputs if o.tool == gate.CONFIRM_TOOL), "")
        executed = bool(replayer.executions.for_caller(session.caller.id))
        record["executed"] = executed
        record["reading"] = _reading(output, executed)
        record["told_question"] = told(output, conf.answer) if executed else False
        record["decisions"] = [{"outcome": d.outcome, "rule": d.rule} for d in session.decisions()]
        record["overruns"] = session.overruns
        record["output"] = output.splitlines()[0] if output else ""
    finally:
        await session.aclose()
    return record


def jobs(base: Path, split: str, sample: int, seed: int, variant: str) -> list[Job]:
    everything = list(data.confirmations(base, split))
    chosen = spread(everything, sample, key=lambda c: c.service, seed=seed)
    return [Job(n, c, variant) for n, c in enumerate(chosen)]


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    table = Table(
        ["n", "incomplete", "yes", "missed_yes", "yes_q", "yes_q_exec", "yes_q_told", "change", "false_yes"],
        shares={"missed_yes": "yes", "yes_q_exec": "yes_q", "yes_q_told": "yes_q", "false_yes": "change"},
    )
    table.columns += ["skipped", "error"]
    readings: Counter[str] = Counter()
    for r in results:
        service = r.get("service", "?")
        if "error" in r or "skipped" in r:
            table.add(service, n=1, error="error" in r, skipped="skipped" in r)
            continue
        label, executed, complete = r["label"], r["executed"], r["complete"]
        readings[f"{label} {'complete' if complete else 'incomplete'}: {r['reading']}"] += 1
        table.add(
            service,
            n=1,
            incomplete=not complete,
            yes=label == "yes" and complete,
            missed_yes=label == "yes" and complete and not executed,
            yes_q=label == "yes_question" and complete,
            yes_q_exec=label == "yes_question" and complete and executed,
            yes_q_told=label == "yes_question" and complete and r["told_question"],
            change=label == "change",
            false_yes=label == "change" and executed,
        )
    return {
        "table": table.rows,
        "rendered": table.render(),
        "readings": dict(sorted(readings.items())),
        "seconds_per_dialogue": timing(results),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", default="dev", choices=data.SPLITS)
    parser.add_argument(
        "--sample", type=int, default=300, help="confirmations to replay (spread over services)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="processes (each with its own gate)")
    parser.add_argument("--variant", default="spoken", choices=["spoken", "canonical"])
    parser.add_argument("--timeout-s", type=float, default=5.0, help="the policies' decision budget")
    parser.add_argument("--sgd", help="the SGD checkout (default: GATE_SGD_DIR)")
    parser.add_argument("--out", help="write the JSON report here")
    args = parser.parse_args(argv)
    try:
        base = data.root(args.sgd)
        todo = jobs(base, args.split, args.sample, args.seed, args.variant)
    except (data.SGDMissing, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    setup = Setup(sgd=str(base), split=args.split, evidence_required=False, timeout_s=args.timeout_s)
    started = time.perf_counter()
    results = run(todo, replay, setup, workers=args.workers, progress=True, quiet=True)
    wall = time.perf_counter() - started
    summary = summarise(results)
    print(f"SGD {args.split}, {len(results)} confirmations, variant {args.variant}, seed {args.seed}")
    print(summary["rendered"])
    print("what the gate did with each answer (label, question, reading):")
    for reading, n in summary["readings"].items():
        print(f"  {n:5}  {reading}")
    print(timing_line(wall, args.workers, summary["seconds_per_dialogue"]))
    if args.out:
        report = {
            "split": args.split,
            "variant": args.variant,
            "sample": args.sample,
            "seed": args.seed,
            "workers": args.workers,
            "timeout_s": args.timeout_s,
            "wall_s": round(wall, 1),
            "summary": {k: v for k, v in summary.items() if k != "rendered"},
            "dialogues": results,
        }
        Path(args.out).write_text(json.dumps(report, indent=1, default=str))
        print(f"report: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
