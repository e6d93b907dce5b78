"""Drive each way to serve in-process: CPU time and Python calls per request.

Run from the repository root with the project's environment::

    python tests/bench/inprocess.py                    # every way, every scenario
    python tests/bench/inprocess.py --ways fast-asgi,floor-asgi --scenarios echo
    python tests/bench/inprocess.py --requests 5000 --json /tmp/inprocess.json
    python tests/bench/inprocess.py --profile fast-asgi:echo   # cProfile, top 30 by tottime
    python tests/bench/inprocess.py --ways fast-asgi --scenarios echo --telemetry  # OTel SDK on

No socket and no HTTP server: each way's callable is called directly in a
loop, the ASGI ones with ``(scope, receive, send)`` inside one event loop,
the WSGI ones with an environ and ``start_response``, as gunicorn's sync
worker would (``wsgi.multithread`` false). So the figures are the cost of
the application alone, which is what this package controls; the wrk
harness (``run.py``) adds the HTTP servers.

Ways (``--list``):

* ``fast-asgi``: ``McpASGIApp`` around Django's ASGI handler;
* ``plain-asgi``: ``Server.as_view()`` under Django's ASGI handler;
* ``fast-wsgi``: ``McpWSGIApp`` around Django's WSGI handler;
* ``plain-wsgi``: ``Server.as_view()`` under Django's WSGI handler;
* ``floor-asgi``: a bare ASGI callable decoding and encoding with msgspec;
* ``floor-django-async`` / ``floor-django-sync``: bare Django views doing
  the same, under Django's ASGI and WSGI handlers.

Scenarios: ``echo`` (``tools/call``), ``structured`` (a tool with an output
schema), ``resource`` (``resources/read`` of a URI template), ``prompt``
(``prompts/get``), ``list`` (``tools/list`` of the 10-tool catalog) and
``orm`` (``tools/call`` of the sync ``orm_lookup`` tool: ten rows read
through the ORM from a SQLite file made for the run, as run.py makes it),
all 2026-07-28, each reply checked in full once.

Figures per request: CPU microseconds (``time.process_time``, every thread
of the process, of the fastest of ten batches: other work on the machine
only adds time) and Python function calls (profile
``call`` events in every thread, counted on one warmed-up request;
C functions are not counted) and threads started (``threading.Thread.start``
calls, over 100 warmed-up requests). Each way runs in a process of its own, as the
servers' app files configure Django settings. The call count is exact and
repeatable for one Python and Django version; the CPU time is not, so quote
it from a quiet machine. Not collected by pytest.

``--telemetry`` measures with observation on: each way's process sets the
OpenTelemetry SDK's global tracer provider (every span ended and handed to
an exporter that drops it) and meter provider (an in-memory reader) before
its application loads, so every request is traced and measured
(``django_mcp.observability``). Without it, whatever ``opentelemetry-api``
is installed, nothing observes and a request pays one attribute test.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import os
import pstats
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parents[1]
SERVERS = BENCH / "servers"

MODERN = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
HOST = "127.0.0.1"
#: The timed requests of a cell are run in this many batches; the fastest counts.
BATCHES = 10


@dataclass(frozen=True)
class Way:
    """One callable to drive: which app file defines it, and its interface."""

    key: str
    title: str
    module: str
    attribute: str
    interface: str  # "asgi" or "wsgi"
    #: Whether it serves the ``orm_lookup`` tool (the bare ASGI app has no ORM).
    orm: bool = True


WAYS: dict[str, Way] = {
    way.key: way
    for way in (
        Way("fast-asgi", "McpASGIApp", "ours", "fast_asgi", "asgi"),
        Way("plain-asgi", "Server.as_view() under Django's ASGI handler", "ours", "application", "asgi"),
        Way("fast-wsgi", "McpWSGIApp", "ours", "fast_wsgi", "wsgi"),
        Way("plain-wsgi", "Server.as_view() under Django's WSGI handler", "ours", "wsgi_application", "wsgi"),
        Way("floor-asgi", "floor: bare ASGI app + msgspec", "floor_asgi", "app", "asgi", orm=False),
        Way(
            "floor-django-async",
            "floor: bare async Django view + msgspec",
            "floor_django_async",
            "application",
            "asgi",
        ),
        Way(
            "floor-django-sync",
            "floor: bare sync Django view + msgspec",
            "floor_django_sync",
            "wsgi_application",
            "wsgi",
        ),
    )
}


@dataclass(frozen=True)
class Scenario:
    """One request, and what its result must hold."""

    key: str
    method: str
    params: dict[str, Any]
    name: str | None
    expect: Callable[[dict[str, Any]], bool]


def _text_is(text: str) -> Callable[[dict[str, Any]], bool]:
    block = {"type": "text", "text": text}
    return lambda result: result.get("content") == [block] and not result.get("isError")


SCENARIOS: dict[str, Scenario] = {
    scenario.key: scenario
    for scenario in (
        Scenario(
            "echo",
            "tools/call",
            {"name": "echo", "arguments": {"text": "hello bench"}},
            "echo",
            _text_is("hello bench"),
        ),
        Scenario(
            "structured",
            "tools/call",
            {"name": "sum_product", "arguments": {"a": 2, "b": 3}},
            "sum_product",
            lambda result: result.get("structuredContent") == {"sum": 5, "product": 6},
        ),
        Scenario(
            "resource",
            "resources/read",
            {"uri": "bench://items/42"},
            "bench://items/42",
            lambda result: result.get("contents", [{}])[0].get("text") == "item 42",
        ),
        Scenario(
            "prompt",
            "prompts/get",
            {"name": "greet", "arguments": {"name": "Ada"}},
            "greet",
            lambda result: result["messages"][0]["content"] == {"type": "text", "text": "Say hello to Ada."},
        ),
        Scenario(
            "orm",
            "tools/call",
            {"name": "orm_lookup", "arguments": {"item_id": 7}},
            "orm_lookup",
            _text_is("item-7"),
        ),
        Scenario(
            "list",
            "tools/list",
            {},
            None,
            lambda result: [tool["name"] for tool in result.get("tools", [])][:2] == ["echo", "sum_product"],
        ),
    )
}


def request_parts(scenario: Scenario) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """Return the body and the headers of ``scenario``'s request, as a client sends them."""
    params = dict(scenario.params)
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": scenario.method, "params": params}).encode()
    headers = [
        (b"host", HOST.encode()),
        (b"content-type", b"application/json"),
        (b"accept", ACCEPT.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"mcp-protocol-version", MODERN.encode()),
        (b"mcp-method", scenario.method.encode()),
    ]
    if scenario.name is not None:
        headers.append((b"mcp-name", scenario.name.encode()))
    return body, headers


