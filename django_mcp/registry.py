"""Where servers are registered: HTTP paths (``web``), STDIO names (``local``), views (``as_view``).

Each installed app's ``mcp`` module is imported by ``autodiscover()`` (run
from ``AppConfig.ready()``), like the admin's ``admin`` modules; a module
that fails to import rolls the registry back to what it was, then re-raises.
Every server is compiled when registered. One that does not compile is
registered all the same and remembered with its error, exactly like one
mounted with ``as_view()`` (below): the import goes on, ``manage.py check``
(and ``runserver``, which runs the checks first) reports it once as
``django_mcp.E015``, without a traceback. ``django_mcp.urls`` mounts each
``web()`` path.

The registry records declarations only: importing it (and so
``import django_mcp``) loads no dispatcher, no transport and no compiler;
registering a server compiles it (``Server.compiled()``). What serves a
server (its ``Dispatcher``, HTTP ``Endpoint`` and view) is built by
``django_mcp._serving`` once Django is ready.
``Server.as_view()`` mounts the server here (``mount()``), so a server
mounted in a URLconf directly is known too (``mounted_servers()``, kept
with the registrations), compiled when the URLconf loads and covered by
the system checks. A registered or mounted server that does not
compile is reported by ``manage.py check`` (``django_mcp.E015``), refuses to
start ``McpASGIApp``, ``McpWSGIApp`` and ``mcp_stdio``, and under Django's own
handlers answers every request with a JSON-RPC -32603 (the cause logged with
each refused request).
"""

from __future__ import annotations

import copy
import re
import threading
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import autodiscover_modules

from django_mcp.exceptions import AlreadyRegistered, NotRegistered
from django_mcp.server.primitives import is_server

__all__ = ["Registry", "autodiscover", "local", "registry", "web"]

_PATH_RE = re.compile(r"^(?:[A-Za-z0-9._~-]+(?:/[A-Za-z0-9._~-]+)*)?$")


class Registry:
    """Servers published over HTTP and over STDIO, and those given a view."""

    def __init__(self) -> None:
        # Keep the admin's attribute name: autodiscover_modules() snapshots
        # ``_registry`` to roll back a failed import.
        # "view" holds the servers given a view (Server.as_view()), by
        # dotted name: a URLconf mounts them, not django_mcp.urls.
        self._registry: dict[str, dict[str, type[Any]]] = {"web": {}, "local": {}, "view": {}}
        self._lock = threading.Lock()
        #: Why a server given a view does not compile.
        self._broken: dict[type[Any], ImproperlyConfigured] = {}

    # ----------------------------------------------------------- publish

    def web(self, path: str, server: type[Any]) -> type[Any]:
        """Publish ``server`` over HTTP at ``path`` under the included URLconf."""
        if not isinstance(path, str) or not _PATH_RE.match(path.strip("/")):
            raise ImproperlyConfigured(f"django_mcp.web(): invalid path {path!r}")
        return self._add("web", path.strip("/"), server)

    def local(self, name: str, server: type[Any]) -> type[Any]:
        """Publish ``server`` over STDIO as ``manage.py mcp_stdio <name>``."""
        if not isinstance(name, str) or not re.match(r"^[A-Za-z0-9._-]+$", name):
            raise ImproperlyConfigured(f"django_mcp.local(): invalid name {name!r}")
        return self._add("local", name, server)

    def _add(self, kind: str, key: str, server: type[Any]) -> type[Any]:
        if not is_server(server):
            raise ImproperlyConfigured(
                f"django_mcp.{kind}({key!r}, ...) needs a Server subclass, got {server!r}"
            )
        existing = self._registry[kind].get(key)
        if existing is not None:
            raise AlreadyRegistered(
                f"{kind} path {key!r} is already registered to {_qual(existing)}; "
                f"cannot register {_qual(server)}"
            )
        try:
            server.compiled()  # find declaration errors at startup, not on the first request
        except ImproperlyConfigured as exc:
            # Reported by manage.py check (E015) and by every way to serve it;
            # raising here would end the import of mcp.py with a traceback.
            self._broken[server] = exc
        # Rebuild rather than mutate: autodiscover_modules() rolls back a
        # failed import with a shallow copy of ``_registry``.
        self._registry = {**self._registry, kind: {**self._registry[kind], key: server}}
        return server

    def unregister(self, kind: str, key: str) -> None:
        """Remove a registration (mainly for tests)."""
        if key not in self._registry[kind]:
            raise NotRegistered(f"no {kind} server registered as {key!r}")
        remaining = {k: v for k, v in self._registry[kind].items() if k != key}
        self._registry = {**self._registry, kind: remaining}

    def get(self, kind: str, key: str) -> type[Any]:
        """Return the server registered as ``key`` or raise ``NotRegistered``."""
        try:
            return self._registry[kind][key]
        except KeyError:
            known = ", ".join(sorted(self._registry[kind])) or "none"
            raise NotRegistered(f"no {kind} server registered as {key!r} (registered: {known})") from None

    def web_servers(self) -> dict[str, type[Any]]:
        """Return ``{path: server}`` for HTTP, in registration order."""
        return dict(self._registry["web"])

    def local_servers(self) -> dict[str, type[Any]]:
        """Return ``{name: server}`` for STDIO, in registration order."""
        return dict(self._registry["local"])

    def mounted_servers(self) -> dict[str, type[Any]]:
        """Return ``{dotted name: server}`` for the servers given a view (``Server.as_view()``)."""
        return dict(self._registry.get("view", {}))

    def snapshot(self) -> dict[str, dict[str, type[Any]]]:
        """Return a copy of the registrations (to restore in tests)."""
        return copy.deepcopy(self._registry)

    def restore(self, snapshot: dict[str, dict[str, type[Any]]]) -> None:
        """Restore registrations saved by ``snapshot()``."""
        self._registry = {"view": {}, **copy.deepcopy(snapshot)}

    def mount(self, server: type[Any]) -> ImproperlyConfigured | None:
        """Record ``server`` as given a view (``Server.as_view()``) and compile it now.

        Return why it does not compile (remembered for the system checks),
        else None.
        """
        with self._lock:
            views = self._registry.get("view", {})
            self._registry = {**self._registry, "view": {**views, _qual(server): server}}
        try:
            server.compiled()
        except ImproperlyConfigured as exc:
            # Not logged now: manage.py check reports it (E015), and each
            # refused request logs it.
            self._broken[server] = exc
            return exc
        return None

    def check_mounted(self) -> None:
        """Raise ``ImproperlyConfigured`` naming every registered or mounted server that does not compile."""
        served = {
            *self.mounted_servers().values(),
            *self.web_servers().values(),
            *self.local_servers().values(),
        }
        broken = [f"{_qual(server)}: {exc}" for server, exc in self._broken.items() if server in served]
        if broken:
            raise ImproperlyConfigured(
                "MCP servers do not compile (manage.py check: django_mcp.E015): " + "; ".join(broken)
            )


def _qual(server: type[Any]) -> str:
    return f"{server.__module__}.{server.__qualname__}"


#: The default registry used by ``django_mcp.web``/``local``, ``Server.as_view()`` and the URLconf.
registry = Registry()
web = registry.web
local = registry.local


def autodiscover() -> None:
    """Import every installed app's ``mcp`` module."""
    autodiscover_modules("mcp", register_to=registry)
