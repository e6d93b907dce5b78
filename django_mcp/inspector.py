"""Launch the official MCP Inspector against a registered server.

``manage.py mcp_inspector [SERVER]`` runs this module's ``launch()``. The
Inspector (the npm package ``@modelcontextprotocol/inspector``, pinned to
``INSPECTOR_VERSION``) opens its web UI on ``http://localhost:6274`` and
connects to the server in one of two ways:

* a server registered with ``django_mcp.web(path, ...)`` over Streamable
  HTTP, at ``base_url`` plus the path ``django_mcp.urls`` gives it; the site
  must be running (``runserver``, uvicorn, ...);
* a server registered with ``django_mcp.local(name, ...)`` over STDIO: the
  Inspector starts ``python manage.py mcp_stdio <name>`` itself, in the
  current folder, with ``DJANGO_SETTINGS_MODULE`` and nothing else of this
  process's environment (the Inspector may store a STDIO server's
  environment on disk, so secrets are never handed to it).

``SERVER`` is a web path or a local name, ``web:PATH`` or ``local:NAME``
when both exist (a name registered both ways with one class is served over
HTTP); without it the only registered server is used.

The base URL defaults to ``http://127.0.0.1:$PORT`` (8000 when ``PORT`` is
unset, as ``bash .ci/demo`` does). Before a web server is inspected,
``answers()`` tries to connect to it: when nothing answers there, the
command warns and says how to name another base URL.

The Inspector needs Node.js ``MINIMUM_NODE`` or newer; it runs through
``npx``, which npm brings. When the machine's ``node`` is older (or
missing), ``npx`` fetches Node.js 22 from the npm registry (the ``node``
package, ``NODE_PACKAGE``) and runs npm's own ``npx`` script on it, which
installs and starts the Inspector: npm then checks the Inspector's
``engines`` against Node.js 22, not the machine's older one (no
``EBADENGINE`` warnings). Without ``npx`` there is nothing to run it with:
``InspectorError`` says so.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, Literal
from urllib.parse import urlsplit

from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext

from django_mcp._catalog import RegisteredServer, find_servers
from django_mcp.exceptions import NotRegistered

__all__ = [
    "INSPECTOR_PACKAGE",
    "INSPECTOR_VERSION",
    "MINIMUM_NODE",
    "NODE_PACKAGE",
    "InspectorError",
    "InspectorLaunch",
    "answers",
    "default_base_url",
    "inspector_launch",
    "node_version",
]

INSPECTOR_PACKAGE: Final = "@modelcontextprotocol/inspector"
"""The npm package of the official MCP Inspector."""

INSPECTOR_VERSION: Final = "2.12.0"
"""The Inspector release launched (its CLI flags were checked on it)."""

MINIMUM_NODE: Final = (22, 19, 0)
"""The oldest Node.js the pinned Inspector supports (its ``engines``)."""

NODE_PACKAGE: Final = "node@22.23.3"
"""The npm package that brings Node.js 22 when the machine's is older."""

Era = Literal["auto", "modern", "legacy"]
Transport = Literal["http", "stdio"]


class InspectorError(Exception):
    """The Inspector cannot be launched as asked; the message says why and what to do."""


@dataclasses.dataclass(frozen=True)
class InspectorLaunch:
    """The command that runs the Inspector, and what it connects to."""

    #: The command line, starting with ``npx``.
    command: tuple[str, ...]
    #: ``"http"`` or ``"stdio"``.
    transport: Transport
    #: The endpoint URL, or the STDIO command line, for people to read.
    target: str
    #: Whether ``npx`` also brings Node.js 22 (the machine's is older).
    node_from_npm: bool

    def run(self) -> int:
        """Run the Inspector until it exits (Ctrl-C stops it); return its exit code."""
        try:
            return subprocess.call(self.command)
        except KeyboardInterrupt:
            return 130


def node_version(node: str | None) -> tuple[int, int, int] | None:
    """Return the version of the ``node`` executable, or None if it does not answer."""
    if node is None:
        return None
    try:
        done = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)\S*", done.stdout.strip())
    if done.returncode != 0 or found is None:
        return None
    return int(found[1]), int(found[2]), int(found[3])


def default_base_url() -> str:
    """Return ``http://127.0.0.1:$PORT``, port 8000 when ``PORT`` is unset or not a number."""
    port = os.environ.get("PORT", "")
    return f"http://127.0.0.1:{port if port.isdigit() else 8000}"


def answers(url: str, *, timeout: float = 2.0) -> bool:
    """Return whether something accepts a connection at ``url``'s host and port."""
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    if parts.hostname is None:
        return False
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            return True
    except OSError:
        return False


