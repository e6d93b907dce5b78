"""The skills extension on the wire: skills/list, skills/get, directory reads, file reads."""

from __future__ import annotations

import base64
import json
import os
import types
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest
from django.test import AsyncRequestFactory

from django_mcp import CacheHint, McpRequest, Server, Skill
from django_mcp.dispatcher import Dispatcher
from django_mcp.dispatcher.codec import parse_message
from django_mcp.dispatcher.context import CallContext
from django_mcp.protocol import jsonrpc
from django_mcp.testing import McpTestClient
from testproject.conformance.mcp import ConformanceServer
from tests.skill_folders import digest, write_skill
from tests.wire import META_SERVER_INFO, modern_headers, modern_request

pytest.importorskip("yaml", reason="the skills extra (PyYAML) is not installed")

PNG = b"\x89PNG\r\n\x1a\n\x00\x00"
GUIDE = "# Guide\n"


@pytest.fixture
def skills_dir(tmp_path: Path, settings: Any) -> Path:
    """Two skills: ``guide`` (a text file, a blob and a folder) and ``tiny``."""
    write_skill(tmp_path, "guide", {"refs/guide.md": GUIDE, "logo.png": PNG})
    write_skill(tmp_path, "tiny")
    settings.MCP_SKILLS_DIRS = [tmp_path]
    return tmp_path


def server(skills: Any = ("guide", "tiny"), **attrs: Any) -> type[Server]:
    return type("SkillsServer", (Server,), {"name": "skills", "skills": skills, **attrs})


def result(reply: dict[str, Any]) -> dict[str, Any]:
    assert "result" in reply, reply
    body = dict(reply["result"])
    body.pop("_meta")
    return body


def error(reply: dict[str, Any]) -> dict[str, Any]:
    assert "error" in reply, reply
    return reply["error"]  # type: ignore[no-any-return]


def entry(name: str, root: Path, *files: tuple[str, bytes | str]) -> dict[str, Any]:
    text = (root / name / "SKILL.md").read_text()
    listed = [(f"skill://{name}/SKILL.md", text), *((f"skill://{name}/{path}", data) for path, data in files)]
    return {
        "uri": f"skill://{name}/SKILL.md",
        "frontmatter": {"name": name, "description": "Do one thing well."},
        "resources": [
            {
                "uri": uri,
                "digest": digest(data),
                "size": len(data.encode() if isinstance(data, str) else data),
            }
            for uri, data in listed
        ],
    }


# ------------------------------------------------------------ skills/list


async def test_list_answers_every_entry_with_its_manifest_and_cache_hint(skills_dir: Path) -> None:
    reply = await McpTestClient(server(cache=CacheHint(ttl_ms=60_000, scope="public"))).request("skills/list")

    assert result(reply) == {
        "resultType": "complete",
        "skills": [
            entry("guide", skills_dir, ("logo.png", PNG), ("refs/guide.md", GUIDE)),
            entry("tiny", skills_dir),
        ],
        "ttlMs": 60_000,
        "cacheScope": "public",
    }


async def test_list_pages_with_signed_cursors(skills_dir: Path, settings: Any) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 1
    client = McpTestClient(server())

    first = result(await client.request("skills/list"))
    second = result(await client.request("skills/list", {"cursor": first["nextCursor"]}))

    assert [s["uri"] for s in first["skills"] + second["skills"]] == [
        "skill://guide/SKILL.md",
        "skill://tiny/SKILL.md",
    ]
    assert "nextCursor" not in second


async def test_a_cursor_of_another_list_is_invalid_params(skills_dir: Path, settings: Any) -> None:
    settings.MCP_DEFAULT_PAGE_SIZE = 1
    client = McpTestClient(ConformanceServer)
    tools_cursor = result(await client.request("tools/list"))["nextCursor"]

    reply = await client.request("skills/list", {"cursor": tools_cursor})

    assert error(reply)["code"] == jsonrpc.INVALID_PARAMS


