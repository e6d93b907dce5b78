"""System checks of the django_mcp.contrib tools (E025, E026)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.checks import Error
from django.core.exceptions import ImproperlyConfigured

from django_mcp import Server
from django_mcp.checks import check_servers
from django_mcp.registry import registry
from tests.checks.components import GoodServer

# ------------------------------------------------------------------ tasks


class AdminToolsServer(Server):
    from django_mcp.contrib.admin import ModelAdminTools
    from testproject.demo.admin import AuthorAdmin

    tools = ModelAdminTools(AuthorAdmin, actions=("list",))


def test_admin_tools_without_the_admin_app_are_e026(servers: None, settings: Any) -> None:
    registry.restore({"web": {"books": AdminToolsServer}, "local": {}})
    registry._registry["web"]["good"] = GoodServer
    settings.INSTALLED_APPS = [app for app in settings.INSTALLED_APPS if app != "django.contrib.admin"]

    assert check_servers() == [
        Error(
            "web server 'books' serves author-list, which need 'django.contrib.admin', but it is not in "
            "INSTALLED_APPS.",
            hint="Add 'django.contrib.admin' (and the apps it needs) to INSTALLED_APPS: the tools run the "
            "admin's code and log their writes in its LogEntry table.",
            obj=AdminToolsServer,
            id="django_mcp.E026",
        )
    ]


def test_viewset_tools_without_rest_framework_are_e025(
    servers: None, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("rest_framework", reason="Django REST framework (the drf extra) is not installed")
    import importlib.util

    from django_mcp.contrib.drf import ViewSetTools
    from testproject.shelf.api import VolumeViewSet

    class ApiServer(Server):
        tools = ViewSetTools(VolumeViewSet, actions=("list", "retrieve"))

    registry.restore({"web": {"api": ApiServer}, "local": {}})
    settings.INSTALLED_APPS = [app for app in settings.INSTALLED_APPS if app != "rest_framework"]
    hint = "pip install 'django-mcp-toolkit[drf]' and add 'rest_framework' to INSTALLED_APPS."
    not_listed = check_servers()
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "rest_framework" else find_spec(name, *a),
    )
    not_installed = check_servers()

    message = "web server 'api' serves volume-list, volume-retrieve, which need 'rest_framework', but it is "
    assert not_listed == [
        Error(message + "not in INSTALLED_APPS.", hint=hint, obj=ApiServer, id="django_mcp.E025")
    ]
    assert not_installed == [
        Error(message + "not installed.", hint=hint, obj=ApiServer, id="django_mcp.E025")
    ]


def test_viewset_tools_refuse_to_build_without_rest_framework(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from django_mcp.contrib.drf import ViewSetTools

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(ImproperlyConfigured, match=r"needs Django REST framework: pip install"):
        ViewSetTools(object)
