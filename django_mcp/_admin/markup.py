"""Which admin markup the MCP pages emit: the one the running Django styles.

Django 6.1 rewrote parts of the admin's page frame, and its style sheets
style only the new markup:

* breadcrumbs are an ordered list (``<ol class="breadcrumbs">``, one
  ``<li>`` per crumb, the current page ``aria-current="page"``) instead of
  a ``<div class="breadcrumbs">`` of links joined by ``&rsaquo;``;
* a page's object tools (the HISTORY button) sit beside its title, in the
  base template's ``titles-and-tools`` row (the ``object-tools`` block,
  outside ``content``), instead of at the top of the content;
* a change list's filter is a ``<search>`` element inside
  ``.changelist-form-container``, next to a ``<div>`` holding the toolbar
  and results, instead of a ``<nav>`` beside that container;
* an aligned form row stacks label, help text and input in one column
  (help text between label and input), instead of a 160-pixel label column
  with the help text indented under the input.

Django 5.2 and 6.0 use the older markup.
"""

from __future__ import annotations

import dataclasses
from typing import Final

import django

__all__ = ["ADMIN_MARKUP", "AdminMarkup"]

#: The first Django release with the newer admin markup.
_NEWER_MARKUP_SINCE: Final = (6, 1)


@dataclasses.dataclass(frozen=True)
class AdminMarkup:
    """The markup choices that differ between admin versions (see module)."""

    breadcrumb_list: bool
    tools_beside_title: bool
    filter_in_results: bool
    stacked_fields: bool

    @classmethod
    def for_version(cls, version: tuple[int | str, ...]) -> AdminMarkup:
        """Return the markup Django ``version`` (``django.VERSION``) styles."""
        newer = (int(version[0]), int(version[1])) >= _NEWER_MARKUP_SINCE
        return cls(
            breadcrumb_list=newer, tools_beside_title=newer, filter_in_results=newer, stacked_fields=newer
        )


ADMIN_MARKUP: Final = AdminMarkup.for_version(django.VERSION)
"""The markup of the running Django."""
