"""Gated tools and their policies, generated from an SGD schema's transactional intents.

One generator for every service, nothing tuned per service or phrasing:

- the tool is named after the service and the intent (``restaurants_2_reserve_restaurant``:
  two services of a schema may share an intent name); its docstring is the intent's
  description;
- its parameters are the intent's required slots (no default) and then its optional slots
  (the schema's default), each described by the slot's description and typed from the
  schema: a categorical slot whose values are all whole numbers is ``int``, one whose values
  are ``True``/``False`` is ``bool``, anything else is ``str`` (dates are written
  ``YYYY-MM-DD`` and times ``HH:MM``, as SGD's service calls write them);
- SGD's ``dontcare`` default ("no preference") is ``None``, so the parameter is optional
  (``T | None``);
- the tool records what it executed (:class:`Executions`) and returns what it did;
- its policy (:func:`policy_for`) is ``confirm: always`` with an evidence query rendered
  from the intent's description and every slot as a ``{placeholder}``, required, and an
  ask message naming every value.

Run ``python -m bench.sgd.tools --split dev --out DIR`` to write the policies and look at them.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import Field

import gate
from bench.sgd import data

Kind = Literal["int", "bool", "str"]
Form = Literal["date", "time", "number", "text"]
DONTCARE = "dontcare"  # SGD's value for "the caller has no preference"
_FORM_HINT = {"date": " (YYYY-MM-DD)", "time": " (HH:MM, 24-hour clock)"}


@dataclass(frozen=True)
class Param:
    """One tool parameter made from one slot."""

    slot: data.Slot
    kind: Kind
    form: Form
    required: bool
    default: Any = None  # typed; None for a required slot or a ``dontcare`` default

    @property
    def name(self) -> str:
        return self.slot.name

    @property
    def label(self) -> str:
        """The slot as a person would name it (``number_of_seats``: "number of seats")."""
        return self.slot.name.replace("_", " ")

    def typed(self, value: str) -> Any:
        """``value`` (as SGD writes it: ``"2"``, ``"True"``) as this parameter takes it.

        ``dontcare`` is None. A value that does not fit the type is returned as it is,
        so the session refuses it the way it refuses a model's malformed call.
        """
        if value == DONTCARE:
            return None
        if self.kind == "int" and re.fullmatch(r"-?\d+", str(value)):
            return int(value)
        if self.kind == "bool" and value in ("True", "False"):
            return value == "True"
        return value


@dataclass(frozen=True)
class IntentTool:
    """The gated tool of one intent, with what it was made from."""

    intent: data.Intent
    name: str
    params: tuple[Param, ...]
    tool: gate.GatedTool

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def typed(self, values: Mapping[str, str]) -> dict[str, Any]:
        """Service-call values (slot -> SGD text) as the tool takes them; unknown slots dropped."""
        names = {p.name for p in self.params}
        return {k: self.param(k).typed(v) for k, v in values.items() if k in names}


@dataclass(frozen=True)
class Execution:
    """One run of a tool body: who it ran for and with what."""

    caller_id: str
    tool: str
    arguments: dict[str, Any]
    decision_id: str


@dataclass
class Executions:
    """What the generated tools executed, in order."""

    runs: list[Execution] = field(default_factory=list)

    def for_caller(self, caller_id: str) -> list[Execution]:
        return [r for r in self.runs if r.caller_id == caller_id]


def tool_name(intent: data.Intent) -> str:
    return f"{_snake(intent.service)}_{_snake(intent.name)}"


def _snake(name: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return re.sub(r"[^a-z0-9]+", "_", spaced.lower()).strip("_")


def kind_of(slot: data.Slot) -> Kind:
    """The type a slot's values take: int, bool or str (see the module docstring)."""
    if slot.categorical and slot.values:
        if all(re.fullmatch(r"\d+", v) for v in slot.values):
            return "int"
        if set(slot.values) <= {"True", "False"}:
            return "bool"
    return "str"


def form_of(slot: data.Slot, kind: Kind) -> Form:
    """What a slot's value is written as: a date or a time (by the slot's name), a number, or text."""
    words = set(slot.name.lower().split("_"))
    if kind == "str" and "date" in words:
        return "date"
    if kind == "str" and "time" in words:
        return "time"
    if kind == "int":
        return "number"
    return "text"


def params_of(intent: data.Intent) -> tuple[Param, ...]:
    out: list[Param] = []
    for slot in intent.required:
        kind = kind_of(slot)
        out.append(Param(slot, kind, form_of(slot, kind), required=True))
    for slot, default in intent.optional:
        kind = kind_of(slot)
        param = Param(slot, kind, form_of(slot, kind), required=False)
        out.append(Param(slot, kind, param.form, required=False, default=param.typed(default)))
    return tuple(out)


