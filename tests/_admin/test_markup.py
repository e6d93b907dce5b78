"""django_mcp._admin.markup: the MCP pages use the running Django's admin markup.

Django 6.1 styles only its new markup (``<ol>`` breadcrumbs, object tools
beside the title, the filter inside the change list container, stacked form
rows). Each page is rendered with both markups (``ADMIN_MARKUP`` replaced)
and its breadcrumbs, filter and form rows checked; the History link is
checked on the running version, whose base template decides where the
``object-tools`` block goes.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import django
import pytest
from django.contrib.admin.utils import quote
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client

import django_mcp.admin
from django_mcp._admin.markup import ADMIN_MARKUP, AdminMarkup
from django_mcp.registry import registry
from tests.playground import PlaygroundServer

pytestmark = pytest.mark.django_db

SECTION = "/admin/django_mcp/mcpcatalog/"
COMPONENT = f"{SECTION}{quote('tests.playground.PlaygroundServer~tool~echo')}/"
SERVER = f"{SECTION}server/{quote('tests.playground.PlaygroundServer')}/"
NEWER = AdminMarkup.for_version((6, 1, 0, "final", 0))
OLDER = AdminMarkup.for_version((5, 2, 0, "final", 0))
#: Every page's trail: (label, link or None for the page itself).
TRAILS = {
    SECTION: [("Home", "/admin/"), ("MCP", "/admin/django_mcp/"), ("Catalog", None)],
    SERVER: [
        ("Home", "/admin/"),
        ("MCP", "/admin/django_mcp/"),
        ("Catalog", SECTION),
        ("Playground fixture", None),
    ],
    f"{COMPONENT}change/": [
        ("Home", "/admin/"),
        ("MCP", "/admin/django_mcp/"),
        ("Catalog", SECTION),
        ("Playground fixture", SERVER),
        ("echo", None),
    ],
    f"{COMPONENT}history/": [
        ("Home", "/admin/"),
        ("MCP", "/admin/django_mcp/"),
        ("Catalog", SECTION),
        ("Playground fixture", SERVER),
        ("echo", f"{COMPONENT}change/"),
        ("History", None),
    ],
}


@pytest.fixture
def client() -> Iterator[Client]:
    # Added to the test project's servers, not instead of them: the first
    # request may import django_mcp.urls, whose patterns are made once.
    saved = registry.snapshot()
    registry.web("playground", PlaygroundServer)
    user = get_user_model().objects.create_user(username="staff", password="pw-123456", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="use_playground"))
    client = Client()
    client.force_login(user)
    try:
        yield client
    finally:
        registry.restore(saved)


def _page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return str(response.content.decode())


def test_django_6_1_and_later_get_the_newer_markup() -> None:
    assert OLDER == AdminMarkup.for_version((6, 0, 3, "final", 0))
    assert not any(vars(OLDER).values())
    assert all(vars(NEWER).values())
    assert AdminMarkup.for_version((7, 0, 0, "alpha", 0)) == NEWER
    assert ADMIN_MARKUP == (NEWER if django.VERSION[:2] >= (6, 1) else OLDER)


@pytest.mark.parametrize("url", list(TRAILS))
def test_breadcrumbs_are_an_ordered_list_with_the_newer_markup(
    client: Client, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.setattr(django_mcp.admin, "ADMIN_MARKUP", NEWER)

    page = _page(client, url)

    (crumbs,) = re.findall(r'<ol class="breadcrumbs">(.*?)</ol>', page, re.DOTALL)
    items = re.findall(r"<li( aria-current=\"page\")?>(.*?)</li>", crumbs, re.DOTALL)
    found = []
    for current, item in items:
        link = re.fullmatch(r'<a href="([^"]*)">(.*)</a>', item)
        assert bool(current) is (link is None)
        found.append((html.unescape(link[2]), link[1]) if link else (html.unescape(item), None))
    assert found == TRAILS[url]
    assert '<div class="breadcrumbs">' not in page


@pytest.mark.parametrize("url", list(TRAILS))
def test_breadcrumbs_are_links_joined_by_arrows_with_the_older_markup(
    client: Client, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.setattr(django_mcp.admin, "ADMIN_MARKUP", OLDER)

    page = _page(client, url)

    (crumbs,) = re.findall(r'<div class="breadcrumbs">(.*?)</div>', page, re.DOTALL)
    parts = [part.strip() for part in crumbs.split("&rsaquo;")]
    found = []
    for part in parts:
        link = re.fullmatch(r'<a href="([^"]*)">(.*)</a>', part)
        found.append((html.unescape(link[2]), link[1]) if link else (html.unescape(part), None))
    assert found == TRAILS[url]
    assert '<ol class="breadcrumbs">' not in page


@pytest.mark.parametrize("markup", [NEWER, OLDER], ids=["newer", "older"])
def test_the_server_filter_sits_where_the_markup_wants_it(
    client: Client, monkeypatch: pytest.MonkeyPatch, markup: AdminMarkup
) -> None:
    inside = markup.filter_in_results
    monkeypatch.setattr(django_mcp.admin, "ADMIN_MARKUP", markup)

    page = _page(client, SERVER)

    container = page.index('<div class="changelist-form-container">')
    toolbar = page.index('<div id="toolbar">')
    if inside:
        assert container < page.index('<search id="changelist-filter"') < toolbar
        assert '<nav id="changelist-filter"' not in page
    else:
        assert toolbar < page.index('<nav id="changelist-filter"')
        assert "<search" not in page


@pytest.mark.parametrize("markup", [NEWER, OLDER], ids=["newer", "older"])
def test_playground_help_text_sits_where_the_markup_wants_it(
    client: Client, monkeypatch: pytest.MonkeyPatch, markup: AdminMarkup
) -> None:
    between = markup.stacked_fields
    monkeypatch.setattr(django_mcp.admin, "ADMIN_MARKUP", markup)

    page = _page(client, f"{COMPONENT}change/")

    row = re.search(r'<div class="form-row mcp-field field-text">(.*?)\n</div>', page, re.DOTALL)
    assert row is not None
    label, help_text = row[1].index('<label for="id_arg-text"'), row[1].index('id="id_arg-text_helptext"')
    field, end_of_flex = row[1].index('id="id_arg-text" value'), row[1].index("</div>\n  ")
    assert (label < help_text < field) is between
    assert (end_of_flex < help_text) is not between
    assert ("mcp-stacked-fields" in page.split("<body", 1)[1].split(">", 1)[0]) is between


def test_the_history_link_is_shown_once_where_the_running_admin_puts_object_tools(client: Client) -> None:
    page = _page(client, f"{COMPONENT}change/")

    assert page.count('class="historylink"') == 1
    tools, content = page.index('<ul class="object-tools">'), page.index('<div id="content-main">')
    if ADMIN_MARKUP.tools_beside_title:
        assert page.index('<div class="titles-and-tools">') < tools < content
    else:
        assert content < tools
