"""A refused body's 413 reaches a real client on every way to serve (django_mcp/transports/_body.py).

The client is Python's ``http.client``: it writes the whole body before it
reads anything, and gives up on a connection closed meanwhile. A server
that closed the connection as soon as its refusal ended (uvicorn does, for
an answer marked ``Connection: close``) with the body still arriving sent
a reset instead, and the 413 was lost: 5 times of 5 for a 4 MiB body, half
of 16 concurrent 3 MiB uploads. The body is now read (within
``DRAIN_BYTES``) before the refusal goes.

Each way to serve (McpASGIApp and the plain view under uvicorn, McpWSGIApp
and the plain view under threaded gunicorn) runs as a private process on a
free loopback port, one after the other. A refusal touches no database, so
none is migrated and no Tasks worker runs: the servers start in seconds.
Every wait is bounded.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from subprocess import Popen
from typing import Any
from unittest.mock import ANY

import pytest

from django_mcp.protocol import jsonrpc
from django_mcp.transports._body import DRAIN_BYTES
from tests.conftest import _free_port, gunicorn_command, uvicorn_command
from tests.wire import modern_headers, modern_request

MiB = 1024 * 1024
WAIT = 30.0  # seconds: bound of every single request
UPLOADS = 16  # concurrent uploads

StartServer = Callable[..., AbstractContextManager[Popen[bytes]]]

#: Each way to serve: the server command (given the port) and its environment.
SERVES: dict[str, tuple[Callable[[int], list[str]], dict[str, str]]] = {
    "fast-asgi": (uvicorn_command, {}),
    "plain-asgi": (uvicorn_command, {"DJANGO_MCP_PLAIN_VIEW": "1"}),
    "fast-wsgi": (gunicorn_command, {}),
    "plain-wsgi": (gunicorn_command, {"DJANGO_MCP_PLAIN_VIEW": "1"}),
}

REFUSED = {"jsonrpc": "2.0", "error": {"code": jsonrpc.INVALID_REQUEST, "message": ANY}}


def upload(url: str, size: int) -> tuple[int, Any]:
    """POST a tools/list of ``size`` bytes, the body written whole before reading; return status and JSON."""
    request = modern_request("tools/list", {"pad": ""})
    request["params"]["pad"] = "x" * (size - len(json.dumps(request)))
    body = json.dumps(request).encode()
    headers = {**modern_headers(request), "Content-Type": "application/json"}
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=WAIT)
    try:
        # request() sends the headers and the whole body; only then does getresponse() read.
        connection.request("POST", "/conformance/mcp", body=body, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


@pytest.fixture(scope="module", params=list(SERVES))
def server_url(
    request: pytest.FixtureRequest, start_server: StartServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """Serve the demo project one way; yield its base URL."""
    command, extra_env = SERVES[request.param]
    folder = tmp_path_factory.mktemp(f"body-{request.param}")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "testproject.settings",
        "DJANGO_MCP_DB": str(folder / "db.sqlite3"),  # never opened: a refusal reads no database
        **extra_env,
    }
    env.pop("DJANGO_MCP_TASKS", None)
    port = _free_port()
    with start_server(command(port), port=port, log_path=folder / "server.log", env=env):
        yield f"http://127.0.0.1:{port}"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("mib", [4, 8, 16])
def test_a_body_written_whole_before_reading_gets_its_413(server_url: str, mib: int) -> None:
    assert mib * MiB <= DRAIN_BYTES  # within the bound: read, so the answer arrives

    assert upload(server_url, mib * MiB) == (413, REFUSED)


@pytest.mark.timeout(120)
def test_concurrent_uploads_all_get_their_413(server_url: str) -> None:
    with concurrent.futures.ThreadPoolExecutor(UPLOADS) as pool:
        futures = [pool.submit(upload, server_url, 3 * MiB) for _ in range(UPLOADS)]
        answers = [future.result(timeout=2 * WAIT) for future in futures]

    assert answers == [(413, REFUSED)] * UPLOADS
