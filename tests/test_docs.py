"""The documentation: the site builds strictly, the README is a front page whose commands and example
are true, and the glossary names every rule and status word the code records."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gate.confirm

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
DOCS = ROOT / "docs"


def section(text: str, heading: str) -> str:
    start = text.index(f"## {heading}")
    following = text.find("\n## ", start + 1)
    return text[start : following if following != -1 else None]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    nav = re.findall(r"^\s+- [^:]+: (\S+\.md)$", (ROOT / "mkdocs.yml").read_text(), re.M)
    missing = [page for page in nav if not (DOCS / page).exists()]
    assert not missing, f"pages in the nav with no file: {missing}"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    reference = (tmp_path / "site" / "reference" / "index.html").read_text()
    for documented in ("gated_tool", "GateSession", "MemoryAgent", "ScriptedLLM", "CloudDouble"):
        assert documented in reference, documented  # the API reference comes from the docstrings


def test_the_readme_is_a_front_page() -> None:
    assert len(README.splitlines()) <= 250
    for page in re.findall(r"\]\((docs/[\w.-]+\.md)(?:#[\w-]+)?\)", README):
        assert (ROOT / page).exists(), page
    for target in re.findall(r"\]\(((?:examples|docs)/[\w./-]+)\)", README):
        assert (ROOT / target.split("#")[0]).exists(), target


def test_the_quickstart_is_two_commands_and_ci_runs_the_second() -> None:
    quickstart = blocks(section(README, "Quickstart"), "bash")[0]
    install_and_demo, tests = [line for line in quickstart.splitlines() if line.strip()]
    assert install_and_demo.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -r")
    assert install_and_demo.endswith("&& gate demo")
    assert tests == "python -m pytest -q"
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests in ci.splitlines()  # CI runs the README's test command as it is written
    assert "pip install --quiet -r requirements.lock" in ci and "mkdocs build --strict" in ci


def test_the_readme_example_runs_as_it_stands(tmp_path: Path) -> None:
    example = section(README, "A complete example")
    (policy,) = blocks(example, "yaml")
    (code,) = blocks(example, "python")
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "refund_order.yaml").write_text(policy)
    (tmp_path / "refund.py").write_text(code)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GATE_", "CONTEXTDB_"))}
    done = subprocess.run(
        [sys.executable, "refund.py"], cwd=tmp_path, env=clean, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    decided, refunded = done.stdout.strip().split("] ", 1)
    assert re.fullmatch(r"\[\('ask', 'confirm\.always'\), \('act', '[a-z_.]+'\)", decided), decided
    assert refunded.endswith(": 40.0}")  # one refund, once


def _recorded_rule_names() -> set[str]:
    """Every rule id the code writes as a literal, with ``<argument>`` for the ones built from a name."""
    names: set[str] = set()
    for path in (ROOT / "gate").rglob("*.py"):
        text = path.read_text()
        for found in re.findall(r'RuleResult\(\s*(f?)"([a-z_.{}]+)"', text):
            names.add(re.sub(r"\{[a-z_]+\}", "<argument>", found[1]))
        names.update(re.findall(r'rule = "([a-z_]+\.[a-z_.]+)"', text))
        # The trace's own rules: each statement's reading, each argument's status, the verdict.
        names.update(re.findall(r'"(trace\.[a-z_.]+)"', text))
    return names


def test_the_glossary_names_every_rule_and_status_word() -> None:
    glossary = (DOCS / "glossary.md").read_text()
    terms = set(re.findall(r"^`([^`]+)`", glossary, re.M))
    terms |= {t for line in re.findall(r"^(`.+`)$", glossary, re.M) for t in re.findall(r"`([^`]+)`", line)}
    rules = _recorded_rule_names() | set(gate.confirm.RULES)  # the answer reader's rules too
    assert {"caller.verified", "limits.<argument>.max", "state.conflict", "confirm.always"} <= rules
    statuses = {
        *("act", "ask", "abstain", "enforce", "shadow"),  # decisions and modes
        *("succeeded", "failed", "skipped"),  # receipts
        *("pending", "delivered", "local", "conflict", "rejected", "aligned", "violated"),  # delivery
        *("confirmed", "declined", "expired", "superseded"),  # confirmations
        *("decision", "confirmation", "receipt", "receipt.2", "delivery"),  # chain entries
        *("current_state_changed", "not_executed", "outcome_unknown"),  # error codes
        "default",
    }
    missing = sorted((rules | statuses) - terms)
    assert not missing, f"not in docs/glossary.md: {missing}"


@pytest.mark.parametrize(
    "page",
    [
        "README.md",
        *(
            f"docs/{p.name}"
            for p in sorted(DOCS.glob("*.md"))
            if p.name not in {"audit.md", "confirmation.md", "evidence.md", "benchmarks.md"}
        ),
    ],
)
def test_the_docs_speak_of_the_project_only(page: str) -> None:
    text = (ROOT / page).read_text().lower()
    for word in ("this round", "last round", "issue #", "probe", "the lead"):
        assert word not in text, (page, word)
