"""Tests for django_mcp.templatetags.mcp_apps: the bridge and inlined static files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.template import Context, Template, TemplateSyntaxError

from django_mcp.templatetags.mcp_apps import BRIDGE_PATH, bridge_source

STATIC = Path(__file__).resolve().parent / "static_fixture"


@pytest.fixture
def static_dirs(settings: Any) -> Iterator[None]:
    settings.STATICFILES_DIRS = [str(STATIC)]
    finders.get_finder.cache_clear()
    yield
    finders.get_finder.cache_clear()


def render(source: str, **context: object) -> str:
    return Template("{% load mcp_apps %}" + source).render(Context(context))


def test_bridge_inlines_the_static_script_with_app_info() -> None:
    html = render('{% mcp_app_bridge "orders" "2.1" %}')

    assert html.startswith(
        '<script data-mcp-app-name="orders" data-mcp-app-version="2.1" data-mcp-auto-resize="true">\n'
    )
    assert html.endswith("</script>")
    assert bridge_source() in html
    assert BRIDGE_PATH.name == "mcp_app_bridge.js"


def test_bridge_escapes_its_attributes_and_can_stop_resizing() -> None:
    html = render("{% mcp_app_bridge name=title auto_resize=False %}", title='"><b>')

    assert html.startswith('<script data-mcp-app-name="&quot;&gt;&lt;b&gt;" data-mcp-app-version=""')
    assert 'data-mcp-auto-resize="false">' in html


def test_bridge_speaks_the_2026_01_26_methods() -> None:
    source = bridge_source()

    for method in (
        "ui/initialize",
        "ui/notifications/initialized",
        "ui/notifications/tool-input",
        "ui/notifications/tool-result",
        "ui/notifications/size-changed",
        "ui/message",
        "tools/call",
        "resources/read",
        "ui/resource-teardown",
    ):
        assert f'"{method}"' in source, method
    assert "</script" not in source.lower()


def test_css_is_inlined_as_a_style_element_that_cannot_close_early(static_dirs: None) -> None:
    html = render('{% mcp_inline_static "apps/page.css" %}')

    assert html == ("<style>\nbody { color: red; }\n/* <\\/style><script>alert(1)<\\/script> */\n</style>")


def test_js_and_modules_are_inlined_as_scripts(static_dirs: None) -> None:
    script = render("{% mcp_inline_static 'apps/page.js' %}")
    module = render("{% mcp_inline_static path %}", path="apps/page.mjs")

    assert script == '<script>\nconst x = "<\\/script><\\!--";\n</script>'
    assert module == '<script type="module">\nexport const y = 1;\n</script>'


def test_a_missing_literal_file_fails_when_the_template_compiles(static_dirs: None) -> None:
    with pytest.raises(TemplateSyntaxError, match="'apps/missing.css'"):
        Template('{% load mcp_apps %}{% mcp_inline_static "apps/missing.css" %}')


def test_a_missing_variable_file_fails_when_rendered_naming_it(static_dirs: None) -> None:
    template = Template("{% load mcp_apps %}{% mcp_inline_static path %}")

    with pytest.raises(TemplateSyntaxError, match="'apps/gone.js'"):
        template.render(Context({"path": "apps/gone.js"}))


def test_only_css_and_js_can_be_inlined(static_dirs: None) -> None:
    with pytest.raises(TemplateSyntaxError, match="'apps/notes.txt'"):
        Template('{% load mcp_apps %}{% mcp_inline_static "apps/notes.txt" %}')


def test_the_tag_takes_exactly_one_path() -> None:
    with pytest.raises(TemplateSyntaxError, match="one argument"):
        Template("{% load mcp_apps %}{% mcp_inline_static %}")


def test_an_edited_file_shows_at_the_next_render(static_dirs: None, tmp_path: Path, settings: Any) -> None:
    (tmp_path / "live.css").write_text("a {}", encoding="utf-8")
    settings.STATICFILES_DIRS = [str(tmp_path)]
    finders.get_finder.cache_clear()
    template = Template('{% load mcp_apps %}{% mcp_inline_static "live.css" %}')
    (tmp_path / "live.css").write_text("b {}", encoding="utf-8")

    assert template.render(Context()) == "<style>\nb {}</style>"
