"""The admin section's model: ``McpCatalog``, which has no table.

The admin index lists apps through their registered models, so the MCP
section needs one. ``McpCatalog`` is unmanaged (``managed = False``):
``migrate`` creates no table for it and nothing ever queries it. It exists
for three things Django keys on a model:

* the "MCP" section of the admin index, whose link opens the catalog
  (``django_mcp.admin.McpCatalogAdmin`` serves every page);
* the ``django_mcp.use_playground`` permission, created by ``migrate``'s
  ``post_migrate`` handler like any model permission: it lets a staff user
  call tools, read resources and get prompts from the admin;
* the content type that the admin history (``LogEntry``) of playground
  calls points at.

It has no default add/change/delete/view permissions: every active staff
user may browse the catalog.

``McpTask`` is real data: the durable state of one task of the tasks
extension (``io.modelcontextprotocol/tasks``; see ``docs/tasks.md``), which
any process can read, so a ``tasks/get`` served by one worker finds a task
another created and a third runs. ``django_mcp.tasks.methods`` creates
its rows and ``django_mcp.tasks.store`` makes every later write.

``McpAuditEntry`` is the audit trail (``MCP_AUDIT``): one row per audited
call, written by ``django_mcp.observability.audit`` and deleted only by
``manage.py mcp_prune_audit``; the admin shows it read-only.

``McpIdempotencyKey`` remembers one idempotency key of a ``tools/call``
(``Tool.idempotency_keys``): reserved while the call runs, then holding its
result, so a retry gets that result instead of a second run. Written by
``django_mcp.dispatcher.idempotency``, deleted by
``manage.py mcp_prune_idempotency_keys`` once older than
``MCP_IDEMPOTENCY_KEY_TTL``; the admin shows it read-only.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

__all__ = ["McpAuditEntry", "McpCatalog", "McpIdempotencyKey", "McpTask"]


class McpCatalog(models.Model):
    """Stand for the MCP catalog in the admin; never stored."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [("use_playground", _("Can call tools, read resources and get prompts in the admin"))]
        verbose_name = _("catalog")
        verbose_name_plural = _("catalog")

    def __str__(self) -> str:
        return str(_("MCP catalog"))