def _description(param: Param) -> str:
    text = param.slot.description.rstrip(". ")
    text += _FORM_HINT.get(param.form, "")
    if param.kind == "str" and param.slot.categorical and param.slot.values:
        text += f" (one of: {', '.join(param.slot.values)})"
    return text


def _annotation(param: Param) -> Any:
    base: Any = {"int": int, "bool": bool, "str": str}[param.kind]
    if param.kind == "str" and param.slot.categorical and param.slot.values:
        # A closed set of values is typed as one, as a developer would type it.
        base = Literal[tuple(param.slot.values)]
    if not param.required and param.default is None:
        base = base | None
    return Annotated[base, Field(description=_description(param))]


def make_tool(intent: data.Intent, executions: Executions) -> IntentTool:
    """The gated tool of ``intent``; every run it makes is appended to ``executions``.

    Raises:
        gate.ToolDefinitionError: a slot's name looks like an identity (the gate refuses it).
    """
    name = tool_name(intent)
    params = params_of(intent)
    labels = {p.name: p.label for p in params}

    async def body(**kwargs: Any) -> gate.Executed:
        action: gate.Action = kwargs.pop("action")
        executions.runs.append(Execution(action.caller.id, name, dict(kwargs), action.decision_id))
        done = ", ".join(f"{labels[k]} {v}" for k, v in kwargs.items())
        return gate.Executed(
            f"Done: {_lower_first(intent.description)} ({done}).", external_ref=f"sgd-{name}"
        )

    signature = inspect.Signature(
        [
            inspect.Parameter(
                p.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if p.required else p.default,
                annotation=_annotation(p),
            )
            for p in params
        ]
        + [inspect.Parameter("action", inspect.Parameter.KEYWORD_ONLY, annotation=gate.Action)],
        return_annotation=gate.Executed,
    )
    fn: Callable[..., Awaitable[gate.Executed]] = body
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = intent.description
    fn.__signature__ = signature  # type: ignore[attr-defined]
    fn.__annotations__ = {
        **{p.name: _annotation(p) for p in params},
        "action": gate.Action,
        "return": gate.Executed,
    }
    return IntentTool(intent, name, params, gate.gated_tool(fn))


def make_tools(intents: Iterable[data.Intent], executions: Executions) -> dict[tuple[str, str], IntentTool]:
    """One tool per intent, by (service, intent name)."""
    return {(i.service, i.name): make_tool(i, executions) for i in intents}


def _lower_first(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].lower() + text[1:]


def _with_values(params: Iterable[Param]) -> str:
    return ", ".join(f"{p.label} {{{p.name}}}" for p in params)


def policy_for(
    spec: IntentTool,
    *,
    confirm: str = "always",
    evidence_required: bool = True,
    timeout_s: float = 5.0,
) -> dict[str, Any]:
    """The policy of one generated tool, as the YAML mapping ``gate`` loads.

    ``timeout_s``: the decision budget. A replay runs many calls at once on shared
    cores, so its default is longer than a live call's; a decision past it abstains
    (``evidence.timeout``) and is counted as such.
    """
    what = _lower_first(spec.intent.description)
    values = _with_values(spec.params)
    return {
        "tool": spec.name,
        "action": f"sgd.{_snake(spec.intent.service)}.{_snake(spec.intent.name)}",
        "mode": "enforce",
        "caller": {"verified": True},
        "evidence": {
            "query": f"{spec.intent.description.rstrip('. ')}: {values}",
            "required": evidence_required,
        },
        "confirm": confirm,
        "timeout_s": timeout_s,
        "messages": {
            "ask": f"Please confirm: {what}, with {values}?",
            "abstain": f"I can't {what} on this call.",
            "conflict": f"That changed while we spoke, so I did not {what}.",
            "failure": f"The system had a problem, so I did not {what}.",
        },
    }


def write_policies(
    tools: Iterable[IntentTool],
    directory: Path,
    *,
    confirm: str = "always",
    evidence_required: bool = True,
    timeout_s: float = 5.0,
) -> Path:
    """Write one policy file per tool into ``directory`` (created); returns it."""
    directory.mkdir(parents=True, exist_ok=True)
    for spec in tools:
        policy = policy_for(spec, confirm=confirm, evidence_required=evidence_required, timeout_s=timeout_s)
        (directory / f"{spec.name}.yaml").write_text(yaml.safe_dump(policy, sort_keys=False, width=1000))
    return directory


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", default="dev", choices=data.SPLITS)
    parser.add_argument("--sgd", help="the SGD checkout (default: GATE_SGD_DIR)")
    parser.add_argument("--out", required=True, help="directory to write the policies into")
    parser.add_argument("--confirm", default="always", choices=["always", "when_unsure", "never"])
    args = parser.parse_args(argv)
    try:
        base = data.root(args.sgd)
    except data.SGDMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    tools = make_tools(data.intents(base, args.split).values(), Executions())
    out = write_policies(tools.values(), Path(args.out), confirm=args.confirm)
    print(f"{len(tools)} policies written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
