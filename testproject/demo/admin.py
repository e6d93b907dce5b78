"""Admin pages for the demo library."""

from __future__ import annotations

from django.contrib import admin

from testproject.demo.models import Author, Book


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "born")
    search_fields = ("name",)


@admin.register(Book)
class BookAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("title", "author", "isbn", "published", "in_stock", "price")
    list_filter = ("in_stock",)
    list_select_related = ("author",)
    search_fields = ("title", "isbn", "author__name")
