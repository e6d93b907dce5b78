"""The registry: web/local registration, duplicates, lookups and rollback."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import autodiscover_modules

from django_mcp import McpResponse, Server, Tool
from django_mcp.exceptions import AlreadyRegistered, NotRegistered
from django_mcp.registry import Registry, registry


class PingTool(Tool):
    """Answer pong."""

    def handle(self) -> McpResponse:
        return McpResponse.text("pong")


class FirstServer(Server):
    name = "first"
    tools = (PingTool,)


class SecondServer(Server):
    name = "second"
    tools = (PingTool,)


@pytest.fixture
def fresh() -> Iterator[Registry]:
    saved = registry.snapshot()
    yield registry
    registry.restore(saved)


def test_web_and_local_registrations_are_kept_apart(fresh: Registry) -> None:
    fresh.web("first", FirstServer)
    fresh.local("first", SecondServer)
    assert fresh.get("web", "first") is FirstServer
    assert fresh.get("local", "first") is SecondServer


def test_registering_a_path_twice_names_both_servers(fresh: Registry) -> None:
    fresh.web("shop", FirstServer)
    with pytest.raises(AlreadyRegistered, match="FirstServer.*SecondServer"):
        fresh.web("shop/", SecondServer)


def test_unknown_name_lists_the_registered_ones(fresh: Registry) -> None:
    fresh.local("one", FirstServer)
    with pytest.raises(NotRegistered, match="one"):
        fresh.get("local", "two")


def test_invalid_paths_and_non_servers_are_refused(fresh: Registry) -> None:
    with pytest.raises(ImproperlyConfigured):
        fresh.web("bad path", FirstServer)
    with pytest.raises(ImproperlyConfigured):
        fresh.local("x", object)  # type: ignore[arg-type]


def test_unregister_removes_only_that_registration(fresh: Registry) -> None:
    fresh.web("a", FirstServer)
    fresh.web("b", SecondServer)
    fresh.unregister("web", "a")
    assert "a" not in fresh.web_servers() and fresh.web_servers()["b"] is SecondServer
    with pytest.raises(NotRegistered):
        fresh.unregister("web", "a")


def test_a_failing_mcp_module_rolls_its_registrations_back(fresh: Registry, settings) -> None:  # type: ignore[no-untyped-def]
    """autodiscover_modules() restores the registry after a failed import."""
    package = types.ModuleType("rollback_app")
    package.__path__ = []  # a package, so "rollback_app.mcp" can be imported
    module = types.ModuleType("rollback_app.mcp")
    before = fresh.snapshot()

    def fail_after_registering() -> None:
        fresh.web("rolled-back", FirstServer)
        raise RuntimeError("broken mcp module")

    class Loader:
        def create_module(self, spec):  # type: ignore[no-untyped-def]
            return module

        def exec_module(self, mod):  # type: ignore[no-untyped-def]
            fail_after_registering()

    import importlib.machinery

    class Finder:
        def find_spec(self, name, path, target=None):  # type: ignore[no-untyped-def]
            if name == "rollback_app.mcp":
                return importlib.machinery.ModuleSpec(name, Loader())
            return None

    sys.modules["rollback_app"] = package
    sys.meta_path.insert(0, Finder())
    try:
        from django.apps import apps

        config = types.SimpleNamespace(name="rollback_app", module=package)
        original = apps.get_app_configs
        apps.get_app_configs = lambda: [config]  # type: ignore[method-assign,assignment,return-value]
        try:
            with pytest.raises(RuntimeError, match="broken mcp module"):
                autodiscover_modules("mcp", register_to=fresh)
        finally:
            apps.get_app_configs = original  # type: ignore[method-assign]
    finally:
        sys.meta_path.pop(0)
        sys.modules.pop("rollback_app", None)
        sys.modules.pop("rollback_app.mcp", None)
    assert fresh.snapshot() == before


class BrokenServer(Server):
    name = "broken"
    tools = (PingTool, PingTool)  # the same tool twice does not compile


def test_a_registered_server_that_does_not_compile_is_kept_for_the_checks(fresh: Registry) -> None:
    fresh.web("broken", BrokenServer)  # no exception: mcp.py goes on importing

    assert fresh.get("web", "broken") is BrokenServer
    with pytest.raises(ImproperlyConfigured, match=r"django_mcp\.E015.*duplicate tool"):
        fresh.check_mounted()


def test_mount_records_the_server_and_returns_why_it_does_not_compile() -> None:
    fresh = Registry()

    assert fresh.mount(FirstServer) is None
    error = fresh.mount(BrokenServer)

    assert isinstance(error, ImproperlyConfigured)
    assert set(fresh.mounted_servers().values()) == {FirstServer, BrokenServer}
    with pytest.raises(ImproperlyConfigured, match="BrokenServer"):
        fresh.check_mounted()
