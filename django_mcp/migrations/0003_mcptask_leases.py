"""Give ``McpTask`` leases, retries, a quota identity and a start time."""

from __future__ import annotations

from django.db import migrations, models

__all__ = ["Migration"]


class Migration(migrations.Migration):
    """Add what finds a task whose worker stopped, and what quotas count."""

    dependencies = [("django_mcp", "0002_mcptask")]

    operations = [
        migrations.AddField(
            model_name="mcptask", name="client", field=models.CharField(blank=True, max_length=255)
        ),
        migrations.AddField(
            model_name="mcptask", name="started_at", field=models.DateTimeField(blank=True, null=True)
        ),
        migrations.AddField(
            model_name="mcptask", name="lease_expires_at", field=models.DateTimeField(blank=True, null=True)
        ),
        migrations.AddField(
            model_name="mcptask", name="lease_holder", field=models.CharField(blank=True, max_length=255)
        ),
        migrations.AddField(model_name="mcptask", name="runs", field=models.PositiveIntegerField(default=0)),
        migrations.AddField(
            model_name="mcptask", name="retries_left", field=models.PositiveSmallIntegerField(default=0)
        ),
        migrations.AddIndex(
            model_name="mcptask",
            index=models.Index(fields=["status", "lease_expires_at"], name="django_mcp_task_lease"),
        ),
        migrations.AddIndex(
            model_name="mcptask",
            index=models.Index(fields=["client", "created_at"], name="django_mcp_task_client"),
        ),
    ]
