"""The demo library: authors and their books."""

from __future__ import annotations

from django.db import models

__all__ = ["Author", "Book"]


class Author(models.Model):
    """A person who wrote books in the catalog."""

    name = models.CharField(max_length=200)
    born = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Book(models.Model):
    """A title the library lends, with its stock state and price."""

    title = models.CharField(max_length=200)
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="books")
    published = models.DateField()
    isbn = models.CharField("ISBN", max_length=13, unique=True)
    summary = models.TextField(blank=True)
    in_stock = models.BooleanField(default=True)
    price = models.DecimalField(max_digits=8, decimal_places=2)

    class Meta:
        ordering = ["title"]
        permissions = [("change_stock", "Can change stock")]

    def __str__(self) -> str:
        return f"{self.title} ({self.isbn})"
