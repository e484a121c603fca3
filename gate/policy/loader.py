"""Reading policy files: every problem reported with its file, line and field.

One check serves the worker and the command line: :func:`load_for_tools` is
what :class:`gate.Gate` runs at start-up and what ``gate policy check`` runs
with the same tools, so a directory that passes the check starts.

Files are read defensively: at most :data:`MAX_POLICY_BYTES` (checked before
parsing), no repeated keys, no alias expansion past :data:`MAX_NODES` nodes,
and at most :data:`MAX_ISSUES_PER_FILE` problems listed per file.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Generic,
    Literal,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

import yaml
from pydantic import BaseModel, ValidationError

from gate.errors import MissingPolicy, PolicyError, PolicyIssue
from gate.policy.schema import Policy, references_in

if TYPE_CHECKING:
    from gate.decorator import GatedTool

M = TypeVar("M", bound=BaseModel)

MAX_POLICY_BYTES = 256 * 1024
MAX_ISSUES_PER_FILE = 20
# Aliases can make a tiny file expand into billions of nodes; nothing legitimate comes close.
MAX_NODES = 100_000
_MERGE = "tag:yaml.org,2002:merge"


@dataclass(frozen=True)
class LoadedPolicy:
    """A validated policy with where it came from and its content hash."""

    policy: Policy
    path: str
    content_hash: str
    _lines: dict[tuple[str, ...], int]

    @property
    def name(self) -> str:
        return Path(self.path).stem


@dataclass
class _Scan:
    """What one walk over a composed YAML document found."""

    file: str
    lines: dict[tuple[str, ...], int] = field(default_factory=dict)
    issues: list[PolicyIssue] = field(default_factory=list)
    _seen: set[int] = field(default_factory=set)

    def walk(self, node: yaml.Node, path: tuple[str, ...] = ()) -> None:
        if id(node) in self._seen:
            return  # an alias: its lines and keys were recorded where it was defined
        self._seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[tuple[str, str], int] = {}
            for key, value in node.value:
                here = (*path, str(key.value))
                line = key.start_mark.line + 1
                if isinstance(key, yaml.ScalarNode) and key.tag != _MERGE:
                    seen_at = first.get((key.tag, key.value))
                    if seen_at is not None:
                        self.issues.append(
                            PolicyIssue(
                                self.file,
                                ".".join(here),
                                f"duplicate key (first at line {seen_at}); a later value would "
                                "silently replace the earlier one",
                                line,
                            )
                        )
                        continue
                    first[(key.tag, key.value)] = line
                self.lines.setdefault(here, line)
                self.walk(value, here)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                here = (*path, str(i))
                self.lines.setdefault(here, item.start_mark.line + 1)
                self.walk(item, here)


def _expanded_size(node: yaml.Node, sizes: dict[int, int]) -> int:
    """How many nodes the document has once every alias is expanded (memoised, so linear)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    sizes[id(node)] = 1  # a recursive alias counts once instead of looping
    total = 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            total += _expanded_size(key, sizes) + _expanded_size(value, sizes)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            total += _expanded_size(item, sizes)
    sizes[id(node)] = total = min(total, MAX_NODES + 1)
    return total


def _issue(path: str, field: str, message: str, lines: dict[tuple[str, ...], int]) -> PolicyIssue:
    parts = tuple(p for p in field.split(".") if p)
    line = None
    while parts and line is None:
        line = lines.get(parts)
        parts = parts[:-1]
    return PolicyIssue(file=path, field=field or "(file)", message=message, line=line)


def _yaml_problem(shown: str, exc: yaml.YAMLError, text: str) -> PolicyIssue:
    """One line for a YAML syntax error, at the line where the mistake is.

    PyYAML notices an unclosed bracket, quote or key only where the next
    token is (often the following line, or the end of the file); the
    construct that was left open starts at its context mark, so that is the
    line reported. For every other error (a second document, an unhashable
    key, a repeated anchor) the context is merely where the enclosing
    document, mapping or first anchor began, and the problem's own line is
    reported. A control character is reported at its own line and column.
    """
    if isinstance(exc, yaml.reader.ReaderError):
        return _control_character(shown, exc, text)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    problem_mark = getattr(exc, "problem_mark", None)
    context_mark = getattr(exc, "context_mark", None)
    opened = (
        context_mark is not None
        and context is not None
        and context.startswith(("while scanning", "while parsing a flow"))
    )
    mark = context_mark if opened else problem_mark
    message = f"not valid YAML: {problem}"
    if problem_mark is not None:
        message += f" (line {problem_mark.line + 1}, column {problem_mark.column + 1}"
        message += f", {context})" if context else ")"
    return PolicyIssue(shown, "(file)", message, mark.line + 1 if mark is not None else None)


