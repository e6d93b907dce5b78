"""``Item``: the rows the ORM scenario reads; the table is made by run.py (or inprocess.py)."""

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
    """Return the item's name: one SELECT of ten rows from it on (synchronous ORM)."""
    names = list(Item.objects.filter(pk__gte=item_id).order_by("pk").values_list("name", flat=True)[:10])
    return names[0]
