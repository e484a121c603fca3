"""Reading policy files: every problem reported with its file, line and field."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from gate.errors import PolicyError, PolicyIssue
from gate.policy.schema import Policy, placeholders

M = TypeVar("M", bound=BaseModel)


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


def _line_map(node: yaml.Node, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], int]:
    lines: dict[tuple[str, ...], int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            path = (*prefix, str(key.value))
            lines[path] = key.start_mark.line + 1
            lines.update(_line_map(value, path))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            path = (*prefix, str(i))
            lines[path] = item.start_mark.line + 1
            lines.update(_line_map(item, path))
    return lines


def _issue(path: str, field: str, message: str, lines: dict[tuple[str, ...], int]) -> PolicyIssue:
    parts = tuple(p for p in field.split(".") if p)
    line = None
    while parts and line is None:
        line = lines.get(parts)
        parts = parts[:-1]
    return PolicyIssue(file=path, field=field or "(file)", message=message, line=line)


def _read_yaml(path: str | Path) -> tuple[bytes, Any, dict[tuple[str, ...], int]]:
    shown = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise PolicyError([PolicyIssue(shown, "(file)", f"cannot read: {exc.strerror}")]) from exc
    try:
        node = yaml.compose(raw.decode("utf-8"))
        data = yaml.safe_load(raw)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise PolicyError([PolicyIssue(shown, "(file)", f"not valid YAML: {exc}", line)]) from exc
    lines = _line_map(node) if node is not None else {}
    if not isinstance(data, dict):
        got = type(data).__name__ if data is not None else "an empty file"
        raise PolicyError([PolicyIssue(shown, "(file)", f"expected a mapping, got {got}", 1)])
    return raw, data, lines


def load_yaml_model(path: str | Path, model: type[M]) -> M:
    """Read a YAML file into a pydantic model.

    Raises:
        PolicyError: unreadable, not YAML, not a mapping, or not the model's
            shape; every problem is listed with its line and field.
    """
    _, data, lines = _read_yaml(path)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise PolicyError([_from_pydantic(str(path), err, lines, model) for err in exc.errors()]) from exc


def parse_policy(path: str | Path) -> LoadedPolicy:
    """Parse and validate one policy file's shape.

    Raises:
        PolicyError: the file is unreadable, not YAML, not a mapping, or breaks
            the schema; every schema problem in the file is listed.
    """
    raw, data, lines = _read_yaml(path)
    try:
        policy = Policy.model_validate(data)
    except ValidationError as exc:
        raise PolicyError([_from_pydantic(str(path), err, lines, Policy) for err in exc.errors()]) from exc
    return LoadedPolicy(policy, str(path), "sha256:" + hashlib.sha256(raw).hexdigest(), lines)


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
    else:
        message = err["msg"].removeprefix("Value error, ")
        if "input" in err and "got " not in message and not isinstance(err["input"], dict | list):
            message += f" (got {err['input']!r})"
    return _issue(path, field, message, lines)


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
    """Problems where the policy names arguments or a tool that do not exist."""
    policy = loaded.policy
    known = list(params)
    issues: list[PolicyIssue] = []
    if policy.tool != tool:
        issues.append(_issue(loaded.path, "tool", f"expected {tool!r}, got {policy.tool!r}", loaded._lines))
    templates = {"evidence.query": policy.evidence.query if policy.evidence else None}
    if policy.evidence and policy.evidence.slot and policy.evidence.slot.value is not None:
        templates["evidence.slot.value"] = policy.evidence.slot.value
    for key in ("ask", "abstain", "conflict", "failure"):
        templates[f"messages.{key}"] = getattr(policy.messages, key)
    for field, template in templates.items():
        if template is None:
            continue
        try:
            placeholders(template)
        except ValueError as exc:
            issues.append(_issue(loaded.path, field, str(exc), loaded._lines))
    for field, name in _safe_references(policy):
        if name not in known:
            expected = ", ".join(known) or "(the tool takes no arguments)"
            issues.append(
                _issue(
                    loaded.path,
                    field,
                    f"{name!r} is not an argument of {tool} (expected one of: {expected})",
                    loaded._lines,
                )
            )
    return issues


def _safe_references(policy: Policy) -> list[tuple[str, str]]:
    try:
        return policy.references()
    except ValueError:
        return []  # malformed templates are reported on their own


def load_policy_dir(directory: str | Path) -> tuple[dict[str, LoadedPolicy], list[PolicyIssue]]:
    """Parse every ``*.yaml`` / ``*.yml`` in a directory, keyed by the policy's ``tool``.

    Returns the valid policies and every problem found (it never stops at the
    first). A missing directory or two files for one tool are problems too.
    """
    root = Path(directory)
    if not root.is_dir():
        return {}, [PolicyIssue(str(root), "(directory)", "no such policy directory")]
    found: dict[str, LoadedPolicy] = {}
    issues: list[PolicyIssue] = []
    for path in sorted([*root.glob("*.yaml"), *root.glob("*.yml")]):
        try:
            loaded = parse_policy(path)
        except PolicyError as exc:
            issues.extend(exc.issues)
            continue
        tool = loaded.policy.tool
        if tool in found:
            issues.append(
                PolicyIssue(str(path), "tool", f"{tool!r} already has a policy in {found[tool].path}")
            )
            continue
        found[tool] = loaded
    return found, issues
