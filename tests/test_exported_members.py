"""The public surface of django_mcp is pinned and imports safely."""

import __future__

import importlib
import inspect
import os
import pkgutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

import django_mcp

ROOT = Path(__file__).resolve().parent.parent


def test_all_lists_exactly_the_public_names_sorted() -> None:
    public = [
        name
        for name, value in vars(django_mcp).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and value is not __future__.annotations
    ]
    assert django_mcp.__all__ == sorted(public)


def test_every_exported_name_is_documented() -> None:
    undocumented = [name for name in django_mcp.__all__ if not getattr(django_mcp, name).__doc__]
    assert undocumented == []


def test_the_documented_import_paths_work() -> None:
    from django_mcp import (  # noqa: F401
        AppResource,
        CacheHint,
        Completion,
        ContentAnnotations,
        Csp,
        Icon,
        McpRequest,
        McpResponse,
        Prompt,
        PromptArgument,
        Resource,
        Server,
        Tool,
        ToolAnnotations,
        ToolSearch,
    )
    from django_mcp.protocol.content import (  # noqa: F401
        AudioContent,
        BlobResourceContents,
        EmbeddedResource,
        ImageContent,
        ResourceLink,
        TextContent,
        TextResourceContents,
    )
    from django_mcp.protocol.results import (  # noqa: F401
        CallToolResult,
        GetPromptResult,
        InputRequiredResult,
        ReadResourceResult,
    )
    from django_mcp.schemas import Schema  # noqa: F401
    from django_mcp.server.compiler import compile_server  # noqa: F401


