"""What is traced: the action (its query and description) and each argument with what it is.

:func:`build` reads a gated tool and its policy once per call: each
argument's value and kind, the words that say what it is (its name and its
description, so "number_of_seats" counts people and "from_location" is where a
journey starts), its default, and whether the policy binds it (the values a
caller's words must carry). :func:`from_match` builds a request from a query
and values alone, for services asked without the tool at hand.
"""

from __future__ import annotations

import inspect
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import TYPE_CHECKING, Any, get_args, get_origin, get_type_hints

from gate.evidence import words
from gate.evidence.types import EvidenceSlot
from gate.values import Value, normalise

if TYPE_CHECKING:
    from gate.decorator import GatedTool
    from gate.policy.schema import Policy

_NO_DEFAULT = inspect.Parameter.empty
_STOP = frozenset(
    {
        *("a", "an", "the", "on", "at", "in", "of", "to", "for", "by", "with", "from", "and", "or", "as"),
        *("my", "me", "i", "your", "our", "this", "that", "it", "is", "be", "please", "some", "any"),
        *("number", "name", "given", "which", "what", "be", "will", "should", "who", "whom", "where"),
    }
)


@dataclass(frozen=True)
class ArgumentSpec:
    """One argument of the call, as the trace reads it.

    ``kind``: the value's kind (number, date, time, weekday, ident, text, bool,
    other). ``cues``: the words of its name and description. ``role``: ``from``
    or ``to`` when its name or description says where something starts or
    ends. ``unit``: the family of what a number counts (people, stay, room...).
    ``bound``: the policy binds it (the caller's words must carry it).
    """

    name: str
    value: Any
    norm: Value | None
    kind: str
    cues: tuple[str, ...] = ()
    role: str | None = None
    unit: str | None = None
    has_default: bool = False
    default: Any = None
    masked: bool = False
    bound: bool = True
    # The values the argument may take, when its type or its policy lists them (a Literal, an
    # Enum, limits.allowed): a caller naming another of them is asking for that one.
    choices: tuple[str, ...] = ()

    @property
    def shown(self) -> str:
        """The value as a caller would say it (a whole float without its ``.0``)."""
        if isinstance(self.value, float) and self.value.is_integer():
            return str(int(self.value))
        return str(self.value)

    @property
    def at_default(self) -> bool:
        return self.has_default and _same(self.value, self.default)


@dataclass(frozen=True)
class TraceRequest:
    """The request the caller's words are traced against.

    ``query`` is the rendered evidence query; ``template`` the same with its
    placeholders; ``description`` the tool's own. ``today`` is the call's date
    (relative dates in the caller's words are read against it). ``lang``: the
    caller's language, or None for all four.
    """

    tool: str
    query: str
    template: str
    description: str
    arguments: tuple[ArgumentSpec, ...]
    slot: EvidenceSlot | None = None
    today: date | None = None
    lang: str | None = None

    # Read by every rule of a trace: worked out once per request (the request never changes).
    @cached_property
    def bound(self) -> tuple[ArgumentSpec, ...]:
        return tuple(a for a in self.arguments if a.bound)

    @cached_property
    def masked_query(self) -> str:
        """The query with its placeholders left out: what the action is, whatever the values."""
        return " ".join(re.sub(r"\{[^{}]*\}", " ", self.template).split())

    @cached_property
    def action_texts(self) -> tuple[str, ...]:
        """The texts that say what the action is: the query without values, and the description."""
        out = [self.masked_query]
        if self.description and self.description not in out:
            out.append(self.description)
        return tuple(t for t in out if t.strip())

    @cached_property
    def key(self) -> tuple[Any, ...]:
        """Everything a reading of a statement depends on in this request (see
        :class:`gate.evidence.readings.ReadingCache`): equal keys read every statement alike."""
        return (
            self.tool,
            self.query,
            self.template,
            self.description,
            repr(self.slot),
            self.today,
            self.lang,
            repr(self.arguments),
        )

    def spec(self, name: str) -> ArgumentSpec | None:
        return next((a for a in self.arguments if a.name == name), None)


