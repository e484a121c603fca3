"""The demo's audit table and the legend that explains every status in it.

Decision ids keep their width at any terminal width, so they can be copied
into ``gate audit show``; the other columns wrap. Below :data:`NARROW`
columns the table folds its columns together (the call's arguments one per
line; outcome and rule, receipt, delivery and alignment one above the other)
so an 80-column terminal still reads it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

NARROW = 160

OUTCOMES = {
    "act": "the tool ran",
    "ask": "the caller must confirm first; nothing ran",
    "abstain": "refused; nothing ran",
}
RECEIPTS = {
    "succeeded": "the tool ran and returned the reference shown",
    "failed": "the tool ran and failed",
    "skipped": "nothing ran; the decision is closed",
}
DELIVERIES = {
    "delivered": "the receipt reached the decision service, which acknowledged it",
    "local": "nothing to deliver: the policy refused before the decision service was asked, so the "
    "service holds no decision to close",
    "pending": "not acknowledged yet; `gate receipts drain` sends it again",
    "conflict": "the service holds a different receipt for this decision",
    "rejected": "the service refused the receipt for good",
}
ALIGNMENTS = {
    "aligned": "the service agrees: what ran (or did not) is what it decided",
    "violated": "the tool ran although the service said ask or abstain",
    "-": "no verdict: nothing was delivered",
}
RULES = {
    "evidence": "what the decision service read in the caller's own words about this action; "
    "an ask: not enough on its own, an act: the caller's spoken yes completed it",
    "evidence.trace": "the caller asked for this action and said every value, in this call or an earlier one",
    "evidence.missing": "nothing the caller said gives this value, so the gate asks the question carrying "
    "every value",
    "evidence.recorded": "the policy records what the caller said but does not require it; the caller's yes "
    "to the question decided",
    "confirm.always": "this tool's policy has every call confirmed by the caller",
    "confirm.never": "this tool's policy never asks, so an unsure call is refused",
    "state.conflict": "the tool's own system says it can no longer be done",
    "state.changed": "the state moved since the caller was asked, so the gate asks again",
    "state.unavailable": "the tool's state could not be read, so nothing was done",
    "rate": "the caller already used this tool as often as its policy allows",
    "caller.verified": "the policy needs a verified caller",
    "caller.roles": "the policy needs a caller with one of its roles",
    "service": "the decision service did not answer act, so nothing ran",
}
_LIMITS = {
    "max": "{arg} is above the policy's maximum",
    "min": "{arg} is below the policy's minimum",
    "allowed": "{arg} is not one of the values the policy allows",
    "max_length": "{arg} is longer than the policy allows",
}


@dataclass(frozen=True)
class Row:
    """One decision as the table shows it."""

    number: int
    decision_id: str
    tool: str
    arguments: Mapping[str, Any]
    outcome: str
    rule: str
    receipt: str
    reference: str
    delivery: str
    alignment: str


def audit_rows(decisions: Sequence[Any], receipts: Mapping[str, Any]) -> list[Row]:
    """The table's rows: each decision (numbered as in the story) with its receipt and its delivery."""
    rows = []
    for number, d in enumerate(decisions, start=1):
        r = receipts.get(d.id)
        try:
            arguments = json.loads(d.args_json)
        except (TypeError, ValueError):
            arguments = {}
        rows.append(
            Row(
                number,
                d.id,
                d.tool,
                arguments if isinstance(arguments, dict) else {},
                d.outcome,
                d.rule,
                r.status if r else "-",
                (r.external_ref or "-") if r else "-",
                r.delivery_state if r else "-",
                (r.policy_alignment or "-") if r else "-",
            )
        )
    return rows


def _value(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def audit_table(rows: Sequence[Row], width: int) -> Table:
    """The table for a terminal ``width`` columns wide; ids are never wrapped or cut."""
    table = Table(
        title="the audit of this run (gate audit list shows the same)",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
        collapse_padding=True,
        title_justify="left",
    )
    id_width = max((len(r.decision_id) for r in rows), default=8)
    ref_width = max((len(r.reference) for r in rows), default=9)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("decision", no_wrap=True, min_width=id_width)
    if width < NARROW:
        table.add_column("call", overflow="fold")
        table.add_column("outcome, rule / receipt, delivery", overflow="fold")
        for r in rows:
            call = Text(r.tool)
            for name, value in r.arguments.items():
                call.append(f"\n {name}={_value(value)}")
            table.add_row(str(r.number), r.decision_id, call, Text(_result_cell(r)))
        return table
    for name in ("call", "outcome", "rule", "receipt"):
        table.add_column(name, overflow="fold")
    table.add_column("reference", no_wrap=True, min_width=min(ref_width, 24))
    table.add_column("delivery", overflow="fold")
    table.add_column("alignment", overflow="fold")
    for r in rows:
        arguments = ", ".join(f"{k}={_value(v)}" for k, v in r.arguments.items())
        table.add_row(
            str(r.number),
            r.decision_id,
            Text(f"{r.tool}({arguments})"),
            r.outcome,
            Text(r.rule),
            r.receipt,
            r.reference,
            r.delivery,
            r.alignment,
        )
    return table


def _result_cell(r: Row) -> str:
    receipt = r.receipt if r.reference == "-" else f"{r.receipt} {r.reference}"
    delivery = r.delivery if r.alignment == "-" else f"{r.delivery}, {r.alignment}"
    return f"{r.outcome}, {r.rule}\n{receipt}\n{delivery}"


def rule_meaning(rule: str) -> str:
    """What a deciding rule's name means, in a sentence."""
    if rule in RULES:
        return RULES[rule]
    parts = rule.split(".")
    if parts[0] == "limits" and len(parts) == 3 and parts[2] in _LIMITS:
        return _LIMITS[parts[2]].format(arg=parts[1])
    if parts[0] == "limits" and len(parts) == 2:
        return f"{parts[1]} is not a number the policy's limits can hold"
    return "see the glossary of rule names (docs/glossary.md)"


def legend(rows: Iterable[Row]) -> Group:
    """Every value the table shows, explained: nothing in it is left to guess."""
    rows = list(rows)
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(ratio=1)
    groups: list[tuple[str, Iterable[str], Mapping[str, str] | None]] = [
        ("outcome", (r.outcome for r in rows), OUTCOMES),
        ("rule", (r.rule for r in rows), None),
        ("receipt", (r.receipt for r in rows), RECEIPTS),
        ("delivery", (r.delivery for r in rows), DELIVERIES),
        ("alignment", (r.alignment for r in rows), ALIGNMENTS),
    ]
    for title, values, meanings in groups:
        for i, value in enumerate(dict.fromkeys(values)):
            meaning = meanings.get(value, "-") if meanings is not None else rule_meaning(value)
            grid.add_row(title if i == 0 else "", value, meaning)
    return Group(Text("What each value in the table means (rule: the rule that decided):", style="dim"), grid)


def print_audit(console: Console, rows: Sequence[Row]) -> None:
    """The table, then its legend."""
    console.print()
    console.print(audit_table(rows, console.width))
    console.print(legend(rows))