def _control_character(shown: str, exc: yaml.reader.ReaderError, text: str) -> PolicyIssue:
    """A character YAML does not allow (NUL, BEL, DEL, ...), at its line and column."""
    position = max(0, min(exc.position, len(text)))
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    message = (
        f"not valid YAML: control character U+{exc.character:04X} at line {line}, column {column} "
        "(a policy file is text: remove it, or write it as an escape inside double quotes)"
    )
    return PolicyIssue(shown, "(file)", message, line)


class _PolicyLoader(yaml.SafeLoader):
    """The safe loader, reading ``1e3`` and ``2.5E-1`` as the numbers YAML 1.2 says they are.

    YAML 1.1 (PyYAML's default) reads a number with an exponent but no dot
    as text; with strict types that would refuse ``max: 1e4``.
    """


_PolicyLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+\Z"),
    list("-+0123456789."),
)


def _read_capped(path: Path) -> bytes | None:
    """At most one byte past :data:`MAX_POLICY_BYTES` of a regular file; None when it is not one.

    Opened without blocking, so a FIFO named like a policy cannot hang start-up.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        # Read one byte past the cap so a file that grew after a stat is still caught.
        return handle.read(MAX_POLICY_BYTES + 1)


def _read_yaml(path: str | Path) -> tuple[bytes, Any, dict[tuple[str, ...], int]]:
    shown = str(path)
    try:
        raw = _read_capped(Path(path))
    except OSError as exc:
        raise PolicyError([PolicyIssue(shown, "(file)", f"cannot read: {exc.strerror}")]) from exc
    if raw is None:
        raise PolicyError([PolicyIssue(shown, "(file)", "not a regular file (a pipe, socket or device)")])
    if len(raw) > MAX_POLICY_BYTES:
        raise PolicyError(
            [PolicyIssue(shown, "(file)", f"larger than {MAX_POLICY_BYTES // 1024} KiB; not a policy file")]
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PolicyError([PolicyIssue(shown, "(file)", f"not UTF-8 text ({exc.reason})")]) from exc
    try:
        # The reader checks every character when it is built, so it belongs inside the try.
        loader = _PolicyLoader(text)
    except yaml.YAMLError as exc:
        raise PolicyError([_yaml_problem(shown, exc, text)]) from exc
    try:
        node = loader.get_single_node()
        if node is None:
            raise PolicyError([PolicyIssue(shown, "(file)", "expected a mapping, got an empty file", 1)])
        if _expanded_size(node, {}) > MAX_NODES:
            raise PolicyError(
                [PolicyIssue(shown, "(file)", f"more than {MAX_NODES} values once aliases are expanded")]
            )
        scan = _Scan(shown)
        scan.walk(node)
        if scan.issues:
            raise PolicyError(_capped(shown, scan.issues))
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise PolicyError([_yaml_problem(shown, exc, text)]) from exc
    except RecursionError:
        raise PolicyError([PolicyIssue(shown, "(file)", "nested too deeply")]) from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise PolicyError([PolicyIssue(shown, "(file)", f"expected a mapping, got {type(data).__name__}", 1)])
    return raw, data, scan.lines


def _capped(shown: str, issues: list[PolicyIssue]) -> list[PolicyIssue]:
    """The first problems of one file; a file with thousands is not a policy, and saying so is enough."""
    if len(issues) <= MAX_ISSUES_PER_FILE:
        return issues
    more = len(issues) - MAX_ISSUES_PER_FILE
    return [*issues[:MAX_ISSUES_PER_FILE], PolicyIssue(shown, "(file)", f"... and {more} more problems")]


@dataclass(frozen=True)
class Located(Generic[M]):
    """A model read from a YAML file, with the lines of its fields for later problems."""

    value: M
    path: str
    lines: dict[tuple[str, ...], int]

    def issue(self, field: str, message: str) -> PolicyIssue:
        """A problem at ``field`` (dotted, e.g. ``cases.0.args``), with the line it is on."""
        return _issue(self.path, field, message, self.lines)


def load_yaml_model(path: str | Path, model: type[M]) -> Located[M]:
    """Read a YAML file into a pydantic model, keeping where each field is.

    Raises:
        PolicyError: unreadable, too large, not YAML, a repeated key, not a
            mapping, or not the model's shape; every problem is listed with
            its line and field.
    """
    _, data, lines = _read_yaml(path)
    try:
        return Located(model.model_validate(data), str(path), lines)
    except ValidationError as exc:
        issues = [_from_pydantic(str(path), err, lines, model) for err in exc.errors()]
        raise PolicyError(_capped(str(path), issues)) from exc


def parse_policy(path: str | Path) -> LoadedPolicy:
    """Parse and validate one policy file's shape.

    Raises:
        PolicyError: the file is unreadable, not YAML, not a mapping, or breaks
            the schema; every schema problem in the file is listed.
    """
    loaded, broken = _parse(path)
    if loaded is None:
        assert broken is not None
        raise PolicyError(broken.issues)
    return loaded


@dataclass(frozen=True)
class _Broken:
    """A policy file whose shape is invalid: its problems, and what it said when it was YAML."""

    path: str
    issues: list[PolicyIssue]
    data: dict[str, Any] | None = None
    lines: dict[tuple[str, ...], int] = field(default_factory=dict)


def _parse(path: str | Path) -> tuple[LoadedPolicy | None, _Broken | None]:
    """The validated policy, or its problems with the raw data (for the references still checkable)."""
    try:
        raw, data, lines = _read_yaml(path)
    except PolicyError as exc:
        return None, _Broken(str(path), exc.issues)
    try:
        policy = Policy.model_validate(data)
    except ValidationError as exc:
        issues = [_from_pydantic(str(path), err, lines, Policy) for err in exc.errors()]
        return None, _Broken(str(path), _capped(str(path), issues), data, lines)
    return LoadedPolicy(policy, str(path), "sha256:" + hashlib.sha256(raw).hexdigest(), lines), None


def _from_pydantic(
    path: str, err: Any, lines: dict[tuple[str, ...], int], root: type[BaseModel]
) -> PolicyIssue:
    field = ".".join(str(p) for p in err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        message = "unknown key"
        parent = ".".join(str(p) for p in err["loc"][:-1])
        allowed = _allowed_keys(root, parent)
        if allowed:
            message += f" (expected one of: {', '.join(allowed)})"
    elif kind == "missing":
        message = "required field is missing"
    elif kind in _EXPECTED and "input" in err:
        message = _wrong_type(err["msg"], kind, err["input"])
    else:
        message = err["msg"].removeprefix("Value error, ")
        if "input" in err and "got " not in message and not isinstance(err["input"], dict | list):
            message += f" (got {_literal(err['input'])})"
    return _issue(path, field, message, lines)


# Strict types: a quoted "false" is not false, 1 is not true, true is not 1 and "5" is not 5.
_EXPECTED = {
    "bool_type": " (true or false)",
    "int_type": " (a whole number)",
    "float_type": "",
    "string_type": "",
}
_BOOLEAN_WORDS = {"true", "false", "yes", "no", "on", "off", "y", "n", "1", "0"}


def _wrong_type(msg: str, kind: str, value: Any) -> str:
    """What was expected and what the YAML said instead, with advice for a quoted value."""
    if isinstance(value, bool):
        got = f"{str(value).lower()}, a boolean"
    elif value is None:
        got = "null (no value)"
    elif isinstance(value, str):
        got = f"{value!r}, which is text"
        if kind == "bool_type" and value.strip().lower() in _BOOLEAN_WORDS:
            got += ": write true or false, without quotes"
        elif kind in ("int_type", "float_type") and _numeric(value):
            got += ": write the number without quotes"
    elif isinstance(value, int):
        got = f"{value}, a whole number"
    elif isinstance(value, float):
        got = f"{value!r}, a decimal number"
    elif isinstance(value, dict):
        got = "a mapping"
    elif isinstance(value, list):
        got = "a list"
    else:
        got = repr(value)
    return f"{msg}{_EXPECTED[kind]}, got {got}"


def _literal(value: Any) -> str:
    """A scalar as YAML writes it: ``true``, ``null``, ``'text'``, ``3``."""
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "null"
    return repr(value)


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _allowed_keys(root: type[BaseModel], parent: str) -> list[str]:
    model: Any = root
    for part in [p for p in parent.split(".") if p and not p.isdigit()]:
        field = model.model_fields.get(part)
        if field is None:
            return []
        annotation = field.annotation
        candidates = getattr(annotation, "__args__", (annotation,))
        model = next((c for c in candidates if hasattr(c, "model_fields")), None)
        if model is None:
            return []
    return sorted(model.model_fields)


def check_references(loaded: LoadedPolicy, tool: str, params: Iterable[str]) -> list[PolicyIssue]:
    """Problems where the policy names arguments or a tool that do not exist.

    Covers the ``tool`` name and every argument the policy names: template
    placeholders, ``evidence.match``, ``limits`` and ``audit.mask``.
    """
    policy = loaded.policy
    issues: list[PolicyIssue] = []
    if policy.tool != tool:
        issues.append(_issue(loaded.path, "tool", f"expected {tool!r}, got {policy.tool!r}", loaded._lines))
    return issues + _unknown_arguments(loaded.path, loaded._lines, tool, params, policy.references())


def _unknown_arguments(
    path: str,
    lines: dict[tuple[str, ...], int],
    tool: str,
    params: Iterable[str],
    refs: list[tuple[str, str]],
) -> list[PolicyIssue]:
    known = list(params)
    expected = ", ".join(known) or "(the tool takes no arguments)"
    message = "{name!r} is not an argument of {tool} (expected one of: {expected})"
    return [
        _issue(path, field_path, message.format(name=name, tool=tool, expected=expected), lines)
        for field_path, name in refs
        if name not in known
    ]


def check_limit_types(loaded: LoadedPolicy, tool: GatedTool) -> list[PolicyIssue]:
    """Limits that can never hold for the argument's annotated type.

    ``min``/``max`` on an argument that is not a number would refuse every
    call ("must be a number"); an ``allowed`` value of another type than the
    argument's can never be equal to it. Arguments whose annotation is not a
    plain ``str``/``int``/``float``/``bool``/``Literal`` (or an optional or
    annotated one) are not checked.
    """
    hints = get_type_hints(tool.fn, include_extras=True)
    issues: list[PolicyIssue] = []
    for name, limit in loaded.policy.limits.items():
        kinds = _kinds(hints.get(name))
        if kinds is None:
            continue
        shown = " or ".join(sorted(k.__name__ for k in kinds))
        numeric = bool(kinds & {int, float})
        for bound in ("min", "max"):
            if getattr(limit, bound) is not None and not numeric:
                message = f"{name} is a {shown} argument of {tool.name}; {bound} applies to numbers"
                issues.append(_issue(loaded.path, f"limits.{name}.{bound}", message, loaded._lines))
        for i, value in enumerate(limit.allowed or []):
            fits = isinstance(value, str) and str in kinds
            fits = fits or (not isinstance(value, str) and numeric)
            if not fits:
                message = f"{value!r} can never equal {name}, a {shown} argument of {tool.name}"
                issues.append(_issue(loaded.path, f"limits.{name}.allowed.{i}", message, loaded._lines))
    return issues


def _kinds(hint: Any) -> set[type] | None:
    """The plain types an annotation admits, or None when it is not that simple."""
    origin = get_origin(hint)
    if origin is Annotated:
        return _kinds(get_args(hint)[0])
    if origin is Literal:
        return {type(a) for a in get_args(hint)}
    if origin in (Union, UnionType):
        found: set[type] = set()
        for member in get_args(hint):
            if member is type(None):
                continue
            kinds = _kinds(member)
            if kinds is None:
                return None
            found |= kinds
        return found
    if hint in (str, int, float):
        return {hint}
    return None  # bool, models, lists...: what a limit means for them is the tool's business


def load_policy_dir(directory: str | Path) -> tuple[dict[str, LoadedPolicy], list[PolicyIssue]]:
    """Parse every ``*.yaml`` / ``*.yml`` in a directory, keyed by the policy's ``tool``.

    Returns the valid policies and every problem found (it never stops at the
    first). A missing directory, a directory without policy files and two
    files for one tool are problems too. Only shapes are checked here;
    :func:`load_for_tools` adds what the tools make checkable.
    """
    found, issues, _ = _load_dir(directory)
    return found, issues


def _load_dir(directory: str | Path) -> tuple[dict[str, LoadedPolicy], list[PolicyIssue], list[_Broken]]:
    root = Path(directory)
    if not root.is_dir():
        problem = (
            "not a directory (give the directory of policy files)"
            if root.exists()
            else "no such policy directory"
        )
        return {}, [PolicyIssue(str(root), "(directory)", problem)], []
    paths = sorted([*root.glob("*.yaml"), *root.glob("*.yml")])
    if not paths:
        return {}, [_no_files(root)], []
    found: dict[str, LoadedPolicy] = {}
    issues: list[PolicyIssue] = []
    broken: list[_Broken] = []
    for path in paths:
        loaded, bad = _parse(path)
        if loaded is None:
            assert bad is not None
            issues.extend(bad.issues)
            broken.append(bad)
            continue
        tool = loaded.policy.tool
        if tool in found:
            issues.append(
                _issue(
                    str(path), "tool", f"{tool!r} already has a policy in {found[tool].path}", loaded._lines
                )
            )
            continue
        found[tool] = loaded
    return found, issues, broken


def _no_files(root: Path) -> PolicyIssue:
    return PolicyIssue(str(root), "(directory)", "no policy files (*.yaml, *.yml) in it")


@dataclass(frozen=True)
class PolicyCheck:
    """The outcome of checking a policy directory, against tools when they are known.

    ``policies`` is keyed by the gated tool's name when tools were given, else
    by the policy's ``tool``. ``missing`` lists the tools without a policy
    (also in ``issues``). ``unused`` lists valid policies that govern none of
    the tools (not an error: often a misspelt ``tool``, whose tool is then
    also missing). ``references_checked`` is False for a shape-only check.
    """

    policies: dict[str, LoadedPolicy]
    issues: list[PolicyIssue]
    missing: list[PolicyIssue]
    references_checked: bool
    unused: list[LoadedPolicy] = field(default_factory=list)


def check_policy_dir(directory: str | Path, tools: Sequence[GatedTool] | None) -> PolicyCheck:
    """Every problem :class:`gate.Gate` would refuse to start on, never stopping at the first.

    With ``tools``: shapes, references to each tool's arguments, a tool
    without a policy and two files for one tool. Without (``None``): shapes
    only. A policy whose tool is not among ``tools`` is not an error, as it is
    not one at start-up.
    """
    found, issues, broken = _load_dir(directory)
    if tools is None:
        return PolicyCheck(found, _in_order(issues), [], references_checked=False)
    root = Path(directory)
    if tools and issues == [_no_files(root)]:
        issues = []  # each tool's missing policy says it more precisely
    by_policy = {tool.policy: tool for tool in tools}
    for bad in broken:
        # A file whose shape is invalid still names arguments: check them in the same pass, so
        # a bad placeholder does not wait until the typo next to it is fixed.
        named = bad.data.get("tool") if bad.data is not None else None
        tool = by_policy.get(named) if isinstance(named, str) else None
        tool = tool or by_policy.get(Path(bad.path).stem)
        if tool is not None and bad.data is not None:
            refs = references_in(bad.data)
            issues += _unknown_arguments(bad.path, bad.lines, tool.policy, tool.params, refs)
    broken_names = {Path(b.path).stem for b in broken} | {
        b.data["tool"] for b in broken if b.data is not None and isinstance(b.data.get("tool"), str)
    }
    broken_names |= {Path(i.file).stem for i in issues}
    missing: list[PolicyIssue] = []
    governed: dict[str, LoadedPolicy] = {}
    for tool in tools:
        loaded = found.get(tool.policy)
        if loaded is None:
            if tool.policy not in broken_names:  # a broken file is already reported
                missing.append(
                    PolicyIssue(
                        str(root / f"{tool.policy}.yaml"),
                        "(file)",
                        f"gated tool {tool.name!r} has no policy with tool: {tool.policy}",
                    )
                )
            continue
        issues += check_references(loaded, tool.policy, tool.params)
        issues += check_limit_types(loaded, tool)
        governed[tool.name] = loaded
    wanted = {tool.policy for tool in tools}
    unused = [loaded for name, loaded in found.items() if name not in wanted]
    return PolicyCheck(governed, _in_order(issues) + missing, missing, references_checked=True, unused=unused)


def _in_order(issues: list[PolicyIssue]) -> list[PolicyIssue]:
    """Each file's problems top to bottom (files in the order they were read)."""
    files = list(dict.fromkeys(issue.file for issue in issues))
    return sorted(
        issues,
        key=lambda i: (files.index(i.file), i.line is None, i.line or 0),
    )


def load_for_tools(directory: str | Path, tools: Sequence[GatedTool]) -> dict[str, LoadedPolicy]:
    """The policy of every gated tool, keyed by tool name: the start-up check of :class:`gate.Gate`.

    Raises:
        MissingPolicy: the only problem is that some tools have no policy file.
        PolicyError: anything else (every problem in the directory is listed,
            missing policies included).
    """
    check = check_policy_dir(directory, tools)
    if check.issues and len(check.issues) == len(check.missing):
        raise MissingPolicy(check.issues)
    if check.issues:
        raise PolicyError(check.issues)
    return check.policies
