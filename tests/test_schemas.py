"""Tests for django_mcp.schemas: the public face of the package."""

from django_mcp import schemas


def test_public_surface_is_pinned_and_documented() -> None:
    assert schemas.__all__ == [
        "DECIMAL_PATTERN",
        "Schema",
        "has_rules",
        "json_schema_for",
        "rule",
        "schema_error",
        "validate",
    ]
    for name in schemas.__all__:
        assert getattr(schemas, name).__doc__
    assert schemas.__doc__
