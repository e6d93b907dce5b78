"""Create ``McpTask``: the durable state of the tasks extension's tasks."""

from __future__ import annotations

from django.db import migrations, models

__all__ = ["Migration"]


class Migration(migrations.Migration):
    """Add the table every process reads and writes tasks through."""

    dependencies = [("django_mcp", "0001_initial")]

    operations = [
        migrations.CreateModel(
            name="McpTask",
            fields=[
                ("id", models.CharField(editable=False, max_length=64, primary_key=True, serialize=False)),
                ("server", models.CharField(max_length=255)),
                ("tool", models.CharField(max_length=128)),
                ("owner", models.CharField(max_length=255)),
                ("user_pk", models.CharField(blank=True, max_length=255)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("working", "working"),
                            ("input_required", "input required"),
                            ("completed", "completed"),
                            ("failed", "failed"),
                            ("cancelled", "cancelled"),
                        ],
                        default="working",
                        max_length=16,
                    ),
                ),
                ("status_message", models.TextField(blank=True)),
                ("created_at", models.DateTimeField()),
                ("updated_at", models.DateTimeField()),
                ("ttl_ms", models.PositiveBigIntegerField(blank=True, null=True)),
                ("expires_at", models.DateTimeField(blank=True, db_index=True, null=True)),
                ("poll_interval_ms", models.PositiveIntegerField(blank=True, null=True)),
                ("call", models.JSONField(default=dict)),
                ("result", models.JSONField(blank=True, null=True)),
                ("error", models.JSONField(blank=True, null=True)),
                ("input_requests", models.JSONField(blank=True, default=dict)),
                ("input_responses", models.JSONField(blank=True, default=dict)),
                ("issued_keys", models.JSONField(blank=True, default=list)),
                ("request_state", models.JSONField(blank=True, null=True)),
                ("cancel_requested", models.BooleanField(default=False)),
                ("running", models.BooleanField(default=False)),
                ("job_id", models.CharField(blank=True, max_length=255)),
            ],
            options={"verbose_name": "task", "ordering": ["-created_at"]},
        ),
    ]
