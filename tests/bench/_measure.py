"""Start a server on core 0, load it from core 1, and read what it cost.

* ``Server``: one server process (and its children: gunicorn's worker) in a
  session of its own, pinned with ``taskset -c 0``, on a free loopback
  port; stopped with SIGTERM, then SIGKILL to its process group, always.
* CPU: utime + stime of every process in the server's tree, from
  ``/proc/<pid>/stat``, before and after a measurement; divided by the
  requests answered.
* Interference: the busy time of core 0 (``/proc/stat``) that the server
  did not use, as a share of the measurement: other work on the server's
  core, which makes that measurement noisy.
* ``run_wrk``: ``taskset -c 1 wrk`` with ``check.lua``, keep-alive, one
  wrk thread; every reply is checked, and a measurement with any wrong
  reply, socket error or timeout fails.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _client import Conversation, request_body
from _scenarios import Scenario, lua_patterns

__all__ = ["Measurement", "Server", "page_facts", "rss_kib", "run_walk", "run_wrk"]

HERE = Path(__file__).resolve().parent
CHECK_LUA = HERE / "check.lua"
SERVER_CORE = "0"
CLIENT_CORE = "1"
_TICKS = os.sysconf("SC_CLK_TCK")
_STOP_TIMEOUT = 10.0


def free_port() -> int:
    """Return a loopback port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.extend(int(child) for child in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def process_tree(pid: int) -> list[int]:
    """Return ``pid`` and all its descendants that still run."""
    tree, pending = [], [pid]
    while pending:
        current = pending.pop()
        if Path(f"/proc/{current}").exists():
            tree.append(current)
            pending.extend(_children(current))
    return tree


def cpu_seconds(pids: list[int]) -> float:
    """Return utime + stime of ``pids`` (all threads), in seconds."""
    total = 0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return total / _TICKS


def rss_kib(pids: list[int]) -> int:
    """Return the summed VmRSS of ``pids``, in KiB."""
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
        total += int(match.group(1)) if match else 0
    return total


def core_busy_seconds(core: str) -> float:
    """Return the busy (non-idle, non-iowait) time of ``core`` since boot."""
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith(f"cpu{core} "):
            values = [int(value) for value in line.split()[1:]]
            return (sum(values) - values[3] - values[4]) / _TICKS
    return 0.0


class Server:
    """One server process, started pinned to the server core."""

    def __init__(self, command: list[str], *, env: dict[str, str], cwd: Path, log: Path) -> None:
        self.port = free_port()
        self.command = [part.replace("{port}", str(self.port)) for part in command]
        self.log = log
        self._out = log.open("ab")
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            ["taskset", "-c", SERVER_CORE, *self.command],
            env=env,
            cwd=cwd,
            stdout=self._out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def alive(self) -> bool:
        """Tell whether the server process still runs."""
        return self.process.poll() is None

    def tree(self) -> list[int]:
        """Return the server's processes."""
        return process_tree(self.process.pid)

    def tail(self, lines: int = 15) -> str:
        """Return the last lines the server printed."""
        self._out.flush()
        text = self.log.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:]) or "(no output)"

    def stop(self) -> None:
        """Stop the server and everything it started; always reap it."""
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # its own session: only its processes
        except ProcessLookupError:
            pass
        self.process.wait(timeout=_STOP_TIMEOUT)
        self._out.close()


