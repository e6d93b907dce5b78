"""``manage.py startmcpapp APP_LABEL NAME``: a new MCP App, its template and its tests."""

from __future__ import annotations

import importlib
import io
import sys
import unittest
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.template.loader import get_template

from django_mcp.server.compiler import compile_server
from django_mcp.ui.resource import is_app

PACKAGE = "scaffolded_shop"


@pytest.fixture
def shop(settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Install an empty app ``scaffolded_shop`` kept in ``tmp_path``; return its folder."""
    folder = tmp_path / PACKAGE
    folder.mkdir()
    (folder / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    settings.INSTALLED_APPS = [*settings.INSTALLED_APPS, PACKAGE]
    try:
        yield folder
    finally:
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def _start(*args: str) -> str:
    out = io.StringIO()
    call_command("startmcpapp", *args, stdout=out)
    return out.getvalue()


def test_it_writes_an_app_a_template_and_tests_that_pass(shop: Path) -> None:
    output = _start(PACKAGE, "order-board")

    module = shop / "mcp_order_board.py"
    template = shop / "templates" / PACKAGE / "mcp" / "order_board.html"
    test = shop / "test_mcp_order_board.py"
    assert output.splitlines() == [
        f"Wrote {module}",
        f"Wrote {template}",
        f"Wrote {test}",
        f"Serve it: add OrderBoardTool (from {PACKAGE}.mcp_order_board) to a server's tools in "
        f"{PACKAGE}/mcp.py; the tool's App is served with it.",
    ]
    assert template.read_text(encoding="utf-8").startswith("{% load mcp_apps %}<!DOCTYPE html>")
    assert "{% mcp_app_bridge %}" in template.read_text(encoding="utf-8")
    get_template(f"{PACKAGE}/mcp/order_board.html")  # loads: no E039

    written = importlib.import_module(f"{PACKAGE}.mcp_order_board")
    assert is_app(written.OrderBoardApp)
    assert written.OrderBoardTool.app is written.OrderBoardApp

    tests = importlib.import_module(f"{PACKAGE}.test_mcp_order_board")
    assert compile_server(tests.OrderBoardServer).unlisted_apps.keys() == {
        "ui://order-board-test/order-board"
    }
    suite = unittest.defaultTestLoader.loadTestsFromModule(tests)
    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
    assert (result.testsRun, result.failures, result.errors) == (3, [], [])


def test_the_tests_go_in_the_apps_tests_folder_when_it_has_one(shop: Path) -> None:
    (shop / "tests").mkdir()

    _start(PACKAGE, "stock_level")

    assert (shop / "tests" / "test_mcp_stock_level.py").is_file()
    assert (shop / "mcp_stock_level.py").is_file()
    assert "class StockLevelApp(AppResource):" in (shop / "mcp_stock_level.py").read_text(encoding="utf-8")


def test_it_refuses_to_overwrite_and_writes_nothing(shop: Path) -> None:
    template = shop / "templates" / PACKAGE / "mcp" / "board.html"
    template.parent.mkdir(parents=True)
    template.write_text("mine", encoding="utf-8")

    with pytest.raises(CommandError, match=r"board\.html already exist\(s\); nothing was written"):
        _start(PACKAGE, "board")

    assert template.read_text(encoding="utf-8") == "mine"
    assert not (shop / "mcp_board.py").exists()
    assert not (shop / "test_mcp_board.py").exists()


@pytest.mark.parametrize("name", ["Board", "1board", "board!", "board--x", "../board", ""])
def test_a_bad_name_is_refused(shop: Path, name: str) -> None:
    with pytest.raises(CommandError, match="is not a valid App name"):
        _start(PACKAGE, name)

    assert sorted(path.name for path in shop.iterdir()) == ["__init__.py"]


def test_an_unknown_app_label_is_refused() -> None:
    with pytest.raises(CommandError, match="No installed app with the label 'nowhere'"):
        _start("nowhere", "board")
