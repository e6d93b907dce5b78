"""The demo's stock board MCP App in headless Chromium, inside two hosts.

The demo project runs under uvicorn (``testproject/asgi.py``) with the
demo library seeded. The App (``ui://library/stock-board``, the template
``demo/apps/stock_board.html`` with ``{% mcp_app_bridge %}``) is shown:

* by a host page built on the official ``@modelcontextprotocol/ext-apps``
  package (its ``AppBridge`` and ``PostMessageTransport``, loaded as ES
  modules from ``tests/node/node_modules`` with an import map for the MCP
  TypeScript SDK and zod it imports). A small Python HTTP server serves the
  page, the packages and ``/mcp``, which sends the page's requests on to the
  demo's real MCP endpoint (``/mcp/library``) as a host's backend would. The
  test reads the App's page and calls ``stock-board`` there, hands both to
  the page, and checks that the App initializes with that host, shows the
  tool result, reports its size and makes a proxied ``tools/call``
  (``stock-board-page``) that the real server answers;
* by the admin's playground (``django_mcp._admin.app_host``), the same
  checks through the admin's relay.

Chromium and Playwright as in ``test_admin_chromium.py`` (skipped without
them, a failure under ``CI``); the ext-apps package comes from
``tests/node`` (``npm ci`` there).
"""

from __future__ import annotations

import contextlib
import json
import mimetypes
import os
import sys
import threading
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.contrib.admin.utils import quote

from tests.browser.test_admin_chromium import (
    CHROMIUM_ARGS,
    PASSWORD,
    TIMEOUT_MS,
    _log_in,
    _run,
    _unavailable,
    chromium_path,
)
from tests.conftest import _free_port, uvicorn_command
from tests.databases import database_env
from tests.wire import modern_headers, modern_meta, modern_request

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None

__all__ = ["chromium_path"]

ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = (ROOT / "tests" / "node" / "node_modules").resolve()
EXT_APPS = NODE_MODULES / "@modelcontextprotocol" / "ext-apps" / "dist" / "src" / "app-bridge.js"
APPS = {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}
TOOL = "stock-board"
APP_URI = "ui://library/stock-board"
SECTION = "/admin/django_mcp/mcpcatalog/"
LIBRARY = "testproject.demo.mcp.LibraryServer"
USERS = f"""
from django.contrib.auth.models import Permission, User

user = User.objects.create_user("player", password={PASSWORD!r}, is_staff=True)
perm = Permission.objects.get(content_type__app_label="django_mcp", codename="use_playground")
user.user_permissions.add(perm)
"""

# The host: the official AppBridge, an iframe sandboxed with allow-scripts
# only, the App's page as srcdoc. What the App asks is answered by /mcp.
HOST_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>ext-apps host</title>
<script type="importmap">
{"imports": {
  "@modelcontextprotocol/sdk/": "/node_modules/@modelcontextprotocol/sdk/dist/esm/",
  "zod/v3": "/node_modules/zod/v3/index.js",
  "zod/v4": "/node_modules/zod/v4/index.js",
  "zod/v4-mini": "/node_modules/zod/v4-mini/index.js",
  "zod": "/node_modules/zod/index.js",
  "zod-to-json-schema": "/node_modules/zod-to-json-schema/dist/esm/index.js"
}}
</script>
</head>
<body>
<iframe id="app" sandbox="allow-scripts" style="width: 800px; height: 300px"></iframe>
<script type="module">
import {AppBridge, PostMessageTransport} from
  "/node_modules/@modelcontextprotocol/ext-apps/dist/src/app-bridge.js";

const host = window.host = {calls: [], sizes: [], messages: [], initialized: false, error: null};
const mcp = async (method, params) => {
  host.calls.push(method + " " + (params.name || params.uri));
  const response = await fetch("/mcp", {method: "POST", body: JSON.stringify({method, params})});
  const reply = await response.json();
  if (reply.error) {
    throw new Error(reply.error.message);
  }
  return reply.result;
};

