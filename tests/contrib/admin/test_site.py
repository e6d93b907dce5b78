"""AdminSiteTools over admins nobody wrote for it: Django's, DRF's and django-oauth-toolkit's.

The project (testproject.settings) installs ``django.contrib.auth``,
``sites``, ``flatpages``, ``redirects``, DRF's ``authtoken``,
django-oauth-toolkit and django_mcp itself, each with its own admin,
unmodified. One server publishes every admin of ``django.contrib.admin.site``
(``list``, ``get``, ``add`` and ``change``), called by a superuser and by a
staff user who may only view. Every row of every model holds a secret
somewhere near it (a password hash, a token key, access and refresh
tokens, an authorization code, client secrets hashed and not): none may
reach an answer, an audit row, a log line or a span.
"""

from __future__ import annotations

import datetime
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib import admin
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import Group, Permission, User
from django.contrib.flatpages.models import FlatPage
from django.contrib.redirects.models import Redirect
from django.contrib.sites.models import Site
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import models
from django.utils import timezone
from oauth2_provider.models import AccessToken, Application, Grant, IDToken, RefreshToken
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from rest_framework.authtoken.models import Token

from django_mcp import Server, observability
from django_mcp.checks import check_admin_site_tools
from django_mcp.contrib.admin import AdminSiteTools, ModelAdminTools
from django_mcp.contrib.admin import _site as site_module
from django_mcp.contrib.admin import _tools as admin_tools
from django_mcp.dispatcher.idempotency import IDEMPOTENCY_KEY
from django_mcp.models import McpAuditEntry
from django_mcp.testing import McpTestClient

ACTIONS = ("list", "get", "add", "change")
#: The models of the apps the issue names, by tool prefix.
NAMED_APPS = {
    "auth-user",
    "auth-group",
    "sites-site",
    "flatpages-flatpage",
    "redirects-redirect",
    "authtoken-tokenproxy",
    "oauth2_provider-application",
    "oauth2_provider-accesstoken",
    "oauth2_provider-refreshtoken",
    "oauth2_provider-grant",
    "oauth2_provider-idtoken",
    "django_mcp-mcptask",
    "django_mcp-mcpauditentry",
}
RAW_SECRET = "raw-client-secret-of-the-hashed-app-0123456789"
PLAIN_SECRET = "plain-client-secret-stored-as-is-0123456789"


class SiteServer(Server):
    """Every admin of the default site."""

    name = "site"
    version = "1.0.0"
    tools = AdminSiteTools(actions=ACTIONS)


def call(client: McpTestClient, name: str, arguments: dict[str, Any] | None = None) -> Any:
    """Call a tool from a sync test: sync handlers run on this thread's connection."""
    return async_to_sync(client.call_tool)(name, arguments or {})


def visible(client: McpTestClient) -> list[dict[str, Any]]:
    """Return the definitions of the tools the client's user sees."""
    return async_to_sync(client.list_tools)().items


class Project:
    """The users, rows and secrets of one test."""

    def __init__(self) -> None:
        self.root = User.objects.create_superuser("root", "root@example.com", "root-password-1")
        self.watcher = User.objects.create_user("watcher", password="watcher-password-1", is_staff=True)
        self.watcher.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
        self.watcher = User.objects.get(pk=self.watcher.pk)
        group = Group.objects.create(name="editors")
        group.permissions.add(*Permission.objects.filter(codename="change_flatpage"))
        site = Site.objects.get_current()
        page = FlatPage.objects.create(url="/about/", title="About", content="<p>Us</p>")
        page.sites.add(site)
        Redirect.objects.create(site=site, old_path="/old/", new_path="/new/")
        self.token = Token.objects.create(user=self.root)
        self.hashed_app = Application.objects.create(
            name="hashed",
            user=self.root,
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris="https://client.example/callback",
            client_secret=RAW_SECRET,
        )
        self.plain_app = Application.objects.create(
            name="plain",
            user=self.root,
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris="https://client.example/callback",
            client_secret=PLAIN_SECRET,
            hash_client_secret=False,
        )
        soon = timezone.now() + datetime.timedelta(hours=1)
        self.access = AccessToken.objects.create(
            user=self.root, application=self.hashed_app, token="access-token-0123456789abcdef", expires=soon
        )
        self.refresh = RefreshToken.objects.create(
            user=self.root,
            application=self.hashed_app,
            token="refresh-token-0123456789abcdef",
            access_token=self.access,
        )
        self.grant = Grant.objects.create(
            user=self.root,
            application=self.hashed_app,
            code="grant-code-0123456789abcdef",
            expires=soon,
            redirect_uri="https://client.example/callback",
            code_challenge="challenge-0123456789abcdef",
        )
        IDToken.objects.create(user=self.root, application=self.hashed_app, expires=soon)

    def secrets(self) -> list[str]:
        """Return every secret value stored, as it is stored and as it was given."""
        stored = [
            *User.objects.values_list("password", flat=True),
            self.token.key,
            RAW_SECRET,
            PLAIN_SECRET,
            Application.objects.get(pk=self.hashed_app.pk).client_secret,
            self.access.token,
            AccessToken.objects.get(pk=self.access.pk).token_checksum,
            self.refresh.token,
            self.grant.code,
            self.grant.code_challenge,
        ]
        return [value for value in stored if value]

    def client(self, user: Any) -> McpTestClient:
        """Return a client of the whole-site server calling as ``user``."""
        return McpTestClient(SiteServer, user)