def wait_idle(server: Server, *, timeout: float = 15.0) -> bool:
    """Wait until the server has finished what an earlier run left queued.

    When wrk stops, requests already sent are still being served; the next
    measurement must not start on that backlog. Idle: under 10 ms of CPU in
    a 100 ms window. Return False if it was still busy at the timeout.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = server.tree()
        before = cpu_seconds(pids)
        time.sleep(0.1)
        if cpu_seconds(pids) - before < 0.01:
            return True
    return False


@dataclass
class Measurement:
    """One scenario on one server in one round."""

    requests: int = 0
    seconds: float = 0.0
    rps: float = 0.0
    cpu_us: float = 0.0  # server CPU per request (or per walk), microseconds
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    interference: float = 0.0  # share of core 0 busy with other work
    error: str = ""
    extra: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """Return the record written to results.json."""
        return {key: value for key, value in self.__dict__.items() if value not in (None, "")}


class _Sampler:
    """CPU of the server and of core 0 between ``start()`` and ``stop()``."""

    def __init__(self, server: Server) -> None:
        self.server = server

    def start(self) -> None:
        self.pids = self.server.tree()
        self.cpu = cpu_seconds(self.pids)
        self.core = core_busy_seconds(SERVER_CORE)
        self.wall = time.monotonic()

    def stop(self, measurement: Measurement, units: int) -> None:
        pids = sorted(set(self.pids) | set(self.server.tree()))
        used = cpu_seconds(pids) - self.cpu
        wall = time.monotonic() - self.wall
        other = core_busy_seconds(SERVER_CORE) - self.core - used
        measurement.cpu_us = used / units * 1e6 if units else 0.0
        measurement.interference = max(other, 0.0) / wall if wall else 0.0


def _write_request(folder: Path, scenario: Scenario, conversation: Conversation) -> None:
    body = request_body(scenario.method, scenario.params, era=conversation.era)
    text = _json(body)
    marker = '"id":1,'
    prefix, suffix = text.split(marker, 1)
    (folder / "body_prefix").write_text(prefix + '"id":')
    (folder / "body_suffix").write_text("," + suffix)
    headers = conversation.headers(scenario.method, scenario.name)
    (folder / "headers").write_text("".join(f"{key}: {value}\n" for key, value in headers.items()))
    (folder / "patterns").write_text("".join(f"{pattern}\n" for pattern in lua_patterns(scenario)))
    (folder / "path").write_text(conversation.path)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


_WRK_LINE = re.compile(r"^BENCH (\w+)=(.*)$", re.MULTILINE)


def run_wrk(
    server: Server, scenario: Scenario, conversation: Conversation, *, seconds: float, measure: bool = True
) -> Measurement:
    """Load ``server`` with ``scenario`` for ``seconds``; check every reply."""
    measurement = Measurement()
    sampler = _Sampler(server)
    with tempfile.TemporaryDirectory(prefix="bench-wrk-") as folder:
        _write_request(Path(folder), scenario, conversation)
        command = [
            "taskset",
            "-c",
            CLIENT_CORE,
            "wrk",
            "-t1",
            f"-c{scenario.connections}",
            f"-d{max(int(round(seconds)), 1)}s",
            "--timeout",
            "10s",
            "-s",
            str(CHECK_LUA),
            f"http://127.0.0.1:{server.port}{conversation.path}",
        ]
        idle = wait_idle(server)
        sampler.start()
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=seconds + 60,
            env=os.environ | {"BENCH_REQUEST_DIR": folder},
        )
    output = done.stdout + done.stderr
    values = dict(_WRK_LINE.findall(output))
    good, bad = int(values.get("good", 0)), int(values.get("bad", 0))
    measurement.requests = good + bad
    sampler.stop(measurement, measurement.requests)
    seconds_match = re.search(r"(\d+) requests in ([\d.]+)(\w+)", output)
    if seconds_match:
        unit = {"s": 1.0, "ms": 1e-3, "m": 60.0, "us": 1e-6}.get(seconds_match.group(3), 1.0)
        measurement.seconds = float(seconds_match.group(2)) * unit
    measurement.rps = good / measurement.seconds if measurement.seconds else 0.0
    measurement.p50_ms = int(values.get("p50_us", 0)) / 1000
    measurement.p99_ms = int(values.get("p99_us", 0)) / 1000
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    problems = []
    if done.returncode != 0 or "good" not in values:
        problems.append(f"wrk failed: {output.strip()[-300:]}")
    if bad:
        problems.append(f"{bad} wrong replies, first: {values.get('first_bad', '?')[:240]}")
    if errors and any(int(count) for count in errors.groups()):
        connect, read, write, timeout = errors.groups()
        problems.append(f"socket errors: connect {connect}, read {read}, write {write}, timeout {timeout}")
    if not good and not problems:
        busy = "" if idle else "; the server was still busy with the previous run's requests"
        problems.append(
            f"no reply within {seconds:.0f} s (core 0 was {measurement.interference:.0%} busy with"
            f" other work{busy})"
        )
    if not server.alive():
        problems.append(f"the server exited: {server.tail(5)}")
    measurement.error = "; ".join(problems)
    return measurement


def run_walk(
    server: Server, scenario: Scenario, conversation: Conversation, *, seconds: float
) -> Measurement:
    """Walk every ``tools/list`` page again and again for ``seconds``."""
    measurement = Measurement()
    sampler = _Sampler(server)
    walks: list[float] = []
    pages = tools = size = 0
    wait_idle(server)
    sampler.start()
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            started = time.monotonic()
            cursor, names, pages, size = None, [], 0, 0
            while True:
                params = {} if cursor is None else {"cursor": cursor}
                reply = conversation.call(scenario.method, params)
                result = reply.result()
                if not pages:
                    scenario.check(result)
                names.extend(tool["name"] for tool in result["tools"])
                pages += 1
                size += len(reply.raw)
                cursor = result.get("nextCursor")
                if not cursor:
                    break
                if pages > 10_000:
                    raise ValueError("more than 10,000 pages")
            if len(names) != scenario.tools or len(set(names)) != len(names):
                raise ValueError(f"a walk found {len(names)} tools ({len(set(names))} distinct)")
            tools = len(names)
            walks.append(time.monotonic() - started)
    except (OSError, ValueError, KeyError) as exc:
        measurement.error = f"{type(exc).__name__}: {str(exc)[:300]}"
    sampler.stop(measurement, len(walks))
    measurement.requests = len(walks)
    measurement.seconds = sum(walks)
    measurement.rps = len(walks) / measurement.seconds if walks else 0.0
    if walks:
        ordered = sorted(walks)
        measurement.p50_ms = ordered[len(ordered) // 2] * 1000
        measurement.p99_ms = ordered[min(int(len(ordered) * 0.99), len(ordered) - 1)] * 1000
    measurement.extra = {"pages_per_walk": pages, "tools": tools, "bytes_per_walk": size}
    if not walks and not measurement.error:
        measurement.error = "no walk finished"
    return measurement


def page_facts(conversation: Conversation, scenario: Scenario) -> dict[str, Any]:
    """Return the size of the first ``tools/list`` page: tools and bytes."""
    reply = conversation.call(scenario.method, dict(scenario.params), name=scenario.name)
    result = reply.result()
    return {"tools_per_page": len(result.get("tools", [])), "bytes_per_page": len(reply.raw)}
