"""Create ``McpCatalog``: unmanaged, so this creates no table, only its state."""

from __future__ import annotations

from django.db import migrations, models

__all__ = ["Migration"]


class Migration(migrations.Migration):
    """Add the admin section's model and its ``use_playground`` permission."""

    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="McpCatalog",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
            ],
            options={
                "verbose_name": "catalog",
                "verbose_name_plural": "catalog",
                "permissions": [
                    ("use_playground", "Can call tools, read resources and get prompts in the admin")
                ],
                "managed": False,
                "default_permissions": (),
            },
        ),
    ]
