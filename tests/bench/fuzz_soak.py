"""Fuzz and soak a live server: malformed and valid requests, RSS sampled.

Run from the repository root (the test suite runs a short form of it,
``tests/live/test_fuzz_soak.py``)::

    python tests/bench/fuzz_soak.py --requests 30000 --workers 8

It starts the demo project on a free loopback port, served one of four ways
(``--serve``: ``fast-asgi``, McpASGIApp under uvicorn, the default;
``plain-asgi``, the plain view under uvicorn; ``fast-wsgi``, McpWSGIApp
under threaded gunicorn; ``plain-wsgi``, the plain view there), or uses
``--url``, then sends a seeded mix of requests to the conformance
fixture endpoint: random bytes, random JSON, wrong envelopes, random params
for every method, deep nesting, oversized bodies, wrong content types and
headers, odd unicode, and plain valid calls. Every request is bounded in
time; the script stops by itself. It fails (exit 1) on any 5xx other than a
503 from the concurrency limit, on any answer that leaks a traceback, a
file path or exception text, on any request that hangs, and on any request
whose answer never arrived because the connection was reset or closed (an
oversized body must get its 413, not a reset). Bodies over 1 MiB (up to
16 MiB, a few) are sent with ``http.client``, which writes the whole body
before it reads the answer and gives up on a connection closed meanwhile
(httpx reads an answer that arrived before its write failed, hiding the
drop). It prints the counts and the server's RSS before and after.
"""

from __future__ import annotations

import argparse
import base64
import concurrent.futures
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.databases import database_env  # noqa: E402

PATH = "/conformance/mcp"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
METHODS = [
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "ping",
    "initialize",
    "nope/nope",
]
#: Bodies larger than this (bytes) go through ``post_whole``.
WHOLE_BODY_FROM = 1024 * 1024
#: Padding sizes of an oversized body (bytes); 16 MiB is drawn now and then.
PADS = [10, 2 * 1024 * 1024, 5 * 1024 * 1024]
BIG_PAD = 16 * 1024 * 1024
# What must never reach a client.
LEAKS = ("Traceback", 'File "', "/site-packages/", str(ROOT), "SECRET_KEY", "Error:")


def json_value(rng: random.Random, depth: int = 0) -> Any:
    """Return a random JSON value."""
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 2**31, 2**63, -(2**70), 1.5, 1e308])
    if kind in (3, 4):
        return rng.choice(["", "x", "test_simple_text", "ü\u0000\ud7ff", "a" * rng.randrange(1, 300)])
    if kind == 5:
        return [json_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {
        rng.choice(["name", "uri", "arguments", "_meta", "x"]): json_value(rng, depth + 1) for _ in range(3)
    }


def request(rng: random.Random) -> tuple[bytes, dict[str, str]]:
    """Return one request body and its headers."""
    method = rng.choice(METHODS)
    params: dict[str, Any] = {
        key: json_value(rng) for key in rng.sample(["name", "arguments", "uri", "ref"], 2)
    }
    if rng.random() < 0.3:
        params["name"] = "test_simple_text"
    if rng.random() < 0.8:
        params["_meta"] = META
    body: Any = {"jsonrpc": "2.0", "id": rng.randrange(100), "method": method, "params": params}
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
    }
    name = params.get("name")
    if isinstance(name, str):
        # Non-ASCII header values travel Base64-encoded (2026-07-28 streamable-http).
        ascii_safe = name.isascii() and name.isprintable()
        headers["Mcp-Name"] = (
            name
            if ascii_safe
            else "=?base64?" + base64.b64encode(name.encode("utf-8", "surrogatepass")).decode() + "?="
        )
    shape = rng.randrange(10)
    if shape == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))), headers
    if shape == 1:
        return json.dumps(json_value(rng)).encode(), headers
    if shape == 2:
        depth = rng.choice([50, 70, 1000, 50000])
        return (
            b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":'
            + b"[" * depth
            + b"]" * depth
            + b"}}",
            headers,
        )
    if shape == 3:
        pad = BIG_PAD if rng.random() < 0.1 else rng.choice(PADS)
        body["params"]["pad"] = "x" * pad
    if shape == 4:
        headers["Content-Type"] = rng.choice(["text/plain", "application/x-www-form-urlencoded", ""])
    if shape == 5:
        headers["Mcp-Method"] = "other"
    if shape == 6:
        body = [body]
    return json.dumps(body).encode(), headers


