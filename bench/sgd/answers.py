"""Confirmation answers of recorded dialogue, read by the gate: SGD's confirmation pairs offline.

For every agent confirmation question of a split of the Schema-Guided Dialogue dataset and the
caller's answer to it (``bench/sgd/data.py`` ``confirmations``), it runs what a session runs on
``confirm_action``: the heard check (every pending value in the agent's question, as a value,
with the dialogue's own clock: 2019-03-01 is "today") and the answer reader. An action runs when
both say yes. Two variants of the pending values:

  spoken     the values as the agent said them ("March 8th", "7:30 pm", "tomorrow")
  canonical  the values as the service call takes them ("2019-03-08", "19:30"); SGD's
             "True"/"False" are flags and "None"/"dontcare" no value, neither spoken

Figures, by SGD's own labels of the caller's acts:
  false yes         a no or a change (NEGATE / INFORM) that ran the action (goal 0)
  missed plain yes  a plain yes (AFFIRM) that did not run it (goal <= 3%)
  side question     a yes with a question (AFFIRM + REQUEST) that ran it, the question passed on
                    (goal >= 95%); "held" counts those held for a question about the terms

Run: GATE_SGD_DIR=/path/to/dstc8-schema-guided-dialogue python bench/sgd/answers.py
     [--split dev] [--show 20] [--variant spoken|canonical|both]
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.sgd.data import Confirmation, SGDMissing, confirmations, root  # noqa: E402
from gate.confirm.answer import read_answer  # noqa: E402
from gate.confirm.heard import question_heard  # noqa: E402
from gate.confirm.pending import spoken_values  # noqa: E402

TODAY = date(2019, 3, 1)  # SGD's dialogues say "today" of this day


def argument(canonical: str) -> Any:
    """A canonical SGD slot value as a tool would get it: flags as bools, "None" as no value."""
    if canonical in ("True", "False"):
        return canonical == "True"
    if canonical in ("None", "dontcare", ""):
        return None
    return canonical


@dataclass
class Outcome:
    label: str
    ran: bool
    held: bool  # held for a question about the deal's terms
    rule: str
    heard: bool
    asked: bool  # the model was handed the caller's side question


def replay(pair: Confirmation, variant: str) -> Outcome:
    if variant == "spoken":
        args = {slot: argument(canonical) for slot, (canonical, _) in pair.pending.items()}
        args = {slot: spoken if args[slot] not in (None, True, False) else args[slot]
                for slot, (_, spoken) in pair.pending.items()}  # fmt: skip
    else:
        args = {slot: argument(canonical) for slot, (canonical, _) in pair.pending.items()}
    values = spoken_values(args)
    flags = {slot: value for slot, value in args.items() if isinstance(value, bool)}
    heard = question_heard(pair.question, values, lang="en", today=TODAY)
    reading = read_answer(
        pair.answer, question=pair.question, pending={**values, **flags}, lang="en", today=TODAY
    )
    ran = heard.ok and reading.answer == "yes"
    return Outcome(
        pair.label,
        ran,
        heard.ok and reading.rule == "answer.side_question.terms",
        reading.rule if heard.ok else "heard." + (heard.reason.split(":")[0].replace(" ", "_") or "no"),
        heard.ok,
        ran and bool(reading.side_question),
    )


def report(pairs: list[Confirmation], variant: str, show: int) -> dict[str, float]:
    outcomes: list[Outcome] = []
    times: list[float] = []
    for pair in pairs:
        t = time.perf_counter()
        outcomes.append(replay(pair, variant))
        times.append((time.perf_counter() - t) * 1000)
    by_label = collections.Counter(o.label for o in outcomes)
    false_yes = [(p, o) for p, o in zip(pairs, outcomes, strict=True) if o.label == "change" and o.ran]
    missed = [(p, o) for p, o in zip(pairs, outcomes, strict=True) if o.label == "yes" and not o.ran]
    side = [(p, o) for p, o in zip(pairs, outcomes, strict=True) if o.label == "yes_question"]
    side_ran = sum(o.ran for _, o in side)
    side_asked = sum(o.asked for _, o in side)
    side_held = sum(o.held for _, o in side)
    n_yes, n_side = by_label["yes"], by_label["yes_question"]
    figures = {
        "false_yes": len(false_yes),
        "missed": len(missed) / n_yes if n_yes else 0.0,
        "side_ran": side_ran / n_side if n_side else 0.0,
    }
    print(
        f"\n## {variant} values: {len(pairs)} pairs "
        f"(yes {n_yes}, yes + question {n_side}, change {by_label['change']})"
    )
    print(f"false yes (a no or a change that ran): {len(false_yes)} of {by_label['change']} (goal 0)")
    print(f"missed plain yes: {len(missed)} of {n_yes} = {figures['missed']:.1%} (goal <= 3%)")
    print(
        f"yes + side question ran: {side_ran} of {n_side} = {figures['side_ran']:.1%} (goal >= 95%); "
        f"question passed on {side_asked}; held for the terms {side_held}"
    )
    print(f"reading one pair (heard check + answer): p50 {statistics.median(times):.2f} ms")
    for title, rows in (("false yes", false_yes), ("missed plain yes", missed),
                        ("side question not run", [(p, o) for p, o in side if not o.ran])):  # fmt: skip
        rules = collections.Counter(o.rule for _, o in rows)
        if rows:
            print(f"  {title} by deciding rule: " + ", ".join(f"{r} {n}" for r, n in rules.most_common()))
        for pair, outcome in rows[:show]:
            print(f"    [{outcome.rule}] Q: {pair.question!r}\n      A: {pair.answer!r}")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sgd", default=None, help="the SGD checkout (default: GATE_SGD_DIR)")
    parser.add_argument("--split", default="dev", choices=("train", "dev"))
    parser.add_argument("--variant", default="both", choices=("spoken", "canonical", "both"))
    parser.add_argument("--show", type=int, default=0, help="print this many pairs of each miss")
    args = parser.parse_args()
    try:
        pairs = [p for p in confirmations(root(args.sgd), args.split) if p.label != "other"]
    except SGDMissing as exc:
        print(f"bench/sgd/answers.py: {exc}", file=sys.stderr)
        return 2
    for variant in ("spoken", "canonical") if args.variant == "both" else (args.variant,):
        report(pairs, variant, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
