"""Tests for django_mcp.ui.origins: external origins an App's sources load from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from django_mcp import AppResource, Csp
from django_mcp.ui.origins import Reference, undeclared_origins


@pytest.fixture
def pages(tmp_path: Path, settings: Any) -> Path:
    templates = tmp_path / "templates"
    static = tmp_path / "static"
    templates.mkdir()
    static.mkdir()
    settings.TEMPLATES = [
        {"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [str(templates)]}
    ]
    settings.STATICFILES_DIRS = [str(static)]
    return tmp_path


def app(template: str, csp: Csp | None = None) -> type[AppResource]:
    return type("PageApp", (AppResource,), {"template_name": template, "csp": csp or Csp()})


def test_scripts_styles_images_and_connections_are_found(pages: Path) -> None:
    (pages / "templates" / "page.html").write_text(
        '<script src="https://cdn.example.com/x.js"></script>'
        "<link rel=stylesheet href='//fonts.example.org/a.css'>"
        '<img srcset="HTTPS://IMG.example.net/a.png 2x">'
        "<style>body { background: url( 'http://bg.example.com:8080/b.png' ) }</style>"
        '<script>fetch("https://api.example.com/v1"); new WebSocket("wss://live.example.com")</script>'
        '<a href="https://docs.example.com/">docs</a><img src="/static/local.png">',
        encoding="utf-8",
    )

    found = undeclared_origins(app("page.html"))

    assert found == [
        Reference("https://cdn.example.com", "resource_domains", "page.html"),
        Reference("https://fonts.example.org", "resource_domains", "page.html"),
        Reference("https://img.example.net", "resource_domains", "page.html"),
        Reference("http://bg.example.com:8080", "resource_domains", "page.html"),
        Reference("https://api.example.com", "connect_domains", "page.html"),
        Reference("wss://live.example.com", "connect_domains", "page.html"),
    ]


def test_declared_origins_and_wildcards_are_accepted(pages: Path) -> None:
    (pages / "templates" / "page.html").write_text(
        '<script src="https://cdn.example.com/x.js"></script><img src="https://a.b.example.net/i.png">'
        '<script>fetch("https://api.example.com/v1")</script>',
        encoding="utf-8",
    )
    csp = Csp(
        resource_domains=("https://cdn.example.com", "https://*.example.net"),
        connect_domains=("https://api.example.com",),
    )

    assert undeclared_origins(app("page.html", csp)) == []


def test_a_connection_needs_connect_domains_not_resource_domains(pages: Path) -> None:
    (pages / "templates" / "page.html").write_text(
        '<script>fetch("https://api.example.com/v1")</script>', encoding="utf-8"
    )
    csp = Csp(resource_domains=("https://api.example.com",))

    assert undeclared_origins(app("page.html", csp)) == [
        Reference("https://api.example.com", "connect_domains", "page.html")
    ]


def test_extended_included_and_inlined_sources_are_read(pages: Path) -> None:
    templates = pages / "templates"
    (templates / "base.html").write_text(
        '<script src="https://base.example.com/b.js"></script>{% block body %}{% endblock %}',
        encoding="utf-8",
    )
    (templates / "part.html").write_text('<img src="https://part.example.com/p.png">', encoding="utf-8")
    (pages / "static" / "page.css").write_text(
        '@import "https://css.example.com/more.css";', encoding="utf-8"
    )
    (templates / "page.html").write_text(
        '{% extends "base.html" %}{% load mcp_apps %}{% block body %}{% include "part.html" %}'
        '{% mcp_inline_static "page.css" %}{% include "part.html" %}{% endblock %}',
        encoding="utf-8",
    )

    found = undeclared_origins(app("page.html"))

    assert sorted(found) == [
        Reference("https://base.example.com", "resource_domains", "base.html"),
        Reference("https://css.example.com", "resource_domains", "page.css"),
        Reference("https://part.example.com", "resource_domains", "part.html"),
    ]


def test_a_missing_template_is_left_to_its_own_check(pages: Path) -> None:
    assert undeclared_origins(app("missing.html")) == []