def inspector_launch(
    server: str | None = None,
    *,
    base_url: str | None = None,
    era: Era = "auto",
    manage_py: str | None = None,
    which: Callable[[str], str | None] = shutil.which,
    node: Callable[[str | None], tuple[int, int, int] | None] = node_version,
) -> InspectorLaunch:
    """Return how to run the Inspector against ``server`` (see the module).

    ``era`` is the protocol era the Inspector speaks: ``auto`` (it probes for
    2026-07-28), ``modern`` or ``legacy`` (2025-11-25 sessions).
    ``manage_py`` is the ``manage.py`` a STDIO server is started with
    (default: the running one). ``which`` and ``node`` find executables and
    their versions.

    Raises:
        InspectorError: no such server, no npx, no URL for the server, or no
            ``manage.py`` to start it with.
    """
    entry = _one_server(server)
    transport: Transport = "http" if entry.kind == "web" else "stdio"
    if transport == "http":
        target = _endpoint(entry.key, base_url if base_url is not None else default_base_url())
        connect = ["--transport", "http", "--server-url", target, "--protocol-era", era]
    else:
        stdio = [sys.executable, _manage_py(manage_py), "mcp_stdio", entry.key]
        target = " ".join(stdio)
        settings_module = os.environ.get("DJANGO_SETTINGS_MODULE", "")
        connect = [
            *("--transport", "stdio", "--protocol-era", era, "--cwd", os.getcwd()),
            *(("-e", f"DJANGO_SETTINGS_MODULE={settings_module}") if settings_module else ()),
            "--",
            *stdio,
        ]
    npx = which("npx")
    if npx is None:
        raise InspectorError(
            gettext(
                "The MCP Inspector runs on Node.js, through npx, which is not on PATH. Install "
                "Node.js {version} or newer with npm (or only npm: a newer Node.js then comes "
                "from the npm registry), and run this command again."
            ).format(version=_dotted(MINIMUM_NODE))
        )
    inspector = f"{INSPECTOR_PACKAGE}@{INSPECTOR_VERSION}"
    version = node(which("node"))
    if version is not None and version >= MINIMUM_NODE:
        command = [npx, "--yes", inspector, "--web", *connect]
    elif (npx_script := _npx_script(npx)) is not None:
        # npm's npx script runs on the node package's Node.js 22, so npm
        # checks the Inspector's engines against it; that Node.js is first
        # on PATH for the Inspector's launcher ("#!/usr/bin/env node").
        command = [npx, "--yes", NODE_PACKAGE, npx_script, "--yes", inspector, "--web", *connect]
    else:
        # npx puts the node package's Node.js 22 first on PATH for the
        # Inspector, whose launcher starts with "#!/usr/bin/env node".
        command = [
            npx,
            "--yes",
            "-p",
            NODE_PACKAGE,
            "-p",
            inspector,
            "--",
            "mcp-inspector",
            "--web",
            *connect,
        ]
    return InspectorLaunch(
        command=tuple(command),
        transport=transport,
        target=target,
        node_from_npm=version is None or version < MINIMUM_NODE,
    )


def _npx_script(npx: str) -> str | None:
    """Return npm's ``npx-cli.js`` that the ``npx`` command runs, or None."""
    script = Path(npx).resolve()
    return str(script) if script.name == "npx-cli.js" and script.is_file() else None


def _one_server(name: str | None) -> RegisteredServer:
    try:
        entries = find_servers(name)
    except NotRegistered as exc:
        raise InspectorError(str(exc)) from None
    servers = {entry.server for entry in entries}
    if not entries:
        raise InspectorError(
            gettext(
                "No MCP servers are registered: register one with django_mcp.web() or "
                "django_mcp.local() in an mcp.py module."
            )
        )
    if name is None and len(servers) > 1:
        known = ", ".join(f"{entry.kind}:{entry.key}" for entry in entries)
        raise InspectorError(
            gettext("Several MCP servers are registered: name one ({known}).").format(known=known)
        )
    return entries[0]


def _endpoint(path: str, base_url: str) -> str:
    if not re.match(r"https?://[^/\s]+", base_url):
        raise InspectorError(
            gettext("The base URL must be http(s)://host[:port], got {url!r}.").format(url=base_url)
        )
    try:
        route = reverse(f"django_mcp:{path or 'root'}")
    except NoReverseMatch:
        raise InspectorError(
            gettext(
                "The web server {path!r} has no URL: include django_mcp.urls in the root URLconf."
            ).format(path=path)
        ) from None
    return base_url.rstrip("/") + route


def _manage_py(given: str | None) -> str:
    candidate = given if given is not None else sys.argv[0]
    if Path(candidate).name != "manage.py" or not Path(candidate).is_file():
        raise InspectorError(
            gettext(
                "A local server is started with manage.py mcp_stdio: run this command as "
                "'python manage.py mcp_inspector', or name the manage.py with --manage-py."
            )
        )
    return str(Path(candidate).resolve())


def _dotted(version: Sequence[int]) -> str:
    return ".".join(map(str, version))