window.showApp = async ({html, tool, args, result}) => {
  try {
    const frame = document.getElementById("app");
    const bridge = new AppBridge(
      null,
      {name: "ext-apps-test-host", version: "1.0.0"},
      {serverTools: {}, serverResources: {}, logging: {}},
      {hostContext: {theme: "light", displayMode: "inline", toolInfo: {tool}}},
    );
    bridge.oncalltool = (params) => mcp("tools/call", params);
    bridge.onreadresource = (params) => mcp("resources/read", params);
    bridge.onmessage = async (params) => {
      host.messages.push(params);
      return {};
    };
    bridge.onsizechange = (size) => host.sizes.push(size);
    bridge.oninitialized = async () => {
      host.initialized = true;
      await bridge.sendToolInput({arguments: args});
      await bridge.sendToolResult(result);
    };
    await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
    frame.srcdoc = html;
  } catch (error) {
    host.error = String(error && error.stack || error);
  }
};
window.hostReady = true;
</script>
</body>
</html>
"""


@pytest.fixture(scope="module")
def demo_url(
    start_server: Callable[..., contextlib.AbstractContextManager[Any]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """Serve the demo project, its library seeded, under uvicorn; return its URL."""
    folder = tmp_path_factory.mktemp("apps-site")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "testproject.settings",
        **database_env(folder / "db"),
    }
    manage = [sys.executable, "testproject/manage.py"]
    _run([*manage, "migrate", "--noinput", "-v", "0"], env=env)
    _run([*manage, "seed_demo"], env=env)
    _run([*manage, "shell", "-c", USERS], env=env)
    port = _free_port()
    with start_server(uvicorn_command(port), port=port, log_path=folder / "uvicorn.log", env=env):
        yield f"http://127.0.0.1:{port}"


def _mcp(endpoint: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """Send one 2026-07-28 request declaring MCP Apps to ``endpoint``; return the reply."""
    body = modern_request(method, params, meta=modern_meta(APPS))
    request = urllib.request.Request(
        endpoint,
        data=json.dumps(body).encode(),
        headers={**modern_headers(body), "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - a local test server
        reply: dict[str, Any] = json.loads(response.read())
    return reply


class _HostServer(ThreadingHTTPServer):
    endpoint = ""
    relayed: list[str]
    missing: list[str]


class _HostHandler(BaseHTTPRequestHandler):
    server: _HostServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        if self.path == "/host.html":
            self._send(200, HOST_PAGE.encode(), "text/html; charset=utf-8")
            return
        relative = self.path.split("?", 1)[0].removeprefix("/node_modules/")
        target = (NODE_MODULES / relative).resolve()
        if (
            not self.path.startswith("/node_modules/")
            or NODE_MODULES not in target.parents
            or not target.is_file()
        ):
            self._send(404, b"not found", "text/plain")
            return
        kind = "text/javascript" if target.suffix in (".js", ".mjs") else mimetypes.guess_type(target.name)[0]
        self._send(200, target.read_bytes(), kind or "application/octet-stream")

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.relayed.append(f"{message['method']} {message['params'].get('name')}")
        reply = _mcp(self.server.endpoint, message["method"], message["params"])
        answer = {"error": reply["error"]} if "error" in reply else {"result": reply["result"]}
        self._send(200, json.dumps(answer).encode(), "application/json")


@pytest.fixture
def host_url(demo_url: str) -> Iterator[tuple[str, _HostServer]]:
    """Serve the ext-apps host page, the packages and its /mcp relay; return its URL and server."""
    if not EXT_APPS.is_file():
        _unavailable(f"{EXT_APPS} is missing (npm ci in tests/node)")
    server = _HostServer(("127.0.0.1", 0), _HostHandler)
    server.endpoint = f"{demo_url}/mcp/library"
    server.relayed = []
    server.missing = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextlib.contextmanager
def _page(chromium: str) -> Iterator[Any]:
    assert sync_playwright is not None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(TIMEOUT_MS)
            # What went wrong in the page, for the failure message.
            page.problems = []
            page.on("pageerror", lambda error: page.problems.append(str(error)))
            page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" else None)
            yield page
        finally:
            browser.close()


def _filter_out_of_stock(frame: Any) -> None:
    """Choose "out of stock" in the App: a tools/call the host proxies."""
    frame.locator("#filter").select_option("out")
    frame.locator("body[data-filtered=out]").wait_for()


def test_the_app_runs_in_a_host_built_on_the_official_ext_apps_package(
    chromium_path: str, host_url: tuple[str, _HostServer], demo_url: str
) -> None:
    url, server = host_url
    endpoint = f"{demo_url}/mcp/library"
    [tool] = [t for t in _mcp(endpoint, "tools/list", {})["result"]["tools"] if t["name"] == TOOL]
    [content] = _mcp(endpoint, "resources/read", {"uri": APP_URI})["result"]["contents"]
    result = _mcp(endpoint, "tools/call", {"name": TOOL, "arguments": {}})["result"]
    books = result["structuredContent"]["books"]
    out = [book for book in books if not book["in_stock"]]
    assert tool["_meta"]["ui"]["resourceUri"] == APP_URI
    assert out, "the seeded library has books out of stock"

    with _page(chromium_path) as page:
        page.goto(f"{url}/host.html")
        try:
            page.wait_for_function("window.hostReady === true")
        except Exception:
            pytest.fail(f"the host page did not load: {page.problems}, missing {server.missing}")
        page.evaluate(
            "(data) => window.showApp(data)",
            {"html": content["text"], "tool": tool, "args": {}, "result": result},
        )
        frame = page.frame_locator("#app")
        frame.locator("body[data-host=ext-apps-test-host]").wait_for()
        assert page.evaluate("window.host.error") is None
        assert page.evaluate("window.host.initialized") is True
        assert frame.locator("#books tr").count() == len(books)
        page.wait_for_function("window.host.sizes.length > 0")
        # A message that does not come from the host (here: the page posting
        # to itself, queued before the filter's reply) is ignored.
        [app_frame] = [f for f in page.frames if f != page.main_frame]
        app_frame.evaluate(
            "window.postMessage({jsonrpc: '2.0', method: 'ui/notifications/tool-result',"
            " params: {structuredContent: {books: [], out_of_stock: 0}}}, '*')"
        )

        _filter_out_of_stock(frame)

        assert frame.locator("body").get_attribute("data-tool-results") == "1"

        assert frame.locator("#books tr").count() == len(out)
        assert frame.locator("#status").inner_text() == f"{len(out)} books, {len(out)} out of stock"
        assert page.evaluate("window.host.calls") == ["tools/call stock-board-page"]
        assert server.relayed == ["tools/call stock-board-page"]
        size = page.evaluate("window.host.sizes[window.host.sizes.length - 1]")
        assert size["height"] > 0

        frame.locator("#books tr button").first.click()
        page.wait_for_function("window.host.messages.length === 1")
        message = page.evaluate("window.host.messages[0]")
        assert message["role"] == "user"
        assert message["content"][0]["text"].startswith("Tell me about “")


def test_the_app_runs_inside_the_admin_playground(chromium_path: str, demo_url: str) -> None:
    component = f"{SECTION}{quote(f'{LIBRARY}~tool~{TOOL}')}/change/"
    with _page(chromium_path) as page:
        _log_in(page, demo_url, "player", component)
        page.click("#mcp-playground-form input.mcp-send")
        page.locator("#mcp-app-frame").wait_for()
        frame = page.frame_locator("#mcp-app-frame")
        frame.locator("body[data-host=django-mcp-admin]").wait_for()
        rows = frame.locator("#books tr")
        rows.first.wait_for()
        total = rows.count()
        assert page.locator("#mcp-app-frame").get_attribute("sandbox") == "allow-scripts"

        _filter_out_of_stock(frame)

        assert 0 < rows.count() < total
        assert page.locator("#mcp-app-log").inner_text().strip() == "tools/call stock-board-page"
        height = page.evaluate("document.getElementById('mcp-app-frame').getBoundingClientRect().height")
        assert 0 < height <= 800