# Every public module and exactly what it exports. A module whose name has
# no leading underscore part is public; a new one must be added here, and a
# change to what a module exports shows up in review as a change to this
# table.
PUBLIC_MODULES: dict[str, list[str]] = {
    "django_mcp.admin": [
        "CatalogEntry",
        "McpAuditEntryAdmin",
        "McpCatalogAdmin",
        "McpCatalogView",
        "McpIdempotencyKeyAdmin",
        "McpTaskAdmin",
        "ServerCatalog",
        "build_catalog",
        "mcp_catalog_view",
    ],
    "django_mcp.apps": ["DjangoMcpConfig"],
    "django_mcp.asgi": ["McpASGIApp"],
    "django_mcp.auth": ["can_use", "can_use_unknown", "find_usable"],
    "django_mcp.checks": [
        "MIN_LEASE_TIMEOUT",
        "check_admin_site_tools",
        "check_app_origins",
        "check_deploy",
        "check_servers",
        "check_settings",
    ],
    "django_mcp.conf": [
        "AUDIT_MODES",
        "DEFAULT_LIMITS",
        "DEFAULTS",
        "DjangoSettings",
        "Limits",
        "McpSettings",
        "get_client_ip",
        "get_django_settings",
        "get_event_namespace",
        "get_limits",
        "get_setting",
        "get_settings",
    ],
    "django_mcp.contrib": [],
    "django_mcp.contrib.admin": ["STANDARD_ACTIONS", "AdminSiteTools", "ModelAdminTools"],
    "django_mcp.contrib.drf": ["INSTALL_HINT", "ViewSetTools"],
    "django_mcp.contrib.drf.authtoken": ["AuthtokenAuthentication", "InvalidToken"],
    "django_mcp.contrib.oauth_toolkit": [
        "InsufficientScope",
        "InvalidToken",
        "OAuthToolkitAuthentication",
        "bearer_token",
    ],
    "django_mcp.contrib.secrets": [
        "CREDENTIAL_FIELDS",
        "PASSWORD_OWNER",
        "hidden_fields",
        "is_secret_form_field",
        "stores_password",
    ],
    "django_mcp.cursors": ["decode_cursor", "encode_cursor"],
    "django_mcp.dispatcher": ["IN_FLIGHT", "METHODS", "Dispatcher", "InFlight", "Method", "Respond"],
    "django_mcp.dispatcher.admission": ["OPEN_STREAMS", "OpenStreams"],
    "django_mcp.dispatcher.asking": ["client_requester"],
    "django_mcp.dispatcher.closing": ["CLOSING", "Closing", "abandon", "install_signal_handlers"],
    "django_mcp.dispatcher.codec": [
        "CLIENT_REQUEST_TIMEOUT",
        "Envelope",
        "Reply",
        "Response",
        "encode_error",
        "encode_message",
        "encode_notification",
        "encode_request",
        "encode_response",
        "encoded_size",
        "error_reply",
        "is_valid_id",
        "oversized",
        "parse_message",
    ],
    "django_mcp.dispatcher.completion": ["complete"],
    "django_mcp.dispatcher.context": [
        "Call",
        "CallContext",
        "ClientRequest",
        "Emit",
        "Era",
        "check_version",
        "era_of",
        "is_modern",
        "legacy_context",
        "modern_context",
        "stored_context",
    ],
    "django_mcp.dispatcher.continuation": [
        "MAX_LEGACY_ROUNDS",
        "USED_KEY_PREFIX",
        "ask_legacy_client",
        "attach_inputs",
        "check_input_requests",
        "finish_input_required",
        "is_continuation",
        "seal_state",
        "spend_state",
        "unseal_state",
    ],
    "django_mcp.dispatcher.eras": ["ToolReplies", "finish", "legacy_error"],
    "django_mcp.dispatcher.extensions": [
        "TaskSupport",
        "advertised",
        "check_client",
        "declared",
        "disabled",
        "install_tasks",
        "missing_extension",
        "offered",
        "served",
        "start_task",
        "task_method",
        "task_support",
    ],
    "django_mcp.dispatcher.idempotency": [
        "IDEMPOTENCY_KEY",
        "MAX_KEY_LENGTH",
        "OTHER_ARGUMENTS",
        "STILL_RUNNING",
        "Held",
        "Reservation",
        "arguments_hash",
        "hold",
        "key_of",
        "prune",
        "reserve",
        "settle",
    ],
    "django_mcp.dispatcher.invoke": ["collect_failures", "invoke", "report_failure"],
    "django_mcp.dispatcher.lifecycle": ["Handshake", "discover", "initialize", "ping", "set_level"],
    "django_mcp.dispatcher.paging": ["decode_cursor", "encode_cursor", "encoded_items", "page"],
    "django_mcp.dispatcher.prompts": ["get_prompt", "list_prompts"],
    "django_mcp.dispatcher.relay": ["Relay"],
    "django_mcp.dispatcher.resources": [
        "find_resource",
        "list_resource_templates",
        "list_resources",
        "read_resource",
        "subscribe",
        "unsubscribe",
    ],
    "django_mcp.dispatcher.sessions": [
        "ClientRequestFailed",
        "LegacyCalls",
        "LegacySession",
        "LocalSession",
        "PendingRequests",
        "SessionState",
        "SessionStreams",
        "StreamClaim",
        "stored_size",
    ],
    "django_mcp.dispatcher.shape": [
        "ShapeError",
        "check_responses",
        "only_result",
        "prompt_result",
        "resource_result",
    ],
    "django_mcp.dispatcher.skills": ["get_skill", "list_skills", "read_directory", "read_file"],
    "django_mcp.dispatcher.subscriptions": [
        "MAX_VERDICTS",
        "Readable",
        "honoured_filter",
        "listen",
        "session_notifications",
        "watches",
    ],
    "django_mcp.dispatcher.tools": [
        "Admitted",
        "StartTask",
        "admit",
        "call_tool",
        "list_tools",
        "listed_tools",
        "payload_for",
        "run",
        "tool_error",
        "tool_failed",
        "tool_result",
        "unwrap_call_tool",
        "visible_tool",
    ],
    "django_mcp.events": [
        "Event",
        "EventBackend",
        "EventsLost",
        "EventsUnavailable",
        "ForwardFailed",
        "Interest",
        "get_backend",
        "handle_forwarded",
        "on_forwarded",
        "prompts_changed",
        "resource_updated",
        "resources_changed",
        "server_key",
        "session_subscriptions_changed",
        "task_changed",
        "tools_changed",
    ],
    "django_mcp.events.base": ["EventBackend", "EventsLost", "EventsUnavailable", "ForwardFailed"],
    "django_mcp.events.memory": ["Listening", "MemoryEventBackend"],
    "django_mcp.events.postgres": [
        "CONNECT_TIMEOUT",
        "FIRST_ATTEMPT_WAIT",
        "FLUSH_TIMEOUT",
        "LISTEN_WAIT",
        "MAX_PAYLOAD",
        "PING_INTERVAL",
        "PUBLISH_QUEUE",
        "RECONNECT_MAX",
        "RECONNECT_MIN",
        "PostgresEventBackend",
    ],
    "django_mcp.events.redis": [
        "FIRST_ATTEMPT_WAIT",
        "FLUSH_TIMEOUT",
        "FORWARD_TIMEOUT",
        "LISTEN_WAIT",
        "PING_INTERVAL",
        "PUBLISH_CONNECT_TIMEOUT",
        "PUBLISH_QUEUE",
        "PUBLISH_TIMEOUT",
        "RECONNECT_MAX",
        "RECONNECT_MIN",
        "RedisEventBackend",
    ],
    "django_mcp.exceptions": [
        "AlreadyRegistered",
        "AnswerNotDelivered",
        "AuthenticationFailed",
        "HeaderMismatch",
        "ImproperlyConfigured",
        "InternalError",
        "InvalidParams",
        "InvalidRequest",
        "McpError",
        "MethodNotFound",
        "MissingClientCapability",
        "MissingMeta",
        "NotRegistered",
        "NotificationsUnavailable",
        "ParseError",
        "ResourceNotFound",
        "SchemaValidationError",
        "ServerBusy",
        "SessionBusy",
        "SkillError",
        "SkillProblem",
        "TaskCancelled",
        "ToolNotFound",
        "TooManyStreams",
        "UnsupportedProtocolVersion",
    ],
    "django_mcp.field_errors": ["INVALID_ARGUMENTS", "field_errors", "field_errors_result"],
    "django_mcp.inputs": ["elicit", "elicit_url", "input_required", "list_roots", "sample"],
    "django_mcp.inspector": [
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
    ],
    "django_mcp.management": [],
    "django_mcp.management.base": ["McpCommand"],
    "django_mcp.management.commands": [],
    "django_mcp.management.commands.mcp_card": ["Command"],
    "django_mcp.management.commands.mcp_catalog": ["Command"],
    "django_mcp.management.commands.mcp_inspector": ["Command"],
    "django_mcp.management.commands.mcp_prune_audit": ["Command"],
    "django_mcp.management.commands.mcp_prune_idempotency_keys": ["Command"],
    "django_mcp.management.commands.mcp_prune_tasks": ["Command"],
    "django_mcp.management.commands.mcp_stdio": ["Command"],
    "django_mcp.management.commands.startmcpapp": ["Command"],
    "django_mcp.migrations": [],
    "django_mcp.migrations.0001_initial": ["Migration"],
    "django_mcp.migrations.0002_mcptask": ["Migration"],
    "django_mcp.migrations.0003_mcptask_leases": ["Migration"],
    "django_mcp.migrations.0004_mcpauditentry": ["Migration"],
    "django_mcp.migrations.0005_mcpidempotencykey": ["Migration"],
    "django_mcp.models": ["McpAuditEntry", "McpCatalog", "McpIdempotencyKey", "McpTask"],
    "django_mcp.observability": ["instrument", "reconsider", "refresh"],
    "django_mcp.observability.audit": [
        "MAX_DEPTH",
        "REDACTED",
        "TRUNCATED",
        "UNKNOWN_TOOL",
        "audited",
        "cap",
        "entry_for",
        "patterns",
        "prune",
        "redact",
        "write",
    ],
    "django_mcp.observability.calls": ["LOGGER_NAME", "log_call", "logger"],
    "django_mcp.observability.telemetry": [
        "DURATION_BUCKETS",
        "INSTRUMENTATION_NAME",
        "OPERATION_DURATION",
        "RequestSpan",
        "TaskSpan",
        "Telemetry",
        "build",
    ],
    "django_mcp.protocol": [],
    "django_mcp.protocol.content": [
        "Annotations",
        "AudioContent",
        "BlobResourceContents",
        "ContentBlock",
        "EmbeddedResource",
        "Icon",
        "ImageContent",
        "ResourceContents",
        "ResourceLink",
        "Role",
        "TextContent",
        "TextResourceContents",
    ],
    "django_mcp.protocol.definitions": [
        "Implementation",
        "PromptArgumentDefinition",
        "PromptDefinition",
        "ResourceDefinition",
        "ResourceTemplateDefinition",
        "ServerCapabilities",
        "ToolAnnotationsDefinition",
        "ToolDefinition",
    ],
    "django_mcp.protocol.extensions": [
        "INITIAL_REVISION",
        "REVISIONS",
        "STAGES",
        "UI",
        "Stage",
        "client_revision",
        "declares_unknown_revision",
        "revision_of",
    ],
    "django_mcp.protocol.jsonrpc": [
        "HEADER_MISMATCH",
        "INTERNAL_ERROR",
        "INVALID_PARAMS",
        "INVALID_REQUEST",
        "JSONRPC_VERSION",
        "LEGACY_RESOURCE_NOT_FOUND",
        "METHOD_NOT_FOUND",
        "MISSING_REQUIRED_CLIENT_CAPABILITY",
        "PARSE_ERROR",
        "UNSUPPORTED_PROTOCOL_VERSION",
        "ErrorObject",
        "IncomingMessage",
        "RequestId",
    ],
    "django_mcp.protocol.meta": [
        "META_CAPABILITIES",
        "META_CLIENT_INFO",
        "META_LOG_LEVEL",
        "META_SERVER_INFO",
        "META_SUBSCRIPTION_ID",
        "META_VERSION",
    ],
    "django_mcp.protocol.results": [
        "CallToolResult",
        "CacheScope",
        "CompleteResult",
        "CompletionValues",
        "DiscoverResult",
        "EmptyResult",
        "GetPromptResult",
        "InputRequest",
        "InputRequiredResult",
        "ListPromptsResult",
        "ListResourceTemplatesResult",
        "ListResourcesResult",
        "ListToolsResult",
        "PromptMessage",
        "ReadResourceResult",
    ],
    "django_mcp.protocol.skills": [
        "DIRECTORY_MIME_TYPE",
        "EXTENSION",
        "GetSkillResult",
        "ListSkillsResult",
        "ReadResourceDirectoryResult",
        "SkillDefinition",
        "SkillResource",
    ],
    "django_mcp.protocol.tasks": [
        "EXTENSION",
        "TERMINAL_STATUSES",
        "CreateTaskResult",
        "GetTaskResult",
        "TaskStatus",
        "TaskStatusNotificationParams",
    ],
    "django_mcp.protocol.ui": [
        "EXTENSION",
        "META_KEY",
        "MIME_TYPE",
        "PERMISSIONS",
        "SETTINGS",
        "VISIBILITIES",
        "declares_apps",
    ],
    "django_mcp.protocol.versions": [
        "LATEST",
        "LEGACY_VERSIONS",
        "MODERN_VERSIONS",
        "SUPPORTED_VERSIONS",
        "is_legacy",
        "negotiate_legacy",
    ],
    "django_mcp.ratelimit": [
        "CACHE_ALIAS",
        "Rate",
        "Window",
        "allow_tool_call",
        "count_in_window",
        "identity_of",
        "parse_rate",
    ],
    "django_mcp.registry": ["Registry", "autodiscover", "local", "registry", "web"],
    "django_mcp.request": ["LOG_LEVELS", "LogLevel", "McpRequest"],
    "django_mcp.response": [
        "ContentAnnotations",
        "McpResponse",
        "Progress",
        "check_meta_keys",
        "encode_resource",
        "json_equal",
        "merge_meta",
        "mime_family",
        "to_json_value",
    ],
    "django_mcp.schemas": [
        "DECIMAL_PATTERN",
        "Schema",
        "has_rules",
        "json_schema_for",
        "rule",
        "schema_error",
        "validate",
    ],
    "django_mcp.server": [],
    "django_mcp.server.compiler": [
        "CompiledPrompt",
        "CompiledResource",
        "CompiledServer",
        "CompiledTool",
        "ServedOnce",
        "compile_server",
        "default_name",
        "is_server",
    ],
    "django_mcp.server.handlers": ["Handler", "HandlerKind", "plan_completer", "plan_handler"],
    "django_mcp.server.primitives": [
        "MAX_COMPLETION_VALUES",
        "CacheHint",
        "Completion",
        "Icon",
        "Prompt",
        "PromptArgument",
        "Resource",
        "Tool",
        "ToolAnnotations",
        "is_server",
    ],
    "django_mcp.server.server": ["Server"],
    "django_mcp.server.skills": [
        "ALL_SKILLS",
        "EMPTY_CATALOG",
        "MAX_FILES",
        "MAX_TOTAL_SIZE",
        "SKILL_MIME_TYPE",
        "CompiledSkill",
        "DirectoryChild",
        "RefusedSkill",
        "Skill",
        "SkillCatalog",
        "SkillDeclaration",
        "SkillDirectory",
        "SkillFile",
        "check_prefix",
        "check_skill_name",
        "compile_skills",
        "skill_root",
    ],
    "django_mcp.server.templates": ["TemplateError", "UriTemplate"],
    "django_mcp.server.tool_search": [
        "CALL_TOOL",
        "META_TOOLS",
        "SEARCH_TOOLS",
        "CallToolInput",
        "CallToolTool",
        "SearchToolsInput",
        "SearchToolsTool",
        "ToolCatalog",
        "ToolSearch",
    ],
    "django_mcp.server_card": [
        "CATALOG_META",
        "MEDIA_TYPE",
        "SCHEMA_URL",
        "CardError",
        "encode_card",
        "etag",
        "server_card",
    ],
    "django_mcp.signals": ["OUTCOMES", "ObservedSignal", "mcp_request_finished", "mcp_task_status_changed"],
    "django_mcp.storage": ["Disk", "FileTooLarge", "StoredFile", "StoredFileNotFound", "disk"],
    "django_mcp.tasks": [],
    "django_mcp.tasks.backend": [
        "JOB_PATH",
        "MISSING",
        "framework",
        "framework_module",
        "job_status",
        "prune_jobs",
        "task_backend",
        "task_decorator",
    ],
    "django_mcp.tasks.extension": ["SUPPORT", "install"],
    "django_mcp.tasks.framework": ["enqueue", "prepare", "run_tool_task"],
    "django_mcp.tasks.methods": [
        "TASK_ID_BYTES",
        "cancel_task",
        "declares_tasks",
        "detailed",
        "get_task",
        "missing_extension",
        "offers_tasks",
        "start_if_task",
        "ttl_ms",
        "update_task",
    ],
    "django_mcp.tasks.pool": ["MAX_RESULTS", "TaskPool", "ThreadPoolBackend", "get_pool"],
    "django_mcp.tasks.quota": ["TooManyTasks", "check_quota"],
    "django_mcp.tasks.run": ["CANCEL_CHECK_INTERVAL", "STORE_ATTEMPTS", "run"],
    "django_mcp.tasks.store": [
        "LOST_WORKER",
        "QUEUED",
        "RUNNING",
        "TaskHandle",
        "answer",
        "cancel",
        "cancel_requested",
        "claim",
        "error_object",
        "expire",
        "fail_job",
        "finish",
        "hold",
        "holder",
        "lapse",
        "park",
        "renew",
        "report",
    ],
    "django_mcp.tasks.upkeep": [
        "JOB_FAILED",
        "JOB_LOST",
        "JOB_UNCLAIMED",
        "MAX_SWEPT",
        "Swept",
        "checked",
        "sweep",
    ],
    "django_mcp.tasks.watch": ["own_tasks", "status", "watch_leases"],
    "django_mcp.templatetags": [],
    "django_mcp.templatetags.mcp_apps": [
        "BRIDGE_PATH",
        "bridge_source",
        "mcp_app_bridge",
        "mcp_inline_static",
        "register",
    ],
    "django_mcp.testing": [
        "CompletionResult",
        "ListResult",
        "McpResult",
        "McpTestClient",
        "PromptResult",
        "ResourceResult",
        "ToolResult",
    ],
    "django_mcp.transports": [],
    "django_mcp.transports.http": ["McpView", "endpoint_at", "response_of"],
    "django_mcp.transports.stdio": [
        "CLIENT_REQUEST_TIMEOUT",
        "SHUTDOWN_GRACE",
        "Write",
        "protect_stdout",
        "run_stdio",
        "serve_stdio",
    ],
    "django_mcp.ui": [],
    "django_mcp.ui.linking": ["linked_app", "tool_ui_meta"],
    "django_mcp.ui.origins": ["Reference", "undeclared_origins"],
    "django_mcp.ui.resource": ["APP_CACHE", "AppResource", "Csp", "app_uri", "is_app", "resource_ui_meta"],
    "django_mcp.ui.scaffold": ["Scaffold", "ScaffoldError", "plan", "write"],
    "django_mcp.urls": ["urlpatterns"],
    "django_mcp.views": ["bad_request", "server_card_view"],
    "django_mcp.wellknown": [
        "WELL_KNOWN_PATH",
        "ProtectedResourceMetadataView",
        "resource_metadata",
        "resource_metadata_errors",
        "urlpatterns",
    ],
    "django_mcp.wsgi": ["McpWSGIApp"],
}


