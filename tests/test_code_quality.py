"""The package stays strictly typed and lint-clean.

Runs ``mypy`` (strict, with django-stubs, as configured in pyproject.toml)
on ``django_mcp`` and ``ruff`` on the package, the tests and the docs'
Sphinx configuration and extension (``docs/conf.py``, ``docs/_ext``). Skipped with a
reason where the tools are not installed (the minimal tox env); CI installs
them through the ``test`` extra and fails instead of skipping.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{module} is not installed; the test extra provides it")
        pytest.skip(f"{module} is not installed (pip install -e '.[test]')")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_package_passes_mypy_strict() -> None:
    _require("mypy")
    result = _run("mypy", "django_mcp")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_package_and_tests_pass_ruff_lint() -> None:
    _require("ruff")
    result = _run("ruff", "check", "django_mcp", "tests", "testproject", "docs/conf.py", "docs/_ext")
    assert result.returncode == 0, result.stdout[-4000:]


def test_package_is_ruff_formatted() -> None:
    _require("ruff")
    result = _run("ruff", "format", "--check", "django_mcp", "docs/conf.py", "docs/_ext")
    assert result.returncode == 0, result.stdout[-4000:]
