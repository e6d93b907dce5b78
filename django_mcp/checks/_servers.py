"""The registered check of every registered or mounted server.

- ``E015`` a registered server, or one mounted with ``as_view()``, does not
  compile
- ``E018`` a server needs the caller's identity but ``django.contrib.auth``
  is not installed
- ``W003`` a ``local()`` server sets ``login_required`` (STDIO does not enforce it)
- ``W016`` a server's ``instructions`` is not a constant string (a property,
  a callable, a descriptor): text computed at run time reaches the model

Each server that compiles also gets the checks of what it serves: its
contrib tools (``E025``, ``E026``), skills (``E029``-``E031``,
``E038``, ``W009``, ``W010``), MCP Apps (``E039``) and task tools
(``E023``, ``E024``).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Sequence
from typing import Any

from django.apps import apps
from django.core.checks import CheckMessage, Error, register
from django.core.checks import Warning as CheckWarning
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext as _

from django_mcp.checks._contrib import check_contrib_apps
from django_mcp.checks._loading import load_urlconf
from django_mcp.checks._skills import check_skills
from django_mcp.checks._tasks import check_task_tools
from django_mcp.checks._ui import check_app_templates
from django_mcp.exceptions import SkillError
from django_mcp.protocol.tasks import EXTENSION as TASKS_EXTENSION
from django_mcp.registry import registry
from django_mcp.server.compiler import compile_server
from django_mcp.server.server import Server

__all__ = ["check_servers"]


@register("django_mcp")
def check_servers(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Return an error for every registered or mounted server that does not compile."""
    messages: list[CheckMessage] = []
    task_servers: list[str] = []
    try:
        load_urlconf()
    except Exception:  # noqa: BLE001, S110 - Django's own URL checks report a broken URLconf
        pass
    registered = {*registry.web_servers().values(), *registry.local_servers().values()}
    # Servers mounted with as_view() in a URLconf (loaded by Django's own URL
    # checks, which run first) are covered like registered ones.
    mounted = {key: server for key, server in registry.mounted_servers().items() if server not in registered}
    registrations: Iterable[tuple[str, dict[str, Any]]] = (
        ("web", registry.web_servers()),
        ("local", registry.local_servers()),
        ("as_view()", mounted),
    )
    for kind, servers in registrations:
        for key, server in servers.items():
            where = _("{kind} server {key!r}").format(kind=kind, key=key)
            if not (isinstance(server, type) and issubclass(server, Server)):
                messages.append(
                    Error(
                        _("{where} is {server!r}, not a Server subclass.").format(where=where, server=server),
                        hint=_("Register a subclass of django_mcp.Server."),
                        obj=server,
                        id="django_mcp.E015",
                    )
                )
                continue
            if kind == "local" and getattr(server, "login_required", False):
                messages.append(
                    CheckWarning(
                        _(
                            "{where} ({server_module}.{server_qualname}) sets login_required, but "
                            "STDIO does not enforce it (it is an HTTP rule)."
                        ).format(
                            where=where, server_module=server.__module__, server_qualname=server.__qualname__
                        ),
                        hint=_(
                            "Whoever can start `manage.py mcp_stdio` uses every component; run it "
                            "with --user USERNAME so that user's permissions apply, or publish the "
                            "server with web() only."
                        ),
                        obj=server,
                        id="django_mcp.W003",
                    )
                )
            messages += _check_instructions(where, server)
            try:
                compiled = compile_server(server)
            except SkillError as exc:
                messages += [
                    Error(
                        _("{where} ({exc_label}): {problem_message}.").format(
                            where=where, exc_label=exc.label, problem_message=problem.message
                        ),
                        hint=problem.hint,
                        obj=server,
                        id=problem.check_id,
                    )
                    for problem in exc.problems
                ]
                continue
            except ImproperlyConfigured as exc:
                messages.append(
                    Error(
                        _("{where} ({server_module}.{server_qualname}) is invalid: {exc}").format(
                            where=where,
                            server_module=server.__module__,
                            server_qualname=server.__qualname__,
                            exc=exc,
                        ),
                        hint=_(
                            "Fix the declaration named in the message; the server cannot answer "
                            "any request until it compiles."
                        ),
                        obj=server,
                        id="django_mcp.E015",
                    )
                )
                continue
            if compiled.caller_dependent and not apps.is_installed("django.contrib.auth"):
                messages.append(
                    Error(
                        _(
                            "{where} ({compiled_key}) needs to know the caller (login_required, "
                            "permissions or authorize()), but django.contrib.auth is not installed."
                        ).format(where=where, compiled_key=compiled.key),
                        hint=_(
                            "Add 'django.contrib.auth' and 'django.contrib.contenttypes' to "
                            "INSTALLED_APPS (and AuthenticationMiddleware to MIDDLEWARE), or drop "
                            "the identity requirements from the server."
                        ),
                        obj=server,
                        id="django_mcp.E018",
                    )
                )
            if compiled.capabilities.extensions and TASKS_EXTENSION in compiled.capabilities.extensions:
                task_servers.append(where)
            messages += check_contrib_apps(where, compiled)
            messages += check_skills(where, compiled)
            messages += check_app_templates(where, compiled)
    messages += check_task_tools(task_servers)
    return messages


def _check_instructions(where: str, server: type[Any]) -> list[CheckMessage]:
    """Warn when a server's ``instructions`` is not a constant string."""
    declared = inspect.getattr_static(server, "instructions", None)
    if declared is None or isinstance(declared, str):
        return []
    kind = type(declared).__name__
    return [
        CheckWarning(
            _(
                "{where} ({server_module}.{server_qualname}) declares instructions as a {kind}, "
                "not a constant string."
            ).format(
                where=where, server_module=server.__module__, server_qualname=server.__qualname__, kind=kind
            ),
            hint=_(
                "Clients put the instructions in the model's context: text computed at run time "
                "(a property, a callable, a template rendered from the database) is a prompt-injection "
                "path. Declare instructions = '...' as a literal string, or silence django_mcp.W016 "
                "once you have checked where the text comes from."
            ),
            obj=server,
            id="django_mcp.W016",
        )
    ]