def _public_modules() -> list[str]:
    found = []
    for info in pkgutil.walk_packages(django_mcp.__path__, "django_mcp."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.append(info.name)
    return sorted(found)


def test_every_public_module_is_pinned() -> None:
    assert _public_modules() == sorted(PUBLIC_MODULES)


@pytest.mark.parametrize("module", sorted(PUBLIC_MODULES))
def test_each_public_module_exports_exactly_its_pinned_names(module: str) -> None:
    imported = importlib.import_module(module)
    assert list(imported.__all__) == PUBLIC_MODULES[module]
    assert [name for name in imported.__all__ if not hasattr(imported, name)] == []


@pytest.mark.parametrize("module", sorted(PUBLIC_MODULES))
def test_each_public_module_exports_every_public_class_and_function_it_defines(module: str) -> None:
    imported = importlib.import_module(module)
    defined = sorted(
        name
        for name, value in vars(imported).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and getattr(value, "__module__", None) == module
    )
    assert [name for name in defined if name not in imported.__all__] == []


@pytest.mark.parametrize("module", sorted(PUBLIC_MODULES))
def test_each_exported_class_and_function_is_documented(module: str) -> None:
    imported = importlib.import_module(module)
    assert imported.__doc__, module
    undocumented = [
        name
        for name in imported.__all__
        if (inspect.isclass(getattr(imported, name)) or inspect.isfunction(getattr(imported, name)))
        and not getattr(imported, name).__doc__
    ]
    assert undocumented == []


def _import_in_a_fresh_interpreter(settings_module: str | None) -> str:
    # The only subprocess in the suite: settings state is per interpreter.
    code = (
        "import django_mcp, django_mcp.schemas, django_mcp.server.compiler, "
        "django_mcp.protocol.content, django_mcp.protocol.results, django_mcp.response\n"
        "from django.conf import settings\n"
        "print(settings.configured)\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    if settings_module is not None:
        env["DJANGO_SETTINGS_MODULE"] = settings_module
    completed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.strip()


def test_importing_the_package_does_not_configure_settings() -> None:
    assert _import_in_a_fresh_interpreter("testproject.settings") == "False"


def test_importing_the_package_works_without_any_settings_module() -> None:
    assert _import_in_a_fresh_interpreter(None) == "False"
