"""django_mcp.inspector and ``manage.py mcp_inspector``: the Inspector's command line.

No network and no Node.js: ``which`` and ``node`` are stand-ins, and the
command is checked with ``--print``, which prints the command line instead
of running it. The flags were read off the pinned Inspector's ``--help``
and launcher source (``--web``, ``--transport``, ``--server-url``,
``--protocol-era``, ``--cwd``, ``-e``, ``--`` before a STDIO command).
"""

from __future__ import annotations

import io
import shlex
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import include, path

from django_mcp import McpResponse, Server, Tool
from django_mcp.inspector import (
    INSPECTOR_PACKAGE,
    INSPECTOR_VERSION,
    NODE_PACKAGE,
    InspectorError,
    answers,
    default_base_url,
    inspector_launch,
    node_version,
)
from django_mcp.registry import registry

ROOT = Path(__file__).resolve().parents[1]
MANAGE_PY = str(ROOT / "testproject" / "manage.py")
INSPECTOR = f"{INSPECTOR_PACKAGE}@{INSPECTOR_VERSION}"


class PingTool(Tool):
    """Answer pong."""

    name = "ping"

    def handle(self) -> McpResponse:
        return McpResponse.text("pong")


class PingServer(Server):
    tools = (PingTool,)


class OtherServer(Server):
    tools = (PingTool,)


#: The URLs django_mcp.urls would give the servers these tests register (it
#: makes its patterns once, from the registry of its first import).
urlpatterns = [
    path("mcp/", include(([path("ping", PingServer.as_view(), name="ping")], "django_mcp"))),
]
pytestmark = pytest.mark.urls(__name__)


@pytest.fixture(autouse=True)
def servers() -> Iterator[None]:
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}})
    try:
        yield
    finally:
        registry.restore(saved)


def _which(found: dict[str, str]) -> Callable[[str], str | None]:
    return found.get


TOOLS = {"npx": "/opt/node/bin/npx", "node": "/opt/node/bin/node"}


def test_a_web_server_is_inspected_over_http_at_its_url() -> None:
    registry.web("ping", PingServer)

    launch = inspector_launch(
        "ping", base_url="http://localhost:9000/", which=_which(TOOLS), node=lambda _: (22, 20, 0)
    )

    assert launch.transport == "http"
    assert launch.target == "http://localhost:9000/mcp/ping"
    assert launch.node_from_npm is False
    assert launch.command == (
        "/opt/node/bin/npx",
        "--yes",
        INSPECTOR,
        "--web",
        *("--transport", "http", "--server-url", "http://localhost:9000/mcp/ping", "--protocol-era", "auto"),
    )


def test_a_local_server_is_inspected_over_stdio_with_manage_py(monkeypatch: pytest.MonkeyPatch) -> None:
    registry.local("ping", PingServer)
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "testproject.settings")
    monkeypatch.setenv("DJANGO_SECRET_KEY", "never-handed-over")
    monkeypatch.chdir(ROOT)

    launch = inspector_launch(
        "ping", era="legacy", manage_py=MANAGE_PY, which=_which(TOOLS), node=lambda _: (23, 1, 0)
    )

    assert launch.transport == "stdio"
    assert launch.target == f"{sys.executable} {MANAGE_PY} mcp_stdio ping"
    assert launch.command == (
        "/opt/node/bin/npx",
        "--yes",
        INSPECTOR,
        "--web",
        *("--transport", "stdio", "--protocol-era", "legacy", "--cwd", str(ROOT)),
        *("-e", "DJANGO_SETTINGS_MODULE=testproject.settings"),
        "--",
        *(sys.executable, MANAGE_PY, "mcp_stdio", "ping"),
    )
    assert not [part for part in launch.command if "never-handed-over" in part]


@pytest.mark.parametrize("version", [(20, 20, 2), (22, 18, 9), None])
def test_an_older_or_missing_node_gets_node_22_from_npm(version: tuple[int, int, int] | None) -> None:
    registry.web("ping", PingServer)
    # An npx that is not a link to npm's npx-cli.js (on Windows, npx.cmd).
    npx = "/opt/nowhere/npx"

    launch = inspector_launch("ping", which=_which({"npx": npx}), node=lambda _: version)

    assert launch.node_from_npm is True
    assert launch.command[:8] == (
        npx,
        "--yes",
        *("-p", NODE_PACKAGE, "-p", INSPECTOR),
        "--",
        "mcp-inspector",
    )
    assert launch.command[8:] == (
        "--web",
        *("--transport", "http", "--server-url", "http://127.0.0.1:8000/mcp/ping", "--protocol-era", "auto"),
    )


def test_without_npx_the_error_says_what_to_install() -> None:
    registry.web("ping", PingServer)

    with pytest.raises(InspectorError, match=r"npx, which is not on PATH\. Install Node\.js 22\.19\.0"):
        inspector_launch("ping", which=_which({"node": "/usr/bin/node"}), node=lambda _: (22, 20, 0))


def test_the_server_must_be_registered_and_named_when_there_are_several() -> None:
    with pytest.raises(InspectorError, match="No MCP servers are registered"):
        inspector_launch(which=_which(TOOLS))
    registry.web("ping", PingServer)
    registry.local("other", OtherServer)

    with pytest.raises(InspectorError, match=r"name one \(web:ping, local:other\)"):
        inspector_launch(which=_which(TOOLS))
    with pytest.raises(InspectorError, match="No MCP server is registered as 'nope'"):
        inspector_launch("nope", which=_which(TOOLS))
    # The only server needs no name.
    registry.restore({"web": {}, "local": {}})
    registry.web("ping", PingServer)
    assert inspector_launch(which=_which(TOOLS), node=lambda _: None).target.endswith("/mcp/ping")


