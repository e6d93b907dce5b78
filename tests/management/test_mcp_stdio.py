"""Tests of ``manage.py mcp_stdio``, run in-process with in-memory streams."""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import CommandError, call_command

from django_mcp import McpRequest, McpResponse, Server, Tool
from django_mcp.conf import get_django_settings
from django_mcp.management.commands import mcp_stdio
from django_mcp.protocol import jsonrpc
from django_mcp.ratelimit import identity_of
from django_mcp.registry import registry
from django_mcp.transports.stdio import protect_stdout, run_stdio
from tests.wire import legacy_initialize, modern_request, tool_request

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


class BrokenServer(Server):
    tools = (NoisyTool, NoisyTool)  # one tool twice: does not compile


def test_a_server_that_does_not_compile_is_a_command_error(registered: None) -> None:
    registry.local("broken", BrokenServer)
    out = io.StringIO()

    with pytest.raises(
        CommandError, match=r"'broken' does not compile \(django_mcp\.E015\): .*duplicate tool"
    ):
        call_command("mcp_stdio", "broken", skip_checks=True, stdout=out)
    assert out.getvalue() == ""


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


# ------------------------------------------------------------------ --user


class WhoAmITool(Tool):
    """Say whom the call is counted for; only staff who may view users see it."""

    name = "whoami"
    permissions = ("auth.view_user",)

    def authorize(self, request: McpRequest) -> bool:
        return bool(request.user.is_staff)

    def handle(self, request: McpRequest) -> McpResponse:
        return McpResponse.text(identity_of(request))


class StaffServer(Server):
    name = "stdio-staff"
    version = "1.0.0"
    tools = (WhoAmITool,)


@pytest.fixture
def staff_server(registered: None) -> None:
    registry.local("stdio-staff", StaffServer)


@pytest.fixture
def people(transactional_db: None) -> dict[str, User]:
    # Committed (transactional_db): sync handlers and permission lookups run
    # on another thread, with a database connection of their own.
    alice = User.objects.create_user("alice", is_staff=True)
    alice.user_permissions.add(Permission.objects.get(codename="view_user"))
    return {
        "alice": alice,
        "bob": User.objects.create_user("bob", is_staff=True),
        "carol": User.objects.create_user("carol", is_staff=True, is_active=False),
    }


def serve_staff(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], *args: str, requests: bytes
) -> list[dict[str, Any]]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(requests)))
    call_command("mcp_stdio", "stdio-staff", *args)
    out, _ = capfd.readouterr()
    return decode(out)


WHOAMI = lines(modern_request("tools/list"), tool_request("whoami", request_id=2))


def test_user_flag_lists_and_calls_the_tools_that_user_may_use(
    staff_server: None,
    people: dict[str, User],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    listed, called = serve_staff(monkeypatch, capfd, "--user", "alice", requests=WHOAMI)

    assert [tool["name"] for tool in listed["result"]["tools"]] == ["whoami"]
    assert called["result"]["content"] == [{"type": "text", "text": f"user:{people['alice'].pk}"}]
    assert called["result"]["isError"] is False


@pytest.mark.parametrize("args", [(), ("--user", "bob")], ids=["no-user", "user-without-permission"])
def test_a_gated_tool_is_hidden_from_a_caller_without_its_permission(
    staff_server: None,
    people: dict[str, User],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    args: tuple[str, ...],
) -> None:
    listed, called = serve_staff(monkeypatch, capfd, *args, requests=WHOAMI)

    assert listed["result"]["tools"] == []
    assert called["error"]["code"] == jsonrpc.INVALID_PARAMS  # as for an unknown tool


def test_user_flag_also_makes_the_requests_of_a_2025_11_25_session(
    staff_server: None,
    people: dict[str, User],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami"}}
    requests = lines(legacy_initialize(), {"jsonrpc": "2.0", "method": "notifications/initialized"}, call)

    _, called = serve_staff(monkeypatch, capfd, "--user", "alice", requests=requests)

    assert called["result"]["content"] == [{"type": "text", "text": f"user:{people['alice'].pk}"}]


@pytest.mark.parametrize("username", ["nobody", "carol"], ids=["unknown", "inactive"])
def test_user_flag_refuses_an_unknown_or_inactive_user_before_writing_anything(
    staff_server: None,
    people: dict[str, User],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    username: str,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(WHOAMI)))

    with pytest.raises(CommandError) as raised:
        call_command("mcp_stdio", "stdio-staff", "--user", username)

    assert repr(username) in str(raised.value)
    assert capfd.readouterr().out == ""


def test_user_flag_needs_django_contrib_auth(
    staff_server: None, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    without_auth = dataclasses.replace(get_django_settings(), auth_installed=False)
    monkeypatch.setattr(mcp_stdio, "get_django_settings", lambda: without_auth)

    with pytest.raises(CommandError) as raised:
        call_command("mcp_stdio", "stdio-staff", "--user", "alice")

    assert "django.contrib.auth" in str(raised.value)
    assert capfd.readouterr().out == ""
