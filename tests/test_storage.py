"""django_mcp.storage: async, bounded reads through Django's STORAGES aliases.

Covered with FileSystemStorage (a ``tmp_path`` root), InMemoryStorage and
a remote-style storage whose ``size()`` is not implemented or lies, to show
the limit is also enforced while reading.
"""

from __future__ import annotations

import asyncio
import base64
import io
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import SuspiciousFileOperation
from django.core.files import File
from django.core.files.base import ContentFile
from django.core.files.storage import InvalidStorageError, Storage, storages

from django_mcp import McpResponse, Server, Tool
from django_mcp.protocol.content import AudioContent, ImageContent
from django_mcp.storage import CHUNK_SIZE, FileTooLarge, StoredFileNotFound, disk
from django_mcp.testing import McpTestClient
from testproject.conformance.mcp import PNG, WAV

HERE = __name__  # importable: pytest registers this module in sys.modules


# -------------------------------------------------------------- storages


class CountingFile(io.BytesIO):
    """A file that remembers how many bytes were read from it."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.bytes_read = 0

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self.bytes_read += len(chunk)
        return chunk


class RemoteStorage(Storage):
    """A storage like a remote object store: ``size()`` may be unknown or wrong.

    Class attributes stand in for the remote side so tests can inspect them.
    """

    objects: dict[str, bytes] = {}
    calls: list[tuple[str, str]] = []
    opened: list[CountingFile] = []
    reported_size: int | None = None  # None: size() is not implemented

    def size(self, name: str) -> int:
        self.calls.append(("size", name))
        if self.reported_size is None:
            raise NotImplementedError("this storage cannot tell sizes")
        if name not in self.objects:
            raise FileNotFoundError(name)
        return self.reported_size

    def exists(self, name: str) -> bool:
        self.calls.append(("exists", name))
        return name in self.objects

    def _open(self, name: str, mode: str = "rb") -> File[bytes]:
        self.calls.append(("open", name))
        if name not in self.objects:
            raise FileNotFoundError(name)
        handle = CountingFile(self.objects[name])
        self.opened.append(handle)
        return File(handle, name)


@pytest.fixture
def local(settings: Any, tmp_path: Path) -> Path:
    """Configure a ``local`` FileSystemStorage alias holding the brand assets."""
    settings.STORAGES = {
        **settings.STORAGES,
        "local": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path)},
        },
    }
    (tmp_path / "brand").mkdir()
    (tmp_path / "brand" / "logo.png").write_bytes(PNG)
    (tmp_path / "brand" / "welcome.wav").write_bytes(WAV)
    (tmp_path / "notes.txt").write_text("Grüße\n", encoding="utf-8")
    return tmp_path


@pytest.fixture
def memory(settings: Any) -> Storage:
    """Configure a ``memory`` InMemoryStorage alias and return it."""
    settings.STORAGES = {
        **settings.STORAGES,
        "memory": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
    }
    storage = storages["memory"]
    storage.save("reports/today.txt", ContentFile(b"12 orders"))
    return storage


@pytest.fixture
def remote(settings: Any) -> type[RemoteStorage]:
    """Configure a ``remote`` alias served by ``RemoteStorage``."""
    settings.STORAGES = {**settings.STORAGES, "remote": {"BACKEND": f"{HERE}.RemoteStorage"}}
    RemoteStorage.objects = {}
    RemoteStorage.calls = []
    RemoteStorage.opened = []
    RemoteStorage.reported_size = None
    return RemoteStorage


# -------------------------------------------- the docs/storage.md pattern


async def test_documented_pattern_reads_two_files_concurrently_into_responses(local: Path) -> None:
    logo, audio = await asyncio.gather(
        disk("local").file("brand/logo.png").read(),
        disk("local").file("brand/welcome.wav").read(),
    )
    assert (logo, audio) == (PNG, WAV)
    assert McpResponse.image(logo, "image/png").content == (
        ImageContent(data=base64.b64encode(PNG).decode(), mime_type="image/png"),
    )
    assert McpResponse.audio(audio, "audio/wav").content == (
        AudioContent(data=base64.b64encode(WAV).decode(), mime_type="audio/wav"),
    )


class BrandAssetsTool(Tool):
    name = "brand-assets"
    description = "Return the bundled logo and welcome audio."

    async def handle(self) -> list[McpResponse]:
        local = disk("local")
        logo, audio = await asyncio.gather(
            local.file("brand/logo.png").read(),
            local.file("brand/welcome.wav").read(),
        )
        return [McpResponse.image(logo, "image/png"), McpResponse.audio(audio, "audio/wav")]


class BrandServer(Server):
    tools = (BrandAssetsTool,)


async def test_tool_serves_files_read_from_a_storage(local: Path) -> None:
    result = await McpTestClient(BrandServer).call_tool("brand-assets")
    result.assert_ok()
    assert result.content == [
        {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"},
        {"type": "audio", "data": base64.b64encode(WAV).decode(), "mimeType": "audio/wav"},
    ]


# ------------------------------------------------------------ file system


async def test_text_decodes_the_file(local: Path) -> None:
    assert await disk("local").file("notes.txt").text() == "Grüße\n"
    assert await disk("local").file("notes.txt").text("latin-1") == "Grüße\n".encode().decode("latin-1")


async def test_exists_and_size_ask_the_storage(local: Path) -> None:
    assert await disk("local").file("brand/logo.png").exists() is True
    assert await disk("local").file("brand/missing.png").exists() is False
    assert await disk("local").file("brand/logo.png").size() == len(PNG)


async def test_missing_file_raises_file_not_found_naming_alias_and_path(local: Path) -> None:
    missing = disk("local").file("brand/missing.png")
    with pytest.raises(StoredFileNotFound) as info:
        await missing.read()
    assert isinstance(info.value, FileNotFoundError)
    assert (info.value.alias, info.value.path) == ("local", "brand/missing.png")
    assert str(info.value) == "No file 'brand/missing.png' on storage 'local'"
    with pytest.raises(StoredFileNotFound):
        await missing.size()


async def test_file_larger_than_the_response_limit_is_refused(local: Path, settings: Any) -> None:
    settings.MCP_MAX_RESPONSE_SIZE = len(PNG) - 1
    with pytest.raises(FileTooLarge) as info:
        await disk("local").file("brand/logo.png").read()
    error = info.value
    assert isinstance(error, ValueError)
    assert (error.size, error.limit, error.exact) == (len(PNG), len(PNG) - 1, True)
    assert str(error) == (
        f"File 'brand/logo.png' on storage 'local' is {len(PNG)} bytes, "
        f"above MCP_MAX_RESPONSE_SIZE ({len(PNG) - 1} bytes)"
    )


async def test_file_exactly_at_the_limit_is_read(local: Path, settings: Any) -> None:
    settings.MCP_MAX_RESPONSE_SIZE = len(PNG)
    assert await disk("local").file("brand/logo.png").read() == PNG


async def test_limit_is_read_when_called_not_when_the_file_is_named(local: Path, settings: Any) -> None:
    logo = disk("local").file("brand/logo.png")
    settings.MCP_MAX_RESPONSE_SIZE = 10
    with pytest.raises(FileTooLarge):
        await logo.read()


async def test_large_files_are_read_in_chunks(local: Path) -> None:
    data = bytes(range(256)) * (CHUNK_SIZE // 64)  # four chunks
    (local / "big.bin").write_bytes(data)
    assert await disk("local").file("big.bin").read() == data


# ---------------------------------------------------------------- aliases


def test_unknown_alias_names_the_alias_and_the_configured_ones(local: Path) -> None:
    with pytest.raises(InvalidStorageError) as info:
        disk("assets")
    assert str(info.value) == (
        "Storage alias 'assets' is not usable: Could not find config for 'assets' in settings.STORAGES. "
        "Configured aliases: 'default', 'staticfiles', 'local'."
    )


async def test_default_alias_is_the_default_storage(settings: Any, tmp_path: Path) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path)},
        },
    }
    (tmp_path / "hello.txt").write_bytes(b"hello")
    assert disk().alias == "default"
    assert await disk().file("hello.txt").read() == b"hello"


# -------------------------------------------------------------- in memory


async def test_in_memory_storage_is_read_like_any_other(memory: Storage) -> None:
    report = disk("memory").file("reports/today.txt")
    assert await report.read() == b"12 orders"
    assert await report.text() == "12 orders"
    assert await report.size() == 9
    assert await report.exists() is True


async def test_in_memory_missing_file_raises_file_not_found(memory: Storage) -> None:
    with pytest.raises(StoredFileNotFound):
        await disk("memory").file("reports/missing.txt").read()
    assert await disk("memory").file("reports/missing.txt").exists() is False


async def test_in_memory_file_above_the_limit_is_refused(memory: Storage, settings: Any) -> None:
    settings.MCP_MAX_RESPONSE_SIZE = 8
    with pytest.raises(FileTooLarge) as info:
        await disk("memory").file("reports/today.txt").read()
    assert (info.value.size, info.value.limit) == (9, 8)


# ------------------------------------------------------------ remote-style


async def test_storage_without_size_is_bounded_while_reading(
    remote: type[RemoteStorage], settings: Any
) -> None:
    remote.objects["huge.bin"] = b"x" * (10 * CHUNK_SIZE)
    settings.MCP_MAX_RESPONSE_SIZE = CHUNK_SIZE + 100
    with pytest.raises(FileTooLarge) as info:
        await disk("remote").file("huge.bin").read()
    assert (info.value.size, info.value.limit, info.value.exact) == (
        CHUNK_SIZE + 101,
        CHUNK_SIZE + 100,
        False,
    )
    assert str(info.value) == (
        f"File 'huge.bin' on storage 'remote' is more than {CHUNK_SIZE + 100} bytes, "
        f"above MCP_MAX_RESPONSE_SIZE ({CHUNK_SIZE + 100} bytes)"
    )
    # One byte past the limit was enough to know; the rest was never fetched.
    assert [handle.bytes_read for handle in remote.opened] == [CHUNK_SIZE + 101]
    assert remote.opened[0].closed


async def test_storage_whose_size_lies_is_bounded_while_reading(
    remote: type[RemoteStorage], settings: Any
) -> None:
    remote.objects["huge.bin"] = b"x" * 5000
    remote.reported_size = 10
    settings.MCP_MAX_RESPONSE_SIZE = 1000
    with pytest.raises(FileTooLarge):
        await disk("remote").file("huge.bin").read()
    assert [handle.bytes_read for handle in remote.opened] == [1001]


async def test_storage_without_size_reads_files_within_the_limit(remote: type[RemoteStorage]) -> None:
    remote.objects["small.txt"] = b"small"
    assert await disk("remote").file("small.txt").read() == b"small"
    assert remote.calls == [("size", "small.txt"), ("open", "small.txt")]


async def test_too_large_file_is_refused_before_it_is_opened(
    remote: type[RemoteStorage], settings: Any
) -> None:
    remote.objects["big.bin"] = b"x" * 2000
    remote.reported_size = 2000
    settings.MCP_MAX_RESPONSE_SIZE = 1000
    with pytest.raises(FileTooLarge):
        await disk("remote").file("big.bin").read()
    assert remote.calls == [("size", "big.bin")]
    assert remote.opened == []


async def test_missing_file_without_size_raises_file_not_found(remote: type[RemoteStorage]) -> None:
    with pytest.raises(StoredFileNotFound) as info:
        await disk("remote").file("nothing.bin").read()
    assert str(info.value) == "No file 'nothing.bin' on storage 'remote'"


# ------------------------------------------------------------ refused paths


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/etc/passwd", "it must be relative to the storage root"),
        ("C:/Windows/win.ini", "it must be relative to the storage root"),
        ("../settings.py", "'..' segments are not allowed"),
        ("brand/../../secret.txt", "'..' segments are not allowed"),
        ("brand/..", "'..' segments are not allowed"),
        ("..\\secret.txt", "use forward slashes"),
        ("brand/logo.png\x00.txt", "it contains a NUL byte"),
    ],
)
def test_unsafe_paths_are_refused_before_the_storage_is_touched(
    remote: type[RemoteStorage], path: str, reason: str
) -> None:
    with pytest.raises(SuspiciousFileOperation) as info:
        disk("remote").file(path)
    assert str(info.value) == f"Refused path {path!r}: {reason}"
    assert remote.calls == []


@pytest.mark.parametrize("path", ["", None, b"brand/logo.png"])
def test_path_must_be_a_non_empty_string(remote: type[RemoteStorage], path: Any) -> None:
    with pytest.raises(SuspiciousFileOperation):
        disk("remote").file(path)


async def test_dots_inside_names_are_not_traversal(local: Path) -> None:
    (local / "brand" / "logo..v2.png").write_bytes(b"v2")
    assert await disk("local").file("./brand/logo..v2.png").read() == b"v2"


def test_reprs_name_alias_and_path(local: Path) -> None:
    assert repr(disk("local")) == "Disk(alias='local', storage=FileSystemStorage)"
    assert repr(disk("local").file("brand/logo.png")) == "StoredFile(alias='local', path='brand/logo.png')"
