"""Add ``McpAuditEntry``, the audit trail of MCP calls (``MCP_AUDIT``)."""

from __future__ import annotations

from django.db import migrations, models

__all__ = ["Migration"]

_OUTCOMES = [
    ("ok", "ok"),
    ("tool_error", "tool error"),
    ("error", "error"),
    ("input_required", "input required"),
    ("task", "task"),
    ("cancelled", "cancelled"),
]


class Migration(migrations.Migration):
    """Create the audit table, indexed for the admin's filters and for pruning by time."""

    dependencies = [("django_mcp", "0003_mcptask_leases")]

    operations = [
        migrations.CreateModel(
            name="McpAuditEntry",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("created_at", models.DateTimeField(verbose_name="when")),
                ("server", models.CharField(max_length=255)),
                ("method", models.CharField(max_length=64)),
                ("component", models.CharField(blank=True, max_length=512)),
                ("user_pk", models.CharField(blank=True, max_length=255, verbose_name="user id")),
                ("username", models.CharField(blank=True, max_length=255)),
                ("client", models.CharField(max_length=255)),
                ("client_address", models.CharField(blank=True, max_length=255)),
                ("transport", models.CharField(max_length=16)),
                ("arguments", models.JSONField(blank=True, null=True)),
                ("outcome", models.CharField(choices=_OUTCOMES, max_length=16)),
                ("error_code", models.IntegerField(blank=True, null=True)),
                ("duration", models.FloatField()),
                ("protocol_version", models.CharField(blank=True, max_length=32)),
                ("request_id", models.CharField(blank=True, max_length=255)),
            ],
            options={
                "verbose_name": "audit entry",
                "verbose_name_plural": "audit entries",
                "ordering": ["-created_at"],
                "indexes": [
                    models.Index(fields=["created_at"], name="django_mcp_audit_time"),
                    models.Index(fields=["server", "created_at"], name="django_mcp_audit_server"),
                    models.Index(fields=["method", "created_at"], name="django_mcp_audit_method"),
                    models.Index(fields=["outcome", "created_at"], name="django_mcp_audit_outcome"),
                ],
            },
        ),
    ]
