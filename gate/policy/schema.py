"""The policy schema: what one YAML file per gated tool may say.

A policy is validated twice: its shape when the file is parsed (unknown
keys, wrong types, non-finite numbers, malformed templates, bad action
names), and its references when it meets its tool (placeholders, limits,
masks and ``evidence.match`` must name real arguments). Both raise
:class:`~gate.errors.PolicyError` naming the file, the line and the field.
"""

from __future__ import annotations

import contextlib
import math
import re
import string
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

ACTION_NAME = re.compile(r"[A-Za-z][A-Za-z0-9._:\-]{0,127}")
_DURATION = re.compile(r" *(\d+(?:\.\d+)?) *(s|m|h|d) *")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# The hosted decision service refuses longer queries (400), so the gate never sends one.
MAX_QUERY_CHARS = 2000

Outcome = Literal["act", "ask", "abstain"]
# Lower is more restrictive: combining outcomes takes the minimum.
RESTRICTIVENESS: dict[str, int] = {"abstain": 0, "ask": 1, "act": 2}


class _Strict(BaseModel):
    # NaN compares false with everything, so a NaN bound would switch its limit off.
    # Strict types: "false" is not false, 1 is not true, true is not 1 second and "5" is not
    # 5; a whole number may still be given for a float (timeout_s: 2).
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, strict=True)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {value}")
    return value