@pytest.fixture
def project(db: Any, settings: Any) -> Project:
    settings.MCP_AUDIT = "all"
    return Project()


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """Record every span of the test in memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    observability.instrument(tracer_provider=provider)
    try:
        yield exporter
    finally:
        observability.instrument()
        provider.shutdown()


def snapshot(obj: models.Model) -> dict[str, Any]:
    """Return the stored values of ``obj``'s concrete fields and many-to-many links."""
    pk = obj._meta.pk
    # By the primary key field itself: TokenProxy's pk property is its user's ID.
    fresh = type(obj)._default_manager.get(**{pk.attname: getattr(obj, pk.attname)})
    values: dict[str, Any] = {
        field.attname: getattr(fresh, field.attname) for field in fresh._meta.concrete_fields
    }
    for field in fresh._meta.many_to_many:
        values[field.name] = sorted(getattr(fresh, field.name).values_list("pk", flat=True))
    return values


def read_everything(client: McpTestClient) -> list[Any]:
    """List every model the caller sees and get each row: return every answer."""
    answers = []
    for tool in visible(client):
        name = tool["name"]
        if not name.endswith("-list"):
            continue
        page = call(client, name, {"page_size": 100})
        answers.append(page.assert_ok())
        for row in page.structured_content["results"]:
            answers.append(call(client, name.removesuffix("-list") + "-get", {"id": row["id"]}).assert_ok())
    return answers


# ------------------------------------------------------------------ reading


@pytest.mark.parametrize("who", ["root", "watcher"])
def test_every_list_and_get_of_every_admin_succeeds_and_shows_no_secret(
    project: Project, who: str, caplog: pytest.LogCaptureFixture, spans: InMemorySpanExporter
) -> None:
    client = project.client(getattr(project, who))
    names = {tool["name"] for tool in visible(client)}

    with caplog.at_level(logging.DEBUG):
        answers = read_everything(client)

    prefixes = {name.rsplit("-", 1)[0] for name in names if name.endswith("-list")}
    assert NAMED_APPS <= prefixes
    if who == "watcher":  # view permission only: no write tool
        assert {name.rsplit("-", 1)[1] for name in names} == {"list", "get"}
    recorded = [
        *(json.dumps(answer.response) for answer in answers),
        *(json.dumps(entry.arguments) + entry.component for entry in McpAuditEntry.objects.all()),
        caplog.text,
        *(json.dumps(dict(span.attributes or {})) for span in spans.get_finished_spans()),
    ]
    assert len(answers) > 2 * len(NAMED_APPS)
    for secret in project.secrets():
        assert not [text for text in recorded if secret in text], secret


def test_tool_names_follow_app_label_and_model_name(project: Project) -> None:
    names = [tool["name"] for tool in visible(project.client(project.root))]

    assert {"auth-user-get", "auth-user-change", "flatpages-flatpage-add", "sites-site-list"} <= set(names)
    # Unmanaged models are admin sections without a table (django_mcp's catalog).
    assert not [name for name in names if name.startswith("django_mcp-mcpcatalog")]


def test_the_token_admin_names_tokens_by_their_users_id(project: Project) -> None:
    client = project.client(project.root)

    page = call(client, "authtoken-tokenproxy-list").assert_ok()
    token = call(client, "authtoken-tokenproxy-get", {"id": project.root.pk}).assert_ok()

    assert [row["id"] for row in page.structured_content["results"]] == [project.root.pk]
    assert token.structured_content == {"id": project.root.pk, "user": project.root.pk}