# ------------------------------------------------------------------ drivers


class AsgiDriver:
    """Call an ASGI app with one POST to ``/mcp``; collect what it sends."""

    def __init__(self, app: Any, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
        self.app = app
        self.body = body
        self.headers = headers
        self.loop = asyncio.new_event_loop()

    def _scope(self) -> dict[str, Any]:
        return {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/mcp",
            "raw_path": b"/mcp",
            "query_string": b"",
            "root_path": "",
            "headers": self.headers,
            "client": (HOST, 50000),
            "server": (HOST, 8000),
            "state": {},
        }

    async def _once(self) -> tuple[int, bytes]:
        sent: list[dict[str, Any]] = []
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": self.body, "more_body": False}
            await asyncio.Event().wait()  # a client that stays connected
            raise AssertionError("unreachable")

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await self.app(self._scope(), receive, send)
        status = next(message["status"] for message in sent if message["type"] == "http.response.start")
        chunks = [message.get("body", b"") for message in sent if message["type"] == "http.response.body"]
        body = b"".join(chunks)
        return status, body

    async def _many(self, count: int) -> None:
        for _ in range(count):
            await self._once()

    def once(self) -> tuple[int, bytes]:
        """Serve one request; return its status and body."""
        return self.loop.run_until_complete(self._once())

    def many(self, count: int) -> None:
        """Serve ``count`` requests in one run of the loop."""
        self.loop.run_until_complete(self._many(count))

    def counted(self, profile: Callable[..., Any]) -> tuple[int, bytes]:
        """Serve one request with ``profile`` set in every thread (see ``count_calls``)."""

        async def run() -> tuple[int, bytes]:
            with _Profiling(profile):
                return await self._once()

        return self.loop.run_until_complete(run())


class WsgiDriver:
    """Call a WSGI app with one POST to ``/mcp`` as a sync worker would."""

    def __init__(self, app: Any, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
        self.app = app
        self.body = body
        self.base = {
            "REQUEST_METHOD": "POST",
            "SCRIPT_NAME": "",
            "PATH_INFO": "/mcp",
            "QUERY_STRING": "",
            "SERVER_NAME": HOST,
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": HOST,
            "REMOTE_PORT": "50000",
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": False,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
            "wsgi.input_terminated": True,
        }
        for name, value in headers:
            key = name.decode().upper().replace("-", "_")
            if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
                key = "HTTP_" + key
            self.base[key] = value.decode("latin-1")

    def once(self) -> tuple[int, bytes]:
        """Serve one request; return its status and body."""
        environ = dict(self.base)
        environ["wsgi.input"] = io.BytesIO(self.body)
        status: list[str] = []

        def start_response(line: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            status.append(line)
            return lambda data: None

        result = self.app(environ, start_response)
        try:
            body = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        return int(status[0].split(" ", 1)[0]), body

    def many(self, count: int) -> None:
        """Serve ``count`` requests."""
        once = self.once
        for _ in range(count):
            once()

    def counted(self, profile: Callable[..., Any]) -> tuple[int, bytes]:
        """Serve one request with ``profile`` set in every thread."""
        with _Profiling(profile):
            return self.once()


class _Profiling:
    """Set a profile function in this thread and every other while the block runs."""

    def __init__(self, profile: Callable[..., Any]) -> None:
        self.profile = profile

    def __enter__(self) -> None:
        setter = getattr(threading, "setprofile_all_threads", None)  # Python 3.12+
        if setter is not None:
            setter(self.profile)
        else:  # Python 3.11: this thread and the threads started meanwhile only
            threading.setprofile(self.profile)
            sys.setprofile(self.profile)

    def __exit__(self, *exc: object) -> None:
        setter = getattr(threading, "setprofile_all_threads", None)
        if setter is not None:
            setter(None)
        else:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]


def count_calls(driver: AsgiDriver | WsgiDriver) -> tuple[int, tuple[int, bytes]]:
    """Return the Python function calls one request makes, and its answer."""
    calls = 0
    lock = threading.Lock()

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call":
            with lock:
                calls += 1

    answer = driver.counted(profile)
    # The __exit__ of the profiling block itself is counted: take it off.
    return calls - 1, answer


def count_threads(driver: AsgiDriver | WsgiDriver, requests: int) -> float:
    """Return the threads started per request (``threading.Thread.start`` calls) over ``requests``."""
    started = 0
    start = threading.Thread.start

    def counted(thread: threading.Thread) -> None:
        nonlocal started
        started += 1
        start(thread)

    threading.Thread.start = counted  # type: ignore[method-assign]
    try:
        driver.many(requests)
    finally:
        threading.Thread.start = start  # type: ignore[method-assign]
    return started / requests


def check(scenario: Scenario, status: int, body: bytes) -> None:
    """Raise ``SystemExit`` unless the answer is the scenario's correct result."""
    if status != 200:
        raise SystemExit(f"{scenario.key}: HTTP {status}: {body[:300]!r}")
    message = json.loads(body)
    result = message.get("result")
    if not isinstance(result, dict) or not scenario.expect(result):
        raise SystemExit(f"{scenario.key}: unexpected answer {body[:300]!r}")


# ------------------------------------------------------------------ worker


def _telemetry_on() -> None:
    """Set the OpenTelemetry SDK's global providers: every span is exported (and dropped)."""
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

    class Dropped(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(Dropped()))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))


