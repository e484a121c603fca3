"""The fields every language's folder holds: their file, their kind and what they mean.

The schema is data too (``gate/lang/fields.toml``). Kinds:

- ``phrases``: a list of words or phrases ("go ahead"), kept in order.
- ``words``: a list of single words (a set).
- ``table``: keys to values (a number's value and role, a weekday's key, a family's verbs).

A field is *required* when every language must list something in it; an *optional* field is
about a feature some languages do not have (Spanish object pronouns glued to the verb, German
numbers written as one word): it must still be present in every folder, empty where it does
not apply, so that a reader of the folder sees it was considered.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal, cast

__all__ = ["FILES", "Field", "Kind", "fields"]

Kind = Literal["phrases", "words", "table"]
FILES: tuple[str, ...] = ("answers", "reading", "values", "verbs", "questions")
_KINDS = ("phrases", "words", "table")


@dataclass(frozen=True)
class Field:
    name: str
    file: str
    kind: Kind
    required: bool
    doc: str


@cache
def fields() -> tuple[Field, ...]:
    """Every declared field, in the order of ``fields.toml``.

    Raises ValueError when ``fields.toml`` declares a field with an unknown file or kind.
    """
    path = Path(__file__).with_name("fields.toml")
    out: list[Field] = []
    for name, spec in tomllib.loads(path.read_text(encoding="utf-8")).items():
        file, kind = spec.get("file"), spec.get("kind")
        if file not in FILES or kind not in _KINDS:
            raise ValueError(f"{path}: [{name}] needs file in {FILES} and kind in {_KINDS}")
        out.append(Field(name, file, cast(Kind, kind), bool(spec.get("required")), str(spec.get("doc", ""))))
    return tuple(out)
