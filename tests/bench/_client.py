"""A small MCP-over-HTTP client for the harness (standard library only).

It builds the requests every scenario sends, in either protocol era:

* 2026-07-28: ``MCP-Protocol-Version``, ``Mcp-Method`` and, for
  ``tools/call`` and ``resources/read``, ``Mcp-Name`` headers, and ``_meta``
  with the protocol version and the client's capabilities in ``params``;
* 2025-11-25: an ``initialize`` first (then ``notifications/initialized``),
  and on every later request ``MCP-Protocol-Version: 2025-11-25`` plus the
  ``Mcp-Session-Id`` the server handed out, if it handed one out.

It reads answers as JSON or as an event stream (the last ``data:`` line),
and checks them in full (``check_*``); wrk's Lua script checks the same
facts by pattern on every reply.
"""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LEGACY", "MODERN", "Conversation", "Reply", "request_body"]

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
_ACCEPT = "application/json, text/event-stream"


@dataclass(frozen=True)
class Reply:
    """One HTTP answer: status, headers (lower-case names) and decoded body."""

    status: int
    headers: dict[str, str]
    raw: bytes

    def message(self) -> dict[str, Any]:
        """Return the JSON-RPC message, from a JSON body or the last SSE event."""
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            events = [line[5:].strip() for line in self.raw.decode().splitlines() if line.startswith("data:")]
            if not events:
                raise ValueError(f"an event stream without data: {self.raw[:200]!r}")
            return json.loads(events[-1])
        return json.loads(self.raw)

    def result(self) -> dict[str, Any]:
        """Return the JSON-RPC result; raise ValueError for anything else."""
        if self.status != 200:
            raise ValueError(f"HTTP {self.status}: {self.raw[:300]!r}")
        message = self.message()
        if "result" not in message:
            raise ValueError(f"not a result: {json.dumps(message)[:300]}")
        return message["result"]


def request_body(method: str, params: dict[str, Any], *, era: str, request_id: int = 1) -> dict[str, Any]:
    """Return the JSON-RPC request; 2026-07-28 params carry ``_meta``."""
    params = dict(params)
    if era == MODERN:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


@dataclass
class Conversation:
    """Requests to one endpoint in one era, over one keep-alive connection."""

    port: int
    era: str
    path: str = "/mcp"
    timeout: float = 30.0
    session: str | None = None
    _connection: http.client.HTTPConnection | None = field(default=None, repr=False)

    def headers(self, method: str, name: str | None) -> dict[str, str]:
        """Return the headers a request for ``method`` (naming ``name``) carries."""
        headers = {
            "Host": f"127.0.0.1:{self.port}",
            "Content-Type": "application/json",
            "Accept": _ACCEPT,
        }
        if self.era == MODERN:
            headers["MCP-Protocol-Version"] = MODERN
            headers["Mcp-Method"] = method
            if name is not None:
                headers["Mcp-Name"] = name
        elif method != "initialize":
            headers["MCP-Protocol-Version"] = LEGACY
            if self.session is not None:
                headers["Mcp-Session-Id"] = self.session
        return headers

    def post(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        """POST ``body``; reconnect once if the server closed the connection."""
        data = json.dumps(body, separators=(",", ":")).encode()
        for attempt in (1, 2):
            if self._connection is None:
                self._connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            try:
                self._connection.request("POST", self.path, data, headers)
                response = self._connection.getresponse()
                raw = response.read()
            except (http.client.HTTPException, ConnectionError):
                self.close()
                if attempt == 2:
                    raise
                continue
            reply = Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, raw)
            if response.getheader("connection", "").lower() == "close":
                self.close()
            return reply
        raise AssertionError("unreachable")

    def call(self, method: str, params: dict[str, Any], *, name: str | None = None) -> Reply:
        """Send one request of this conversation's era."""
        return self.post(request_body(method, params, era=self.era), self.headers(method, name))

    def open(self) -> None:
        """Start a 2025-11-25 conversation: ``initialize``, then ``initialized``."""
        if self.era != LEGACY:
            return
        body = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "django-mcp-bench", "version": "1"},
            },
        }
        reply = self.post(body, self.headers("initialize", None))
        result = reply.result()
        if result.get("protocolVersion") != LEGACY:
            raise ValueError(f"initialize answered protocolVersion {result.get('protocolVersion')!r}")
        self.session = reply.headers.get("mcp-session-id")
        notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        done = self.post(notification, self.headers("notifications/initialized", None))
        if done.status not in (200, 202, 204):
            raise ValueError(f"notifications/initialized answered HTTP {done.status}")

    def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def wait_until_ready(port: int, era: str, *, timeout: float, alive: Any) -> float:
    """Return the seconds until an echo call succeeds; raise on timeout or exit.

    ``alive()`` tells whether the server process still runs; every attempt
    is a fresh connection, 20 ms apart.
    """
    started = time.monotonic()
    last_error = "no attempt"
    while time.monotonic() - started < timeout:
        if not alive():
            raise RuntimeError(f"the server exited before answering ({last_error})")
        conversation = Conversation(port, era, timeout=5.0)
        try:
            conversation.open()
            reply = conversation.call(
                "tools/call", {"name": "echo", "arguments": {"text": "ready"}}, name="echo"
            )
            if reply.result()["content"][0]["text"] == "ready":
                return time.monotonic() - started
            last_error = f"unexpected answer {reply.raw[:200]!r}"
        except (OSError, ValueError, KeyError, http.client.HTTPException) as exc:
            last_error = f"{type(exc).__name__}: {exc}"
        finally:
            conversation.close()
        time.sleep(0.02)
    raise RuntimeError(f"no answer within {timeout:.0f} s ({last_error})")
