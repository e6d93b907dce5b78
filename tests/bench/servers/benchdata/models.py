"""``Item``: the row the ORM scenario reads; the table is made by run.py."""

from __future__ import annotations

from django.db import models

__all__ = ["Item", "item_name"]


class Item(models.Model):
    """One row of ``bench_item``: ``id`` 1 to 100, ``name`` ``item-<id>``."""

    name = models.CharField(max_length=50)

    class Meta:
        managed = False
        db_table = "bench_item"


def item_name(item_id: int) -> str:
    """Return the item's name: one indexed SELECT (synchronous ORM)."""
    return Item.objects.values_list("name", flat=True).get(pk=item_id)
