"""The translations shipped in ``django_mcp/locale``: complete, compiled, and used.

Every user-facing string of the admin section, the playground, the system
checks and the management commands is marked for translation; JSON-RPC
error messages sent to MCP clients are not (clients and models read them).
The Spanish catalog must translate every marked string: the completeness
test runs ``makemessages`` (GNU gettext's ``xgettext``) on a copy of the
package and names each msgid the shipped ``.po`` lacks or marks fuzzy, so a
new string is a failing test that says what to translate. The ``.mo`` must
be compiled from the ``.po`` as it is (``msgfmt --check -o django.mo
django.po`` inside ``django_mcp/locale/es/LC_MESSAGES``).

Without ``xgettext`` the completeness test is skipped, except when the
``CI`` environment variable is set (``.ci/run`` installs Debian's
``gettext``).
"""

from __future__ import annotations

import gettext
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from django.contrib.auth.models import Permission
from django.core.checks import Error
from django.core.management import CommandError, call_command, load_command_class
from django.core.management.base import SystemCheckError
from django.utils import translation

from django_mcp.checks import check_settings
from django_mcp.exceptions import InvalidParams, MethodNotFound
from django_mcp.registry import registry
from tests.playground import PlaygroundServer

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "django_mcp"
LANGUAGES = ("es",)


def _catalog(language: str) -> Any:
    with (PACKAGE / "locale" / language / "LC_MESSAGES" / "django.po").open("rb") as po:
        return read_po(po)


def _untranslated(catalog: Any) -> list[str]:
    """Return the msgids of ``catalog`` without a complete translation, or fuzzy."""
    missing = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            missing.append(message.id if isinstance(message.id, str) else message.id[0])
    return missing


@pytest.mark.parametrize("language", LANGUAGES)
def test_makemessages_finds_every_marked_string_translated(language: str, tmp_path: Path) -> None:
    if shutil.which("xgettext") is None or shutil.which("msgmerge") is None:
        if os.environ.get("CI"):
            pytest.fail("GNU gettext (xgettext, msgmerge) is missing; .ci/run installs it")
        pytest.skip("GNU gettext is not installed (apt-get install gettext)")
    copy = tmp_path / "django_mcp"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    done = subprocess.run(
        [sys.executable, "-m", "django", "makemessages", "-l", language, "--no-location", "--no-obsolete"],
        cwd=copy,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "testproject.settings", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    with (copy / "locale" / language / "LC_MESSAGES" / "django.po").open("rb") as po:
        fresh = read_po(po)
    shipped = _catalog(language)
    shipped_ids = {message.id for message in shipped if message.id}

    # msgmerge keeps the translations it can match; a new string comes in
    # empty (or fuzzy, guessed from a similar one).
    missing = sorted(
        set(_untranslated(fresh)) | {str(m.id) for m in fresh if m.id and m.id not in shipped_ids}
    )
    assert missing == [], (
        f"django_mcp/locale/{language}/LC_MESSAGES/django.po lacks a translation of these msgids "
        f"(run `django-admin makemessages -l {language} --no-location --no-obsolete` in django_mcp/, "
        "translate them, then `msgfmt --check -o django.mo django.po` in its folder):\n"
        + "\n".join(repr(msgid) for msgid in missing)
    )
    stale = sorted(str(m.id) for m in shipped if m.id and m.id not in {f.id for f in fresh if f.id})
    assert stale == [], f"msgids no longer in the code (run makemessages --no-obsolete): {stale}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalog_is_the_po_file_compiled(language: str) -> None:
    folder = PACKAGE / "locale" / language / "LC_MESSAGES"
    with (folder / "django.mo").open("rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    catalog = _catalog(language)

    assert _untranslated(catalog) == []
    expected: dict[Any, str] = {}
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            # The .po has three Spanish plural forms (CLDR's; Django's own catalog has them too).
            for index, text in enumerate(message.string):
                expected[(message.id[0], index)] = text
        else:
            expected[message.id] = message.string
    shipped = {key: value for key, value in compiled._catalog.items() if key != ""}  # type: ignore[attr-defined]
    assert shipped == expected, "django.mo is stale: run `msgfmt --check -o django.mo django.po` in " + str(
        folder.relative_to(ROOT)
    )


# ------------------------------------------------------------ in Spanish


@pytest.fixture
def playground() -> Any:
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}})
    registry.web("playground", PlaygroundServer)
    try:
        yield
    finally:
        registry.restore(saved)


