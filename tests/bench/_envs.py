"""Make the virtual environments under ``.venvs/`` and say what is in them.

An environment is made once and reused while its requirements and
interpreter stay the same (a stamp file records both); ``--reinstall``
remakes it. Each peer's distributions are first looked up with
``pip index versions``; a name the index lacks, or a failing install, is
recorded as the reason the environment is unavailable, never raised.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from _peers import Env

__all__ = [
    "EnvState",
    "find_python",
    "precompile",
    "prepare",
    "probe_fast_paths",
    "project_dependencies",
    "server_environment",
]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
VENVS = HERE / ".venvs"
_STAMP = ".bench-env.json"
_INSTALL_TIMEOUT = 1800  # seconds, for one environment


@dataclass(frozen=True)
class EnvState:
    """An environment after preparation: its python, or why there is none."""

    env: Env
    python: Path | None
    reason: str = ""
    versions: dict[str, str] | None = None


def _interpreter_version(python: str) -> tuple[int, int] | None:
    try:
        done = subprocess.run(
            [python, "-c", "import sys; print(sys.version_info[0], sys.version_info[1])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    major, minor = done.stdout.split()
    return int(major), int(minor)


def find_python(requested: str | None) -> str:
    """Return the interpreter for every environment: ``--python`` or 3.12+.

    Looks for ``python3.12`` and ``python3.13`` on ``PATH`` (pyenv shims
    included: a shim that cannot run is skipped), then in pyenv's versions.
    """
    if requested:
        if _interpreter_version(requested) is None:
            raise SystemExit(f"--python {requested} does not run")
        return requested
    candidates = [name for name in ("python3.12", "python3.13") if shutil.which(name)]
    pyenv = shutil.which("pyenv")
    if pyenv:
        done = subprocess.run([pyenv, "root"], capture_output=True, text=True, timeout=30)
        versions = Path(done.stdout.strip()) / "versions"
        for pattern in ("3.12*/bin/python3.12", "3.13*/bin/python3.13"):
            candidates.extend(str(path) for path in sorted(versions.glob(pattern)))
    for candidate in candidates:
        version = _interpreter_version(candidate)
        if version is not None and version >= (3, 12):
            return candidate
    if sys.version_info >= (3, 12):
        return sys.executable
    raise SystemExit("no Python 3.12 or newer found (bolt-mcp needs it): pass --python")


def project_dependencies() -> tuple[str, ...]:
    """Return django_mcp's runtime dependencies from ``pyproject.toml``."""
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return tuple(tomllib.load(handle)["project"]["dependencies"])


def _run(command: list[str], log: Path) -> bool:
    with log.open("a") as out:
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        try:
            done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, timeout=_INSTALL_TIMEOUT)
        except subprocess.TimeoutExpired:
            out.write("timed out\n")
            return False
    return done.returncode == 0


def _tail(log: Path, lines: int = 3) -> str:
    text = [line for line in log.read_text(errors="replace").splitlines() if "WARNING: Location" not in line]
    return " | ".join(text[-lines:]).strip()


def _versions(python: Path, names: tuple[str, ...]) -> dict[str, str]:
    code = (
        "import importlib.metadata as m, json, sys\n"
        "out = {'python': sys.version.split()[0]}\n"
        "for n in sys.argv[1:]:\n"
        "    try: out[n] = m.version(n)\n"
        "    except m.PackageNotFoundError: out[n] = 'missing'\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run([str(python), "-c", code, *names], capture_output=True, text=True, timeout=60)
    return json.loads(done.stdout) if done.returncode == 0 else {}


def prepare(env: Env, python: str, *, reinstall: bool, install: bool) -> EnvState:
    """Make (or reuse) ``env`` with ``python``; never raises for a peer's failure."""
    requirements = env.requirements + (project_dependencies() if env.checkout else ())
    target = VENVS / env.name
    venv_python = target / "bin" / "python"
    stamp = {"python": python, "requirements": list(requirements)}
    stamp_file = target / _STAMP
    current = stamp_file.is_file() and json.loads(stamp_file.read_text()) == stamp
    if current and not reinstall:
        return EnvState(env, venv_python, versions=_versions(venv_python, env.report))
    if not install:
        return EnvState(env, None, "not installed (run without --skip-install)")
    shutil.rmtree(target, ignore_errors=True)
    VENVS.mkdir(parents=True, exist_ok=True)
    log = VENVS / f"{env.name}.log"
    log.unlink(missing_ok=True)
    print(f"  making .venvs/{env.name}: {' '.join(requirements)}", flush=True)
    if not _run([python, "-m", "venv", str(target)], log):
        return EnvState(env, None, f"python -m venv failed: {_tail(log)}")
    pip = [str(venv_python), "-m", "pip", "--disable-pip-version-check"]
    for name in env.lookup:
        if not _run([*pip, "index", "versions", name], log):
            return EnvState(env, None, f"`pip index versions {name}` found nothing: {_tail(log, 1)}")
    if not _run([*pip, "install", "--quiet", *requirements], log):
        return EnvState(env, None, f"pip install failed: {_tail(log)}")
    stamp_file.write_text(json.dumps(stamp))
    return EnvState(env, venv_python, versions=_versions(venv_python, env.report))


def server_environment(env: Env) -> dict[str, str]:
    """Return the environment variables a server of ``env`` starts with.

    Bytecode is written and reused (``PYTHONDONTWRITEBYTECODE`` dropped):
    installed packages come precompiled, so the app files and the checkout
    must not be compiled afresh at every cold start either.
    """
    dropped = {"DJANGO_SETTINGS_MODULE", "PYTHONDONTWRITEBYTECODE"}
    variables = {key: value for key, value in os.environ.items() if key not in dropped}
    paths = [str(HERE / "servers")] + ([str(ROOT)] if env.checkout else [])
    variables["PYTHONPATH"] = os.pathsep.join(paths)
    return variables


def precompile(python: Path, env: Env) -> None:
    """Compile the app files (and the checkout's django_mcp) for ``python`` once."""
    folders = [HERE / "servers"] + ([ROOT / "django_mcp"] if env.checkout else [])
    subprocess.run(
        [str(python), "-m", "compileall", "-q", *map(str, folders)],
        capture_output=True,
        timeout=300,
        env=server_environment(env),
    )


def probe_fast_paths(python: Path, env: Env) -> dict[str, str]:
    """Return ``{"asgi": reason, "wsgi": reason}`` for the fast paths that do not import."""
    done = subprocess.run(
        [str(python), str(HERE / "servers" / "ours.py"), "--probe"],
        capture_output=True,
        text=True,
        timeout=120,
        env=server_environment(env) | {"BENCH_TOOLS": "3"},
        cwd=HERE / "servers",
    )
    if done.returncode != 0:
        reason = f"ours.py does not import: {done.stderr.strip().splitlines()[-1:]}"
        return {"asgi": reason, "wsgi": reason}
    return json.loads(done.stdout.strip().splitlines()[-1])
