"""gate: action governance and caller memory for LiveKit voice agents.

Names are imported on first use, so ``import gate`` and the ``gate`` command
stay quick; LiveKit and the memory engine load only when something needs them.
"""

# Module-level names stay private: the namespace holds the public API only.
import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from gate.backends import DecisionBackend, ForgetResult, LocalEngine
    from gate.caller import Caller
    from gate.config import GateSettings
    from gate.confirm.answer import classify_answer
    from gate.decorator import Action, Executed, GatedTool, State, gated_tool
    from gate.errors import (
        ConfigError,
        DecisionNotFound,
        GateError,
        MissingPolicy,
        PolicyError,
        PolicyIssue,
        ReceiptConflict,
        ServiceError,
        StaleState,
        ToolDefinitionError,
    )
    from gate.gate import Gate
    from gate.ledger import ChainReport, Ledger
    from gate.memory.agent import CallerMemory, MemoryAgent
    from gate.policy.loader import load_policy_dir, parse_policy
    from gate.policy.schema import Policy
    from gate.session import CONFIRM_TOOL, GateSession

_WHERE = {
    "Action": "gate.decorator",
    "CONFIRM_TOOL": "gate.session",
    "Caller": "gate.caller",
    "ChainReport": "gate.ledger",
    "ConfigError": "gate.errors",
    "DecisionBackend": "gate.backends",
    "DecisionNotFound": "gate.errors",
    "Executed": "gate.decorator",
    "ForgetResult": "gate.backends",
    "Gate": "gate.gate",
    "GateError": "gate.errors",
    "GateSession": "gate.session",
    "GateSettings": "gate.config",
    "GatedTool": "gate.decorator",
    "Ledger": "gate.ledger",
    "CallerMemory": "gate.memory.agent",
    "MemoryAgent": "gate.memory.agent",
    "LocalEngine": "gate.backends",
    "MissingPolicy": "gate.errors",
    "Policy": "gate.policy",
    "PolicyError": "gate.errors",
    "PolicyIssue": "gate.errors",
    "ReceiptConflict": "gate.errors",
    "ServiceError": "gate.errors",
    "StaleState": "gate.errors",
    "State": "gate.decorator",
    "ToolDefinitionError": "gate.errors",
    "classify_answer": "gate.confirm",
    "gated_tool": "gate.decorator",
    "load_policy_dir": "gate.policy",
    "parse_policy": "gate.policy",
}

__all__ = [
    "CONFIRM_TOOL",
    "Action",
    "Caller",
    "CallerMemory",
    "ChainReport",
    "ConfigError",
    "DecisionBackend",
    "DecisionNotFound",
    "Executed",
    "ForgetResult",
    "Gate",
    "GateError",
    "GateSession",
    "GateSettings",
    "GatedTool",
    "Ledger",
    "LocalEngine",
    "MemoryAgent",
    "MissingPolicy",
    "Policy",
    "PolicyError",
    "PolicyIssue",
    "ReceiptConflict",
    "ServiceError",
    "StaleState",
    "State",
    "ToolDefinitionError",
    "classify_answer",
    "gated_tool",
    "load_policy_dir",
    "parse_policy",
]


def __getattr__(name: str) -> _typing.Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'gate' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