async def test_a_page_ends_before_an_entry_that_would_pass_half_the_response_limit(
    tmp_path: Path, settings: Any
) -> None:
    for name in ("one", "two", "three"):
        write_skill(tmp_path, name, {f"f{i}.md": "x" for i in range(20)})
    settings.MCP_SKILLS_DIRS = [tmp_path]
    settings.MCP_MAX_RESPONSE_SIZE = 4000  # about two entries (1.5 KiB each) per 2000-byte page
    client = McpTestClient(server(("one", "two", "three")))

    pages = []
    cursor: str | None = None
    while True:
        page = result(await client.request("skills/list", {} if cursor is None else {"cursor": cursor}))
        pages.append([s["uri"] for s in page["skills"]])
        cursor = page.get("nextCursor")
        if cursor is None:
            break

    assert pages == [["skill://one/SKILL.md"], ["skill://two/SKILL.md"], ["skill://three/SKILL.md"]]


async def test_a_page_always_holds_its_first_entry_however_large(tmp_path: Path, settings: Any) -> None:
    write_skill(tmp_path, "big", {f"f{i}.md": "x" for i in range(40)})
    write_skill(tmp_path, "next")
    settings.MCP_SKILLS_DIRS = [tmp_path]
    settings.MCP_MAX_RESPONSE_SIZE = 8000  # the entry (about 5 KiB) is over half of it

    page = result(await McpTestClient(server(("big", "next"))).request("skills/list"))

    assert [len(s["resources"]) for s in page["skills"]] == [41]
    assert "nextCursor" in page


# ------------------------------------------------------------- skills/get


async def test_get_answers_the_entry_with_the_skills_own_cache_hint(skills_dir: Path) -> None:
    class GuideSkill(Skill):
        cache = CacheHint(ttl_ms=300_000, scope="public")

    reply = await McpTestClient(server((GuideSkill,))).request(
        "skills/get", {"uri": "skill://guide/SKILL.md"}
    )

    assert result(reply) == {
        "resultType": "complete",
        "skill": entry("guide", skills_dir, ("logo.png", PNG), ("refs/guide.md", GUIDE)),
        "ttlMs": 300_000,
        "cacheScope": "public",
    }


@pytest.mark.parametrize(
    "uri", ["skill://nope/SKILL.md", "skill://guide", "skill://guide/refs/guide.md", "test://static-text"]
)
async def test_get_of_anything_but_a_served_skill_md_is_invalid_params(skills_dir: Path, uri: str) -> None:
    reply = await McpTestClient(server()).request("skills/get", {"uri": uri})

    assert error(reply) == {
        "code": jsonrpc.INVALID_PARAMS,
        "message": f"No skill is served at {uri}",
        "data": {"uri": uri},
    }


@pytest.mark.parametrize("params", [{}, {"uri": 3}, {"uri": ""}])
async def test_get_needs_a_string_uri(skills_dir: Path, params: dict[str, Any]) -> None:
    reply = await McpTestClient(server()).request("skills/get", params)

    assert error(reply) == {"code": jsonrpc.INVALID_PARAMS, "message": "skills/get needs a string uri"}


# ------------------------------------------------------------- visibility


class OnlyAnnSkill(Skill):
    name = "guide"

    def authorize(self, request: McpRequest) -> bool:
        return getattr(request.user, "username", None) == "ann"


ANN = types.SimpleNamespace(username="ann", is_active=True, is_authenticated=True)


async def test_a_hidden_skill_is_absent_everywhere_and_answers_like_an_unknown_one(skills_dir: Path) -> None:
    guarded = server((OnlyAnnSkill, "tiny"))
    anonymous = McpTestClient(guarded)
    ann = McpTestClient(guarded, ANN)

    listed = [s["uri"] for s in result(await anonymous.request("skills/list"))["skills"]]
    resources = [r["uri"] for r in result(await anonymous.request("resources/list"))["resources"]]
    got = error(await anonymous.request("skills/get", {"uri": "skill://guide/SKILL.md"}))
    read = error(await anonymous.request("resources/read", {"uri": "skill://guide/refs/guide.md"}))
    folder = error(await anonymous.request("resources/directory/read", {"uri": "skill://guide/refs"}))

    assert listed == resources == ["skill://tiny/SKILL.md"]
    assert got == {
        "code": jsonrpc.INVALID_PARAMS,
        "message": "No skill is served at skill://guide/SKILL.md",
        "data": {"uri": "skill://guide/SKILL.md"},
    }
    assert read == {
        "code": jsonrpc.INVALID_PARAMS,
        "message": ANY,
        "data": {"uri": "skill://guide/refs/guide.md"},
    }
    assert folder == {
        "code": jsonrpc.INVALID_PARAMS,
        "message": "skill://guide/refs is not a directory resource",
        "data": {"uri": "skill://guide/refs"},
    }
    assert [s["uri"] for s in result(await ann.request("skills/list"))["skills"]] == [
        "skill://guide/SKILL.md",
        "skill://tiny/SKILL.md",
    ]
    ann_get = result(await ann.request("skills/get", {"uri": "skill://guide/SKILL.md"}))
    assert (ann_get["ttlMs"], ann_get["cacheScope"]) == (0, "private")


