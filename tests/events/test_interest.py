"""Interests, the keys an event is routed by, and the index of listeners."""

from __future__ import annotations

import pytest

from django_mcp.dispatcher.subscriptions import watches
from django_mcp.events import Event, Interest
from django_mcp.events._interest import Index, event_keys

S = "app.mcp.Server"


def _routed(interest: Interest | None, event: Event) -> bool:
    index: Index[str] = Index()
    index.add("stream", interest)
    return "stream" in index.route(event)


@pytest.mark.parametrize(
    ("subscribed", "updated"),
    [
        ("demo://a", "demo://a"),
        ("demo://a", "demo://a/b"),
        ("demo://a/", "demo://a/b/c"),
        ("demo://a//", "demo://a/b"),
        ("demo://a", "demo://ab"),
        ("demo://a/b", "demo://a"),
        ("/", "/x"),
        ("demo://a", "other://a"),
    ],
)
def test_a_resource_update_is_routed_exactly_where_a_subscription_watches_it(
    subscribed: str, updated: str
) -> None:
    interest = Interest(S, uris=frozenset({subscribed}))
    assert _routed(interest, Event(S, "resource_updated", updated)) is watches([subscribed], updated)


def test_an_event_reaches_only_the_kinds_server_tasks_and_session_asked_for() -> None:
    interest = Interest(S, lists=frozenset({"tools"}), tasks=frozenset({"t1"}), session="s1")
    assert _routed(interest, Event(S, "tools"))
    assert not _routed(interest, Event(S, "prompts"))
    assert not _routed(interest, Event("other.Server", "tools"))
    assert _routed(interest, Event("", "task", task_id="t1"))
    assert not _routed(interest, Event("", "task", task_id="t2"))
    assert _routed(interest, Event("", "subscribed", "demo://a", session="s1"))
    assert not _routed(interest, Event("", "subscribed", "demo://a", session="s2"))


def test_a_listener_without_interest_gets_every_event() -> None:
    assert _routed(None, Event(S, "prompts"))
    assert _routed(None, Event("", "task", task_id="t9"))


def test_a_sessions_subscribe_and_unsubscribe_change_its_listeners_routing_in_order() -> None:
    index: Index[str] = Index()
    index.add("mine", Interest(S, uris=frozenset({"demo://a"}), session="s1"))
    index.add("other", Interest(S, session="s2"))
    update_b = Event(S, "resource_updated", "demo://b/1")

    assert index.route(update_b) == set()
    assert index.route(Event("", "subscribed", "demo://b", session="s1")) == {"mine"}
    assert index.route(update_b) == {"mine"}
    index.route(Event("", "unsubscribed", "demo://b", session="s1"))
    assert index.route(update_b) == set()
    # The remaining subscription "demo://a" still routes, though it shares no key with b.
    assert index.route(Event(S, "resource_updated", "demo://a/x")) == {"mine"}


def test_unsubscribing_one_of_two_uris_with_the_same_stem_keeps_the_other() -> None:
    index: Index[str] = Index()
    index.add("mine", Interest(S, uris=frozenset({"demo://a", "demo://a/"}), session="s1"))
    index.route(Event("", "unsubscribed", "demo://a/", session="s1"))
    assert index.route(Event(S, "resource_updated", "demo://a/x")) == {"mine"}


def test_a_discarded_listener_leaves_no_key_behind() -> None:
    index: Index[str] = Index()
    index.add("mine", Interest(S, lists=frozenset({"tools"}), uris=frozenset({"demo://a"}), session="s1"))
    index.add("all", None)
    index.discard("mine")
    index.discard("all")
    assert len(index) == 0
    assert index._by_key == {}


def test_the_keys_of_an_update_grow_with_its_uri_not_with_anything_else() -> None:
    keys = list(event_keys(Event(S, "resource_updated", "demo://a/b/c")))
    # The URI itself, then each stem followed by "/": "demo:", "demo:/", "demo://a", "demo://a/b".
    assert len(keys) == 5
