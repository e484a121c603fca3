"""gate as another project uses it: built into a wheel and an sdist, installed in a fresh virtualenv
outside the checkout, running the minimal agent example and the command line from there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "minimal_agent"


def run(argv: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    # Nothing of the checkout's environment leaks in: no PYTHONPATH, no GATE_* settings, no keys.
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GATE_", "CONTEXTDB_", "OPENAI_", "LIVEKIT_", "VIRTUAL_ENV"))
        and k != "PYTHONPATH"
    }
    return subprocess.run(argv, cwd=cwd, env=clean, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build``: an sdist, then a wheel built from that sdist (build's default)."""
    out = tmp_path_factory.mktemp("dist")
    done = run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh virtualenv with the wheel installed as the docs say (pinned to the lock file's versions)."""
    where = tmp_path_factory.mktemp("venv") / "venv"
    assert run([sys.executable, "-m", "venv", str(where)], where.parent).returncode == 0
    (wheel,) = dist.glob("gate-*.whl")
    # --no-compile only saves CI time: modules compile on first import instead.
    pip = [str(where / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile"]
    done = run([*pip, str(wheel), "-c", str(ROOT / "requirements.lock")], where.parent, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    yield where
    shutil.rmtree(where, ignore_errors=True)


def test_build_makes_a_wheel_and_an_sdist_with_the_package_and_its_data(dist: Path) -> None:
    (wheel,) = dist.glob("gate-*-py3-none-any.whl")
    (sdist,) = dist.glob("gate-*.tar.gz")
    assert sdist.stat().st_size > 0
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "gate/__init__.py",
        "gate/py.typed",
        "gate/cli/templates/decision.html",
        "gate/ledger/migrations/env.py",
    ):
        assert needed in names, needed
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("/METADATA"))).decode()
    assert "License-Expression: Apache-2.0" in metadata
    assert not any(n.startswith(("tests/", "tools/", "bench/")) for n in names)


def test_the_minimal_agent_example_runs_from_the_installed_wheel(venv: Path, tmp_path: Path) -> None:
    project = tmp_path / "my-agent"  # outside the checkout, as someone else's project
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".gate-example"))
    python = str(venv / "bin" / "python")
    where = run([python, "-c", "import gate, sys; print(gate.__file__)"], project)
    assert where.stdout.startswith(str(venv)), where.stdout + where.stderr
    done = run([python, "agent.py", str(project / "home")], project)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert "agent:  Shall I refund 40 on order A-1001?" in lines
    assert any(" refund_order act (" in line and line.endswith("succeeded") for line in lines), lines
    assert "audit:  chain verified" in lines
    assert "Traceback" not in done.stderr


def test_the_command_line_runs_from_the_installed_wheel(venv: Path, tmp_path: Path) -> None:
    project = tmp_path / "my-agent"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".gate-example"))
    gate_cli = str(venv / "bin" / "gate")
    version = run([gate_cli, "--version"], project)
    assert version.returncode == 0 and version.stdout.strip() == "gate 0.1.0", version.stderr
    checked = run([gate_cli, "policy", "check", "policies", "--tools", "agent:TOOLS"], project)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.strip() == "1 policies valid in policies against agent:TOOLS"
    assert run([str(venv / "bin" / "python"), "agent.py", "home"], project).returncode == 0
    listed = run([gate_cli, "audit", "list"], project, timeout=120)
    assert listed.returncode == 2 and "no ledger at" in listed.stderr  # GATE_HOME unset: ./.gate
    env_listed = subprocess.run(
        [gate_cli, "audit", "list"],
        cwd=project,
        env={"PATH": os.environ["PATH"], "GATE_HOME": "home"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert env_listed.returncode == 0 and "refund_order" in env_listed.stdout, env_listed.stderr


def test_the_example_tests_pass_with_no_pytest_configuration(tmp_path: Path) -> None:
    """The testing example carries its own asyncio markers: it needs no asyncio_mode setting."""
    project = tmp_path / "my-agent"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".gate-example"))
    done = run(
        [sys.executable, "-m", "pytest", "-q", "-c", os.devnull, "-p", "no:cacheprovider", "test_agent.py"],
        project,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "2 passed" in done.stdout
