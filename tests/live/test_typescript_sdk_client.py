"""The official MCP TypeScript SDK client against the live server.

``@modelcontextprotocol/sdk`` (pinned in tests/node/package.json) speaks only
the handshake era: its newest protocol version is 2025-11-25, negotiated by
``initialize`` with an ``Mcp-Session-Id`` session, and it answers
``elicitation/create`` requests arriving on the POST's SSE stream. It has no
``server/discover`` and no ``InputRequiredResult`` support, so there is no
2026-07-28 leg here.

tests/node/sdk_client.mjs drives the SDK's ``Client`` over its Streamable
HTTP transport through every step once and prints one JSON document; the
module-scoped fixture runs it once and each test checks one part of it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from django_mcp.protocol.jsonrpc import LEGACY_RESOURCE_NOT_FOUND
from tests.conftest import LIVE_SERVERS

NODE_DIR = Path(__file__).resolve().parent.parent / "node"

ELICIT_CONTENT = {"username": "u", "email": "e@example.com"}


@pytest.fixture(scope="module", params=LIVE_SERVERS)
def sdk_run(request: pytest.FixtureRequest, node_bin: Path) -> dict[str, Any]:
    """Run sdk_client.mjs once against the conformance server (each way to serve); return its output."""
    live_server_url = request.getfixturevalue(request.param)
    env = {**os.environ, "PATH": f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [
        str(node_bin / "node"),
        "sdk_client.mjs",
        f"{live_server_url}/conformance/mcp",
        "--tool",
        "test_simple_text",
        "--args",
        "{}",
        "--read",
        "test://static-text",
        "--read",
        "test://template/123/data",
        "--read-error",
        "test://unknown",
        "--prompt",
        "test_prompt_with_arguments",
        "--prompt-args",
        json.dumps({"arg1": "a", "arg2": "b"}),
        "--complete-prompt",
        "test_prompt_with_arguments",
        "--complete-arg",
        "arg1",
        "--complete-value",
        "te",
        "--progress-tool",
        "test_tool_with_progress",
        "--elicit-tool",
        "test_elicitation",
        "--elicit-args",
        json.dumps({"message": "Who?"}),
        "--elicit-content",
        json.dumps(ELICIT_CONTENT),
        "--timeout",
        "20000",
    ]
    result = subprocess.run(command, cwd=NODE_DIR, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"sdk_client.mjs failed:\n{result.stderr[-4000:]}"
    lines = result.stdout.splitlines()
    assert len(lines) == 1, f"expected one JSON line on stdout, got {result.stdout!r}"
    output: dict[str, Any] = json.loads(lines[0])
    return output


def test_negotiates_2025_11_25_with_a_session(sdk_run: dict[str, Any]) -> None:
    assert sdk_run["protocolVersion"] == "2025-11-25"
    assert sdk_run["serverInfo"] == {"name": "django-mcp-conformance", "version": "0.1.0"}
    assert isinstance(sdk_run["sessionId"], str)
    assert {"tools", "resources", "prompts", "completions"} <= set(sdk_run["capabilities"])


def test_lists_tools_and_calls_the_simple_text_tool(sdk_run: dict[str, Any]) -> None:
    assert sdk_run["tools"][0] == "test_simple_text"
    assert {"test_tool_with_progress", "test_elicitation"} <= set(sdk_run["tools"])
    assert sdk_run["call"] == {
        "content": [{"type": "text", "text": "This is a simple text response for testing."}],
        "isError": False,
    }


def test_lists_resources_and_templates(sdk_run: dict[str, Any]) -> None:
    assert sdk_run["resources"][0] == "test://static-text"
    assert sdk_run["templates"] == ["test://template/{id}/data"]


def test_reads_static_and_templated_resources(sdk_run: dict[str, Any]) -> None:
    static, templated = sdk_run["read"]
    assert static == {
        "contents": [
            {
                "uri": "test://static-text",
                "mimeType": "text/plain",
                "text": "This is the content of the static text resource.",
            }
        ]
    }
    [contents] = templated["contents"]
    assert json.loads(contents.pop("text")) == {"id": "123", "templateTest": True, "data": "Data for ID: 123"}
    assert contents == {"uri": "test://template/123/data", "mimeType": "application/json"}


def test_reading_an_unknown_resource_fails_with_resource_not_found(sdk_run: dict[str, Any]) -> None:
    error = sdk_run["readError"]
    assert error is not None, "reading test://unknown succeeded"
    assert (error["code"], error["data"]) == (LEGACY_RESOURCE_NOT_FOUND, {"uri": "test://unknown"})


def test_lists_prompts_and_gets_the_prompt_with_arguments(sdk_run: dict[str, Any]) -> None:
    assert "test_prompt_with_arguments" in sdk_run["prompts"]
    assert sdk_run["prompt"] == {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Prompt with arguments: arg1='a', arg2='b'"}}
        ]
    }


def test_completes_a_prompt_argument(sdk_run: dict[str, Any]) -> None:
    assert sdk_run["complete"] == {"completion": {"values": ["test", "testing", "test-value"]}}


def test_progress_handler_receives_three_increasing_updates(sdk_run: dict[str, Any]) -> None:
    assert sdk_run["progress"] == [
        {"progress": 0, "total": 100, "message": "Starting"},
        {"progress": 50, "total": 100, "message": "Halfway"},
        {"progress": 100, "total": 100, "message": "Done"},
    ]
    assert sdk_run["progressCall"]["isError"] is False


def test_elicitation_handler_answers_the_tools_question(sdk_run: dict[str, Any]) -> None:
    assert sdk_run["elicitationRequests"] == [
        {
            "message": "Who?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"},
                },
                "required": ["username", "email"],
            },
        }
    ]
    content = json.dumps(ELICIT_CONTENT, separators=(",", ":"))
    assert sdk_run["elicitation"] == {
        "content": [{"type": "text", "text": f"User response: action=accept, content={content}"}],
        "isError": False,
    }
