"""System checks of registered and mounted servers (E015, E018, W003, W016), also by ``manage.py check``."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.checks import Error, Warning
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from django_mcp import McpResponse, Resource, Server, Tool
from django_mcp.checks import check_servers
from django_mcp.registry import registry
from django_mcp.server._json_schema import INSTALL_HINT
from django_mcp.server.compiler import compile_server
from tests.checks.components import EchoTool, GoodServer

HERE = __name__  # importable: pytest registers this module in sys.modules


# ------------------------------------------------------------- fixtures


def _compile_error(server: type[Server]) -> str:
    with pytest.raises(ImproperlyConfigured) as info:
        compile_server(server)
    return str(info.value)


# ------------------------------------------------------------------ E015


class OtherEchoTool(Tool):
    name = "echo"

    def handle(self) -> McpResponse:
        return McpResponse.text("another echo")


class DuplicateToolServer(Server):
    tools = (EchoTool, OtherEchoTool)


class NoHandlerTool(Tool):
    name = "no-handler"


class MissingHandlerServer(Server):
    tools = (NoHandlerTool,)


class BadTemplateResource(Resource):
    uri_template = "demo://items/{id"

    def handle(self, id: str) -> McpResponse:  # noqa: A002 - the template variable
        return McpResponse.text(id)


class BadTemplateServer(Server):
    resources = (BadTemplateResource,)


class BadSchemaTool(Tool):
    name = "bad-schema"
    input = {"type": "array"}

    def handle(self) -> McpResponse:
        return McpResponse.text("never")


class BadSchemaServer(Server):
    tools = (BadSchemaTool,)


@pytest.mark.parametrize(
    ("kind", "server"),
    [
        ("web", DuplicateToolServer),
        ("web", MissingHandlerServer),
        ("local", BadTemplateServer),
        ("local", BadSchemaServer),
    ],
)
def test_registered_server_that_does_not_compile_is_e015(
    servers: None, kind: str, server: type[Server]
) -> None:
    registry._registry[kind]["broken"] = server
    registry._registry["web"]["good"] = GoodServer
    detail = _compile_error(server)
    assert check_servers() == [
        Error(
            f"{kind} server 'broken' ({HERE}.{server.__qualname__}) is invalid: {detail}",
            hint="Fix the declaration named in the message; the server cannot "
            "answer any request until it compiles.",
            obj=server,
            id="django_mcp.E015",
        )
    ]


class RawSchemaTool(Tool):
    name = "raw-schema"
    input = {"type": "object", "properties": {"q": {"type": "string"}}}

    def handle(self, payload: dict[str, Any]) -> McpResponse:
        return McpResponse.text("never")


def test_raw_json_schema_tool_without_the_jsonschema_extra_is_e015(
    servers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema", None)  # as if the extra were not installed
    server = type("RawSchemaServer", (Server,), {"tools": (RawSchemaTool,), "__module__": HERE})
    registry._registry["web"]["raw"] = server
    detail = _compile_error(server)
    assert f"{HERE}.RawSchemaTool.input" in detail
    assert INSTALL_HINT in detail
    assert check_servers() == [
        Error(
            f"web server 'raw' ({HERE}.RawSchemaServer) is invalid: {detail}",
            hint="Fix the declaration named in the message; the server cannot "
            "answer any request until it compiles.",
            obj=server,
            id="django_mcp.E015",
        )
    ]


class IdentityServer(Server):
    name = "identity"
    login_required = True
    tools = (EchoTool,)


def _without_auth_app(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.apps import apps

    installed = apps.is_installed
    monkeypatch.setattr(apps, "is_installed", lambda name: name != "django.contrib.auth" and installed(name))


def test_a_server_needing_identity_without_the_auth_app_is_e018(
    servers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_auth_app(monkeypatch)
    registry._registry["web"]["identity"] = IdentityServer
    registry._registry["web"]["good"] = GoodServer  # needs no identity: fine

    flagged = {message.obj for message in check_servers() if message.id == "django_mcp.E018"}
    assert IdentityServer in flagged
    assert GoodServer not in flagged


def test_registered_object_that_is_not_a_server_is_e015(servers: None) -> None:
    registry._registry["local"]["tool"] = EchoTool  # type: ignore[assignment]  # deliberately wrong
    assert check_servers() == [
        Error(
            f"local server 'tool' is {EchoTool!r}, not a Server subclass.",
            hint="Register a subclass of django_mcp.Server.",
            obj=EchoTool,
            id="django_mcp.E015",
        )
    ]


def test_servers_registered_normally_pass(servers: None) -> None:
    registry.web("good", GoodServer)
    registry.local("good", GoodServer)
    assert check_servers() == []


# ---------------------------------------------------------- call_command


# manage.py check also runs Django's model checks, which may query the database.
@pytest.mark.django_db
def test_check_command_reports_compile_errors(servers: None) -> None:
    registry._registry["web"]["broken"] = DuplicateToolServer
    with pytest.raises(SystemCheckError) as info:
        call_command("check", stdout=io.StringIO(), stderr=io.StringIO())
    assert "(django_mcp.E015) web server 'broken'" in str(info.value)


# ------------------------------------------------------------------ W003


class LoginServer(Server):
    tools = (EchoTool,)
    login_required = True


def test_local_server_requiring_login_is_w003(servers: None) -> None:
    registry.local("guarded", LoginServer)
    registry.web("guarded", LoginServer)  # over HTTP login_required works: no warning
    assert check_servers() == [
        Warning(
            f"local server 'guarded' ({HERE}.LoginServer) sets login_required, "
            "but STDIO does not enforce it (it is an HTTP rule).",
            hint="Whoever can start `manage.py mcp_stdio` uses every component; run it with "
            "--user USERNAME so that user's permissions apply, or publish the server with "
            "web() only.",
            obj=LoginServer,
            id="django_mcp.W003",
        )
    ]


# ------------------------------------------------------------------ W016


class PropertyInstructionsServer(Server):
    tools = (EchoTool,)

    @property
    def instructions(self) -> str:  # type: ignore[override]
        return "built at run time"


class CallableInstructionsServer(Server):
    tools = (EchoTool,)
    instructions = staticmethod(lambda: "from the database")  # type: ignore[assignment]


class ConstantInstructionsServer(Server):
    tools = (EchoTool,)
    instructions = "Use the echo tool."


def test_instructions_that_are_not_a_constant_string_are_w016(servers: None) -> None:
    registry.web("property", PropertyInstructionsServer)
    registry.web("callable", CallableInstructionsServer)
    registry.web("constant", ConstantInstructionsServer)

    messages = [message for message in check_servers() if message.id == "django_mcp.W016"]

    assert [(message.msg, message.obj) for message in messages] == [
        (
            f"web server 'property' ({HERE}.PropertyInstructionsServer) declares instructions as a "
            "property, not a constant string.",
            PropertyInstructionsServer,
        ),
        (
            f"web server 'callable' ({HERE}.CallableInstructionsServer) declares instructions as a "
            "staticmethod, not a constant string.",
            CallableInstructionsServer,
        ),
    ]
    assert "prompt-injection" in messages[0].hint


# ------------------------------------------------- servers mounted with as_view()


def test_a_server_mounted_with_as_view_that_does_not_compile_is_e015(servers: None) -> None:
    registry.mount(DuplicateToolServer)  # what a URLconf's DuplicateToolServer.as_view() does
    detail = _compile_error(DuplicateToolServer)
    key = f"{HERE}.DuplicateToolServer"

    assert check_servers() == [
        Error(
            f"as_view() server {key!r} ({key}) is invalid: {detail}",
            hint="Fix the declaration named in the message; the server cannot "
            "answer any request until it compiles.",
            obj=DuplicateToolServer,
            id="django_mcp.E015",
        )
    ]


@pytest.mark.django_db
def test_check_command_reports_a_broken_as_view_server(servers: None) -> None:
    registry.mount(DuplicateToolServer)

    with pytest.raises(SystemCheckError) as info:
        call_command("check", stdout=io.StringIO(), stderr=io.StringIO())

    assert f"(django_mcp.E015) as_view() server '{HERE}.DuplicateToolServer'" in str(info.value)


def test_a_mounted_server_gets_the_checks_a_registered_one_gets(servers: None, monkeypatch: Any) -> None:
    from django.apps import apps

    installed = apps.is_installed
    monkeypatch.setattr(apps, "is_installed", lambda name: name != "django.contrib.auth" and installed(name))
    registry.mount(IdentityServer)

    assert [message.id for message in check_servers() if message.obj is IdentityServer] == ["django_mcp.E018"]


# ------------------------------------------------- E015 from manage.py check


BROKEN_APP = """
import os

