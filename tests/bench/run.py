"""Benchmark django_mcp against its peers and floors: the one command.

Run from anywhere (Python 3.11+, standard library only; needs ``wrk``,
``taskset`` and two cores)::

    python tests/bench/run.py            # 3 rounds x 5 s, every scenario
    python tests/bench/run.py --quick    # 1 round x 2 s, echo c=32 only
    python tests/bench/run.py --list     # servers and scenarios

It makes the virtual environments under ``tests/bench/.venvs/`` (once),
starts each server pinned to core 0, loads it with wrk pinned to core 1,
alternates the servers over the rounds, prints the medians and per-round
ratios against the official SDK, and writes ``RESULTS.md``,
``results.json`` and ``results.png`` next to this file. It exits 1 when any
measurement failed (a wrong reply, a socket error, a server that did not
start), 2 when it cannot run at all. See README.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _client import LEGACY, Conversation, wait_until_ready
from _envs import (
    HERE,
    ROOT,
    VENVS,
    EnvState,
    find_python,
    precompile,
    prepare,
    probe_fast_paths,
    server_environment,
)
from _measure import CLIENT_CORE, Measurement, Server, page_facts, rss_kib, run_walk, run_wrk
from _peers import ENVS, SERVERS, ServerSpec
from _report import markdown, summarize, text_tables
from _scenarios import SCENARIOS, Scenario

GROUPS = {"peers": "peer", "floors": "floor", "ours": "ours"}
QUICK_SCENARIOS = ("echo-c32",)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, help="rounds (default 3; --quick: 1)")
    parser.add_argument("--duration", type=float, help="seconds per measurement (default 5; --quick: 2)")
    parser.add_argument(
        "--warmup", type=float, default=1.0, help="seconds of warm-up before each (default 1)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="1 round x 2 s, echo c=32 only (unless --scenarios)"
    )
    parser.add_argument(
        "--servers", default="all", help="comma-separated server keys or peers/floors/ours/all"
    )
    parser.add_argument(
        "--scenarios", help="comma-separated scenario keys or all (default all; --quick: echo-c32)"
    )
    parser.add_argument("--list", action="store_true", help="list the servers and scenarios, then exit")
    parser.add_argument("--python", help="interpreter for every environment (default: Python 3.12+ found)")
    parser.add_argument("--reinstall", action="store_true", help="remake the environments")
    parser.add_argument("--skip-install", action="store_true", help="use only environments already made")
    parser.add_argument(
        "--start-timeout", type=float, default=180.0, help="seconds a server may take to answer"
    )
    parser.add_argument("--note", default="", help="a line printed at the top of RESULTS.md and the chart")
    parser.add_argument("--output", type=Path, default=HERE, help="folder for RESULTS.md, results.json/png")
    parser.add_argument("--no-write", action="store_true", help="print only; write no results files")
    parser.add_argument(
        "--report", type=Path, help="measure nothing: rewrite RESULTS.md and the chart from this results.json"
    )
    args = parser.parse_args(argv)
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.duration = args.duration or (2.0 if args.quick else 5.0)
    return args


def _select(text: str, table: dict[str, Any], *, groups: dict[str, str] | None = None) -> list[str]:
    if text == "all":
        return list(table)
    chosen: list[str] = []
    for part in (piece.strip() for piece in text.split(",") if piece.strip()):
        if groups and part in groups:
            chosen += [key for key, spec in table.items() if spec.group == groups[part] and key not in chosen]
        elif part in table:
            if part not in chosen:
                chosen.append(part)
        else:
            raise SystemExit(f"unknown name {part!r}; choose from: {', '.join(table)}")
    return chosen


def _list() -> None:
    print("servers (--servers KEY,... or peers/floors/ours):")
    for key, spec in SERVERS.items():
        print(f"  {key:20} {spec.label}  [{spec.group}; env {spec.env}; {', '.join(spec.eras)}]")
    print("scenarios (--scenarios KEY,...):")
    for key, scenario in SCENARIOS.items():
        print(f"  {key:12} {scenario.title}")


def _preflight() -> None:
    missing = [tool for tool in ("wrk", "taskset") if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"missing {', '.join(missing)}: install with `apt-get install wrk util-linux`")
    if len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("needs two cores (server on core 0, wrk on core 1)")


def _make_database(folder: Path) -> Path:
    """Return the SQLite file every Django server reads: bench_item, 100 rows."""
    path = folder / "bench.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE bench_item (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL)")
        connection.executemany(
            "INSERT INTO bench_item VALUES (?, ?)", [(i, f"item-{i}") for i in range(1, 101)]
        )
    return path


def _command(spec: ServerSpec, python: Path) -> list[str]:
    if spec.runner == "uvicorn":
        return [
            str(python),
            "-m",
            "uvicorn",
            spec.target,
            "--host",
            "127.0.0.1",
            "--port",
            "{port}",
            "--loop",
            "uvloop",
            "--http",
            "httptools",
            "--no-access-log",
            "--log-level",
            "warning",
        ]
    if spec.runner == "gunicorn":
        return [
            str(python),
            "-m",
            "gunicorn",
            spec.target,
            "--bind",
            "127.0.0.1:{port}",
            "--workers",
            "1",
            "--worker-class",
            "sync",
            "--log-level",
            "warning",
        ]
    if spec.runner == "granian":
        return [
            str(python),
            "-m",
            "granian",
            "--interface",
            "asgi",
            "--host",
            "127.0.0.1",
            "--port",
            "{port}",
            "--workers",
            "1",
            "--runtime-threads",
            "1",
            "--loop",
            "uvloop",
            "--no-ws",
            "--log-level",
            "warning",
            spec.target,
        ]
    return [str(python), spec.target, "127.0.0.1", "{port}"]


class Bench:
    """One run: the chosen servers and scenarios, the records so far."""

    def __init__(
        self, args: argparse.Namespace, servers: list[str], scenarios: list[str], workdir: Path
    ) -> None:
        self.args = args
        self.servers = servers
        self.scenarios = [SCENARIOS[key] for key in scenarios]
        self.workdir = workdir
        self.database = _make_database(workdir)
        self.records: list[dict[str, Any]] = []
        self.failures = 0
        self.states: dict[str, EnvState] = {}
        self.info: dict[str, dict[str, Any]] = {}

    def record(self, round_: int, spec: ServerSpec, scenario: str, tools: int, **values: Any) -> None:
        """Keep one result; count it when it failed."""
        entry = {"round": round_, "server": spec.key, "scenario": scenario, "tools": tools, **values}
        self.records.append(entry)
        if entry.get("error"):
            self.failures += 1
            print(f"    FAIL {spec.key} {scenario}: {' '.join(entry['error'].split())[:400]}", flush=True)

    def prepare(self, python: str) -> None:
        """Make the environments; mark each server available or not, with why."""
        names = {SERVERS[key].env for key in self.servers}
        if not self.args.no_write:
            names.add("harness")
        for name in sorted(names):
            state = prepare(
                ENVS[name], python, reinstall=self.args.reinstall, install=not self.args.skip_install
            )
            self.states[name] = state
            if state.python is not None:
                precompile(state.python, state.env)
            print(f"  .venvs/{name}: {'ok' if state.python else 'UNAVAILABLE: ' + state.reason}", flush=True)
        for key in self.servers:
            spec = SERVERS[key]
            state = self.states[spec.env]
            reason = state.reason
            if state.python and spec.fast:
                reason = probe_fast_paths(state.python, state.env).get(spec.fast, "")
            self.info[key] = {
                "label": spec.label,
                "short": key,
                "group": spec.group,
                "eras": list(spec.eras),
                "note": spec.note,
                "available": state.python is not None and not reason,
                "reason": reason,
            }
            if reason:
                print(f"  {key}: not measured: {reason}", flush=True)

    def run(self) -> None:
        """Run every round: each available server in turn, order rotated."""
        available = [key for key in self.servers if self.info[key]["available"]]
        for round_ in range(1, self.args.rounds + 1):
            shift = (round_ - 1) % len(available) if available else 0
            order = available[shift:] + available[:shift]
            print(f"round {round_}/{self.args.rounds}: {', '.join(order)}", flush=True)
            for key in order:
                spec = SERVERS[key]
                sizes = sorted({10} | {scenario.tools for scenario in self.scenarios})
                for tools in sizes:
                    block = [scenario for scenario in self.scenarios if scenario.tools == tools]
                    if block or tools == 10:
                        self.run_block(round_, spec, tools, block)

    def run_block(self, round_: int, spec: ServerSpec, tools: int, block: list[Scenario]) -> None:
        """Start ``spec`` with ``tools`` tools, measure ``block``, stop it."""
        state = self.states[spec.env]
        assert state.python is not None
        env = server_environment(state.env) | {"BENCH_TOOLS": str(tools), "BENCH_DB": str(self.database)}
        log = self.workdir / f"{spec.key}-{tools}-round{round_}.log"
        server = Server(_command(spec, state.python), env=env, cwd=HERE / "servers", log=log)
        era = spec.eras[0]
        try:
            try:
                cold = wait_until_ready(server.port, era, timeout=self.args.start_timeout, alive=server.alive)
            except RuntimeError as exc:
                error = f"did not start: {exc}; log: {server.tail(6)}"
                self.record(round_, spec, "cold-start", tools, error=error)
                for scenario in block:
                    self.record(round_, spec, scenario.key, tools, error="the server did not start")
                return
            self.record(round_, spec, "cold-start", tools, value=cold)
            warm = Conversation(server.port, era)
            warm.open()
            warmed = run_wrk(server, SCENARIOS["echo-c32"], warm, seconds=self.args.warmup)
            if warmed.error:
                self.record(round_, spec, "rss", tools, error=f"warm-up: {warmed.error}")
            else:
                self.record(round_, spec, "rss", tools, value=rss_kib(server.tree()))
            print(f"  {spec.key} ({tools} tools): up in {cold:.2f} s", flush=True)
            for scenario in block:
                self.measure(round_, spec, server, scenario)
        finally:
            server.stop()

    def measure(self, round_: int, spec: ServerSpec, server: Server, scenario: Scenario) -> None:
        """Check one scenario's answer in full, then measure it."""
        missing = scenario.needs - spec.features
        if missing or (scenario.legacy and LEGACY not in spec.eras):
            reason = f"no {', '.join(sorted(missing))}" if missing else "no 2025-11-25 era"
            self.record(round_, spec, scenario.key, scenario.tools, na=reason)
            return
        era = LEGACY if scenario.legacy else spec.eras[0]
        conversation = Conversation(server.port, era)
        extra: dict[str, Any] = {}
        try:
            conversation.open()
            scenario.check(
                conversation.call(scenario.method, dict(scenario.params), name=scenario.name).result()
            )
            if scenario.method == "tools/list" and not scenario.walk:
                extra = page_facts(conversation, scenario)
        except (OSError, ValueError, KeyError) as exc:
            error = f"first answer wrong: {type(exc).__name__}: {str(exc)[:300]}"
            self.record(round_, spec, scenario.key, scenario.tools, era=era, error=error)
            return
        if scenario.walk:
            result: Measurement = run_walk(server, scenario, conversation, seconds=self.args.duration)
        else:
            conversation.close()
            run_wrk(server, scenario, conversation, seconds=self.args.warmup)
            result = run_wrk(server, scenario, conversation, seconds=self.args.duration)
            result.extra = extra or None
        conversation.close()
        values = result.as_dict()
        self.record(round_, spec, scenario.key, scenario.tools, era=era, **values)
        if not result.error:
            unit = "walks/s" if scenario.walk else "req/s"
            print(
                f"    {scenario.key:11} {result.rps:9,.0f} {unit}  {result.cpu_us:8,.0f} us CPU"
                f"  p50 {result.p50_ms:.1f} ms  (other load on core 0: {result.interference:.0%})",
                flush=True,
            )


