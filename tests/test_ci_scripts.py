"""The CI scripts: ``.ci/run`` says clearly when the second line cannot run.

``.ci/run`` runs ``.ci/test`` on Python 3.11 + Django 5.2 and on Python 3.12
+ Django 6.x; the 3.12 interpreter comes from pyenv. Without one it must stop
before running any test, naming what is missing, rather than test one line
and pass. A stand-in ``pyenv`` that knows no 3.12 is put first on ``PATH``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_ci_run_stops_with_a_clear_message_without_python_3_12(tmp_path: Path) -> None:
    fake = tmp_path / "bin" / "pyenv"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\n[ "$1" = root ] && echo /nonexistent\nexit 0\n')
    fake.chmod(0o755)
    # Keep what .ci/run checks before the interpreter (redis-server, chromium).
    env = {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"}

    done = subprocess.run(
        ["bash", ".ci/run"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 1
    assert "error: no Python 3.12 found" in done.stderr
    assert "pyenv install 3.12" in done.stderr
    assert "==> Python 3.11" not in done.stdout  # no line started
