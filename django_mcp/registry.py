"""Where servers are registered: HTTP paths (``web``) and STDIO names (``local``).

Each installed app's ``mcp`` module is imported by ``autodiscover()`` (run
from ``AppConfig.ready()``), like the admin's ``admin`` modules; a module
that fails to import rolls the registry back to what it was, then re-raises.
Every server is compiled when registered, so declaration errors surface at
startup. ``django_mcp.urls`` mounts each ``web()`` path.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import autodiscover_modules

from django_mcp.exceptions import AlreadyRegistered, NotRegistered
from django_mcp.server.server import Server

__all__ = ["Registry", "autodiscover", "local", "registry", "web"]

_PATH_RE = re.compile(r"^(?:[A-Za-z0-9._~-]+(?:/[A-Za-z0-9._~-]+)*)?$")


class Registry:
    """Servers published over HTTP and over STDIO."""

    def __init__(self) -> None:
        # Keep the admin's attribute name: autodiscover_modules() snapshots
        # ``_registry`` to roll back a failed import.
        self._registry: dict[str, dict[str, type[Server]]] = {"web": {}, "local": {}}

    def web(self, path: str, server: type[Server]) -> type[Server]:
        """Publish ``server`` over HTTP at ``path`` under the included URLconf."""
        if not isinstance(path, str) or not _PATH_RE.match(path.strip("/")):
            raise ImproperlyConfigured(f"django_mcp.web(): invalid path {path!r}")
        return self._add("web", path.strip("/"), server)

    def local(self, name: str, server: type[Server]) -> type[Server]:
        """Publish ``server`` over STDIO as ``manage.py mcp_stdio <name>``."""
        if not isinstance(name, str) or not re.match(r"^[A-Za-z0-9._-]+$", name):
            raise ImproperlyConfigured(f"django_mcp.local(): invalid name {name!r}")
        return self._add("local", name, server)

    def _add(self, kind: str, key: str, server: type[Server]) -> type[Server]:
        if not (isinstance(server, type) and issubclass(server, Server)):
            raise ImproperlyConfigured(
                f"django_mcp.{kind}({key!r}, ...) needs a Server subclass, got {server!r}"
            )
        existing = self._registry[kind].get(key)
        if existing is not None:
            raise AlreadyRegistered(
                f"{kind} path {key!r} is already registered to {_qual(existing)}; "
                f"cannot register {_qual(server)}"
            )
        server.compiled()  # fail at startup, not on the first request
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

    def get(self, kind: str, key: str) -> type[Server]:
        """Return the server registered as ``key`` or raise ``NotRegistered``."""
        try:
            return self._registry[kind][key]
        except KeyError:
            known = ", ".join(sorted(self._registry[kind])) or "none"
            raise NotRegistered(f"no {kind} server registered as {key!r} (registered: {known})") from None

    def web_servers(self) -> dict[str, type[Server]]:
        """Return ``{path: server}`` for HTTP, in registration order."""
        return dict(self._registry["web"])

    def local_servers(self) -> dict[str, type[Server]]:
        """Return ``{name: server}`` for STDIO, in registration order."""
        return dict(self._registry["local"])

    def snapshot(self) -> dict[str, dict[str, type[Server]]]:
        """Return a copy of the registrations (to restore in tests)."""
        return copy.deepcopy(self._registry)

    def restore(self, snapshot: dict[str, dict[str, type[Server]]]) -> None:
        """Restore registrations saved by ``snapshot()``."""
        self._registry = copy.deepcopy(snapshot)


def _qual(server: type[Any]) -> str:
    return f"{server.__module__}.{server.__qualname__}"


#: The default registry used by ``django_mcp.web``/``local`` and the URLconf.
registry = Registry()
web = registry.web
local = registry.local


def autodiscover() -> None:
    """Import every installed app's ``mcp`` module."""
    autodiscover_modules("mcp", register_to=registry)
