"""The shelf's admin: each staff member sees and edits only their own volumes."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from testproject.shelf.models import Tag, Volume


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    search_fields = ("name",)


@admin.register(Volume)
class VolumeAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("title", "author", "stock", "condition")
    list_select_related = ("author",)
    search_fields = ("title", "author__name", "tags__name")
    # notes and owner are not in the form.
    fields = ("title", "author", "tags", "stock", "condition")
    actions = ("mark_worn",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Volume]:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(owner=request.user.pk)

    def save_model(self, request: HttpRequest, obj: Volume, form: Any, change: bool) -> None:  # noqa: FBT001
        if not change:
            obj.owner = request.user  # type: ignore[assignment]
        super().save_model(request, obj, form, change)

    @admin.action(description="Mark selected %(verbose_name_plural)s as worn", permissions=("change",))
    def mark_worn(self, request: HttpRequest, queryset: QuerySet[Volume]) -> None:
        updated = queryset.update(condition=Volume.Condition.WORN)
        self.message_user(request, f"{updated} volume(s) marked as worn.")