def test_one_name_registered_both_ways_is_inspected_over_http_unless_told() -> None:
    registry.web("ping", PingServer)
    registry.local("ping", PingServer)

    over_http = inspector_launch("ping", which=_which(TOOLS), node=lambda _: None)
    over_stdio = inspector_launch("local:ping", manage_py=MANAGE_PY, which=_which(TOOLS), node=lambda _: None)

    assert (over_http.transport, over_stdio.transport) == ("http", "stdio")


def test_a_bad_base_url_a_missing_url_and_a_missing_manage_py_are_refused() -> None:
    registry.web("ping", PingServer)
    registry.web("unmounted", OtherServer)
    registry.local("pong", OtherServer)

    with pytest.raises(InspectorError, match="base URL must be http"):
        inspector_launch("ping", base_url="localhost:8000", which=_which(TOOLS))
    with pytest.raises(InspectorError, match="include django_mcp.urls in the root URLconf"):
        inspector_launch("unmounted", which=_which(TOOLS))
    with pytest.raises(InspectorError, match="--manage-py"):
        inspector_launch("pong", manage_py=str(ROOT / "pyproject.toml"), which=_which(TOOLS))


def test_node_version_reads_node_s_answer_and_survives_a_missing_node(tmp_path: Path) -> None:
    fake = tmp_path / "node"
    fake.write_text("#!/bin/sh\necho v22.23.3\n")
    fake.chmod(0o755)
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\necho nonsense\n")
    broken.chmod(0o755)

    assert node_version(str(fake)) == (22, 23, 3)
    assert node_version(str(broken)) is None
    assert node_version(str(tmp_path / "absent")) is None
    assert node_version(None) is None


def test_the_command_prints_the_command_line_with_print(monkeypatch: pytest.MonkeyPatch) -> None:
    registry.web("ping", PingServer)
    out = io.StringIO()

    call_command("mcp_inspector", "ping", "--base-url", "http://127.0.0.1:9999", "--print", stdout=out)

    printed = shlex.split(out.getvalue())
    assert printed[-6:] == [
        *("--transport", "http", "--server-url", "http://127.0.0.1:9999/mcp/ping", "--protocol-era", "auto"),
    ]
    assert INSPECTOR in printed


def test_the_command_reports_mistakes_as_command_errors() -> None:
    with pytest.raises(CommandError, match="No MCP servers are registered"):
        call_command("mcp_inspector", "--print", stdout=io.StringIO())
    registry.local("ping", PingServer)
    # Under pytest there is no manage.py to start a local server with.
    with pytest.raises(CommandError, match="python manage.py mcp_inspector"):
        call_command("mcp_inspector", "ping", "--print", stdout=io.StringIO())
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("mcp_inspector", "ping", "--protocol-era", "newest", stdout=io.StringIO())


@pytest.mark.parametrize("version", [(20, 20, 2), None])
def test_an_older_node_runs_npm_s_npx_script_on_node_22(
    tmp_path: Path, version: tuple[int, int, int] | None
) -> None:
    registry.web("ping", PingServer)
    script = tmp_path / "npm" / "bin" / "npx-cli.js"
    script.parent.mkdir(parents=True)
    script.write_text("// npm's npx\n")
    npx = tmp_path / "npx"
    npx.symlink_to(script)

    launch = inspector_launch("ping", which=_which({"npx": str(npx)}), node=lambda _: version)

    # npm, running on Node.js 22, checks the Inspector's engines against it:
    # no EBADENGINE warnings.
    assert launch.node_from_npm is True
    assert launch.command[:6] == (str(npx), "--yes", NODE_PACKAGE, str(script), "--yes", INSPECTOR)
    assert launch.command[6:8] == ("--web", "--transport")


def test_the_base_url_defaults_to_the_port_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    registry.web("ping", PingServer)
    monkeypatch.setenv("PORT", "9123")
    assert default_base_url() == "http://127.0.0.1:9123"
    assert inspector_launch("ping", which=_which(TOOLS), node=lambda _: None).target == (
        "http://127.0.0.1:9123/mcp/ping"
    )
    monkeypatch.delenv("PORT")
    assert default_base_url() == "http://127.0.0.1:8000"


def _printed_warnings(base_url: str) -> str:
    """Return what ``mcp_inspector ping --base-url BASE_URL --print`` writes to stderr."""
    err = io.StringIO()
    call_command("mcp_inspector", "ping", "--base-url", base_url, "--print", stdout=io.StringIO(), stderr=err)
    return err.getvalue()


def test_the_command_warns_when_nothing_answers_at_the_base_url() -> None:
    registry.web("ping", PingServer)
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]

    warned = _printed_warnings(f"http://127.0.0.1:{port}")

    assert f"nothing answers at http://127.0.0.1:{port}/mcp/ping" in warned
    assert "--base-url http://HOST:PORT" in warned


def test_the_command_does_not_warn_when_the_site_answers() -> None:
    registry.web("ping", PingServer)
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(1)
        port = listening.getsockname()[1]
        warned = _printed_warnings(f"http://127.0.0.1:{port}")

    assert answers(f"http://127.0.0.1:{port}") is False  # closed again
    assert warned == ""
