"""The CI scripts: each line tests what its lock says; ``.ci/run`` needs both lines.

``.ci/run`` runs ``.ci/test`` on Python 3.11 + Django 5.2 and on Python 3.12
+ Django 6.x; the 3.12 interpreter comes from pyenv. Without one it must stop
before running any test, naming what is missing, rather than test one line
and pass (a stand-in ``pyenv`` that knows no 3.12 is put first on ``PATH``).

Each line installs from its lock file, ``.ci/constraints/pyXY-<django>.txt``
(``.ci/lock path`` picks it), so a clean clone's suite does not change with
the day's releases; ``.ci/newest`` tries those in a scratch environment. The
tests here read the locks against ``pyproject.toml``, run ``.ci/test`` with a
stand-in interpreter and ``npm`` that record what they are asked to do, and,
when ``.ci/test`` started the suite, compare the running environment with the
lock it installed from.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / ".ci" / "constraints"
DISTRIBUTION = "django-mcp-toolkit"
#: The extras .ci/test installs, and the Django series each line's lock pins.
TEST_EXTRAS = frozenset({"test", "redis", "docs", "celery"})
LINES = {"py311-django52.txt": "5.2.", "py312-django6.txt": "6."}
#: The Python version of each line, for the requirements' markers.
PYTHONS = {"py311-django52.txt": "3.11", "py312-django6.txt": "3.12"}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")


def _pins(path: Path) -> dict[str, str]:
    """Return a lock file's pins by canonical name; fail on any other line."""
    pins: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        match = PIN.match(line)
        assert match, f"{path.name}: not an exact pin: {line!r}"
        name = canonicalize_name(match[1])
        assert name not in pins, f"{path.name}: {name} pinned twice"
        pins[name] = match[2]
    return pins


def _project_requirements() -> list[Requirement]:
    """Return the runtime requirements plus those of the extras .ci/test installs."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra in sorted(TEST_EXTRAS):
        lines += project["optional-dependencies"][extra]
    return [Requirement(line) for line in lines]


def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )


def _fake_python(folder: Path, tag: str, version: str) -> Path:
    """Write an interpreter that answers ``.ci/lock``'s two questions as ``tag``/``version``."""
    fake = folder / "python"
    fake.write_text(
        f'#!/bin/sh\ncase "$*" in *version_info*) echo {tag} ;; --version) echo "Python {version}" ;; esac\n'
    )
    fake.chmod(0o755)
    return fake


@needs_bash
def test_ci_run_stops_with_a_clear_message_without_python_3_12(tmp_path: Path) -> None:
    fake = tmp_path / "bin" / "pyenv"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\n[ "$1" = root ] && echo /nonexistent\nexit 0\n')
    fake.chmod(0o755)
    # Keep what .ci/run checks before the interpreter (redis-server, rabbitmq-server, chromium).
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


def test_every_line_of_ci_run_installs_from_its_lock_file() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")

    lines = re.findall(
        r"^(DJANGO_MCP_PG_NAME=\S+ )?PYTHON=\S+ VENV=(\S+) CONSTRAINTS=(\S+) bash \.ci/test$",
        script,
        re.MULTILINE,
    )

    # The 3.11 line on SQLite, the 3.12 line on PostgreSQL (a database of the run's own).
    assert lines == [
        ("", ".venv", ".ci/constraints/py311-django52.txt"),
        ('DJANGO_MCP_PG_NAME="$PG_NAME" ', ".venv-py312", ".ci/constraints/py312-django6.txt"),
    ]
    assert 'PG_NAME="django_mcp_ci_$$"' in script
    assert sorted(path.name for path in CONSTRAINTS.glob("*.txt")) == sorted(LINES)


@pytest.mark.parametrize("name", sorted(LINES))
def test_the_lock_pins_everything_pyproject_asks_for(name: str) -> None:
    path = CONSTRAINTS / name
    pins = _pins(path)

    # Exact pins of every direct requirement, each inside pyproject's range.
    for requirement in _project_requirements():
        if requirement.marker is not None and not requirement.marker.evaluate(
            {"python_version": PYTHONS[name], "extra": ""}
        ):
            continue  # not installed on this line
        pinned = pins.get(canonicalize_name(requirement.name))
        assert pinned is not None, f"{name} lacks {requirement.name}: bash .ci/newest --lock"
        assert requirement.specifier.contains(pinned, prereleases=True), (name, str(requirement), pinned)
    assert pins["django"].startswith(LINES[name])
    assert {"django", "msgspec", "pytest", "mcp", "mcp-types", "redis", "setuptools"} <= pins.keys()
    # Transitive requirements too, and never the package itself or pip.
    assert {"asgiref", "sqlparse", "pydantic", "pluggy"} <= pins.keys()
    assert not {DISTRIBUTION, "pip"} & pins.keys()
    header = path.read_text(encoding="utf-8").split("\n", 6)[:6]
    assert all(line.startswith("# ") for line in header)
    assert f"-c .ci/constraints/{name}" in header[1]
    assert "Refresh: 'bash .ci/newest --lock'" in header[5]


@needs_bash
def test_ci_lock_picks_the_lock_of_the_interpreter_line(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "CONSTRAINTS"}
    py312 = _fake_python(tmp_path, "py312", "3.12.1")

    picked = _run(["bash", ".ci/lock", "path", str(py312)], env)
    named = _run(["bash", ".ci/lock", "path", str(py312)], {**env, "CONSTRAINTS": "elsewhere.txt"})

    assert (picked.returncode, picked.stdout) == (0, ".ci/constraints/py312-django6.txt\n")
    assert (named.returncode, named.stdout) == (0, "elsewhere.txt\n")


