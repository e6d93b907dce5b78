"""Count the CPU instructions one request costs, with callgrind: no other load on the machine changes it.

Run from the repository root with the project's environment (``valgrind``
installed)::

    python tests/bench/instructions.py                           # the ORM call: both WSGI ways, the floor
    python tests/bench/instructions.py --ways fast-wsgi,floor-django-sync --scenarios orm,echo

Each way and scenario is served in-process as ``inprocess.py`` serves it
(same app files, same request, the reply checked once), under
``valgrind --tool=callgrind``, twice: once with ``--few`` requests after
the warm-up and once with ``--many``. The difference of the two totals,
divided by the difference of the request counts, is the instructions per
request with start-up, imports and warm-up taken away. Slow (callgrind
runs Python some fifty times slower); the same code counted twice differs
by up to about 2.5% (hash seeds and memory layout), whatever the load.
Not collected by pytest.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parents[1]
SERVERS = BENCH / "servers"

_TOTAL = re.compile(r"^summary:\s+(\d+)", re.MULTILINE)


def serve(way_key: str, scenario_key: str, requests: int) -> None:
    """Serve ``requests`` requests after a warm-up, in this process (under callgrind)."""
    sys.path[:0] = [str(BENCH)]
    import inprocess

    way = inprocess.WAYS[way_key]
    scenario = inprocess.SCENARIOS[scenario_key]
    app = inprocess._load(way)
    body, headers = inprocess.request_parts(scenario)
    driver = (inprocess.AsgiDriver if way.interface == "asgi" else inprocess.WsgiDriver)(app, body, headers)
    inprocess.check(scenario, *driver.once())
    driver.many(50)
    driver.many(requests)


def instructions(way: str, scenario: str, requests: int, python: str) -> int:
    """Return the instructions callgrind counts for a process serving ``requests`` requests."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SERVERS), str(ROOT)])}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            python,
            str(Path(__file__)),
            "--serve",
            f"{way}:{scenario}:{requests}",
        ]
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{way} {scenario} failed:\n{done.stderr[-3000:]}")
        match = _TOTAL.search(out.read_text(encoding="utf-8", errors="replace"))
        if match is None:
            raise SystemExit(f"{way} {scenario}: no summary in callgrind's output")
        return int(match.group(1))


def main(argv: list[str] | None = None) -> int:
    """Print the instructions per request of each way and scenario."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ways", default="fast-wsgi,plain-wsgi,floor-django-sync")
    parser.add_argument("--scenarios", default="orm")
    parser.add_argument("--few", type=int, default=100, help="requests of the shorter run")
    parser.add_argument("--many", type=int, default=400, help="requests of the longer run")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        way, scenario, requests = args.serve.split(":")
        serve(way, scenario, int(requests))
        return 0
    sys.path[:0] = [str(BENCH)]
    import inprocess

    print("| way | scenario | instructions per request |\n|---|---|---:|")
    for scenario in args.scenarios.split(","):
        for way in args.ways.split(","):
            if scenario == "orm" and not inprocess.WAYS[way].orm:
                continue  # a floor without the ORM tool (the bare ASGI app)
            few = instructions(way, scenario, args.few, args.python)
            many = instructions(way, scenario, args.many, args.python)
            print(f"| {way} | {scenario} | {(many - few) / (args.many - args.few):,.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
