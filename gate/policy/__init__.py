"""Policies: the YAML schema, loading with file/line/field errors, the rules, and the tooling.

- :mod:`gate.policy.schema`: what a policy file may say.
- :mod:`gate.policy.loader`: reading files, every problem with its file, line and field.
- :mod:`gate.policy.rules`: the one rule engine for live decisions, dry runs and replay.
- :mod:`gate.policy.explain`, :mod:`gate.policy.tests`, :mod:`gate.policy.replay`: the tooling.
"""

from gate.policy.loader import LoadedPolicy, check_references, load_policy_dir, parse_policy
from gate.policy.schema import RESTRICTIVENESS, Policy, placeholders, render, spoken

__all__ = [
    "RESTRICTIVENESS",
    "LoadedPolicy",
    "Policy",
    "check_references",
    "load_policy_dir",
    "parse_policy",
    "placeholders",
    "render",
    "spoken",
]
