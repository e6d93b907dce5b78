"""Read files from Django's ``STORAGES`` aliases in async handlers.

``disk("local").file("brand/logo.png")`` names a file; ``await .read()``
returns its bytes, ``await .text()`` its decoded text, and ``await
.exists()`` / ``await .size()`` ask the storage about it. Any Django storage
backend works: its synchronous API runs through ``run_sync`` one chunk
at a time, so concurrent reads (``asyncio.gather``) interleave.

Paths are relative to the storage's root. Absolute paths, ``..`` segments,
backslashes and NUL bytes are refused with ``SuspiciousFileOperation``
before the storage is touched.

``read()`` gathers the whole file in memory, so it is bounded by
``MCP_MAX_RESPONSE_SIZE`` (read when called): a file whose ``size()`` is
larger is refused without being opened, and because a backend's ``size()``
may be missing or wrong, the bytes actually read are counted too. Both
refusals raise ``FileTooLarge``. A missing file raises ``StoredFileNotFound``
(a ``FileNotFoundError``); an unknown alias raises Django's
``InvalidStorageError`` listing the configured aliases.
"""

from __future__ import annotations

from typing import Any, Final

from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import InvalidStorageError, Storage, storages

from django_mcp._sync import run_sync
from django_mcp.conf import get_limits

__all__ = ["Disk", "FileTooLarge", "StoredFile", "StoredFileNotFound", "disk"]

CHUNK_SIZE: Final = 64 * 1024
"""Bytes read from the storage per ``run_sync`` call."""


class StoredFileNotFound(FileNotFoundError):
    """The file does not exist on that storage."""

    def __init__(self, alias: str, path: str) -> None:
        self.alias = alias
        self.path = path
        super().__init__(f"No file {path!r} on storage {alias!r}")

    def __repr__(self) -> str:
        return f"StoredFileNotFound(alias={self.alias!r}, path={self.path!r})"


class FileTooLarge(ValueError):
    """The file is larger than ``MCP_MAX_RESPONSE_SIZE`` allows.

    ``size`` is the size reported by the storage, or the bytes read before
    the limit was passed when the storage could not tell (``exact`` False).
    """

    def __init__(self, alias: str, path: str, *, size: int, limit: int, exact: bool = True) -> None:
        self.alias = alias
        self.path = path
        self.size = size
        self.limit = limit
        self.exact = exact
        amount = f"{size} bytes" if exact else f"more than {size - 1} bytes"
        super().__init__(
            f"File {path!r} on storage {alias!r} is {amount}, above MCP_MAX_RESPONSE_SIZE ({limit} bytes)"
        )

    def __repr__(self) -> str:
        return (
            f"FileTooLarge(alias={self.alias!r}, path={self.path!r}, size={self.size!r}, "
            f"limit={self.limit!r}, exact={self.exact!r})"
        )


def disk(alias: str = "default") -> Disk:
    """Return the storage configured as ``STORAGES[alias]``.

    Raises:
        InvalidStorageError: no such alias, or its backend cannot be built.
    """
    try:
        storage = storages[alias]
    except InvalidStorageError as exc:
        configured = ", ".join(repr(name) for name in storages.backends) or "none"
        raise InvalidStorageError(
            f"Storage alias {alias!r} is not usable: {exc} Configured aliases: {configured}."
        ) from None
    return Disk(alias, storage)


class Disk:
    """One configured Django storage, addressed by its ``STORAGES`` alias."""

    __slots__ = ("alias", "storage")

    def __init__(self, alias: str, storage: Storage) -> None:
        self.alias = alias
        self.storage = storage

    def file(self, path: str) -> StoredFile:
        """Return the file at ``path`` (relative to the storage's root).

        Raises:
            SuspiciousFileOperation: the path is absolute, climbs with ``..``
                or contains a backslash or a NUL byte.
        """
        return StoredFile(self, _safe_path(path))

    def __repr__(self) -> str:
        return f"Disk(alias={self.alias!r}, storage={type(self.storage).__name__})"


class StoredFile:
    """A file on a ``Disk``; every method reads the storage when awaited."""

    __slots__ = ("disk", "path")

    def __init__(self, disk: Disk, path: str) -> None:
        self.disk = disk
        self.path = path

    async def exists(self) -> bool:
        """Return True when the file exists."""
        return bool(await run_sync(self.disk.storage.exists, self.path))

    async def size(self) -> int:
        """Return the size in bytes the storage reports.

        Raises:
            StoredFileNotFound: the file does not exist.
        """
        try:
            return int(await run_sync(self.disk.storage.size, self.path))
        except FileNotFoundError:
            raise StoredFileNotFound(self.disk.alias, self.path) from None

    async def read(self) -> bytes:
        """Return the file's bytes.

        Raises:
            StoredFileNotFound: the file does not exist.
            FileTooLarge: it is larger than ``MCP_MAX_RESPONSE_SIZE``.
        """
        limit = get_limits().max_response_size
        storage = self.disk.storage
        try:
            reported = await run_sync(storage.size, self.path)
        except FileNotFoundError:
            raise StoredFileNotFound(self.disk.alias, self.path) from None
        except NotImplementedError:
            reported = None  # the backend cannot tell; the read below is bounded anyway
        if isinstance(reported, int) and reported > limit:
            raise FileTooLarge(self.disk.alias, self.path, size=reported, limit=limit)
        try:
            handle = await run_sync(storage.open, self.path, "rb")
        except FileNotFoundError:
            raise StoredFileNotFound(self.disk.alias, self.path) from None
        try:
            return await self._read_bounded(handle, limit)
        finally:
            await run_sync(handle.close)

    async def _read_bounded(self, handle: Any, limit: int) -> bytes:
        chunks: list[bytes] = []
        total = 0
        while True:
            # Ask for at most one byte past the limit: enough to know it is passed.
            chunk = await run_sync(handle.read, min(CHUNK_SIZE, limit + 1 - total))
            if not chunk:
                return b"".join(chunks)
            total += len(chunk)
            if total > limit:
                raise FileTooLarge(self.disk.alias, self.path, size=total, limit=limit, exact=False)
            chunks.append(bytes(chunk))

    async def text(self, encoding: str = "utf-8", errors: str = "strict") -> str:
        """Return the file decoded with ``encoding`` (same errors as ``read()``)."""
        return (await self.read()).decode(encoding, errors)

    def __repr__(self) -> str:
        return f"StoredFile(alias={self.disk.alias!r}, path={self.path!r})"


def _safe_path(path: Any) -> str:
    if not isinstance(path, str) or not path:
        raise SuspiciousFileOperation(f"A stored file path must be a non-empty string, got {path!r}")
    if "\x00" in path:
        raise SuspiciousFileOperation(f"Refused path {path!r}: it contains a NUL byte")
    if "\\" in path:
        raise SuspiciousFileOperation(f"Refused path {path!r}: use forward slashes")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise SuspiciousFileOperation(f"Refused path {path!r}: it must be relative to the storage root")
    if ".." in path.split("/"):
        raise SuspiciousFileOperation(f"Refused path {path!r}: '..' segments are not allowed")
    return path
