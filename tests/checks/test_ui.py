"""System checks of MCP Apps (E039, W015)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.checks import Error, Warning

from django_mcp import AppResource, Csp, McpResponse, Server, Tool
from django_mcp.checks import check_app_origins, check_servers
from django_mcp.registry import registry

HERE = __name__  # importable: pytest registers this module in sys.modules


# ------------------------------------------------------------- MCP Apps


def test_an_app_loading_from_an_undeclared_origin_is_w015(settings: Any, tmp_path: Any) -> None:
    (tmp_path / "board.html").write_text(
        '<script src="https://cdn.example.com/chart.js"></script><img src="https://img.example.com/a.png">'
        '<script>fetch("https://api.example.com/orders")</script>',
        encoding="utf-8",
    )
    settings.TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [tmp_path]}]

    class BoardApp(AppResource):
        name = "board"
        template_name = "board.html"
        csp = Csp(resource_domains=("https://img.example.com",))

    class BoardTool(Tool):
        name = "board"
        app = BoardApp

        def handle(self) -> McpResponse:
            return McpResponse.text("board")

    class BoardServer(Server):
        name = "boards"
        tools = [BoardTool]

    registry._registry["web"]["boards"] = BoardServer

    assert check_app_origins() == [
        Warning(
            f"The MCP App {HERE}.{BoardApp.__qualname__} loads from https://cdn.example.com (board.html), "
            "which its csp does not declare: hosts block it.",
            hint="Add 'https://cdn.example.com' to the App's Csp(resource_domains=...), or inline the file "
            "with {% mcp_inline_static %}.",
            obj=BoardApp,
            id="django_mcp.W015",
        ),
        Warning(
            f"The MCP App {HERE}.{BoardApp.__qualname__} loads from https://api.example.com (board.html), "
            "which its csp does not declare: hosts block it.",
            hint="Add 'https://api.example.com' to the App's Csp(connect_domains=...), or inline the file "
            "with {% mcp_inline_static %}.",
            obj=BoardApp,
            id="django_mcp.W015",
        ),
    ]


def _app_server(template_name: str, *, listed: bool) -> tuple[type[Server], type[AppResource]]:
    class LedgerApp(AppResource):
        pass

    LedgerApp.template_name = template_name

    class LedgerTool(Tool):
        app = LedgerApp

        def handle(self) -> McpResponse:
            return McpResponse.text("ledger")

    class LedgerServer(Server):
        name = "ledgers"
        tools = (LedgerTool,)
        resources = (LedgerApp,) if listed else ()

    return LedgerServer, LedgerApp


@pytest.mark.parametrize("listed", [True, False], ids=["listed", "linked-only"])
def test_an_app_whose_template_is_missing_is_e039(settings: Any, tmp_path: Any, listed: bool) -> None:  # noqa: FBT001
    settings.TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [tmp_path]}]
    server, app = _app_server("ledger/missing.html", listed=listed)
    registry._registry["web"]["ledgers"] = server

    assert check_servers() == [
        Error(
            f"web server 'ledgers': App ui://ledgers/ledger ({HERE}.{app.__qualname__}) renders template "
            "'ledger/missing.html', which does not exist.",
            hint="Create the template in an app's templates/ folder (or a TEMPLATES DIRS folder), or fix "
            "template_name; `manage.py startmcpapp` writes one to start from.",
            obj=app,
            id="django_mcp.E039",
        )
    ]


def test_an_app_whose_template_does_not_compile_is_e039(settings: Any, tmp_path: Any) -> None:
    (tmp_path / "ledger.html").write_text("<p>{% if %}</p>", encoding="utf-8")
    settings.TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [tmp_path]}]
    server, app = _app_server("ledger.html", listed=False)
    registry._registry["web"]["ledgers"] = server

    [error] = check_servers()
    assert error.id == "django_mcp.E039"
    assert error.obj is app
    assert error.msg.startswith(
        f"web server 'ledgers': App ui://ledgers/ledger ({HERE}.{app.__qualname__}) renders template "
        "'ledger.html', which does not compile ("
    )


def test_an_app_whose_template_loads_passes_and_is_not_rendered(settings: Any, tmp_path: Any) -> None:
    (tmp_path / "ledger.html").write_text("<!DOCTYPE html><p>{{ missing.value }}</p>", encoding="utf-8")
    settings.TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [tmp_path]}]
    server, app = _app_server("ledger.html", listed=True)

    def explode(self: Any) -> dict[str, Any]:
        raise AssertionError("checks must not render an App")

    app.get_context_data = explode  # type: ignore[method-assign]
    registry._registry["web"]["ledgers"] = server

    assert check_servers() == []
