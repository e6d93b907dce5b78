"""A project's ModelAdmins as MCP tools, with the admin's permissions and row scope.

``ModelAdminTools(BookAdmin, prefix="admin-book", actions=(...))`` returns a
tuple of ordinary ``Tool`` classes to list in a server's ``tools``::

    class ShelfServer(Server):
        tools = (*ModelAdminTools(BookAdmin, actions=("list", "get", "change")),)

Actions: ``list``, ``get``, ``add``, ``change``, ``delete`` and the admin's
own actions by name (``delete_selected``, or a method listed in
``actions``); by default ``list`` and ``get`` only. Tool names are
``<prefix>-<action>`` with ``_`` written as ``-``; the prefix defaults to
the model name.

The admin's code runs in-process as the MCP caller, with its rules:

* A tool is visible (and callable) only when the site's
  ``has_permission()`` and the action's permission method allow it;
  otherwise it is absent from ``tools/list`` and answers like an unknown
  tool.
* Every lookup goes through ``get_queryset()`` (and ``get_search_results()``
  for ``search``): a row outside it answers exactly like a missing one.
* Each action uses the form the admin itself would: ``add`` the add
  view's (``get_form(request, None, change=False)``), ``get``, ``list`` and
  ``change`` the change view's (``get_form(request, obj, change=True)``,
  ``get_fieldsets()``, ``get_readonly_fields()``), so an admin whose add
  and change forms differ (``UserAdmin``) is served as its pages are.
* Writes use ``get_form()``, ``save_model()``, ``save_related()`` and
  ``delete_model()`` (an action, its own function) in a transaction that
  also builds and checks the answer: a write whose answer fails is rolled
  back, and a committed write is answered as a success. ``change`` is a
  partial update: fields the caller leaves out keep their stored values,
  unvalidated and unwritten.
* Results show ``id`` and the change page's model fields, never a field
  the admin's form leaves out, and never a secret
  (``django_mcp.contrib.secrets``: password hashes, token keys, client
  secrets, ``MCP_HIDDEN_FIELDS`` and ``hidden_fields``).

``AdminSiteTools()`` (``django_mcp.contrib.admin.site``) gives the tools of
every ModelAdmin of a site at once. See ``docs/contrib.md``.
"""

from django_mcp.contrib.admin._factory import STANDARD_ACTIONS, ModelAdminTools
from django_mcp.contrib.admin._site import AdminSiteTools

__all__ = ["STANDARD_ACTIONS", "AdminSiteTools", "ModelAdminTools"]
