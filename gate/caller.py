"""The authenticated caller, and the rule that identity is never a model argument."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

# The decision service's partition key pattern; a caller id outside it could
# not be stored, so it is refused when the Caller is built, not mid-call. It is
# matched in full (``fullmatch``): ``$`` would also match before a final newline,
# making "alice\n" a caller of its own.
_CALLER_ID = re.compile(r"[A-Za-z0-9._:@+\-]{1,128}")

# Parameter names a model could use to act for someone else. Matching is on
# the normalised name, so ``userId``, ``user-id`` and ``USER_ID`` all count.
_IDENTITY_WORDS = (
    "user",
    "caller",
    "customer",
    "client",
    "account_holder",
    "accountholder",
    "member",
    "patient",
    "principal",
    "owner",
    "identity",
    "uid",
    "userid",
)
_IDENTITY_SUFFIXES = ("id", "ids", "name", "identity", "email", "phone", "number", "key")


def valid_caller_id(value: object) -> bool:
    """Whether ``value`` is a caller id the decision service can store, in full."""
    return isinstance(value, str) and _CALLER_ID.fullmatch(value) is not None


def _normalise(name: str) -> str:
    snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return re.sub(r"[^a-z0-9]+", "_", snake.lower()).strip("_")


def looks_like_identity(name: str) -> bool:
    """Whether a tool parameter name would let the model say who the caller is."""
    norm = _normalise(name)
    if norm in _IDENTITY_WORDS or norm in {"as_user", "on_behalf_of", "impersonate"}:
        return True
    for word in _IDENTITY_WORDS:
        for suffix in _IDENTITY_SUFFIXES:
            if norm in (f"{word}_{suffix}", f"{word}{suffix}"):
                return True
    return False


@dataclass(frozen=True)
class Caller:
    """Who is on the call, as the host application authenticated them.

    Build it from the session's participant identity and token attributes,
    never from anything the model said. ``id`` is the memory partition key.

    Raises:
        ValueError: if ``id`` is empty or has characters a partition key may not hold.
    """

    id: str
    verified: bool = False
    roles: frozenset[str] = frozenset()
    attributes: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not valid_caller_id(self.id):
            raise ValueError(
                f"Caller.id must match {_CALLER_ID.pattern} in full (1-128 of letters, digits, "
                f"and ._:@+-; no spaces or line breaks), got {self.id!r}"
            )
        object.__setattr__(self, "roles", frozenset(self.roles))
        object.__setattr__(self, "attributes", MappingProxyType(dict(self.attributes)))

    def describe(self) -> dict[str, Any]:
        """A JSON-able summary for the audit record."""
        return {"id": self.id, "verified": self.verified, "roles": sorted(self.roles)}