def _cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _git(*args: str) -> str:
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30)
    return done.stdout.strip() if done.returncode == 0 else ""


def _checkout() -> str:
    """Return the commit measured, with the count of uncommitted changes under django_mcp/."""
    changed = len(_git("status", "--porcelain", "--", "django_mcp").splitlines())
    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    return f"{commit} ({changed} uncommitted change(s) under django_mcp/)" if changed else commit


def _meta(
    args: argparse.Namespace, bench: Bench, load_start: float, argv: list[str], checkout: str
) -> dict[str, Any]:
    at_end = _checkout()
    wrk = subprocess.run(["wrk", "--version"], capture_output=True, text=True, timeout=30)
    interference = [r["interference"] for r in bench.records if "interference" in r and not r.get("error")]
    versions = {}
    for name, state in sorted(bench.states.items()):
        found = state.versions or {}
        versions[name] = (
            ", ".join(f"{k} {v}" for k, v in found.items()) if found else f"unavailable: {state.reason}"
        )
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"),
        "command": shlex.join(["python", "tests/bench/run.py", *argv]),
        "note": args.note,
        "nproc": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "kernel": platform.release(),
        "wrk": " ".join((wrk.stdout + wrk.stderr).split()[:2]) or "wrk",
        "load_start": f"{load_start:.2f}",
        "load_end": f"{os.getloadavg()[0]:.2f}",
        "interference": f"{sorted(interference)[len(interference) // 2]:.0%}" if interference else "n/a",
        "rounds": args.rounds,
        "duration": args.duration,
        "warmup": args.warmup,
        "commit": checkout if at_end == checkout else f"{checkout} at the start, {at_end} at the end",
        "versions": versions,
    }


