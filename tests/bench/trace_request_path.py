"""Trace one 2026-07-28 ``tools/call`` through django_mcp with ``sys.setprofile``.

Run from the repository root: ``python tests/bench/trace_request_path.py``.

The smallest server (one ``Schema``-typed async tool behind
``Server.as_view()``) answers one warmed-up POST through Django's ASGI test
client. Every Python call whose code lives in ``django_mcp`` is counted:

* calls: every ``django_mcp`` function entered (comprehensions and the
  resumption of a suspended coroutine or generator are not calls);
* module entries: calls into a ``django_mcp`` module from code in another
  file (Django, asgiref, or another ``django_mcp`` module);
* modules: the distinct ``django_mcp`` modules entered.

Use ``--list`` to print the call sequence (``->`` marks a module entry).
Not collected by pytest.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import django  # noqa: E402
from django.conf import settings  # noqa: E402

settings.configure(
    DEBUG=False,
    SECRET_KEY="trace-only-not-secret",
    ALLOWED_HOSTS=["testserver"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=["django.contrib.auth", "django.contrib.contenttypes", "django_mcp"],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
    MIDDLEWARE=[],
)
django.setup()

from django.test import AsyncClient  # noqa: E402
from django.urls import path  # noqa: E402

from django_mcp import McpResponse, Server, Tool  # noqa: E402
from django_mcp.schemas import Schema  # noqa: E402


class EchoInput(Schema):
    """The echo tool's arguments."""

    text: str


class EchoTool(Tool[EchoInput]):
    """Echo the text back."""

    async def handle(self, payload: EchoInput) -> McpResponse:
        return McpResponse.text(payload.text)


class EchoServer(Server):
    """The smallest server."""

    name = "echo"
    tools = (EchoTool,)


urlpatterns = [path("mcp", EchoServer.as_view())]

BODY = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {
        "name": "echo",
        "arguments": {"text": "hi"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    },
}
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
    "Mcp-Name": "echo",
}
PACKAGE = str(ROOT / "django_mcp") + os.sep
_COMPREHENSIONS = frozenset({"<genexpr>", "<listcomp>", "<dictcomp>", "<setcomp>"})


def _module(filename: str) -> str | None:
    if not filename.startswith(PACKAGE):
        return None
    return filename[len(str(ROOT)) + 1 :]


async def _post(client: AsyncClient) -> Any:
    return await client.post("/mcp", json.dumps(BODY), content_type="application/json", headers=HEADERS)


def main() -> None:
    client = AsyncClient()
    for _ in range(3):  # warm up: compile the server, fill caches
        response = asyncio.run(_post(client))
        assert response.status_code == 200, response.content
    calls: list[tuple[str, str]] = []
    entries = 0
    started: set[Any] = set()  # holds the frames until the trace ends

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal entries
        if event != "call":
            return
        module = _module(frame.f_code.co_filename)
        if module is None or frame.f_code.co_name in _COMPREHENSIONS or frame in started:
            # Comprehensions are expressions, and a "call" event for a frame
            # seen before is a coroutine or generator resuming.
            return
        started.add(frame)
        caller = frame.f_back
        entered = caller is None or caller.f_code.co_filename != frame.f_code.co_filename
        calls.append((module, ("-> " if entered else "   ") + frame.f_code.co_qualname))
        if entered:
            entries += 1

    async def traced() -> Any:
        sys.setprofile(profile)
        try:
            return await _post(client)
        finally:
            sys.setprofile(None)

    response = asyncio.run(traced())
    assert response.status_code == 200 and b'"hi"' in response.content, response.content
    modules = sorted({module for module, _name in calls})
    if "--list" in sys.argv:
        for module, name in calls:
            print(f"  {module}: {name}")
    print(f"django_mcp calls: {len(calls)}")
    print(f"module entries: {entries}")
    print(f"modules: {len(modules)}")
    for module in modules:
        print(f"  {module}")


if __name__ == "__main__":
    main()
