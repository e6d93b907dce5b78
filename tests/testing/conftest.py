"""The client most McpTestClient tests drive: the conformance fixture server's."""

import pytest

from django_mcp.testing import McpTestClient
from testproject.conformance.mcp import ConformanceServer


@pytest.fixture
def client() -> McpTestClient:
    return McpTestClient(ConformanceServer)