def _same(a: Any, b: Any) -> bool:
    if a == b:
        return True
    try:
        return normalise(a) == normalise(b)
    except (ValueError, TypeError):
        return str(a).strip().casefold() == str(b).strip().casefold()


def kind_of(value: Any) -> tuple[str, Value | None]:
    """The kind of a value and its canonical form ("2019-03-05" is a date, True a bool)."""
    if isinstance(value, bool):
        return "bool", None
    try:
        norm = normalise(value)
    except (ValueError, TypeError):
        return "other", None
    return norm.kind, norm


def _cue_words(name: str, description: str) -> tuple[str, ...]:
    raw = re.findall(r"[a-zà-ÿ]+", f"{name.replace('_', ' ')} {description}".casefold())
    said = [w for w in raw if w not in _STOP]
    # The verbs callers use for the moment an argument names ("return it on the 9th" for a
    # drop-off date): the argument's detail, not another action.
    said += [v for w in said for v in words.EVENT_VERBS.get(w, ())]
    return tuple(dict.fromkeys(said))


def _role(cues: Sequence[str]) -> str | None:
    for word in cues:
        if word in words.FROM_WORDS:
            return "from"
        if word in words.TO_WORDS:
            return "to"
    return None


def _unit(cues: Sequence[str], kind: str) -> str | None:
    if kind != "number":
        return None
    for word in cues:
        family = words.UNIT_OF.get(word)
        if family is not None and word not in ("of", "us", "them"):
            return family
    return None


# An argument whose own name says it holds a name or a title.
_NAME_CUES = frozenset({"name", "title"})
_ID_CUES = frozenset(
    {"id", "order", "account", "invoice", "reference", "ref", "code", "booking", "ticket", "card", "phone"}
)


def spec_for(
    name: str,
    value: Any,
    *,
    description: str = "",
    default: Any = _NO_DEFAULT,
    masked: bool = False,
    bound: bool = True,
    choices: Sequence[Any] = (),
) -> ArgumentSpec:
    kind, norm = kind_of(value)
    cues = _cue_words(name, description)
    if kind == "number" and isinstance(value, str) and value.strip().isdigit() and _ID_CUES & set(cues):
        # An order or account number passed as text is an identifier: other numbers are not it.
        kind, norm = "ident", Value("ident", value.strip())
    elif (
        kind in ("number", "ident")
        and isinstance(value, str)
        and _NAME_CUES & set(re.findall(r"[a-z]+", f"{name.replace('_', ' ')} {description}".casefold()))
    ):
        # A restaurant called "1760", a bistro called "Bistro 10un": a name, matched as a name
        # (its words, in any case), not a number or a code.
        kind, norm = "text", Value("text", " ".join(value.casefold().split()))
    return ArgumentSpec(
        name=name,
        value=value,
        norm=norm,
        kind=kind,
        cues=cues,
        # The name's own words first: "to_location" says its role in a word the cues drop.
        role=_role((*name.casefold().split("_"), *cues)),
        unit=_unit(cues, kind),
        has_default=default is not _NO_DEFAULT,
        default=None if default is _NO_DEFAULT else default,
        masked=masked,
        bound=bound,
        choices=tuple(str(getattr(c, "value", c)) for c in choices),
    )


def _choices(hint: Any) -> tuple[Any, ...]:
    """The values a type allows: a ``Literal[...]`` or an ``Enum``, also in ``Annotated`` or ``| None``."""
    import enum
    from typing import Literal, Union

    origin = get_origin(hint)
    if origin is not None and hasattr(hint, "__metadata__"):
        return _choices(get_args(hint)[0])
    if origin is Literal:
        return tuple(get_args(hint))
    if origin is Union or (origin is not None and type(hint).__name__ == "UnionType"):
        out: tuple[Any, ...] = ()
        for arg in get_args(hint):
            out += _choices(arg)
        return out
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return tuple(m.value for m in hint)
    return ()