def rss_kib(pid: int) -> int:
    """Return the resident set size of ``pid`` in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


#: How each way to serve is started: the command (given the port) and the
#: environment it needs besides the database.
SERVE: dict[str, tuple[Callable[[int], list[str]], dict[str, str]]] = {
    "fast-asgi": (lambda port: _uvicorn(port), {}),
    "plain-asgi": (lambda port: _uvicorn(port), {"DJANGO_MCP_PLAIN_VIEW": "1"}),
    "fast-wsgi": (lambda port: _gunicorn(port), {}),
    "plain-wsgi": (lambda port: _gunicorn(port), {"DJANGO_MCP_PLAIN_VIEW": "1"}),
}


def _uvicorn(port: int) -> list[str]:
    return [sys.executable, "-m", "uvicorn", "testproject.asgi:application"] + [
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "critical",
    ]


def _gunicorn(port: int) -> list[str]:
    return [sys.executable, "-m", "gunicorn", "testproject.wsgi:application"] + [
        "--bind",
        f"127.0.0.1:{port}",
        "--threads",
        "8",
        "--log-level",
        "critical",
    ]


def start_server(serve: str = "fast-asgi") -> tuple[subprocess.Popen[bytes], str]:
    """Start the demo project served the ``serve`` way; return the process and its URL."""
    command, extra_env = SERVE[serve]
    # An SQLite file, or a PostgreSQL database when DJANGO_MCP_PG_NAME is set.
    database = Path(tempfile.mkdtemp()) / "soak.sqlite3"
    env = {
        **os.environ,
        **database_env(database),
        "DJANGO_SETTINGS_MODULE": "testproject.settings",
        **extra_env,
    }
    subprocess.run(
        [sys.executable, "testproject/manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    port = free_port()
    process = subprocess.Popen(
        command(port),
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process, f"http://127.0.0.1:{port}"
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.1)
    process.kill()
    process.wait()
    raise RuntimeError(f"the {serve} server did not start")


def post_whole(url: str, body: bytes, headers: dict[str, str], timeout: float) -> tuple[int, str, str]:
    """POST ``body`` whole before reading the answer; return its status, content type and text.

    A connection the server closes (or resets) while the body is sent, or
    before its answer is read, raises ``OSError`` or ``HTTPException``.
    """
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    try:
        connection.request("POST", parts.path, body=body, headers=headers)
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        return response.status, response.getheader("content-type") or "", text
    finally:
        connection.close()


def soak(url: str, *, requests: int, workers: int, seed: int, timeout: float) -> dict[str, Any]:
    """Send ``requests`` requests; return the counts and every problem seen."""
    statuses: Counter[int] = Counter()
    problems: list[str] = []
    hangs = dropped = 0

    def one(index: int, client: httpx.Client) -> None:
        nonlocal hangs, dropped
        rng = random.Random(seed * 1_000_003 + index)
        body, headers = request(rng)
        try:
            if len(body) > WHOLE_BODY_FROM:
                status, content_type, text = post_whole(url + PATH, body, headers, timeout)
            else:
                response = client.post(url + PATH, content=body, headers=headers, timeout=timeout)
                status, content_type, text = (
                    response.status_code,
                    response.headers.get("content-type", ""),
                    response.text,
                )
        except (httpx.TimeoutException, TimeoutError):
            hangs += 1
            problems.append(f"request {index} hung")
            return
        except (httpx.TransportError, OSError, http.client.HTTPException) as exc:
            dropped += 1
            problems.append(f"request {index} ({len(body)} bytes) got no answer: {type(exc).__name__}")
            return
        statuses[status] += 1
        if status >= 500 and status != 503:
            problems.append(f"request {index}: HTTP {status} {text[:120]!r} for {body[:80]!r}")
        for leak in LEAKS:
            if leak in text:
                problems.append(f"request {index}: answer contains {leak!r}")
        if text and not content_type.startswith(("application/json", "text/event-stream")):
            problems.append(f"request {index}: {content_type!r} answer")

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        clients = [httpx.Client() for _ in range(workers)]
        try:
            futures = [pool.submit(one, index, clients[index % workers]) for index in range(requests)]
            for future in futures:
                future.result()
        finally:
            for client in clients:
                client.close()
    statuses_sorted = dict(sorted(statuses.items()))
    return {"statuses": statuses_sorted, "problems": problems, "hangs": hangs, "dropped": dropped}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=30000)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds one request may take")
    parser.add_argument("--url", help="an already running server (RSS is then not sampled)")
    parser.add_argument("--serve", choices=sorted(SERVE), default="fast-asgi", help="how to serve the demo")
    args = parser.parse_args(argv)
    process = None
    url = args.url
    if url is None:
        process, url = start_server(args.serve)
    try:
        before = rss_kib(process.pid) if process else 0
        started = time.monotonic()
        result = soak(url, requests=args.requests, workers=args.workers, seed=args.seed, timeout=args.timeout)
        elapsed = time.monotonic() - started
        after = rss_kib(process.pid) if process else 0
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=10)
    print(f"requests: {args.requests} in {elapsed:.1f} s, statuses: {result['statuses']}")
    print(f"5xx (not 503): {sum(n for s, n in result['statuses'].items() if s >= 500 and s != 503)}")
    print(f"hangs: {result['hangs']}, dropped: {result['dropped']}, problems: {len(result['problems'])}")
    if process is not None:
        print(f"server RSS: {before / 1024:.1f} MiB before, {after / 1024:.1f} MiB after")
    for problem in result["problems"][:20]:
        print("  " + problem)
    return 1 if result["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