def test_the_user_admin_shows_the_change_pages_fields_without_the_hash(project: Project) -> None:
    shown = call(project.client(project.watcher), "auth-user-get", {"id": project.root.pk}).assert_ok()

    assert "password" not in shown.structured_content
    assert {"username", "email", "first_name", "is_active", "groups", "date_joined"} <= set(
        shown.structured_content
    )


# ------------------------------------------------------------------ writing


def test_a_change_with_the_unchanged_values_succeeds_and_alters_nothing(project: Project) -> None:
    client = project.client(project.root)
    changed = 0
    for tool in visible(client):
        name = tool["name"]
        if not name.endswith("-change"):
            continue
        prefix = name.removesuffix("-change")
        rows = call(client, f"{prefix}-list", {"page_size": 100}).assert_ok().structured_content["results"]
        settable = set(tool["inputSchema"]["properties"])
        for row in rows:
            shown = call(client, f"{prefix}-get", {"id": row["id"]}).assert_ok().structured_content
            model = next(model for model in admin.site._registry if name.startswith(_prefix(model)))
            obj = _object(model, row["id"])
            before = snapshot(obj)
            arguments = {key: value for key, value in shown.items() if key in settable}

            call(client, name, arguments).assert_ok()

            assert snapshot(obj) == before, name
            changed += 1
    assert changed >= len(NAMED_APPS) - 2  # McpAuditEntry and McpTask have no change permission
    assert not LogEntry.objects.filter(action_flag=CHANGE).exists()  # nothing changed, nothing logged


def _prefix(model: type[models.Model]) -> str:
    return f"{model._meta.app_label}-{model._meta.model_name}-"


def _object(model: type[models.Model], object_id: Any) -> models.Model:
    if model._meta.label == "authtoken.TokenProxy":
        return model._default_manager.get(user_id=object_id)
    return model._default_manager.get(pk=object_id)


def test_the_user_admins_change_of_email_and_first_name_changes_only_them(project: Project) -> None:
    before = snapshot(project.watcher)

    answer = call(
        project.client(project.root),
        "auth-user-change",
        {"id": project.watcher.pk, "email": "w@example.com", "first_name": "Wanda"},
    )

    after = snapshot(project.watcher)
    answer.assert_ok()
    assert {key for key in after if after[key] != before[key]} == {"email", "first_name"}
    assert after["date_joined"] == before["date_joined"]  # microseconds kept
    entry = LogEntry.objects.get(action_flag=CHANGE)
    # In the change form's order, as the admin's own change page logs it.
    assert entry.get_change_message() == "Changed First name and Email address."


def test_a_user_added_with_a_password_gets_it_hashed_and_never_shown(project: Project) -> None:
    password = "a-Long-new-passw0rd"
    add = next(tool for tool in visible(project.client(project.root)) if tool["name"] == "auth-user-add")

    answer = call(
        project.client(project.root),
        "auth-user-add",
        {"username": "newbie", "password1": password, "password2": password},
    )

    user = User.objects.get(username="newbie")
    assert user.check_password(password)
    assert user.password != password
    answer.assert_ok()
    assert password not in json.dumps(answer.response)
    assert user.password not in json.dumps(answer.response)
    assert add["inputSchema"]["properties"]["password1"]["writeOnly"] is True
    audit = McpAuditEntry.objects.get(component="auth-user-add")
    assert audit.arguments["password1"] == audit.arguments["password2"] == "[redacted]"


def test_a_change_missing_a_required_field_the_row_leaves_empty_saves(project: Project) -> None:
    # RefreshToken.revoked is required by the admin's form and empty in the row.
    answer = call(
        project.client(project.root),
        "oauth2_provider-refreshtoken-change",
        {"id": project.refresh.pk, "user": project.watcher.pk},
    )

    answer.assert_ok()
    assert RefreshToken.objects.get(pk=project.refresh.pk).user_id == project.watcher.pk


def test_form_errors_name_every_field_as_text_and_structured_content(project: Project) -> None:
    answer = call(
        project.client(project.root),
        "flatpages-flatpage-add",
        {"url": "no-slash", "title": "T", "content": "", "sites": []},
    )

    answer.assert_is_error()
    errors = answer.result["structuredContent"]["errors"]
    assert set(errors) == {"url", "sites"}
    for field in errors:
        assert field in answer.text