@needs_bash
def test_ci_lock_names_the_locked_lines_for_an_interpreter_without_one(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "CONSTRAINTS"}
    py310 = _fake_python(tmp_path, "py310", "3.10.13")

    done = _run(["bash", ".ci/lock", "path", str(py310)], env)

    assert done.returncode == 1
    assert done.stdout == ""
    assert "error: no lock for Python 3.10.13 (.ci/constraints/py310-*.txt)" in done.stderr
    assert ".ci/constraints/py311-django52.txt" in done.stderr
    assert "bash .ci/newest" in done.stderr


@needs_bash
def test_ci_lock_write_pins_the_environment_exactly(tmp_path: Path) -> None:
    written = tmp_path / "py3xx-django.txt"

    done = _run(["bash", ".ci/lock", "write", sys.prefix, str(written)], dict(os.environ))

    assert done.returncode == 0, done.stderr
    pins = _pins(written)
    assert pins["django"] == importlib.metadata.version("django")
    assert pins["msgspec"] == importlib.metadata.version("msgspec")
    assert not {DISTRIBUTION, "pip"} & pins.keys()


@pytest.fixture
def recording_venv(tmp_path: Path) -> Iterator[tuple[Path, Path, dict[str, str]]]:
    """Yield a virtual environment whose python (and an ``npm``) log their calls.

    pip and pytest are only logged; anything else succeeds, so the packages
    ``.ci/test`` imports to see whether it must install are always there and
    only its markers decide.
    """
    log = tmp_path / "calls.log"
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(
        "#!/bin/sh\n"
        f'case "$1 $2" in "-m pip"|"-m pytest") echo "$* LOCK=$DJANGO_MCP_LOCK" >>"{log}" ;; esac\n'
    )
    python.chmod(0o755)
    npm = tmp_path / "bin" / "npm"
    npm.parent.mkdir()
    npm.write_text(f'#!/bin/sh\necho "npm $*" >>"{log}"\n')
    npm.chmod(0o755)
    env = {
        **{key: value for key, value in os.environ.items() if key not in {"CONSTRAINTS", "DJANGO_MCP_LOCK"}},
        "VENV": str(venv),
        "PATH": f"{npm.parent}{os.pathsep}{os.environ['PATH']}",
    }
    yield venv, log, env


def _calls(log: Path) -> list[str]:
    calls = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return [call for call in calls if not call.startswith("npm ")]


@needs_bash
def test_ci_test_installs_from_the_lock_and_again_when_it_changes(
    recording_venv: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    venv, log, env = recording_venv
    lock = tmp_path / "lock.txt"
    shutil.copy(CONSTRAINTS / "py311-django52.txt", lock)
    env["CONSTRAINTS"] = str(lock)

    first = _run(["bash", ".ci/test", "-q", "tests/test_ci_scripts.py"], env)
    first_calls = _calls(log)
    again = _run(["bash", ".ci/test"], env)
    again_calls = _calls(log)
    os.utime(lock, ns=(os.stat(venv / ".installed").st_mtime_ns + 10**9,) * 2)
    newer_lock = _run(["bash", ".ci/test"], env)
    newer_lock_calls = _calls(log)

    assert (first.returncode, again.returncode, newer_lock.returncode) == (0, 0, 0), first.stderr
    upgrade_pip = "-m pip install --quiet --upgrade pip LOCK="
    install = f"-m pip install --quiet -c {lock} -e .[test,redis,docs,celery] LOCK="
    assert first_calls == [upgrade_pip, install, f"-m pytest -q tests/test_ci_scripts.py LOCK={lock}"]
    assert again_calls == [f"-m pytest LOCK={lock}"]
    assert newer_lock_calls == [upgrade_pip, install, f"-m pytest LOCK={lock}"]
    assert "--upgrade-strategy" not in (ROOT / ".ci" / "test").read_text(encoding="utf-8")


@needs_bash
def test_ci_newest_never_deletes_an_environment_it_did_not_make(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)

    done = _run(["bash", ".ci/newest"], {**os.environ, "VENV": str(venv)})

    assert done.returncode == 1
    assert f"error: {venv} exists and was not made by .ci/newest" in done.stderr
    assert (venv / "bin").is_dir()
    script = (ROOT / ".ci" / "newest").read_text(encoding="utf-8")
    assert '--upgrade --upgrade-strategy eager -e ".[test,redis,docs,celery]"' in script
    assert 'bash .ci/lock write "$VENV" "$LOCK"' in script


def _installed_closure() -> dict[str, str]:
    """Return name -> version of the package with the test extras and all they require."""
    seen: set[tuple[str, frozenset[str]]] = set()
    versions: dict[str, str] = {}
    todo = [(DISTRIBUTION, TEST_EXTRAS)]
    while todo:
        name, extras = todo.pop()
        key = (canonicalize_name(name), extras)
        if key in seen:
            continue
        seen.add(key)
        distribution = importlib.metadata.distribution(name)
        versions[key[0]] = distribution.version
        for line in distribution.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or any(
                requirement.marker.evaluate({"extra": extra}) for extra in (extras or {""})
            ):
                todo.append((requirement.name, frozenset(requirement.extras)))
    versions.pop(canonicalize_name(DISTRIBUTION))
    return versions


@pytest.mark.skipif(not os.environ.get("DJANGO_MCP_LOCK"), reason="the suite was not started by .ci/test")
def test_the_environment_is_what_the_lock_says() -> None:
    pins = _pins(ROOT / os.environ["DJANGO_MCP_LOCK"])

    installed = _installed_closure()

    unlocked = sorted(installed.keys() - pins.keys())
    assert not unlocked, f"not in the lock, refresh it (bash .ci/newest --lock): {unlocked}"
    assert {name: pins[name] for name in installed} == installed
