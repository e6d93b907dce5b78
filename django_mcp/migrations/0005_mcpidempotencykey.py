"""Add ``McpIdempotencyKey``, the idempotency keys of ``tools/call`` (``Tool.idempotency_keys``)."""

from __future__ import annotations

from django.db import migrations, models

__all__ = ["Migration"]


class Migration(migrations.Migration):
    """Create the key table: unique per server, caller, tool and key; indexed for pruning by time."""

    dependencies = [("django_mcp", "0004_mcpauditentry")]

    operations = [
        migrations.CreateModel(
            name="McpIdempotencyKey",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("server", models.CharField(max_length=255)),
                ("caller", models.CharField(max_length=255)),
                ("tool", models.CharField(max_length=128)),
                ("key", models.CharField(max_length=255)),
                ("arguments_hash", models.CharField(max_length=64)),
                ("created_at", models.DateTimeField(verbose_name="created")),
                ("result", models.TextField(blank=True, null=True)),
            ],
            options={
                "verbose_name": "idempotency key",
                "ordering": ["-created_at"],
                "indexes": [models.Index(fields=["created_at"], name="django_mcp_idempotency_time")],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("server", "caller", "tool", "key"), name="django_mcp_idempotency_key"
                    )
                ],
            },
        ),
    ]
