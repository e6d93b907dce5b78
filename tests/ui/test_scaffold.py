"""django_mcp.ui.scaffold: the files planned for a new MCP App, and writing all of them or none."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from django_mcp.ui.scaffold import ScaffoldError, plan, write


def test_a_plan_names_the_module_template_and_test_after_the_app_name(tmp_path: Path) -> None:
    scaffold = plan("shop", "shops.shop", tmp_path, "order-board")

    assert (scaffold.module, scaffold.template, scaffold.test) == (
        tmp_path / "mcp_order_board.py",
        tmp_path / "templates" / "shop" / "mcp" / "order_board.html",
        tmp_path / "test_mcp_order_board.py",
    )
    assert (scaffold.module_name, scaffold.app_class, scaffold.tool_class) == (
        "shops.shop.mcp_order_board",
        "OrderBoardApp",
        "OrderBoardTool",
    )
    assert list(scaffold.contents) == [scaffold.module, scaffold.template, scaffold.test]


def test_the_test_goes_in_the_apps_tests_folder_when_it_has_one(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()

    assert plan("shop", "shop", tmp_path, "board").test == tmp_path / "tests" / "test_mcp_board.py"


def test_the_planned_python_files_parse_and_define_the_named_classes(tmp_path: Path) -> None:
    scaffold = plan("shop", "shop", tmp_path, "order_board")
    module = ast.parse(scaffold.contents[scaffold.module])
    test = scaffold.contents[scaffold.test]

    assert {"OrderBoardApp", "OrderBoardTool"} <= {
        node.name for node in module.body if isinstance(node, ast.ClassDef)
    }
    assert "from shop.mcp_order_board import OrderBoardTool" in test
    ast.parse(test)
    assert "{% mcp_app_bridge %}" in scaffold.contents[scaffold.template]
    assert "<title>{{ title }}</title>" in scaffold.contents[scaffold.template]  # Django renders it


@pytest.mark.parametrize("name", ["Board", "1board", "board-", "a--b", "bo ard", ""])
def test_a_name_that_is_no_lowercase_identifier_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ScaffoldError, match="is not a valid App name"):
        plan("shop", "shop", tmp_path, name)


def test_write_writes_every_planned_file(tmp_path: Path) -> None:
    scaffold = plan("shop", "shop", tmp_path, "board")

    write(scaffold)

    assert {path: path.read_text(encoding="utf-8") for path in scaffold.contents} == scaffold.contents


def test_write_writes_nothing_when_one_file_exists(tmp_path: Path) -> None:
    scaffold = plan("shop", "shop", tmp_path, "board")
    scaffold.test.write_text("# mine", encoding="utf-8")

    with pytest.raises(ScaffoldError, match="already exist"):
        write(scaffold)

    assert not scaffold.module.exists() and not scaffold.template.exists()
    assert scaffold.test.read_text(encoding="utf-8") == "# mine"
