"""The shelf's REST API: a ModelViewSet scoped to the signed-in owner (needs DRF)."""

from __future__ import annotations

from typing import Any

from django.db.models import F, QuerySet
from rest_framework import filters, permissions, serializers, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from testproject.shelf.models import Volume

__all__ = ["RestockSerializer", "VolumeSerializer", "VolumeViewSet"]


class VolumeSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    """A volume as the API shows it; the owner is the caller."""

    owner = serializers.ReadOnlyField(source="owner.username")

    class Meta:
        model = Volume
        fields = ("id", "title", "author", "tags", "stock", "condition", "owner")


class RestockSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """How many copies to add."""

    amount = serializers.IntegerField(min_value=1, max_value=100, help_text="Copies to add.")


class VolumeViewSet(viewsets.ModelViewSet):  # type: ignore[type-arg]
    """The caller's own volumes."""

    serializer_class = VolumeSerializer
    permission_classes = (permissions.IsAuthenticated,)
    authentication_classes = (SessionAuthentication, TokenAuthentication)
    filter_backends = (filters.SearchFilter,)
    search_fields = ("title",)

    def get_queryset(self) -> QuerySet[Volume]:
        user = self.request.user
        return Volume.objects.filter(owner=user.pk).select_related("author", "owner").prefetch_related("tags")

    def perform_create(self, serializer: Any) -> None:
        serializer.save(owner=self.request.user)

    @action(detail=True, methods=["post"], serializer_class=RestockSerializer)
    def restock(self, request: Request, pk: str | None = None) -> Response:
        """Add copies of a volume to its stock."""
        volume = self.get_object()
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        Volume.objects.filter(pk=volume.pk).update(stock=F("stock") + serializer.validated_data["amount"])
        volume.refresh_from_db()
        return Response(VolumeSerializer(volume, context=self.get_serializer_context()).data)
