"""Hold many idle ``subscriptions/listen`` streams on one uvicorn worker; report its cost.

Run from the repository root: ``python tests/bench/idle_streams.py [--streams 10000]``.
Not collected by pytest (no ``test_`` prefix).

It starts ``uvicorn testproject.asgi:application`` (one worker, its own
SQLite file, ``MCP_MAX_STREAMS`` raised above ``--streams``), opens the
streams from this process over raw sockets (each one waits for its
``notifications/subscriptions/acknowledged`` event, then stays idle), and
reads the server's ``Threads`` and ``VmRSS`` from ``/proc/<pid>/status``
before and with the streams open. While they are open it times a few
``tools/call`` requests, then opens ``--over`` streams more with
``MCP_MAX_STREAMS`` at exactly ``--streams`` to check they are refused with
503. Needs Linux and a file-descriptor limit above ``--streams`` (``ulimit -n``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.wire import modern_headers, modern_request, tool_request  # noqa: E402

SETTINGS = """from testproject.settings import *  # noqa: F403

MCP_MAX_STREAMS = {max_streams}
MCP_SSE_KEEPALIVE = 600  # idle means idle: no keep-alive comment during the run
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def proc_status(pid: int) -> dict[str, int]:
    """Return ``Threads`` and ``VmRSS`` (kB) of process ``pid``."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("Threads", "VmRSS"):
            fields[name] = int(value.split()[0])
    return fields


def http_post(body: dict[str, Any], port: int) -> bytes:
    """Return the bytes of one MCP POST to the conformance endpoint."""
    data = json.dumps(body).encode()
    headers = {
        "Host": f"127.0.0.1:{port}",
        "Content-Type": "application/json",
        "Content-Length": str(len(data)),
        **modern_headers(body),
    }
    head = "POST /conformance/mcp HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return head.encode() + b"\r\n" + data


async def open_stream(port: int, timeout: float) -> tuple[int, asyncio.StreamWriter | None]:
    """Open one listen stream; return its status and, when open, its writer (kept to hold it)."""
    body = modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
    writer.write(http_post(body, port))
    await writer.drain()
    status = int((await asyncio.wait_for(reader.readline(), timeout)).split()[1])
    if status != 200:
        writer.close()
        return status, None
    while not (await asyncio.wait_for(reader.readline(), timeout)).startswith(b"data:"):
        pass  # headers, then the chunk size line: up to the acknowledgement
    return status, writer


async def open_many(port: int, count: int, *, parallel: int, timeout: float) -> list[Any]:
    gate = asyncio.Semaphore(parallel)

    async def one() -> tuple[int, asyncio.StreamWriter | None]:
        async with gate:
            return await open_stream(port, timeout)

    return await asyncio.gather(*(one() for _ in range(count)))


async def time_tool_calls(port: int, count: int) -> list[float]:
    """Return the seconds each of ``count`` sequential ``tools/call`` took."""
    took = []
    for n in range(count):
        started = time.perf_counter()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(http_post(tool_request("test_simple_text", request_id=n), port))
        await writer.drain()
        status = (await asyncio.wait_for(reader.readline(), 30)).split()[1]
        writer.close()
        took.append(time.perf_counter() - started)
        assert status == b"200", status
    return took


def start_server(workdir: Path, port: int, max_streams: int) -> subprocess.Popen[bytes]:
    (workdir / "bench_settings.py").write_text(SETTINGS.format(max_streams=max_streams))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(workdir), str(ROOT)]),
        "DJANGO_SETTINGS_MODULE": "bench_settings",
        "DJANGO_MCP_DB": str(workdir / "db.sqlite3"),
    }
    command = [sys.executable, "-m", "uvicorn", "testproject.asgi:application", "--port", str(port)]
    command += ["--log-level", "warning", "--backlog", "4096", "--no-proxy-headers"]
    command += ["--timeout-graceful-shutdown", "5"]  # open streams would hold shutdown up
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise SystemExit("uvicorn did not start") from None
            time.sleep(0.1)


def stop(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


async def measure(args: argparse.Namespace, workdir: Path) -> None:
    """Open ``--streams`` streams with room for all; print the server's cost."""
    port = free_port()
    server = start_server(workdir, port, args.streams + args.over + 10)
    try:
        idle = proc_status(server.pid)
        started = time.monotonic()
        opened = await open_many(port, args.streams, parallel=args.parallel, timeout=args.timeout)
        seconds = time.monotonic() - started
        await asyncio.sleep(1)
        held = proc_status(server.pid)
        calls = await time_tool_calls(port, 5)
        ok = Counter(status for status, _ in opened)[200]
        per_stream = (held["VmRSS"] - idle["VmRSS"]) / max(ok, 1)
        print(f"idle server:        {idle['Threads']} threads, RSS {idle['VmRSS'] / 1024:.1f} MiB")
        print(
            f"{ok:>6} streams open: {held['Threads']} threads, RSS {held['VmRSS'] / 1024:.1f} MiB "
            f"({per_stream:.1f} KiB per stream), opened in {seconds:.1f} s"
        )
        print(f"tools/call while they are open: {', '.join(f'{t * 1000:.0f} ms' for t in calls)}")
        close(opened)
    finally:
        stop(server)


async def overflow(args: argparse.Namespace, workdir: Path) -> None:
    """Ask ``--over`` streams past ``MCP_MAX_STREAMS`` = ``--streams``; print the statuses."""
    port = free_port()
    server = start_server(workdir, port, args.streams)
    try:
        asked = args.streams + args.over
        opened = await open_many(port, asked, parallel=args.parallel, timeout=args.timeout)
        print(f"MCP_MAX_STREAMS={args.streams}, {asked} asked: {dict(Counter(s for s, _ in opened))}")
        close(opened)
    finally:
        stop(server)


def close(opened: list[Any]) -> None:
    for _, writer in opened:
        if writer is not None:
            writer.close()


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        await measure(args, Path(folder))
        if args.over:
            await overflow(args, Path(folder))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=10_000)
    parser.add_argument("--over", type=int, default=100, help="streams asked past MCP_MAX_STREAMS")
    parser.add_argument("--parallel", type=int, default=200, help="connections opened at once")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per step of one stream")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = args.streams + args.over + 100
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(needed, hard), hard))
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