async def test_a_hidden_skill_leaves_no_trace_in_a_shared_prefix_directory(skills_dir: Path) -> None:
    class GuideSkill(OnlyAnnSkill):
        prefix = "docs"

    class TinySkill(Skill):
        prefix = "docs"

    guarded = server((GuideSkill, TinySkill))

    anonymous = result(
        await McpTestClient(guarded).request("resources/directory/read", {"uri": "skill://docs"})
    )
    ann = result(
        await McpTestClient(guarded, ANN).request("resources/directory/read", {"uri": "skill://docs"})
    )

    assert [r["uri"] for r in anonymous["resources"]] == ["skill://docs/tiny"]
    assert [r["uri"] for r in ann["resources"]] == ["skill://docs/guide", "skill://docs/tiny"]


# ------------------------------------------------------------ directories


async def test_a_directory_read_lists_direct_children(skills_dir: Path) -> None:
    client = McpTestClient(server())

    root = result(await client.request("resources/directory/read", {"uri": "skill://guide"}))
    refs = result(await client.request("resources/directory/read", {"uri": "skill://guide/refs"}))

    skill_md_size = len((skills_dir / "guide" / "SKILL.md").read_bytes())
    assert root == {
        "resultType": "complete",
        "resources": [
            {
                "uri": "skill://guide/SKILL.md",
                "name": "guide",
                "description": "Do one thing well.",
                "mimeType": "text/markdown",
                "size": skill_md_size,
            },
            {"uri": "skill://guide/logo.png", "name": "logo.png", "mimeType": "image/png", "size": len(PNG)},
            {"uri": "skill://guide/refs", "name": "refs", "mimeType": "inode/directory"},
        ],
    }
    assert refs["resources"] == [
        {
            "uri": "skill://guide/refs/guide.md",
            "name": "guide.md",
            "mimeType": "text/markdown",
            "size": len(GUIDE),
        }
    ]


@pytest.mark.parametrize(
    "uri", ["skill://guide/SKILL.md", "skill://guide/nope", "skill://", "test://static-text"]
)
async def test_a_directory_read_of_anything_but_a_directory_is_invalid_params(
    skills_dir: Path, uri: str
) -> None:
    reply = await McpTestClient(server()).request("resources/directory/read", {"uri": uri})

    assert error(reply) == {
        "code": jsonrpc.INVALID_PARAMS,
        "message": f"{uri} is not a directory resource",
        "data": {"uri": uri},
    }


async def test_directory_pages_have_cursors_bound_to_their_directory(tmp_path: Path, settings: Any) -> None:
    write_skill(tmp_path, "wide", {f"a/{i}.md": "" for i in range(3)} | {f"b/{i}.md": "" for i in range(3)})
    settings.MCP_SKILLS_DIRS = [tmp_path]
    settings.MCP_DEFAULT_PAGE_SIZE = 2
    client = McpTestClient(server(("wide",)))

    first = result(await client.request("resources/directory/read", {"uri": "skill://wide/a"}))
    second = result(
        await client.request(
            "resources/directory/read", {"uri": "skill://wide/a", "cursor": first["nextCursor"]}
        )
    )
    elsewhere = await client.request(
        "resources/directory/read", {"uri": "skill://wide/b", "cursor": first["nextCursor"]}
    )

    assert [r["name"] for r in first["resources"] + second["resources"]] == ["0.md", "1.md", "2.md"]
    assert "nextCursor" not in second
    assert error(elsewhere)["code"] == jsonrpc.INVALID_PARAMS


async def test_directory_reads_are_not_served_unless_declared(skills_dir: Path) -> None:
    reply = await McpTestClient(server(skills_directory_read=False)).request(
        "resources/directory/read", {"uri": "skill://guide"}
    )

    assert error(reply)["code"] == jsonrpc.METHOD_NOT_FOUND


# ------------------------------------------------------------- file reads