def test_a_write_whose_answer_fails_its_check_is_rolled_back(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(project.watcher)
    monkeypatch.setattr(admin_tools, "render", lambda obj, fields: {"id": "not a number"})

    answer = call(
        project.client(project.root), "auth-user-change", {"id": project.watcher.pk, "email": "x@y.z"}
    )

    answer.assert_is_error()
    assert snapshot(project.watcher) == before
    assert not LogEntry.objects.exists()


# ----------------------------------------------------------- configuration


def test_exclude_leaves_models_out_and_refuses_names_the_site_lacks(project: Project) -> None:
    tools = AdminSiteTools(actions=("get",), exclude=("auth.User", "SITES.site"))
    names = {tool.name for tool in tools}

    assert "auth-group-get" in names
    assert not {"auth-user-get", "sites-site-get"} & names
    with pytest.raises(ImproperlyConfigured, match=r"auth\.Usr"):
        AdminSiteTools(exclude=("auth.Usr",))


def test_an_admin_whose_forms_fail_is_left_out_and_reported_by_a_check(db: Any) -> None:
    class BrokenAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
        def get_form(self, request: Any, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:  # noqa: FBT001, FBT002
            raise RuntimeError("needs a tenant")

    site = admin.AdminSite(name="broken")
    site.register(Group, BrokenAdmin)
    site.register(Site)

    tools = AdminSiteTools(site, actions=("get",))

    assert [tool.name for tool in tools] == ["sites-site-get"]
    [warning] = [message for message in check_admin_site_tools() if "broken" in message.msg]
    assert warning.id == "django_mcp.W014"
    assert "auth.Group" in warning.msg and "needs a tenant" in warning.msg
    site_module._skipped.clear()


def test_a_plain_user_admin_hashes_a_password_sent_to_change_and_never_shows_it(project: Project) -> None:
    class PlainUserAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
        fields = ("username", "email", "password")

    site = admin.AdminSite(name="plain")
    site.register(User, PlainUserAdmin)

    class PlainServer(Server):
        name = "plain"
        tools = ModelAdminTools(PlainUserAdmin, site=site, actions=("get", "change"))

    client = McpTestClient(PlainServer, project.root)
    shown = call(client, "user-get", {"id": project.watcher.pk}).assert_ok()
    changed = call(client, "user-change", {"id": project.watcher.pk, "password": "fresh-Passw0rd-9"})

    changed.assert_ok()
    assert shown.structured_content == {"id": project.watcher.pk, "username": "watcher", "email": ""}
    user = User.objects.get(pk=project.watcher.pk)
    assert user.check_password("fresh-Passw0rd-9")
    assert "fresh-Passw0rd-9" not in json.dumps(changed.response)


def test_hidden_fields_and_the_setting_hide_more(project: Project, settings: Any) -> None:
    settings.MCP_HIDDEN_FIELDS = ["auth.user.email"]
    client = McpTestClient(SiteServer, project.root)
    hidden = AdminSiteTools(actions=("get",), hidden_fields=("last_name",))

    class HiddenServer(Server):
        name = "hidden"
        tools = hidden

    shown = call(client, "auth-user-get", {"id": project.root.pk}).assert_ok().structured_content
    more = call(McpTestClient(HiddenServer, project.root), "auth-user-get", {"id": project.root.pk})

    assert "email" not in shown
    assert "last_name" in shown
    assert not {"email", "last_name"} & set(more.assert_ok().structured_content)


def test_the_site_tools_pass_the_system_checks(project: Project) -> None:
    call_command("check", "django_mcp")


def test_a_retried_add_with_the_same_idempotency_key_adds_once(project: Project) -> None:
    client = project.client(project.root)
    params = {
        "name": "sites-site-add",
        "arguments": {"domain": "shop.example", "name": "Shop"},
        "_meta": {IDEMPOTENCY_KEY: "add-shop-1"},
    }

    first = async_to_sync(client.request)("tools/call", params)
    again = async_to_sync(client.request)("tools/call", params)
    other = async_to_sync(client.request)("tools/call", {**params, "_meta": {IDEMPOTENCY_KEY: "add-shop-2"}})

    assert first["result"]["isError"] is False
    assert again["result"] == first["result"]
    assert Site.objects.filter(domain="shop.example").count() == 1
    assert other["result"]["isError"] is True  # a second shop.example: the form's unique check
    assert LogEntry.objects.filter(object_repr="shop.example").count() == 1