def _database() -> str:
    """Return a new SQLite file holding ``bench_item`` (100 rows), as run.py makes it."""
    path = Path(tempfile.mkdtemp(prefix="inprocess-")) / "bench.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE bench_item (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL)")
        connection.executemany(
            "INSERT INTO bench_item VALUES (?, ?)", [(i, f"item-{i}") for i in range(1, 101)]
        )
    return str(path)


def _load(way: Way) -> Any:
    if "BENCH_DB" not in os.environ:
        os.environ["BENCH_DB"] = _database()
    if os.environ.get("BENCH_TELEMETRY"):
        _telemetry_on()
    sys.path[:0] = [str(SERVERS), str(ROOT)]
    module = __import__(way.module)
    return getattr(module, way.attribute)


def worker(
    way: Way, scenarios: Iterable[Scenario], requests: int, *, profile: bool = False
) -> list[dict[str, Any]]:
    """Measure ``scenarios`` on ``way`` in this process; return one row each."""
    app = _load(way)
    rows = []
    for scenario in scenarios:
        if scenario.key == "orm" and not way.orm:
            continue
        body, headers = request_parts(scenario)
        driver: AsgiDriver | WsgiDriver = (AsgiDriver if way.interface == "asgi" else WsgiDriver)(
            app, body, headers
        )
        check(scenario, *driver.once())
        driver.many(max(requests // 10, 50))  # warm-up: caches, pools, connections
        calls, answer = count_calls(driver)
        check(scenario, *answer)
        threads = count_threads(driver, 100)
        if profile:
            profiler = cProfile.Profile()
            profiler.enable()
            driver.many(requests)
            profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(30)
            print(out.getvalue(), file=sys.stderr)
        # The fastest of several batches: other work on the machine only
        # ever adds time, so the minimum is the steadiest estimate.
        gc.collect()  # the garbage of start-up and warm-up is no request's
        batch = max(requests // BATCHES, 1)
        cpu = float("inf")
        for _ in range(BATCHES):
            started = time.process_time()
            driver.many(batch)
            cpu = min(cpu, (time.process_time() - started) / batch * requests)
        rows.append(
            {
                "way": way.key,
                "scenario": scenario.key,
                "calls": calls,
                "threads": threads,
                "cpu_us": round(cpu / requests * 1e6, 1),
                "requests": requests,
            }
        )
    return rows


# ------------------------------------------------------------------ parent


def _run_way(
    way: Way, scenarios: list[str], requests: int, python: str, *, telemetry: bool = False
) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SERVERS), str(ROOT)])}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.pop("BENCH_TELEMETRY", None)
    if telemetry:
        env["BENCH_TELEMETRY"] = "1"
    command = [python, str(Path(__file__)), "--worker", way.key, "--scenarios", ",".join(scenarios)]
    command += ["--requests", str(requests)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{way.key} failed:\n{done.stderr[-3000:]}")
    return list(json.loads(done.stdout))


def _versions(python: str) -> str:
    probe = (
        "import sys, django, msgspec; print(sys.version.split()[0], django.__version__, msgspec.__version__)"
    )
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    return f"Python {out[0]}, Django {out[1]}, msgspec {out[2]}"


def table(rows: list[dict[str, Any]], scenarios: list[str]) -> str:
    """Return the rows as a Markdown table: one line per way, ``calls / µs / threads`` per scenario."""
    lines = [
        "| way | " + " | ".join(scenarios) + " |",
        "|---|" + "---:|" * len(scenarios),
    ]
    for key, way in WAYS.items():
        cells = {row["scenario"]: row for row in rows if row["way"] == key}
        if not cells:
            continue
        values = [
            f"{cells[name]['calls']} / {cells[name]['cpu_us']:.1f} / {cells[name].get('threads', 0):g}"
            if name in cells
            else ""
            for name in scenarios
        ]
        lines.append(f"| {way.title} | " + " | ".join(values) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the in-process benchmark (or, with ``--worker``, one way of it)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ways", default=",".join(WAYS), help="comma-separated way keys")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help="comma-separated scenario keys")
    parser.add_argument("--requests", type=int, default=3000, help="requests timed per scenario")
    parser.add_argument("--python", default=sys.executable, help="the interpreter each way runs in")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    parser.add_argument("--list", action="store_true", help="print the ways and scenarios")
    parser.add_argument("--profile", metavar="WAY:SCENARIO", help="print a cProfile of one way and scenario")
    parser.add_argument(
        "--telemetry", action="store_true", help="trace and measure every request (OpenTelemetry SDK)"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    scenarios = [name for name in args.scenarios.split(",") if name]
    unknown = [name for name in scenarios if name not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(unknown)}")
    if args.list:
        for way in WAYS.values():
            print(f"{way.key:20} {way.title}")
        for key in SCENARIOS:
            print(f"{key:20} scenario")
        return 0
    if args.worker:
        rows = worker(WAYS[args.worker], [SCENARIOS[name] for name in scenarios], args.requests)
        print(json.dumps(rows))
        return 0
    if args.profile:
        if args.telemetry:
            os.environ["BENCH_TELEMETRY"] = "1"
        way_key, _, scenario_key = args.profile.partition(":")
        worker(WAYS[way_key], [SCENARIOS[scenario_key or "echo"]], args.requests, profile=True)
        return 0
    ways = [name for name in args.ways.split(",") if name]
    missing = [name for name in ways if name not in WAYS]
    if missing:
        parser.error(f"unknown way(s): {', '.join(missing)}")
    rows: list[dict[str, Any]] = []
    for key in ways:
        rows += _run_way(WAYS[key], scenarios, args.requests, args.python, telemetry=args.telemetry)
    versions = _versions(args.python)
    observed = ", OpenTelemetry SDK on" if args.telemetry else ""
    print(
        f"In-process, {args.requests} requests per cell{observed}, {versions}; "
        "Python calls / CPU µs / threads started, per request\n"
    )
    print(table(rows, scenarios))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