async def test_a_text_file_reads_as_text_and_a_binary_one_as_a_blob(skills_dir: Path) -> None:
    client = McpTestClient(server())

    text = result(await client.request("resources/read", {"uri": "skill://guide/refs/guide.md"}))
    blob = result(await client.request("resources/read", {"uri": "skill://guide/logo.png"}))

    assert text == {
        "resultType": "complete",
        "contents": [{"uri": "skill://guide/refs/guide.md", "text": GUIDE, "mimeType": "text/markdown"}],
        "ttlMs": 0,
        "cacheScope": "private",
    }
    assert blob["contents"] == [
        {"uri": "skill://guide/logo.png", "blob": base64.b64encode(PNG).decode(), "mimeType": "image/png"}
    ]


async def test_the_bytes_read_are_the_ones_the_manifest_digests(skills_dir: Path) -> None:
    client = McpTestClient(server())
    manifest = result(await client.request("skills/get", {"uri": "skill://guide/SKILL.md"}))["skill"][
        "resources"
    ]

    for item in manifest:
        [content] = result(await client.request("resources/read", {"uri": item["uri"]}))["contents"]
        raw = content["text"].encode() if "text" in content else base64.b64decode(content["blob"])
        assert (digest(raw), len(raw)) == (item["digest"], item["size"])


@pytest.mark.parametrize("change", ["edit", "delete"])
async def test_a_file_changed_since_startup_is_an_internal_error(
    skills_dir: Path, change: str, caplog: pytest.LogCaptureFixture
) -> None:
    client = McpTestClient(server())
    await client.request("skills/list")  # compiled: the digests are published
    target = skills_dir / "guide" / "refs" / "guide.md"
    if change == "edit":
        target.write_text("# Guide, edited\n")
    else:
        target.unlink()

    reply = await client.request("resources/read", {"uri": "skill://guide/refs/guide.md"})

    assert error(reply)["code"] == jsonrpc.INTERNAL_ERROR
    assert "skill://guide/refs/guide.md" in caplog.text


