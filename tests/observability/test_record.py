"""What every observer records of a request: django_mcp/observability/_record.py.

A URI is recorded without what may carry a credential: its query string,
its fragment and the user information of its authority (``redact_uri``).
"""

from __future__ import annotations

import pytest

from django_mcp.observability._record import component_of, redact_uri


@pytest.mark.parametrize(
    ("uri", "recorded"),
    [
        ("sec://x?token=abc&page=2", "sec://x?[redacted]"),
        ("sec://x?", "sec://x?[redacted]"),
        ("sec://x#access_token=abc", "sec://x#[redacted]"),
        ("sec://x#frag?token=abc", "sec://x#[redacted]"),
        ("sec://x?token=abc#frag", "sec://x?[redacted]"),
        ("https://ada:pw@example.com/a?b", "https://[redacted]@example.com/a?[redacted]"),
        ("https://token@example.com", "https://[redacted]@example.com"),
        ("https://example.com/people/ada@example.com", "https://example.com/people/ada@example.com"),
        ("mailto:ada@example.com", "mailto:ada@example.com"),
        ("skill://acme/billing/SKILL.md", "skill://acme/billing/SKILL.md"),
        ("file:///srv/notes.txt", "file:///srv/notes.txt"),
    ],
)
def test_a_uri_is_recorded_without_its_query_fragment_or_user_information(uri: str, recorded: str) -> None:
    assert redact_uri(uri) == recorded


@pytest.mark.parametrize(
    "method",
    [
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "resources/directory/read",
        "skills/get",
    ],
)
def test_the_component_of_a_uri_method_is_its_redacted_uri(method: str) -> None:
    assert component_of(method, {"uri": "sec://x?token=abc"}) == "sec://x?[redacted]"


def test_a_tool_name_is_recorded_as_it_is() -> None:
    assert component_of("tools/call", {"name": "ask?token=abc"}) == "ask?token=abc"