def _write_report(data: dict[str, Any], output: Path, harness_python: Path | None) -> None:
    """Write RESULTS.md and, with the harness environment, results.png."""
    # The harness README, as a link that works from wherever RESULTS.md is.
    readme = Path(os.path.relpath(HERE / "README.md", output.resolve())).as_posix()
    (output / "RESULTS.md").write_text(
        markdown(data["summary"], data["servers"], data["scenario_titles"], data["meta"], readme=readme)
    )
    written = ["RESULTS.md"]
    if harness_python is not None:
        chart = subprocess.run(
            [
                str(harness_python),
                str(HERE / "chart.py"),
                str(output / "results.json"),
                str(output / "results.png"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if chart.returncode == 0:
            written.append("results.png")
        else:
            print(f"chart failed: {chart.stderr.strip()[-500:]}", flush=True)
    print(f"wrote {', '.join(written)} in {output}", flush=True)


def _rewrite(source: Path, output: Path) -> int:
    """Summarize ``source`` (a results.json) again and rewrite the report."""
    data = json.loads(source.read_text())
    data["summary"] = summarize(data["records"], data["servers"])
    output.mkdir(parents=True, exist_ok=True)
    if source.resolve() != (output / "results.json").resolve():
        (output / "results.json").write_text(json.dumps(data, indent=1) + "\n")
    harness = VENVS / "harness" / "bin" / "python"
    print(text_tables(data["summary"], data["servers"], list(data["scenario_titles"])))
    _write_report(data, output, harness if harness.exists() else None)
    return 0


def _scrub(data: dict[str, Any]) -> dict[str, Any]:
    """Return ``data`` without this machine's paths (server logs can hold some)."""
    text = json.dumps(data)
    for path, name in ((str(ROOT), "<repository>"), (str(Path.home()), "~")):
        text = text.replace(json.dumps(path)[1:-1], name)
    return json.loads(text)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    args = _arguments(argv)
    if args.list:
        _list()
        return 0
    if args.report:
        return _rewrite(args.report, args.output)
    _preflight()
    servers = _select(args.servers, SERVERS, groups=GROUPS)
    default = ",".join(QUICK_SCENARIOS) if args.quick else "all"
    scenarios = _select(args.scenarios or default, SCENARIOS)
    # The harness and its Python client stay off the server's core.
    os.sched_setaffinity(0, {int(CLIENT_CORE)})
    load_start = os.getloadavg()[0]
    checkout = _checkout()
    python = find_python(args.python)
    print(f"environments (interpreter {python}):", flush=True)
    with tempfile.TemporaryDirectory(prefix="django-mcp-bench-") as folder:
        bench = Bench(args, servers, scenarios, Path(folder))
        bench.prepare(python)
        if "official" not in servers or not bench.info.get("official", {}).get("available"):
            print("note: the official SDK is not measured, so there are no ratios", flush=True)
        started = time.monotonic()
        bench.run()
        print(f"measured in {time.monotonic() - started:.0f} s", flush=True)
    titles = {scenario.key: scenario.title for scenario in bench.scenarios}
    summary = summarize(bench.records, {key: bench.info[key] for key in servers})
    print()
    print(text_tables(summary, bench.info, [scenario.key for scenario in bench.scenarios]))
    if not args.no_write:
        meta = _meta(args, bench, load_start, argv, checkout)
        data = _scrub(
            {
                "meta": meta,
                "servers": bench.info,
                "scenario_titles": titles,
                "summary": summary,
                "records": bench.records,
            }
        )
        args.output.mkdir(parents=True, exist_ok=True)
        (args.output / "results.json").write_text(json.dumps(data, indent=1) + "\n")
        harness = bench.states.get("harness")
        _write_report(data, args.output, harness.python if harness else None)
    if bench.failures:
        print(f"{bench.failures} measurement(s) failed: see FAIL lines above", flush=True)
    return 1 if bench.failures else 0


if __name__ == "__main__":
    sys.exit(main())
