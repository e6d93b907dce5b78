"""Write the files of a new MCP App: ``manage.py startmcpapp APP_LABEL NAME``.

For the app ``shop`` and the name ``order-board`` it writes, inside the
app's folder:

- ``mcp_order_board.py``: ``OrderBoardApp`` (an ``AppResource``) and
  ``OrderBoardTool``, a tool showing its results in it;
- ``templates/shop/mcp/order_board.html``: the page, with the bridge
  (``{% load mcp_apps %}{% mcp_app_bridge %}``);
- ``tests/test_mcp_order_board.py`` (``test_mcp_order_board.py`` beside
  the module when the app has no ``tests`` folder): tests to start from.

Nothing is overwritten: when any of the three exists, nothing is written.
The name is lowercase letters, digits, ``-`` and ``_``, starting with a
letter; it becomes the App's and the tool's name (with ``-``).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from django.utils.translation import gettext

__all__ = ["Scaffold", "ScaffoldError", "plan", "write"]

_NAME_RE = re.compile(r"^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$")


class ScaffoldError(ValueError):
    """The App cannot be written: a bad name, or a file already there."""


@dataclasses.dataclass(frozen=True, slots=True)
class Scaffold:
    """The files of one new App and their contents."""

    module: Path
    template: Path
    test: Path
    contents: dict[Path, str]
    module_name: str
    app_class: str
    tool_class: str


def plan(app_label: str, app_module: str, app_path: Path, name: str) -> Scaffold:
    """Return what ``write()`` would write for App ``name`` in a Django app.

    Raises:
        ScaffoldError: ``name`` is not a valid App name.
    """
    if not _NAME_RE.match(name):
        raise ScaffoldError(
            gettext(
                "{name!r} is not a valid App name: use lowercase letters, digits, '-' and '_', "
                "starting with a letter (such as 'order-board')"
            ).format(name=name)
        )
    snake, kebab = name.replace("-", "_"), name.replace("_", "-")
    camel = "".join(word.title() for word in snake.split("_"))
    title = snake.replace("_", " ").capitalize()
    module = app_path / f"mcp_{snake}.py"
    template_name = f"{app_label}/mcp/{snake}.html"
    template = app_path / "templates" / app_label / "mcp" / f"{snake}.html"
    tests = app_path / "tests"
    test = (tests if tests.is_dir() else app_path) / f"test_mcp_{snake}.py"
    values: dict[str, Any] = {
        "app": f"{camel}App",
        "tool": f"{camel}Tool",
        "server": f"{camel}Server",
        "kebab": kebab,
        "title": title,
        "label": app_label,
        "module": f"{app_module}.mcp_{snake}",
        "template_name": template_name,
    }
    return Scaffold(
        module=module,
        template=template,
        test=test,
        contents={
            module: _MODULE.format(**values),
            template: _TEMPLATE.replace("{title}", title),
            test: _TEST.format(**values),
        },
        module_name=values["module"],
        app_class=values["app"],
        tool_class=values["tool"],
    )


def write(scaffold: Scaffold) -> None:
    """Write the files of ``scaffold``, or none of them.

    Raises:
        ScaffoldError: one of the files exists already.
    """
    existing = [str(path) for path in scaffold.contents if path.exists()]
    if existing:
        raise ScaffoldError(
            gettext("{existing} already exist(s); nothing was written").format(existing=", ".join(existing))
        )
    for path, text in scaffold.contents.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        # "x": never replace a file created meanwhile.
        with path.open("x", encoding="utf-8") as file:
            file.write(text)


_MODULE = '''"""The {kebab} MCP App: a page hosts show beside the results of {tool}.

Serve the tool from a server in {label}/mcp.py; its App is served with it:

    from {module} import {tool}

    class MyServer(Server):
        tools = (..., {tool})

See the django_mcp documentation, "MCP Apps".
"""

from typing import Any

from django_mcp import AppResource, Csp, McpResponse, Tool


class {app}(AppResource):
    """{title}."""

    name = "{kebab}"
    template_name = "{template_name}"
    # The external origins the page may reach; none: inline what it needs.
    csp = Csp()
    prefers_border = True

    def get_context_data(self) -> dict[str, Any]:
        # The page is the same for every caller (hosts cache it): never add
        # the user or the request; per-user data goes in the tool result.
        context = super().get_context_data()
        context["title"] = "{title}"
        return context


class {tool}(Tool):
    """Show the results in the {kebab} App."""

    name = "{kebab}"
    app = {app}

    def handle(self) -> list[McpResponse]:
        items: list[str] = []
        # Text for the model and for clients without Apps, structured
        # content for the App.
        return [
            McpResponse.text(f"{{len(items)}} item(s)."),
            McpResponse.structured({{"items": items}}),
        ]
'''

_TEMPLATE = """{% load mcp_apps %}<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{{ title }}</title>
  <style>
    body { font-family: system-ui, sans-serif; margin: 0.75rem; }
  </style>
</head>
<body>
  <h1>{{ title }}</h1>
  <ul id="items"><li>Waiting for the tool result.</li></ul>
  {% mcp_app_bridge %}
  <script>
    // Everything the page shows comes from the tool result, never from the
    // template: the page is the same for every caller.
    window.mcpApp.onToolResult(function (result) {
      var list = document.getElementById("items");
      list.textContent = "";
      var items = (result.structuredContent || {}).items || [];
      items.forEach(function (item) {
        var entry = document.createElement("li");
        entry.textContent = String(item);
        list.appendChild(entry);
      });
    });
  </script>
</body>
</html>
"""

_TEST = '''"""Tests for the {kebab} MCP App, written by manage.py startmcpapp."""

from asgiref.sync import async_to_sync
from django.test import SimpleTestCase

from django_mcp import Server
from django_mcp.testing import McpTestClient
from {module} import {tool}

APPS = {{"extensions": {{"io.modelcontextprotocol/ui": {{"mimeTypes": ["text/html;profile=mcp-app"]}}}}}}


class {server}(Server):
    name = "{kebab}-test"
    tools = ({tool},)


class {app}Tests(SimpleTestCase):
    def test_the_tool_links_the_app(self) -> None:
        listed = async_to_sync(McpTestClient({server}).list_tools)()
        [tool] = listed.items
        self.assertEqual(tool["_meta"]["ui"]["resourceUri"], "ui://{kebab}-test/{kebab}")

    def test_the_page_is_a_whole_html_document(self) -> None:
        client = McpTestClient({server}, client_capabilities=APPS)
        read = async_to_sync(client.read_resource)("ui://{kebab}-test/{kebab}").assert_ok()
        [content] = read.contents
        self.assertEqual(content["mimeType"], "text/html;profile=mcp-app")
        self.assertTrue(content["text"].startswith("<!DOCTYPE html>"))
        self.assertIn("<title>{title}</title>", content["text"])

    def test_clients_without_apps_get_text(self) -> None:
        client = McpTestClient({server}, client_capabilities={{}})
        result = async_to_sync(client.call_tool)("{kebab}").assert_ok()
        self.assertEqual(result.result["content"][0], {{"type": "text", "text": "0 item(s)."}})
'''