@pytest.fixture
def staff_client(django_user_model: Any, client: Any) -> Any:
    user = django_user_model.objects.create_user(username="ana", password="pw-123456", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="use_playground"))
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_the_catalog_page_is_in_spanish(playground: None, staff_client: Any, settings: Any) -> None:
    settings.LANGUAGE_CODE = "es"

    page = staff_client.get("/admin/django_mcp/mcpcatalog/").content.decode()

    assert "<title>Catálogo MCP |" in page
    assert "1 servidor," in page and "6 herramientas," in page
    assert "Abra un componente para probarlo en el banco de pruebas." in page
    assert "<span>Requiere inicio de sesión</span>" in page
    assert "Login required" not in page and "Open a component" not in page


@pytest.mark.django_db
def test_a_playground_result_is_in_spanish(playground: None, staff_client: Any) -> None:
    url = "/admin/django_mcp/mcpcatalog/tests.playground.PlaygroundServer~tool~fail/change/"
    with translation.override("es"):
        page = staff_client.post(url, {"step": "call"}, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    # The admin follows the active language; without LocaleMiddleware that is LANGUAGE_CODE.
    english = staff_client.post(url, {"step": "call"}).content.decode()

    assert "Banco de pruebas: <code>tools/call</code> como ana" in page
    assert "La herramienta informó de un error (<code>isError: true</code>)." in page
    assert "<h2>Resultado</h2>" in page
    # What the server answered is not translated: it is what a client gets.
    assert "It went wrong on purpose." in page
    assert "The tool reported an error" in english


def test_manage_py_check_speaks_spanish(settings: Any) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 500
    settings.MCP_MAX_PAGE_SIZE = 100
    out = io.StringIO()

    with translation.override("es"), pytest.raises(SystemCheckError) as raised:
        call_command("check", stdout=out, stderr=out)
    with translation.override("es"):
        messages = [message for message in check_settings() if message.id == "django_mcp.E003"]

    assert "MCP_DEFAULT_PAGE_SIZE (500) es mayor que MCP_MAX_PAGE_SIZE (100)." in str(raised.value)
    assert messages == [
        Error(
            "MCP_DEFAULT_PAGE_SIZE (500) es mayor que MCP_MAX_PAGE_SIZE (100).",
            hint="Reduzca MCP_DEFAULT_PAGE_SIZE o aumente MCP_MAX_PAGE_SIZE; una página nunca "
            "contiene más de MCP_MAX_PAGE_SIZE elementos.",
            id="django_mcp.E003",
        )
    ]


def test_a_command_s_help_and_errors_are_in_spanish() -> None:
    with translation.override("es"):
        with pytest.raises(CommandError, match="Ningún servidor MCP local se llama 'nope'"):
            call_command("mcp_stdio", "nope")
        parser = load_command_class("django_mcp", "mcp_prune_audit").create_parser(
            "manage.py", "mcp_prune_audit"
        )
        text = parser.format_help()

    assert "Elimina las entradas de auditoría MCP" in text
    assert "Cuenta lo que se eliminaría; no elimina nada." in text


def test_the_extension_setting_check_is_in_spanish(settings: Any) -> None:
    settings.MCP_TASKS_EXTENSION = "off"

    with translation.override("es"):
        messages = [message for message in check_settings() if message.id == "django_mcp.E040"]

    assert messages == [
        Error(
            "MCP_TASKS_EXTENSION debe ser True o False; se recibió 'off'.",
            hint="True (el valor por defecto) sirve esta extensión Beta a los servidores que la ofrecen; "
            "False deja de anunciarla y responde -32601 a sus métodos.",
            id="django_mcp.E040",
        )
    ]


def test_the_mcp_apps_and_server_card_commands_are_in_spanish() -> None:
    with translation.override("es"):
        with pytest.raises(
            CommandError, match="No hay ninguna aplicación instalada con la etiqueta 'nowhere'"
        ):
            call_command("startmcpapp", "nowhere", "board")
        app_help = load_command_class("django_mcp", "startmcpapp").create_parser("manage.py", "startmcpapp")
        card_help = load_command_class("django_mcp", "mcp_card").create_parser("manage.py", "mcp_card")
        app_text, card_text = app_help.format_help(), card_help.format_help()

    assert "Escribe una nueva App MCP en una aplicación instalada" in " ".join(app_text.split())
    assert "El nombre de la App, como 'order-board'." in " ".join(app_text.split())
    assert "Escribe la Server Card (SEP-2127, borrador)" in " ".join(card_text.split())
    assert "URL absoluta del endpoint Streamable HTTP." in " ".join(card_text.split())


def test_json_rpc_errors_stay_english() -> None:
    with translation.override("es"):
        assert MethodNotFound().message == "Method not found"
        assert InvalidParams().message == "Invalid params"
