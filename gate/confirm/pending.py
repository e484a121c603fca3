"""Which of a pending action's arguments the caller must have heard.

The question must carry every value the caller is agreeing to, as a value: the arguments the
question names, and every argument the audit does not mask. A flag (``True``/``False``), an
empty string or a structure has no spoken form of its own, so it is not required; a masked
argument the question does not name is never spoken, so it is not either.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["spoken_values"]


def spoken_values(
    args: Mapping[str, Any], *, in_question: Collection[str] = (), masked: Collection[str] = ()
) -> dict[str, Any]:
    """The arguments the caller must have heard: those the question names and every unmasked one.

    Only numbers and non-empty strings are returned (never a bool, None or a structure).
    """
    return {
        name: value
        for name, value in args.items()
        if (name in in_question or name not in masked)
        and isinstance(value, int | float | str)
        and not isinstance(value, bool)
        and value != ""
    }
