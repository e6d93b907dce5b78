"""The demo project's settings: DEBUG off unless asked, no publicly known SECRET_KEY.

The settings module is loaded in a fresh interpreter with a controlled
environment, as ``bash .ci/demo`` and uvicorn load it.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from testproject import settings as demo_settings

ROOT = Path(__file__).resolve().parents[2]
#: The key every checkout used to share.
PUBLIC_KEY = "django-mcp-demo-not-secret"


#: The environment variables the demo settings read: unset unless a test sets them.
DEMO_ENVIRONMENT = ("DJANGO_DEBUG", "DJANGO_SECRET_KEY", "DJANGO_MCP_AUDIT")


def demo_values(*names: str, **env: str) -> list[str]:
    """Return ``str()`` of the demo settings ``names``, loaded under ``env``."""
    clean = {k: v for k, v in os.environ.items() if k not in DEMO_ENVIRONMENT}
    probe = "import testproject.settings as s; " + "; ".join(f"print(s.{name})" for name in names)
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return result.stdout.splitlines()


def load_settings(**env: str) -> tuple[str, str]:
    """Return ``(DEBUG, SECRET_KEY)`` of the demo settings loaded under ``env``."""
    debug, key = demo_values("DEBUG", "SECRET_KEY", **env)
    return debug, key


def test_debug_is_off_unless_asked_for() -> None:
    assert load_settings()[0] == "False"
    assert load_settings(DJANGO_DEBUG="0")[0] == "False"
    assert load_settings(DJANGO_DEBUG="1")[0] == "True"


def test_the_secret_key_is_never_the_public_one() -> None:
    _, key = load_settings()

    assert key != PUBLIC_KEY
    assert len(key) >= 50
    assert load_settings()[1] == key  # every process of the checkout shares it


def test_the_secret_key_comes_from_the_environment_when_given() -> None:
    assert load_settings(DJANGO_SECRET_KEY="from-the-environment")[1] == "from-the-environment"


def test_a_local_key_is_created_once_private_and_shared(tmp_path: Path) -> None:
    path = tmp_path / ".secret_key"
    keys: list[str] = []
    barrier = threading.Barrier(8)

    def read() -> None:
        barrier.wait()
        keys.append(demo_settings._local_secret_key(path))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    assert len(keys) == 8 and len(set(keys)) == 1
    assert demo_settings._local_secret_key(path) == keys[0]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [".secret_key"]  # no draft left behind


@pytest.mark.skipif(not (ROOT / ".gitignore").exists(), reason="not a checkout")
def test_the_local_key_file_is_ignored_by_git() -> None:
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "testproject/.secret_key"], cwd=ROOT, timeout=30, check=False
    )
    assert ignored.returncode == 0


def test_the_audit_trail_is_on_when_asked_for() -> None:
    # Off for the test suite and the servers it starts; bash .ci/demo sets
    # DJANGO_MCP_AUDIT=all (tests/demo/test_ci_demo.py sees its entries).
    assert demo_values("MCP_AUDIT") == ["None"]
    assert demo_values("MCP_AUDIT", DJANGO_MCP_AUDIT="all") == ["all"]
