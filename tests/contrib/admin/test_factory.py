"""ModelAdminTools(): the tool classes it builds for a ModelAdmin and the configuration it refuses."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.core.exceptions import ImproperlyConfigured

from django_mcp.contrib.admin import ModelAdminTools
from django_mcp.contrib.admin._factory import article
from testproject.demo.admin import BookAdmin
from testproject.demo.models import Book
from testproject.shelf.admin import VolumeAdmin
from testproject.shelf.models import Volume


def test_the_factory_names_tools_and_classes_after_the_prefix_and_action() -> None:
    tools = ModelAdminTools(VolumeAdmin, actions=("list", "mark_worn"))

    assert [tool.name for tool in tools] == ["volume-list", "volume-mark-worn"]
    assert [f"{tool.__module__}.{tool.__qualname__}" for tool in tools] == [
        "testproject.shelf.admin.VolumeListTool",
        "testproject.shelf.admin.VolumeMarkWornTool",
    ]
    assert ModelAdminTools(VolumeAdmin)[0].name == "volume-list"
    assert [tool.name for tool in ModelAdminTools(VolumeAdmin)] == ["volume-list", "volume-get"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"actions": ("list", "burn")}, "unknown action 'burn'"),
        ({"actions": "list"}, "actions must be a tuple of names"),
        ({"actions": ("get", "get")}, "an action is listed twice"),
        ({"site": admin.AdminSite(name="empty")}, "is not registered on the 'empty' admin site"),
    ],
)
def test_the_factory_refuses_unknown_actions_and_unregistered_admins(
    kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ImproperlyConfigured, match=message):
        ModelAdminTools(VolumeAdmin, **kwargs)


def test_an_unregistered_admin_is_instantiated_on_the_site_for_the_model_given() -> None:
    site = admin.AdminSite(name="other")
    (tool,) = ModelAdminTools(VolumeAdmin, site=site, model=Volume, actions=("list",))

    assert isinstance(tool.model_admin, VolumeAdmin) and tool.model_admin.admin_site is site


def test_the_demo_library_exposes_its_book_admin() -> None:
    from testproject.demo.mcp import LibraryServer

    names = [name for name in LibraryServer.compiled().tools if name.startswith("admin-book")]
    assert names == ["admin-book-list", "admin-book-get", "admin-book-change"]
    assert all(tool.model_admin is admin.site.get_model_admin(Book) for tool in ModelAdminTools(BookAdmin))


@pytest.mark.parametrize(
    ("noun", "expected"),
    [("order", "an"), ("user", "a"), ("update", "an"), ("book", "a"), ("item", "an"), ("unit", "a")],
)
def test_generated_descriptions_take_the_article_the_noun_is_spoken_with(noun: str, expected: str) -> None:
    assert article(noun) == expected