def _descriptions(fn: Any) -> dict[str, str]:
    """Each parameter's description: ``Annotated[..., Field(description=...)]``, else the docstring's Args."""
    out: dict[str, str] = {}
    try:
        hints = get_type_hints(fn, include_extras=True)
    except Exception:
        hints = {}
    for pname, hint in hints.items():
        if get_origin(hint) is not None and hasattr(hint, "__metadata__"):
            for meta in get_args(hint)[1:]:
                described = getattr(meta, "description", None)
                if isinstance(described, str):
                    out[pname] = described
    doc = inspect.getdoc(fn) or ""
    section = re.split(r"^\s*Args:\s*$", doc, flags=re.MULTILINE)
    if len(section) > 1:
        for line in section[1].splitlines():
            found = re.match(r"\s*(\w+)(?:\s*\([^)]*\))?:\s*(.+)", line)
            if found and found.group(1) not in out:
                out[found.group(1)] = found.group(2).strip()
    return out


def tool_description(tool: GatedTool) -> str:
    if tool.description:
        return tool.description
    doc = inspect.getdoc(tool.fn) or ""
    return doc.split("\n\n", 1)[0].replace("\n", " ").strip()


def build(
    tool: GatedTool,
    policy: Policy,
    args: Mapping[str, Any],
    *,
    query: str,
    today: date | None = None,
    lang: str | None = None,
) -> TraceRequest:
    """The request for one call of ``tool`` with ``args`` under ``policy`` (``query``: rendered)."""
    evidence = policy.evidence
    template = evidence.query if evidence is not None else query
    bound_names = set(evidence.match_names()) if evidence is not None else set()
    described = _descriptions(tool.fn)
    signature = inspect.signature(tool.fn).parameters
    try:
        hints = get_type_hints(tool.fn, include_extras=True)
    except Exception:
        hints = {}
    specs = []
    for name in tool.params:
        if name not in args:
            continue
        param = signature.get(name)
        specs.append(
            spec_for(
                name,
                args[name],
                description=described.get(name, ""),
                default=param.default if param is not None else _NO_DEFAULT,
                masked=name in policy.audit.mask,
                bound=name in bound_names,
                choices=_choices(hints.get(name))
                or tuple((policy.limits[name].allowed or []) if name in policy.limits else []),
            )
        )
    slot = EvidenceSlot(evidence.slot.entity, evidence.slot.attribute) if evidence and evidence.slot else None
    return TraceRequest(
        tool=tool.name,
        query=query,
        template=template,
        description=tool_description(tool),
        arguments=tuple(specs),
        slot=slot,
        today=today,
        lang=lang,
    )


def from_match(
    query: str,
    match: Sequence[Any] | Mapping[str, Any] = (),
    *,
    slot: EvidenceSlot | None = None,
    today: date | None = None,
) -> TraceRequest:
    """A request from a rendered query and the values it binds (no tool, no descriptions).

    ``match`` maps argument names to raw values, or lists values as spoken. The
    template is the query with each value's first appearance as a placeholder,
    so the action's own words can still be told from its values.
    """
    items = (
        list(match.items()) if isinstance(match, Mapping) else [(f"value{i}", v) for i, v in enumerate(match)]
    )
    specs = [spec_for(name, value) for name, value in items if str(value).strip()]
    template = query
    for spec in sorted(specs, key=lambda s: len(s.shown), reverse=True):
        pattern = rf"(?<![\w-]){re.escape(spec.shown)}(?![\w-])"
        template = re.sub(pattern, "{" + spec.name + "}", template, count=1, flags=re.IGNORECASE)
    return TraceRequest(
        tool="",
        query=query,
        template=template,
        description="",
        arguments=tuple(specs),
        slot=slot,
        today=today,
    )


def render(template: str, args: Mapping[str, Any]) -> str:
    shown = {k: (str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)) for k, v in args.items()}
    return string.Formatter().vformat(template, (), shown)
