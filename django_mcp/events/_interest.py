"""What a listening stream asked for, and the index that routes each event to those who asked.

A stream declares an ``Interest`` when it starts listening: the server
whose changes it follows, the kinds of list changes, the resource URIs it
subscribed to (an update of a sub-resource counts for its parent, as in
``dispatcher.subscriptions.watches``), the task ids it watches, and, for a
2025-11-25 session stream, the session whose ``resources/subscribe`` calls
it follows. An ``Index`` maps each key an interest yields to its listeners,
so an event is offered only to the listeners of its own keys: the work per
event grows with the listeners concerned, not with all open streams.

A session's ``subscribed``/``unsubscribed`` event (announced by whichever
process served the call) changes the interest of that session's listeners
as the index routes it, before any later event, so an update announced
after a subscribe reaches the stream wherever each was served.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from django_mcp.events import Event

__all__ = ["Index", "Interest", "event_keys"]

#: One entry of the index: a tag, then the values it is about.
Key = tuple[str, ...]

L = TypeVar("L", bound=Hashable)

_SESSION_CHANGES = ("subscribed", "unsubscribed")


@dataclasses.dataclass(frozen=True, slots=True)
class Interest:
    """The events one stream asked for."""

    #: The server key (``events.server_key``) of list changes and resource updates.
    server: str = ""
    #: Kinds of list changes: ``"tools"``, ``"prompts"``, ``"resources"``.
    lists: frozenset[str] = frozenset()
    #: Subscribed resource URIs; an update of a sub-resource counts too.
    uris: frozenset[str] = frozenset()
    #: Ids of the tasks whose changes it follows.
    tasks: frozenset[str] = frozenset()
    #: The 2025-11-25 session whose (un)subscriptions change ``uris``.
    session: str | None = None

    def keys(self) -> set[Key]:
        """Return every index key this interest is found under."""
        keys: set[Key] = {("list", self.server, kind) for kind in self.lists}
        for uri in self.uris:
            keys.add(("uri", self.server, uri))
            # "a/b" and "a/b/" both cover "a/b/c": found under their common stem.
            keys.add(("under", self.server, uri.rstrip("/")))
        keys.update(("task", task_id) for task_id in self.tasks)
        if self.session is not None:
            keys.add(("session", self.session))
        return keys

    def after(self, event: Event) -> Interest:
        """Return this interest once its session's ``event`` (a subscribe or unsubscribe) applied."""
        if event.kind not in _SESSION_CHANGES or event.session != self.session or event.uri is None:
            return self
        uris = self.uris | {event.uri} if event.kind == "subscribed" else self.uris - {event.uri}
        return dataclasses.replace(self, uris=uris)


def event_keys(event: Event) -> Iterator[Key]:
    """Yield the index keys under which the listeners ``event`` concerns are found."""
    if event.kind == "task":
        if event.task_id is not None:
            yield ("task", event.task_id)
    elif event.kind in _SESSION_CHANGES:
        if event.session is not None:
            yield ("session", event.session)
    elif event.kind == "resource_updated":
        uri = event.uri
        if uri is not None:
            yield ("uri", event.server, uri)
            # Each stem followed by "/" is a parent a subscription may name.
            start = uri.find("/")
            while start != -1:
                yield ("under", event.server, uri[:start])
                start = uri.find("/", start + 1)
    else:
        yield ("list", event.server, event.kind)


class Index(Generic[L]):
    """Listeners by the keys of their interest (the caller serialises access).

    A listener added with no interest gets every event.
    """

    def __init__(self) -> None:
        self._by_key: dict[Key, set[L]] = {}
        self._interests: dict[L, Interest] = {}
        self._everything: set[L] = set()

    def __len__(self) -> int:
        return len(self._interests) + len(self._everything)

    def add(self, listener: L, interest: Interest | None) -> None:
        """File ``listener`` under ``interest`` (None: every event)."""
        if interest is None:
            self._everything.add(listener)
        else:
            self._file(listener, interest)

    def change(self, listener: L, interest: Interest) -> None:
        """Re-file a listener added with an interest under ``interest`` instead."""
        if listener in self._interests:
            self._file(listener, interest)

    def discard(self, listener: L) -> None:
        """Forget ``listener``."""
        self._everything.discard(listener)
        self._unfile(listener)

    def route(self, event: Event) -> set[L]:
        """Return the listeners ``event`` concerns, after applying an interest change it carries."""
        concerned = set(self._everything)
        for key in event_keys(event):
            found = self._by_key.get(key)
            if found:
                concerned.update(found)
        if event.kind in _SESSION_CHANGES:
            for listener in concerned:
                interest = self._interests.get(listener)
                if interest is not None:
                    self._file(listener, interest.after(event))
        return concerned

    def _file(self, listener: L, interest: Interest) -> None:
        self._unfile(listener)
        self._interests[listener] = interest
        for key in interest.keys():
            self._by_key.setdefault(key, set()).add(listener)

    def _unfile(self, listener: L) -> None:
        interest = self._interests.pop(listener, None)
        if interest is None:
            return
        for key in interest.keys():
            found = self._by_key.get(key)
            if found is not None:
                found.discard(listener)
                if not found:
                    del self._by_key[key]
