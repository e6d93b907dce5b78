"""ViewSetTools(): the tool classes it builds for a ViewSet and the configuration it refuses."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("rest_framework", reason="Django REST framework (the drf extra) is not installed")

from django.core.exceptions import ImproperlyConfigured  # noqa: E402
from rest_framework import viewsets  # noqa: E402
from rest_framework.response import Response  # noqa: E402

from django_mcp.contrib.drf import ViewSetTools  # noqa: E402
from testproject.shelf.api import VolumeViewSet  # noqa: E402


class ModellessViewSet(viewsets.ViewSet):
    """A ViewSet with no queryset and no serializer: nothing names its model."""

    def list(self, request: Any) -> Response:
        return Response([])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"actions": ("list", "burn")}, "unknown action 'burn'"),
        ({"actions": "list"}, "actions must be a tuple of names"),
        ({"actions": ("list", "list")}, "an action is listed twice"),
    ],
)
def test_the_factory_refuses_unknown_actions(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=message):
        ViewSetTools(VolumeViewSet, **kwargs)


def test_the_factory_names_tools_after_the_model_by_default() -> None:
    tools = ViewSetTools(VolumeViewSet)
    assert [tool.name for tool in tools] == ["volume-list", "volume-retrieve"]
    assert [tool.__qualname__ for tool in tools] == ["VolumeListTool", "VolumeRetrieveTool"]


def test_a_viewset_without_a_model_needs_a_prefix() -> None:
    with pytest.raises(ImproperlyConfigured, match="pass prefix="):
        ViewSetTools(ModellessViewSet, actions=("list",))
