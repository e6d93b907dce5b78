"""Volumes on their owners' shelves, with tags and a stock count."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from testproject.demo.models import Author

__all__ = ["Tag", "Volume"]


class Tag(models.Model):
    """A label put on volumes."""

    name = models.CharField(max_length=50, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Volume(models.Model):
    """A copy of a book on someone's shelf."""

    class Condition(models.TextChoices):
        NEW = "new", "New"
        GOOD = "good", "Good"
        WORN = "worn", "Worn"

    title = models.CharField(max_length=120)
    author = models.ForeignKey(Author, on_delete=models.PROTECT, related_name="volumes")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="volumes")
    tags = models.ManyToManyField(Tag, blank=True, related_name="volumes")
    stock = models.PositiveIntegerField(default=1)
    condition = models.CharField(max_length=10, choices=Condition.choices, default=Condition.GOOD)
    # Kept out of the admin's form: never shown over MCP either.
    notes = models.TextField(blank=True, help_text="Private notes.")

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title
