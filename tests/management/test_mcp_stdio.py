"""Tests of ``manage.py mcp_stdio``, run in-process with in-memory streams."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from django_mcp import McpResponse, Server, Tool
from django_mcp.registry import registry
from django_mcp.transports.stdio import protect_stdout, run_stdio
from tests.wire import modern_request, tool_request

SERVER_INFO = {"io.modelcontextprotocol/serverInfo": {"name": "stdio-command", "version": "1.0.0"}}


class NoisyTool(Tool):
    """Print to stdout, then answer."""

    name = "noisy"

    def handle(self) -> McpResponse:
        print("noise from a tool")
        return McpResponse.text("quiet")


class CommandServer(Server):
    name = "stdio-command"
    version = "1.0.0"
    tools = (NoisyTool,)


@pytest.fixture
def registered() -> Iterator[None]:
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}})
    registry.local("stdio-command", CommandServer)
    yield
    registry.restore(saved)


def lines(*messages: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


REQUESTS = lines(
    tool_request("noisy"),
    {"jsonrpc": "2.0", "id": 2, "method": "ping"},
)
ANSWERS = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "resultType": "complete",
            "content": [{"type": "text", "text": "quiet"}],
            "isError": False,
            "_meta": SERVER_INFO,
        },
    },
    {"jsonrpc": "2.0", "id": 2, "result": {}},
]


def decode(output: bytes | str) -> list[dict[str, Any]]:
    text = output.decode() if isinstance(output, bytes) else output
    assert text.endswith("\n")
    return sorted((json.loads(line) for line in text.splitlines()), key=lambda message: message["id"])


def test_run_stdio_serves_binary_streams_until_end_of_input() -> None:
    stdout = io.BytesIO()

    run_stdio(CommandServer, stdin=io.BytesIO(REQUESTS), stdout=stdout)

    assert decode(stdout.getvalue()) == ANSWERS


def test_command_writes_only_protocol_messages_to_stdout(
    registered: None, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(REQUESTS)))

    call_command("mcp_stdio", "stdio-command")
    out, err = capfd.readouterr()

    assert decode(out) == ANSWERS
    assert "noise from a tool" in err


def test_unknown_server_is_a_command_error_naming_the_registered_ones(registered: None) -> None:
    with pytest.raises(CommandError) as raised:
        call_command("mcp_stdio", "nope")

    assert "'nope'" in str(raised.value) and "'stdio-command'" in str(raised.value)


def test_protect_stdout_sends_prints_to_stderr_and_restores(capfd: pytest.CaptureFixture[str]) -> None:
    original = sys.stdout

    with protect_stdout() as frames:
        print("diverted")
        frames.write(b"frame\n")
    print("restored")
    out, err = capfd.readouterr()

    assert sys.stdout is original
    assert (out, err) == ("frame\nrestored\n", "diverted\n")


def test_manage_py_serves_a_real_pipe_and_exits_at_end_of_input() -> None:
    # The one subprocess test: real pipes, file descriptor 1, process exit.
    local = list(registry.local_servers())
    if not local:
        pytest.skip("testproject registers no local server")
    discover = modern_request("server/discover")
    root = Path(__file__).resolve().parents[2]

    finished = subprocess.run(
        [sys.executable, "testproject/manage.py", "mcp_stdio", local[0]],
        input=lines(discover, {"jsonrpc": "2.0", "id": 2, "method": "ping"}),
        capture_output=True,
        cwd=root,
        timeout=60,
        check=False,
    )

    assert finished.returncode == 0, finished.stderr.decode()
    answers = decode(finished.stdout)
    assert [answer["id"] for answer in answers] == [1, 2]
    assert answers[0]["result"]["resultType"] == "complete"
    assert answers[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