def _scalar(value: Any) -> Any:
    """A value ``allowed`` may list: text or a number, never a boolean, list or mapping."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        shown = f"{str(value).lower()} (a boolean)" if isinstance(value, bool) else repr(value)
        raise ValueError(f"expected text or a number, got {shown}")
    return value


def _template(value: Any) -> Any:
    if isinstance(value, str):
        placeholders(value)  # raises ValueError naming what is malformed
    return value


Finite = BeforeValidator(_finite)
Template = Annotated[str, BeforeValidator(_template)]


class QueryTooLong(ValueError):
    """The rendered evidence query is longer than the decision service accepts.

    Raised by :meth:`Evidence.rendered_query` when ``long_query`` is ``refuse``;
    the gate then abstains without asking the service.
    """

    def __init__(self, length: int) -> None:
        self.length = length
        super().__init__(
            f"the evidence query is {length} characters; the decision service takes at most "
            f"{MAX_QUERY_CHARS} (set evidence.long_query: truncate to shorten it)"
        )


class CallerRule(_Strict):
    """Who may use the tool. ``roles``: the caller needs at least one of them."""

    verified: bool = False
    roles: list[str] = Field(default_factory=list)


class Slot(_Strict):
    """An exact memory slot the evidence is read from, and the value it must hold."""

    entity: str = Field(min_length=1)
    attribute: str = Field(min_length=1)
    value: Template | None = Field(default=None, description="template the slot's value must equal")


class Evidence(_Strict):
    """What the decision service is asked, and whether its support is required.

    ``match`` names the arguments whose values a memory must hold to support
    the action (default: every placeholder of ``slot.value`` when set, else of
    ``query``). ``long_query`` says what happens when the rendered query is
    longer than :data:`MAX_QUERY_CHARS`: ``refuse`` (abstain, nothing sent) or
    ``truncate`` (cut at a word boundary). ``missing`` says what happens when nothing the
    caller said supports the call: ``ask`` (the gate puts the question carrying every
    value, and the caller's yes is the evidence) or ``abstain``.
    """

    query: Template = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    slot: Slot | None = None
    match: list[str] | None = None
    required: bool = True
    missing: Literal["ask", "abstain"] = "ask"
    top_k: int = Field(default=5, ge=1, le=50)
    long_query: Literal["refuse", "truncate"] = "refuse"

    @field_validator("match")
    @classmethod
    def _names(cls, v: list[str] | None) -> list[str] | None:
        if v is None:
            return v
        for name in v:
            if not name.isidentifier():
                raise ValueError(f"expected argument names, got {name!r}")
        repeated = sorted({n for n in v if v.count(n) > 1})
        if repeated:
            raise ValueError(f"{', '.join(repeated)} listed twice")
        return v

    def match_names(self) -> list[str]:
        """The arguments whose values the evidence must hold, in order."""
        if self.match is not None:
            return list(self.match)
        if self.slot is not None and self.slot.value is not None:
            return placeholders(self.slot.value)
        return placeholders(self.query)

    def rendered_query(self, args: dict[str, object]) -> str:
        """The query sent to the decision service for these arguments.

        Raises:
            QueryTooLong: the rendered query is longer than :data:`MAX_QUERY_CHARS`
                and ``long_query`` is ``refuse``.
        """
        query = render(self.query, args)
        if len(query) <= MAX_QUERY_CHARS:
            return query
        if self.long_query == "refuse":
            raise QueryTooLong(len(query))
        cut = query[:MAX_QUERY_CHARS]
        space = cut.rfind(" ")
        # A word cut in half matches nothing; a query with no space at all is cut where it must be.
        return cut[:space].rstrip() if space > MAX_QUERY_CHARS // 2 else cut


class Limit(_Strict):
    """Bounds on one argument."""

    min: Annotated[float | None, Finite] = None
    max: Annotated[float | None, Finite] = None
    allowed: list[Annotated[str | int | float, Finite, BeforeValidator(_scalar)]] | None = None
    max_length: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> Limit:
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min}) is greater than max ({self.max})")
        if self.min is None and self.max is None and self.allowed is None and not self.max_length:
            raise ValueError("expected at least one of min, max, allowed, max_length")
        return self


class Rate(_Strict):
    """At most ``max`` executed actions per caller within ``per`` (e.g. ``1d``, ``12h``)."""

    max: int = Field(ge=1)
    per: str

    @field_validator("per")
    @classmethod
    def _duration(cls, v: str) -> str:
        if not _DURATION.fullmatch(v):
            raise ValueError(f"expected a duration like 30s, 15m, 12h or 1d, got {v!r}")
        return v

    @property
    def seconds(self) -> float:
        m = _DURATION.fullmatch(self.per)
        assert m is not None  # validated above
        return float(m.group(1)) * _UNIT_SECONDS[m.group(2)]


class Audit(_Strict):
    """Arguments stored only as digests in the ledger and logs."""

    mask: list[str] = Field(default_factory=list)


class Messages(_Strict):
    """What the model is told to say. ``{arg}`` placeholders name tool arguments."""

    ask: Template = "Please confirm: should I go ahead with this?"
    abstain: Template = "I can't do that on this call."
    conflict: Template = "That changed while we were talking, so I did not go ahead."
    failure: Template = "Something went wrong and it was not done."


class Policy(_Strict):
    """One gated tool's policy."""

    tool: str = Field(min_length=1)
    action: str
    description: str | None = None
    mode: Literal["enforce", "shadow"] = "enforce"
    caller: CallerRule = Field(default_factory=CallerRule)
    evidence: Evidence | None = None
    confirm: Literal["always", "when_unsure", "never"] = "when_unsure"
    confirm_ttl_s: float = Field(default=120.0, gt=0, le=3600)
    limits: dict[str, Limit] = Field(default_factory=dict)
    rate: Rate | None = None
    timeout_s: float = Field(default=2.0, gt=0, le=30)
    audit: Audit = Field(default_factory=Audit)
    messages: Messages = Field(default_factory=Messages)

    @field_validator("action")
    @classmethod
    def _action_name(cls, v: str) -> str:
        if not ACTION_NAME.fullmatch(v):
            raise ValueError(
                f"expected an action name matching {ACTION_NAME.pattern} (e.g. payment.refund), got {v!r}"
            )
        return v

    def references(self) -> list[tuple[str, str]]:
        """Every (field path, argument name) this policy names, to check against the tool."""
        return references_in(self.model_dump())


def references_in(data: Any) -> list[tuple[str, str]]:
    """Every (field path, argument name) a policy's raw data names, whatever else is wrong with it.

    Reads what a file says even when its shape is invalid (a typo'd key, a
    wrong type elsewhere), so its references are checked in the same pass:
    template placeholders (evidence query, slot value, messages), ``limits``
    keys, ``audit.mask`` and ``evidence.match``. Parts that are not of the
    expected type, and malformed templates, are skipped here: the shape check
    reports them.
    """
    refs: list[tuple[str, str]] = []
    if not isinstance(data, dict):
        return refs

    def named(field_path: str, template: Any) -> None:
        if isinstance(template, str):
            # A malformed template is a shape problem, reported as such.
            with contextlib.suppress(ValueError):
                refs.extend((field_path, n) for n in placeholders(template))

    def listed(field_path: str, names: Any) -> None:
        if isinstance(names, list):
            refs.extend((field_path, n) for n in names if isinstance(n, str))

    evidence = data.get("evidence")
    if isinstance(evidence, dict):
        named("evidence.query", evidence.get("query"))
        slot = evidence.get("slot")
        if isinstance(slot, dict):
            named("evidence.slot.value", slot.get("value"))
        listed("evidence.match", evidence.get("match"))
    limits = data.get("limits")
    if isinstance(limits, dict):
        refs += [(f"limits.{name}", name) for name in limits if isinstance(name, str)]
    audit = data.get("audit")
    if isinstance(audit, dict):
        listed("audit.mask", audit.get("mask"))
    messages = data.get("messages")
    if isinstance(messages, dict):
        for key in ("ask", "abstain", "conflict", "failure"):
            named(f"messages.{key}", messages.get(key))
    return refs


def placeholders(template: str) -> list[str]:
    """The ``{name}`` fields of a template.

    Raises ValueError for a malformed template (an unclosed or stray brace, a
    positional ``{}``, an attribute/index lookup such as ``{a.b}``, or a
    conversion or format spec such as ``{a!r}`` or ``{a:.2f}``, which would
    fail when the value is not of the type the spec expects).
    """
    names: list[str] = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(
            f"malformed template ({exc}); placeholders are written {{argument}} "
            "and a literal brace as {{ or }}"
        ) from None
    for _, field_name, spec, conversion in parsed:
        if field_name is None:
            continue
        if not field_name.isidentifier():
            raise ValueError(f"placeholder {{{field_name}}} must be a plain argument name")
        if spec or conversion:
            shown = field_name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
            raise ValueError(f"placeholder {{{shown}}} must be a plain argument name (no format spec)")
        names.append(field_name)
    return names


def render(template: str, args: dict[str, object]) -> str:
    """Fill a validated template with argument values (missing ones render empty).

    Whole floats render without a fraction (``20.0`` says "20"), as a person would say them.
    """
    return template.format_map({n: spoken(args.get(n, "")) for n in placeholders(template)})


def spoken(value: object) -> object:
    """A value as a person says it: a whole float without its fraction (``20.0`` is "20")."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
