"""Policies: the YAML schema, loading with file/line/field errors, the rules, and the tooling.

- :mod:`gate.policy.schema`: what a policy file may say.
- :mod:`gate.policy.loader`: reading files, every problem with its file, line and field;
  :func:`load_for_tools` is the one check shared by start-up and ``gate policy check``.
- :mod:`gate.policy.rules`: the one rule engine for live decisions, dry runs and replay.
- :mod:`gate.policy.explain`, :mod:`gate.policy.tests`, :mod:`gate.policy.replay`: the tooling.
"""

from gate.policy.loader import (
    LoadedPolicy,
    PolicyCheck,
    check_policy_dir,
    check_references,
    load_for_tools,
    load_policy_dir,
    parse_policy,
)
from gate.policy.schema import (
    MAX_QUERY_CHARS,
    RESTRICTIVENESS,
    Policy,
    QueryTooLong,
    placeholders,
    render,
    spoken,
)

__all__ = [
    "MAX_QUERY_CHARS",
    "RESTRICTIVENESS",
    "LoadedPolicy",
    "Policy",
    "PolicyCheck",
    "QueryTooLong",
    "check_policy_dir",
    "check_references",
    "load_for_tools",
    "load_policy_dir",
    "parse_policy",
    "placeholders",
    "render",
    "spoken",
]
