"""gate: action governance and caller memory for LiveKit voice agents."""

from gate.affirm import classify_answer
from gate.backends import DecisionBackend, ForgetResult, LocalEngine
from gate.caller import Caller
from gate.config import GateSettings
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
from gate.policy import Policy
from gate.policy_loader import load_policy_dir, parse_policy
from gate.session import CONFIRM_TOOL, GateSession

__all__ = [
    "CONFIRM_TOOL",
    "Action",
    "Caller",
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
