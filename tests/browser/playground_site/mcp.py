"""Publish the admin playground's fixture server at ``/mcp/playground``."""

from __future__ import annotations

import django_mcp
from tests.admin.servers import PlaygroundServer

django_mcp.web("playground", PlaygroundServer)
