"""Test MCP servers in-process: ``McpTestClient`` and its result assertions.

``McpTestClient(MyServer, user)`` sends 2026-07-28 requests through the
server's own HTTP endpoint, in-process, without a socket: each request is a
conforming POST (the JSON-RPC message encoded, the ``MCP-Protocol-Version``,
``Mcp-Method``, ``Mcp-Name`` and ``Mcp-Param-*`` headers mirrored from it),
the endpoint answers as it answers any client (limits, identity,
``login_required``, headers, the dispatcher), and the reply is decoded from
its bytes: JSON, or the event stream progress and log notifications come
on, which are collected on the result. Only the network checks (``Host``,
``Origin``) are left out: the call never left the process.

Each high-level method returns a small wrapper (``ToolResult``,
``ListResult``, ...) exposing the decoded JSON-RPC response and chainable
assertions that raise ``AssertionError`` with the payload in the message::

    result = await client.call_tool("add", {"a": 1, "b": 2})
    result.assert_ok().assert_structured({"sum": 3})

The client declares every client capability (elicitation form and URL,
sampling, roots) unless ``client_capabilities`` says otherwise. The user
is the one given (``AnonymousUser`` when None): authentication backends and
the session cookie are not consulted, and 2025-11-25 sessions are not
spoken.

The client lives in ``_client``, the results in ``_results``.
"""

# The client's defaults, importable from the public module too.
from django_mcp.testing._client import ALL_CAPABILITIES as ALL_CAPABILITIES
from django_mcp.testing._client import CLIENT_INFO as CLIENT_INFO
from django_mcp.testing._client import McpTestClient
from django_mcp.testing._results import (
    CompletionResult,
    ListResult,
    McpResult,
    PromptResult,
    ResourceResult,
    ToolResult,
)

__all__ = [
    "CompletionResult",
    "ListResult",
    "McpResult",
    "McpTestClient",
    "PromptResult",
    "ResourceResult",
    "ToolResult",
]