async def test_a_skill_with_a_link_outside_its_folder_is_served_nowhere(
    skills_dir: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "outside" / "passwd"
    secret.parent.mkdir()
    secret.write_text("root:x:0:0\n")
    folder = write_skill(skills_dir, "good", {"notes.md": "# Notes\n"})
    os.symlink(secret, folder / "passwd-link.txt")
    client = McpTestClient(server(("guide", "good")))

    listed = [s["uri"] for s in result(await client.request("skills/list"))["skills"]]
    resources = [r["uri"] for r in result(await client.request("resources/list"))["resources"]]
    answers = [
        error(await client.request("resources/read", {"uri": f"skill://{name}/passwd-link.txt"}))
        for name in ("good", "nobody")
    ]

    assert listed == resources == ["skill://guide/SKILL.md"]
    assert answers == [
        {"code": jsonrpc.INVALID_PARAMS, "message": ANY, "data": {"uri": f"skill://{name}/passwd-link.txt"}}
        for name in ("good", "nobody")
    ]
    assert answers[0]["message"] == answers[1]["message"]
    got = error(await client.request("skills/get", {"uri": "skill://good/SKILL.md"}))
    assert got["data"] == {"uri": "skill://good/SKILL.md"}


async def test_over_http_an_anonymous_read_of_a_linked_file_answers_like_an_unknown_uri(
    skills_dir: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0\n")
    os.symlink(secret, skills_dir / "guide" / "passwd-link.txt")
    view = server().as_view()

    async def read(uri: str) -> dict[str, Any]:
        body = modern_request("resources/read", {"uri": uri})
        request = AsyncRequestFactory().post(
            "/mcp", data=json.dumps(body), content_type="application/json", headers=modern_headers(body)
        )
        response = await view(request)
        assert "root:x" not in response.content.decode()
        return error(json.loads(response.content))

    linked, unknown = (
        await read("skill://guide/passwd-link.txt"),
        await read("skill://nobody/passwd-link.txt"),
    )

    assert linked == {**unknown, "data": {"uri": "skill://guide/passwd-link.txt"}}


async def test_a_file_swapped_for_a_link_outside_after_startup_is_not_served(
    skills_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    client = McpTestClient(server())
    await client.request("skills/list")  # compiled: the digests are published
    # The same bytes outside: the digest alone would not tell.
    copy = tmp_path / "elsewhere" / "guide.md"
    copy.parent.mkdir()
    copy.write_text(GUIDE)
    target = skills_dir / "guide" / "refs" / "guide.md"
    target.unlink()
    os.symlink(copy, target)

    reply = await client.request("resources/read", {"uri": "skill://guide/refs/guide.md"})
    unknown = await client.request("resources/read", {"uri": "skill://guide/refs/nothing.md"})

    assert error(reply) == {**error(unknown), "data": {"uri": "skill://guide/refs/guide.md"}}
    assert f"now leads to {copy}" in caplog.text


async def test_a_file_over_the_response_limit_is_an_internal_error(skills_dir: Path, settings: Any) -> None:
    client = McpTestClient(server())
    await client.request("skills/list")
    settings.MCP_MAX_RESPONSE_SIZE = 4

    reply = await client.request("resources/read", {"uri": "skill://guide/refs/guide.md"})

    assert error(reply) == {
        "code": jsonrpc.INTERNAL_ERROR,
        "message": "Skill file exceeds MCP_MAX_RESPONSE_SIZE",
    }


async def test_skill_md_is_listed_after_the_declared_resources(skills_dir: Path) -> None:
    names = [
        r["name"]
        for r in result(await McpTestClient(ConformanceServer).request("resources/list"))["resources"]
    ]

    assert names == ["static-text", "static-binary", "watched-resource", "release-notes"]


# ------------------------------------------------------------------- eras


def legacy_context() -> CallContext:
    return CallContext(era="legacy", protocol_version="2025-11-25", client_capabilities={})


async def legacy(dispatcher: Dispatcher, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    reply = await dispatcher.respond(parse_message(body), legacy_context())
    return json.loads(reply.body)  # type: ignore[no-any-return]


async def test_a_2025_11_25_client_reads_skill_files_as_ordinary_resources(skills_dir: Path) -> None:
    dispatcher = Dispatcher(server().compiled())

    read = await legacy(dispatcher, "resources/read", {"uri": "skill://tiny/SKILL.md"})
    listed = await legacy(dispatcher, "skills/list", {})

    assert read["result"] == {
        "contents": [
            {
                "uri": "skill://tiny/SKILL.md",
                "text": (skills_dir / "tiny" / "SKILL.md").read_text(),
                "mimeType": "text/markdown",
            }
        ]
    }
    assert listed["error"]["code"] == jsonrpc.METHOD_NOT_FOUND


async def test_a_2025_11_25_client_may_subscribe_to_a_skill_file(skills_dir: Path) -> None:
    subscribed: list[str] = []

    class Session:
        async def subscribe(self, uri: str) -> None:
            subscribed.append(uri)

    context = CallContext(
        era="legacy", protocol_version="2025-11-25", client_capabilities={}, session=Session()
    )
    body = b'{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"skill://tiny/SKILL.md"}}'

    reply = await Dispatcher(server().compiled()).respond(parse_message(body), context)

    assert json.loads(reply.body) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert subscribed == ["skill://tiny/SKILL.md"]


@pytest.mark.parametrize("method", ["skills/list", "skills/get", "resources/directory/read"])
async def test_a_server_without_skills_does_not_serve_the_methods(method: str) -> None:
    no_skills = type("NoSkillsServer", (Server,), {"name": "none"})

    reply = await McpTestClient(no_skills).request(method, {"uri": "skill://x/SKILL.md"})

    assert error(reply)["code"] == jsonrpc.METHOD_NOT_FOUND


@pytest.mark.parametrize("method", ["skills/list", "skills/get", "resources/directory/read"])
async def test_a_tasks_only_server_does_not_serve_the_skills_methods(method: str) -> None:
    # Its capabilities declare an extension, so the method table's feature
    # gate passes: the skills handlers refuse for themselves.
    reply = await McpTestClient(_tasks_only()).request(method, {"uri": "skill://x/SKILL.md"})

    assert error(reply) == {
        "code": jsonrpc.METHOD_NOT_FOUND,
        "message": f"Method not found: {method} (no skills served)",
    }


def _tasks_only() -> type[Server]:
    from testproject.conformance.mcp import SlowComputeTool

    return type("TasksOnlyServer", (Server,), {"name": "tasks", "tools": (SlowComputeTool,)})


async def test_every_result_carries_the_server_info(skills_dir: Path) -> None:
    reply = await McpTestClient(server()).request("skills/list")

    assert reply["result"]["_meta"] == {META_SERVER_INFO: {"name": "skills", "version": "0.1.0"}}