import django_mcp
from django_mcp import McpResponse, Server, Tool


class PingTool(Tool):
    name = "ping"

    def handle(self) -> McpResponse:
        return McpResponse.text("a")


class OtherPingTool(Tool):
    name = "ping"

    def handle(self) -> McpResponse:
        return McpResponse.text("b")


class BrokenServer(Server):
    tools = (PingTool, OtherPingTool)


if os.environ["BROKEN"] == "web":
    django_mcp.web("broken", BrokenServer)
"""


BROKEN_URLS = """
import os

from django.urls import include, path

from brokenapp.mcp import BrokenServer

urlpatterns = [path("mcp/", include("django_mcp.urls"))]
if os.environ["BROKEN"] == "view":
    urlpatterns.append(path("broken", BrokenServer.as_view()))
"""


BROKEN_SETTINGS = """
SECRET_KEY = "checks-test"
INSTALLED_APPS = ["django.contrib.auth", "django.contrib.contenttypes", "django_mcp", "brokenapp"]
ROOT_URLCONF = "brokenurls"
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
"""


@pytest.mark.parametrize("how", ["web", "view"])
def test_manage_py_check_reports_a_broken_server_once_without_a_traceback(tmp_path: Path, how: str) -> None:
    (tmp_path / "brokenapp").mkdir()
    (tmp_path / "brokenapp" / "__init__.py").write_text("")
    (tmp_path / "brokenapp" / "mcp.py").write_text(BROKEN_APP)
    (tmp_path / "brokenurls.py").write_text(BROKEN_URLS)
    (tmp_path / "brokensettings.py").write_text(BROKEN_SETTINGS)
    root = Path(__file__).resolve().parents[2]
    env = {
        **os.environ,
        "BROKEN": how,
        "DJANGO_SETTINGS_MODULE": "brokensettings",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(root)]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "django", "check"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = done.stdout + done.stderr

    assert done.returncode == 1
    assert "Traceback" not in output
    assert output.count("duplicate tool 'ping'") == 1
    assert output.count("(django_mcp.E015)") == 1
