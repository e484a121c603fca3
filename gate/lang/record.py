"""A frozen record of named fields that costs nothing to define.

The word-set records (``gate.confirm.lexicon.Words``, the values reader's common words) have a
hundred fields; a dataclass of that size costs milliseconds of generated code at import, on the
worker's event loop. A :class:`Record` subclass declares its fields as annotations and is built
once, with keyword arguments.

Failure modes: building one with a field missing or unknown raises TypeError naming them;
assigning to a field raises AttributeError.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["Record"]


class Record:
    """Fields as class annotations; ``Record(**fields)`` with every field, and no other."""

    _fields: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = {name for name, kind in cls.__annotations__.items() if "ClassVar" not in str(kind)}
        cls._fields = frozenset(names) | cls._fields

    def __init__(self, **fields: Any) -> None:
        given = set(fields)
        if given != self._fields:
            missing, unknown = sorted(self._fields - given), sorted(given - self._fields)
            raise TypeError(f"{type(self).__name__}: missing {missing}, unknown {unknown}")
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self._fields)} fields)"
