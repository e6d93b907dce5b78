"""Fixtures shared by the contrib tests: the shelf's users and volumes.

Four callers, as the issue asks: a staff member with every volume
permission (``boss``), a staff member who may only view (``viewer``), a
user with every permission who is not staff (``outsider``) and an
anonymous caller; ``other`` owns volumes none of them may see.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from asgiref.sync import async_to_sync
from django.contrib.auth.models import AnonymousUser, Permission, User

from django_mcp.testing import McpTestClient
from testproject.demo.models import Author
from testproject.shelf.mcp import ShelfServer
from testproject.shelf.models import Tag, Volume

__all__ = ["Shelf", "call", "listed", "make_user"]

ALL = ("view_volume", "add_volume", "change_volume", "delete_volume", "view_tag")


def make_user(name: str, codenames: Iterable[str], *, staff: bool) -> User:
    """Return a fresh user holding ``codenames`` (no stale permission cache)."""
    user = User.objects.create_user(name, password="secret", is_staff=staff)
    user.user_permissions.add(*Permission.objects.filter(codename__in=list(codenames)))
    return User.objects.get(pk=user.pk)


class Shelf:
    """The users and volumes of one test."""

    def __init__(self) -> None:
        self.boss = make_user("boss", ALL, staff=True)
        self.viewer = make_user("viewer", ("view_volume",), staff=True)
        self.outsider = make_user("outsider", ALL, staff=False)
        self.other = make_user("other", ALL, staff=True)
        self.anonymous = AnonymousUser()
        self.le_guin = Author.objects.create(name="Ursula K. Le Guin")
        self.butler = Author.objects.create(name="Octavia E. Butler")
        self.fantasy = Tag.objects.create(name="fantasy")
        self.classic = Tag.objects.create(name="classic")
        self.mine = [
            self.volume(f"Earthsea {n}", self.le_guin, self.boss, stock=n, tags=(self.fantasy, self.classic))
            for n in range(1, 6)
        ]
        self.kindred = self.volume("Kindred", self.butler, self.boss, notes="Lent to Sam")
        self.theirs = self.volume("Dawn", self.butler, self.other, notes="Not yours")

    def volume(
        self,
        title: str,
        author: Author,
        owner: User,
        *,
        stock: int = 1,
        tags: Iterable[Tag] = (),
        notes: str = "",
    ) -> Volume:
        """Create a volume."""
        volume = Volume.objects.create(title=title, author=author, owner=owner, stock=stock, notes=notes)
        volume.tags.set(list(tags))
        return volume

    def client(self, user: Any) -> McpTestClient:
        """Return a test client calling the shelf server as ``user``."""
        return McpTestClient(ShelfServer, user)


def call(client: McpTestClient, name: str, arguments: dict[str, Any] | None = None) -> Any:
    """Call a tool from a sync test: sync handlers then run on this thread's connection."""
    return async_to_sync(client.call_tool)(name, arguments or {})


def listed(client: McpTestClient) -> list[str]:
    """Return the names of the tools the client's user sees."""
    result = async_to_sync(client.list_tools)()
    return [tool["name"] for tool in result.items]
