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
another created and a third runs. ``django_mcp.dispatcher.tasks`` is the only
code that writes it.
"""

from __future__ import annotations

from django.db import models

__all__ = ["McpCatalog", "McpTask"]


class McpCatalog(models.Model):
    """Stand for the MCP catalog in the admin; never stored."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [("use_playground", "Can call tools, read resources and get prompts in the admin")]
        verbose_name = "catalog"
        verbose_name_plural = "catalog"

    def __str__(self) -> str:
        return "MCP catalog"


class McpTask(models.Model):
    """One task: a ``tools/call`` the server answered with a task handle.

    ``id`` is the unguessable task id the client polls with; ``owner`` binds
    the task to its caller (``user:<pk>`` or ``anonymous:<address>``, the
    rule of a signed ``requestState``) and ``server`` to the server that
    created it. ``call`` keeps what the background run needs to rebuild the
    call (arguments, protocol version, client capabilities and info).
    ``input_requests`` holds the outstanding requests by wire key (each with
    the handler's own key), ``input_responses`` the answers by the handler's
    key, ``issued_keys`` every wire key ever used (keys are never reused).
    ``running`` is set while a worker runs the tool; ``cancel_requested``
    asks it to stop.
    """

    class Status(models.TextChoices):
        """Where a task is (SEP-2663 "Task Status")."""

        WORKING = "working", "working"
        INPUT_REQUIRED = "input_required", "input required"
        COMPLETED = "completed", "completed"
        FAILED = "failed", "failed"
        CANCELLED = "cancelled", "cancelled"

    id = models.CharField(primary_key=True, max_length=64, editable=False)
    server = models.CharField(max_length=255)
    tool = models.CharField(max_length=128)
    owner = models.CharField(max_length=255)
    user_pk = models.CharField(max_length=255, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WORKING)
    status_message = models.TextField(blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    #: Milliseconds from creation the task is kept (None: unlimited).
    ttl_ms = models.PositiveBigIntegerField(null=True, blank=True)
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
    #: The Tasks framework's id of the latest run (for operators).
    job_id = models.CharField(max_length=255, blank=True)

    class Meta:
        verbose_name = "task"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.tool} task ({self.status})"
