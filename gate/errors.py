"""The exceptions gate raises.

GateError
├── ConfigError          a setting is missing or malformed (raised at start-up)
├── PolicyError          a policy file is invalid (names file, line and field)
│   └── MissingPolicy    a gated tool has no policy
├── ToolDefinitionError  a gated tool is declared wrongly (e.g. an identity parameter)
├── StaleState           the state a tool acts on changed (raised by the tool's compare-and-set)
└── ServiceError         the decision service answered with an error
    ├── DecisionNotFound     the decision is not in that caller's partition (404)
    └── ReceiptConflict      a different terminal receipt already exists (409)
"""

from __future__ import annotations

from dataclasses import dataclass


class GateError(Exception):
    """Base class of every error gate raises on purpose."""


class ConfigError(GateError):
    """A setting is missing or malformed."""


@dataclass(frozen=True)
class PolicyIssue:
    """One problem in one policy file: where it is and what was expected."""

    file: str
    field: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field}: {self.message}"


class PolicyError(GateError):
    """One or more policy files are invalid; ``issues`` lists every problem found."""

    def __init__(self, issues: list[PolicyIssue]) -> None:
        self.issues = issues
        super().__init__("\n".join(str(i) for i in issues))


class MissingPolicy(PolicyError):
    """A gated tool has no policy file, so it refuses to start."""


class ToolDefinitionError(GateError):
    """A gated tool's function cannot be gated as written."""


class StaleState(GateError):
    """The state a tool was about to change is no longer at the version it read.

    Tools raise it from their own compare-and-set. The gate records the
    outcome as ``failed`` / ``current_state_changed`` and tells the model
    that nothing was done.
    """

    def __init__(self, message: str = "state changed", *, current_version: object = None) -> None:
        self.current_version = current_version
        super().__init__(message)


class ServiceError(GateError):
    """The decision service answered with an error status."""

    def __init__(self, status: int, code: str, message: str, *, retry_after: float | None = None) -> None:
        self.status = status
        self.code = code
        self.retry_after = retry_after
        super().__init__(f"{status} {code}: {message}")

    @property
    def retryable(self) -> bool:
        """Worth trying again: rate limited or a server-side failure, never a 4xx verdict."""
        return self.status == 429 or self.status >= 500


class DecisionNotFound(ServiceError):
    """The decision id is unknown in that caller's partition."""

    def __init__(self, decision_id: str) -> None:
        super().__init__(404, "not_found", f"decision {decision_id} not found")


class ReceiptConflict(ServiceError):
    """A receipt with other content, or under another key, already closes the decision."""

    def __init__(self, message: str) -> None:
        super().__init__(409, "conflict", message)
