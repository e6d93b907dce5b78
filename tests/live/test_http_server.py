"""What only a real ASGI server process shows: early 413s and thread-free streams.

One uvicorn process serves ``testproject.asgi:application`` (wrapped in
``McpASGIApp``) on a free loopback port for this module; every wait is
bounded.

* A POST declaring a 200 MiB body is answered 413 before any of the body
  is sent (Django's own handler would wait for all of it).
* Idle ``subscriptions/listen`` streams hold no OS thread each: with
  ``STREAMS`` of them open the process keeps a handful of threads (it had
  one per stream). The thread count and resident memory are read from
  ``/proc/<pid>/status`` and printed (``pytest -s`` or ``-rP`` shows them).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, AsyncExitStack
from pathlib import Path
from subprocess import Popen

import httpx
import pytest

from tests.conftest import _free_port, uvicorn_command
from tests.databases import database_env
from tests.wire import modern_headers, modern_request

StartServer = Callable[..., AbstractContextManager[Popen[bytes]]]

WAIT = 10.0  # seconds: bound of every single wait
STREAMS = 300
MAX_THREADS = 20

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc/<pid>/status")


def proc_status(pid: int) -> dict[str, str]:
    """Return the ``Threads`` and ``VmRSS`` lines of ``/proc/<pid>/status``."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("Threads", "VmRSS"):
            fields[name] = value.strip()
    return fields


@pytest.fixture(scope="module")
def server(start_server: StartServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """Run uvicorn on the demo project; yield its base URL and process id."""
    port = _free_port()
    folder = tmp_path_factory.mktemp("http-server")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "testproject.settings",
        **database_env(folder / "db.sqlite3"),
    }
    with start_server(uvicorn_command(port), port=port, log_path=folder / "uvicorn.log", env=env) as process:
        yield f"http://127.0.0.1:{port}", process.pid


async def test_a_declared_oversized_body_is_refused_before_it_is_sent(server: tuple[str, int]) -> None:
    url, _ = server
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, int(port)), WAIT)
    try:
        writer.write(
            b"POST /conformance/mcp HTTP/1.1\r\n"
            b"Host: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\n"
            b"Accept: application/json\r\n" + f"Content-Length: {200 * 1024 * 1024}\r\n\r\n".encode()
        )
        await writer.drain()
        # Not one byte of the body is sent: the answer must come anyway.
        status_line = await asyncio.wait_for(reader.readline(), WAIT)
    finally:
        writer.close()

    assert status_line.split()[1] == b"413"


async def _open_listen_stream(
    client: httpx.AsyncClient, url: str, stack: AsyncExitStack
) -> AsyncIterator[str]:
    body = modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    response = await stack.enter_async_context(
        client.stream("POST", f"{url}/conformance/mcp", json=body, headers=modern_headers(body))
    )
    assert response.status_code == 200
    lines = response.aiter_lines()
    async for line in lines:  # up to the acknowledgement: the stream is open and idle
        if line.startswith("data:"):
            return lines
    raise AssertionError("the stream ended before its acknowledgement")


@pytest.mark.timeout(120)
async def test_idle_listen_streams_hold_no_thread_each(server: tuple[str, int]) -> None:
    url, pid = server
    before = proc_status(pid)
    limits = httpx.Limits(max_connections=STREAMS + 10, max_keepalive_connections=0)
    gate = asyncio.Semaphore(50)  # connections opened at once
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(httpx.AsyncClient(limits=limits, timeout=WAIT))

        async def open_one() -> AsyncIterator[str]:
            async with gate:
                return await asyncio.wait_for(_open_listen_stream(client, url, stack), WAIT)

        # The line iterators are kept: dropping one would close its stream.
        streams = await asyncio.gather(*(open_one() for _ in range(STREAMS)))
        await asyncio.sleep(0.5)  # anything started for the requests has settled
        during = proc_status(pid)

    print(
        f"uvicorn before: {before['Threads']} threads, RSS {before['VmRSS']}; "
        f"with {len(streams)} idle listen streams: {during['Threads']} threads, RSS {during['VmRSS']}"
    )
    assert int(during["Threads"]) < MAX_THREADS, during
