"""Time ``search_tools`` in-process at 1,000 and 10,000 tools; report p50 and p99.

Run from the repository root with the project's environment::

    python tests/bench/tool_search.py                  # 1,000 and 10,000 tools
    python tests/bench/tool_search.py --tools 1000 --requests 500
    python tests/bench/tool_search.py --write          # also update RESULTS.md's section

Not collected by pytest (no ``test_`` prefix). No socket: each request is a
2026-07-28 ``tools/call`` of ``search_tools`` served by a real
``Dispatcher.respond`` (parse, route, admit, validate, rank, encode), as
``tests/wire.py`` does. The catalog is generated: tool names of two or three
words, descriptions of eight words drawn from a 400-word vocabulary with a
fixed seed, one or two arguments each; the queries are two or three words of
random tools' descriptions. The first search builds the index; its time is
reported apart ("index build"), and the timed requests follow a warm-up.
Latency is wall time per request (``time.perf_counter``), so quote it from
a quiet machine. ``--write`` replaces the "search_tools" section at the end
of ``RESULTS.md`` (``run.py`` rewrites that file without it: run this
again afterwards).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "testproject.settings")

import django  # noqa: E402

django.setup()

import msgspec  # noqa: E402

from django_mcp import McpResponse, Server, Tool, ToolSearch  # noqa: E402
from django_mcp.dispatcher import Dispatcher  # noqa: E402
from django_mcp.dispatcher.codec import parse_message  # noqa: E402
from django_mcp.dispatcher.context import modern_context  # noqa: E402
from tests.wire import tool_request  # noqa: E402

HERE = Path(__file__).resolve().parent
SECTION = "## search_tools, in-process"
SEED = 31


def _vocabulary(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return sorted({"".join(rng.choice(letters) for _ in range(rng.randint(4, 9))) for _ in range(400)})


def _server(size: int) -> tuple[type[Server], list[str]]:
    rng = random.Random(SEED)
    vocabulary = _vocabulary(rng)
    tools: list[type[Tool[Any, Any]]] = []
    descriptions: list[str] = []

    for index in range(size):
        name = "_".join(rng.sample(vocabulary, rng.randint(2, 3))) + f"_{index}"
        description = " ".join(rng.sample(vocabulary, 8)).capitalize() + "."
        arguments = rng.sample(vocabulary, rng.randint(1, 2))
        schema = {"type": "object", "properties": {arg: {"type": "string"} for arg in arguments}}
        namespace = {"__module__": __name__, "name": name, "description": description, "input": schema}
        namespace["handle"] = lambda self, payload: McpResponse.text("ok")
        tools.append(type(f"Bench{index}Tool", (Tool,), namespace))
        descriptions.append(description)
    server = type(f"Search{size}Server", (Server,), {"__module__": __name__, "tools": tuple(tools)})
    server.tool_search = ToolSearch(threshold=40)  # type: ignore[attr-defined]
    queries = [
        " ".join(rng.sample(rng.choice(descriptions).rstrip(".").split(), rng.randint(2, 3)))
        for _ in range(64)
    ]
    return server, queries


async def _measure(size: int, requests: int) -> dict[str, float]:
    server, queries = _server(size)
    dispatcher = Dispatcher(server.compiled())
    messages = [
        parse_message(msgspec.json.encode(tool_request("search_tools", {"query": query, "limit": 10})))
        for query in queries
    ]

    async def once(index: int) -> float:
        envelope = messages[index % len(messages)]
        ctx = modern_context(envelope)
        started = time.perf_counter()
        reply = await dispatcher.respond(envelope, ctx)
        elapsed = time.perf_counter() - started
        result = msgspec.json.decode(reply.body)["result"]
        assert result["isError"] is False and result["structuredContent"]["tools"], result
        return elapsed

    build = await once(0)  # builds the index
    for index in range(50):
        await once(index)
    times = sorted([await once(index) for index in range(requests)])
    return {
        "tools": size,
        "index build ms": build * 1000,
        "p50 ms": statistics.median(times) * 1000,
        "p99 ms": times[int(len(times) * 0.99) - 1] * 1000,
    }


def _table(rows: list[dict[str, float]], requests: int) -> str:
    lines = [
        SECTION,
        "",
        f"`python tests/bench/tool_search.py` ({requests} requests per size after a warm-up; "
        f"Python {platform.python_version()}, Django {django.get_version()}, {platform.machine()}, "
        f"{time.strftime('%Y-%m-%d', time.gmtime())}). A `tools/call` of `search_tools` "
        "(limit 10) through `Dispatcher.respond`, wall time per request; the first search "
        "builds the index.",
        "",
        "| tools | index build ms | p50 ms | p99 ms |",
        "|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['tools']:,} | {row['index build ms']:.1f} | {row['p50 ms']:.3f} | {row['p99 ms']:.3f} |"
        )
    return "\n".join(lines) + "\n"


def _write(table: str) -> None:
    path = HERE / "RESULTS.md"
    text = path.read_text()
    start = text.find(SECTION)
    if start >= 0:
        text = text[:start].rstrip("\n") + "\n"
    path.write_text(text + "\n" + table)


def main() -> None:
    """Measure and print the table (and write it with ``--write``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, action="append", help="catalog sizes (default 1000 and 10000)")
    parser.add_argument("--requests", type=int, default=1000, help="timed requests per size")
    parser.add_argument("--write", action="store_true", help="update the section of RESULTS.md")
    options = parser.parse_args()
    rows = [asyncio.run(_measure(size, options.requests)) for size in options.tools or [1000, 10000]]
    table = _table(rows, options.requests)
    print(table)
    if options.write:
        _write(table)


if __name__ == "__main__":
    main()
