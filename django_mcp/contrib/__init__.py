"""Integrations with Django's own apps and with third-party packages.

* ``django_mcp.contrib.admin``: a project's ModelAdmins as tools
  (``ModelAdminTools``).
* ``django_mcp.contrib.drf``: a project's Django REST framework ViewSets as
  tools (``ViewSetTools``); it imports DRF, the ``drf`` extra, only when
  called.
* ``django_mcp.contrib.oauth_toolkit``: django-oauth-toolkit bearer tokens;
  it imports its package at import time, so import it only when its extra
  is installed (``pip install 'django-mcp-toolkit[oauth]'``).
"""

__all__: list[str] = []