class McpTask(models.Model):
    """One task: a ``tools/call`` the server answered with a task handle.

    ``id`` is the unguessable task id the client polls with; ``owner`` binds
    the task to its caller (``user:<pk>`` or ``anonymous:<address>``, the
    rule of a signed ``requestState``) and ``server`` to the server that
    created it; ``client`` is whom its quotas count (the identity
    ``MCP_RATE_LIMIT`` counts). ``call`` keeps what the background run needs
    to rebuild the call (arguments, protocol version, client capabilities
    and info). ``input_requests`` holds the outstanding requests by wire key
    (each with the handler's own key), ``input_responses`` the answers by
    the handler's key, ``issued_keys`` every wire key ever used (keys are
    never reused).

    A working task is *queued* until a worker claims it (``running``,
    ``started_at``), then held by that worker's lease: ``lease_expires_at``,
    renewed while it runs, by ``lease_holder``. ``runs`` counts the claims;
    a worker writes only while the count is still its own, so a worker
    thought gone never overwrites the run that replaced it.
    ``retries_left`` is how many more runs a lost worker may cost
    (``Tool.task_retries``). ``cancel_requested`` asks the run to stop.
    ``expires_at`` is set once the work ends (or waits for input): the task
    is never deleted while queued or running.
    """

    class Status(models.TextChoices):
        """Where a task is (SEP-2663 "Task Status")."""

        WORKING = "working", _("working")
        INPUT_REQUIRED = "input_required", _("input required")
        COMPLETED = "completed", _("completed")
        FAILED = "failed", _("failed")
        CANCELLED = "cancelled", _("cancelled")

    id = models.CharField(primary_key=True, max_length=64, editable=False)
    server = models.CharField(max_length=255)
    tool = models.CharField(max_length=128)
    owner = models.CharField(max_length=255)
    user_pk = models.CharField(max_length=255, blank=True)
    client = models.CharField(max_length=255, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WORKING)
    status_message = models.TextField(blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    #: When a worker first started the task (None: still queued).
    started_at = models.DateTimeField(null=True, blank=True)
    #: Milliseconds the task is kept once its work ends (None: unlimited).
    ttl_ms = models.PositiveBigIntegerField(null=True, blank=True)
    #: When the task may be deleted (None while queued or running, or with no TTL).
    expires_at = models.DateTimeField(null=True, blank=True, db_index=True)
    #: Milliseconds the client is asked to wait between polls (None: no hint).
    poll_interval_ms = models.PositiveIntegerField(null=True, blank=True)
    call = models.JSONField(default=dict)
    result = models.JSONField(null=True, blank=True)
    error = models.JSONField(null=True, blank=True)
    input_requests = models.JSONField(default=dict, blank=True)
    input_responses = models.JSONField(default=dict, blank=True)
    issued_keys = models.JSONField(default=list, blank=True)
    request_state = models.JSONField(null=True, blank=True)
    cancel_requested = models.BooleanField(default=False)
    running = models.BooleanField(default=False)
    #: Until when the worker (or in-process queue) holding the task is
    #: known to be alive (None: no lease, e.g. queued on a backend's workers).
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    #: Who holds the lease (``host:pid`` of the worker process).
    lease_holder = models.CharField(max_length=255, blank=True)
    runs = models.PositiveIntegerField(default=0)
    retries_left = models.PositiveSmallIntegerField(default=0)
    #: The Tasks framework's id of the latest run (for operators).
    job_id = models.CharField(max_length=255, blank=True)

    class Meta:
        verbose_name = _("task")
        ordering = ["-created_at"]
        indexes = [
            # Readers and mcp_prune_tasks look for working tasks whose lease lapsed.
            models.Index(fields=["status", "lease_expires_at"], name="django_mcp_task_lease"),
            # Quotas count one caller's unfinished and recent tasks.
            models.Index(fields=["client", "created_at"], name="django_mcp_task_client"),
        ]

    def __str__(self) -> str:
        return f"{self.tool} task ({self.status})"


class McpAuditEntry(models.Model):
    """One audited MCP call: who, when, what, with which arguments, and how it ended.

    ``arguments`` are those of a ``tools/call`` or ``prompts/get`` with
    secret values replaced (``django_mcp.observability.audit.REDACTED``);
    ``client`` is ``user:<pk>``, ``ip:<address>`` or ``anonymous``;
    ``user_pk`` and ``username`` are kept as text, so an entry outlives its
    user. ``duration`` is in seconds.
    """

    class Outcome(models.TextChoices):
        """How the call ended (``django_mcp.signals.OUTCOMES``)."""

        OK = "ok", _("ok")
        TOOL_ERROR = "tool_error", _("tool error")
        ERROR = "error", _("error")
        INPUT_REQUIRED = "input_required", _("input required")
        TASK = "task", _("task")
        CANCELLED = "cancelled", _("cancelled")

    id = models.BigAutoField(primary_key=True)
    created_at = models.DateTimeField(_("when"))
    server = models.CharField(max_length=255)
    method = models.CharField(max_length=64)
    component = models.CharField(max_length=512, blank=True)
    user_pk = models.CharField(_("user id"), max_length=255, blank=True)
    username = models.CharField(max_length=255, blank=True)
    client = models.CharField(max_length=255)
    client_address = models.CharField(max_length=255, blank=True)
    transport = models.CharField(max_length=16)
    arguments = models.JSONField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices)
    error_code = models.IntegerField(null=True, blank=True)
    #: Seconds from the dispatcher receiving the request to its answer.
    duration = models.FloatField()
    protocol_version = models.CharField(max_length=32, blank=True)
    request_id = models.CharField(max_length=255, blank=True)

    class Meta:
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit entries")
        ordering = ["-created_at"]
        indexes = [
            # The admin's date filter and default order; mcp_prune_audit.
            models.Index(fields=["created_at"], name="django_mcp_audit_time"),
            # The admin's server, method and outcome filters.
            models.Index(fields=["server", "created_at"], name="django_mcp_audit_server"),
            models.Index(fields=["method", "created_at"], name="django_mcp_audit_method"),
            models.Index(fields=["outcome", "created_at"], name="django_mcp_audit_outcome"),
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.component}".strip()


class McpIdempotencyKey(models.Model):
    """One idempotency key of a ``tools/call``: a reservation, then the call's result.

    The row is unique per ``server`` (the compiled server's key),
    ``caller`` (``user:<pk>`` or ``anonymous:<address>``, the owner rule
    of a task), ``tool`` and ``key``: the first call inserts it and so
    reserves the key, a concurrent one fails that insert. ``arguments_hash``
    is the SHA-256 (hex) of the arguments as canonical JSON, so reusing a
    key for other arguments is refused. ``result`` is the encoded
    ``CallToolResult`` JSON once the call succeeded (None while it runs).
    """

    id = models.BigAutoField(primary_key=True)
    server = models.CharField(max_length=255)
    caller = models.CharField(max_length=255)
    tool = models.CharField(max_length=128)
    key = models.CharField(max_length=255)
    arguments_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(_("created"))
    #: The first call's ``CallToolResult`` as JSON text, kept byte for byte
    #: (a JSON column may reorder keys); None while the call runs.
    result = models.TextField(null=True, blank=True)

    class Meta:
        verbose_name = _("idempotency key")
        ordering = ["-created_at"]
        constraints = [
            # Reserving is this INSERT: a second call with the key fails it.
            models.UniqueConstraint(
                fields=["server", "caller", "tool", "key"], name="django_mcp_idempotency_key"
            ),
        ]
        indexes = [
            # mcp_prune_idempotency_keys and the admin's default order.
            models.Index(fields=["created_at"], name="django_mcp_idempotency_time"),
        ]

    def __str__(self) -> str:
        return f"{self.tool} {self.key}"
