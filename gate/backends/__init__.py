"""Decision service backends."""

from gate.backends.base import DecisionBackend, ForgetResult
from gate.backends.local import LocalEngine

__all__ = ["DecisionBackend", "ForgetResult", "LocalEngine"]
