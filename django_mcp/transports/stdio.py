"""STDIO transport: newline-delimited JSON-RPC over a pair of byte streams.

One JSON-RPC message per line in, one compact JSON message per line out
(MCP 2026-07-28 basic/transports/stdio). Nothing but protocol messages is
ever written to the output; failures are logged (stderr), never printed.

* Every request runs as its own task, so a ``subscriptions/listen`` stream
  never blocks later requests; responses, progress and log notifications
  are written as they come, each line whole, in the order each request
  produced them.
* ``notifications/cancelled`` stops that request's task; nothing more is
  written for it, not even queued output (basic/patterns/cancellation).
* A bad line is answered with -32700 (not JSON) or -32600 (not a request,
  a batch, or longer than ``MCP_MAX_REQUEST_SIZE``), without an ``id``
  when none could be read; the loop goes on.
* End of input stops subscriptions at once, lets requests in flight finish
  for ``grace`` seconds, then cancels the rest and returns.

Both protocol eras share one process. A request
whose ``params._meta`` names a protocol version is served statelessly as
2026-07-28 (``server/discover``, ``subscriptions/listen``). ``initialize``
without it opens the process's one 2025-11-25 session: later requests
without a modern ``_meta`` use its version, capabilities and log level;
``resources/subscribe`` and list changes become notifications without a
subscription id; input a handler needs (elicitation, sampling, roots) is
asked with real server-to-client requests whose answers come back as
JSON-RPC responses on the input. ``ping`` is answered before
``initialize`` too. Any other request without ``_meta`` or session gets
-32602 for the missing ``_meta``.

Every request of a connection is made as one caller, given when serving
starts (``user``; ``manage.py mcp_stdio --user``): a Django user, whose
permissions then decide what is listed and callable, or None (no user, the
default). It is never re-read: a change to that user or their permissions
takes effect when the process is restarted.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import sys
import threading
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Iterator,
)
from typing import IO, TYPE_CHECKING, Any, Final, cast

from django_mcp._serving import serving
from django_mcp.dispatcher import Dispatcher
from django_mcp.dispatcher.asking import client_requester
from django_mcp.dispatcher.codec import (
    CLIENT_REQUEST_TIMEOUT,
    Envelope,
    encode_error,
    encode_notification,
    is_valid_id,
    parse_message,
)
from django_mcp.dispatcher.context import CallContext, ClientRequest, era_of, legacy_context, modern_context
from django_mcp.dispatcher.sessions import LocalSession, PendingRequests
from django_mcp.exceptions import InternalError, InvalidRequest, McpError
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.jsonrpc import RequestId

if TYPE_CHECKING:
    from django_mcp.server.server import Server

__all__ = [
    "CLIENT_REQUEST_TIMEOUT",
    "SHUTDOWN_GRACE",
    "Write",
    "protect_stdout",
    "run_stdio",
    "serve_stdio",
]

logger = logging.getLogger(__name__)

#: Write one whole output line (it ends with ``b"\n"``).
Write = Callable[[bytes], Awaitable[None]]

SHUTDOWN_GRACE: Final = 2.0  # seconds
"""How long requests in flight may finish after the input ends."""

# The one 2025-11-25 session of a STDIO process, as PendingRequests names it.
_SESSION: Final = "stdio"
# Bytes read from the input at a time, and how long cancelled tasks get to
# unwind at shutdown before they are abandoned with a warning.
_CHUNK: Final = 64 * 1024
_CANCEL_TIMEOUT: Final = 1.0  # seconds


async def serve_stdio(
    server: type[Server],
    *,
    reader: asyncio.StreamReader,
    write: Write,
    grace: float = SHUTDOWN_GRACE,
    user: Any = None,
) -> None:
    """Serve ``server`` on ``reader``/``write`` until the input ends.

    ``write`` is awaited once per outgoing message with the whole line,
    never concurrently. Every request is made as ``user`` (None: no user).
    Return after the last message has been written.
    """
    connection = _Connection(serving.dispatcher(server), write, user=user)
    await connection.run(reader, grace=grace)


def run_stdio(
    server: type[Server],
    *,
    stdin: IO[bytes],
    stdout: IO[bytes],
    grace: float = SHUTDOWN_GRACE,
    user: Any = None,
) -> None:
    """Serve ``server`` on binary file objects until ``stdin`` ends (blocking).

    ``stdin`` is read by a daemon thread (pipes, files and terminals alike);
    each message is written to ``stdout`` and flushed. Every request is
    made as ``user`` (None: no user).
    """
    asyncio.run(_serve_files(server, stdin=stdin, stdout=stdout, grace=grace, user=user))


@contextlib.contextmanager
def protect_stdout() -> Iterator[IO[bytes]]:
    """Reserve the process's standard output for protocol messages.

    Yield a private binary handle on the real standard output. While the
    block runs, file descriptor 1 and ``sys.stdout`` point at standard
    error, so ``print()``, a command's ``self.stdout``, C extensions and
    child processes cannot corrupt the protocol stream.
    """
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    frames = os.fdopen(os.dup(1), "wb")
    saved_fd = os.dup(1)
    saved_stdout = sys.stdout
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield frames
    finally:
        with contextlib.suppress(OSError):  # the client may be gone
            frames.close()
        # Whatever was buffered meanwhile still belongs on stderr.
        if saved_stdout is not None:
            with contextlib.suppress(OSError, ValueError):
                saved_stdout.flush()
        sys.stdout = saved_stdout
        os.dup2(saved_fd, 1)
        os.close(saved_fd)


# ----------------------------------------------------------------- files


async def _serve_files(
    server: type[Server], *, stdin: IO[bytes], stdout: IO[bytes], grace: float, user: Any
) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    thread = threading.Thread(
        target=_read_input, args=(stdin, reader, loop), name="django-mcp-stdin", daemon=True
    )
    thread.start()

    async def write(line: bytes) -> None:
        # A full pipe blocks this thread, not the event loop.
        await asyncio.to_thread(_write_output, stdout, line)

    await serve_stdio(server, reader=reader, write=write, grace=grace, user=user)


def _read_input(stream: IO[bytes], reader: asyncio.StreamReader, loop: asyncio.AbstractEventLoop) -> None:
    """Copy ``stream`` into ``reader`` from a thread until end of input."""
    try:
        fd: int | None = stream.fileno()
    except (AttributeError, OSError, ValueError):  # BytesIO and friends
        fd = None
    try:
        while True:
            # os.read returns what a pipe holds without waiting for more.
            chunk = os.read(fd, _CHUNK) if fd is not None else _read_some(stream)
            if not chunk:
                break
            loop.call_soon_threadsafe(reader.feed_data, chunk)
    except RuntimeError:  # the event loop is closed: nobody is listening
        return
    except Exception:
        logger.exception("Reading the STDIO input failed; treating it as closed")
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(reader.feed_eof)


def _read_some(stream: IO[bytes]) -> bytes:
    read1 = getattr(stream, "read1", None)
    return bytes(read1(_CHUNK) if read1 is not None else stream.read(_CHUNK))


def _write_output(stream: IO[bytes], line: bytes) -> None:
    stream.write(line)
    stream.flush()


async def _lines(reader: asyncio.StreamReader, limit: int) -> AsyncIterator[bytes | None]:
    """Yield input lines without their newline; None for one over ``limit``.

    An oversized line is dropped as it arrives, never held in memory.
    """
    buffer = bytearray()
    skipping = False
    while chunk := await reader.read(_CHUNK):
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            if skipping:
                skipping = False
            else:
                buffer += chunk[start:end]
                yield None if len(buffer) > limit else bytes(buffer)
            buffer.clear()
            start = end + 1
        if not skipping:
            buffer += chunk[start:]
            if len(buffer) > limit:
                buffer.clear()
                skipping = True
                yield None
    if buffer and not skipping:
        yield bytes(buffer)


# ------------------------------------------------------------ connection


@dataclasses.dataclass(eq=False, slots=True)
class _Call:
    """One request in flight."""

    id: RequestId
    listen: bool = False
    #: The response has been queued: no progress or log message may follow.
    answered: bool = False
    #: The client cancelled it: drop everything still queued for it.
    cancelled: bool = False
    task: asyncio.Task[None] | None = None


class _Connection:
    """Route the messages of one STDIO peer and serialize the output."""

    def __init__(self, dispatcher: Dispatcher, write: Write, *, user: Any = None) -> None:
        self.dispatcher = dispatcher
        #: Who makes every request of this connection (None: no user).
        self.user = user
        self._write = write
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._outbox: asyncio.Queue[tuple[_Call | None, bytes] | None] = asyncio.Queue()
        self._output_open = True
        self._calls: dict[RequestId, _Call] = {}
        self._background: set[asyncio.Task[None]] = set()
        #: Server-to-client requests waiting for their answers.
        self.pending = PendingRequests()
        self._session: LocalSession | None = None
        self._closing = False

    async def run(self, reader: asyncio.StreamReader, *, grace: float) -> None:
        """Read and route messages until end of input, then shut down."""
        writer = self._loop.create_task(self._drain())
        ended = False
        try:
            async for line in _lines(reader, self.dispatcher.settings.limits.max_request_size):
                try:
                    self._receive(line)
                except Exception:  # one bad message must not end the process
                    logger.exception("Unexpected error while handling a STDIO message")
            ended = True
        finally:
            try:
                await self._shutdown(grace if ended else 0.0)
            finally:
                self._outbox.put_nowait(None)
                await writer

    # ------------------------------------------------------------ output

    def _post(self, frame: bytes, call: _Call | None = None) -> None:
        """Queue one message; ``call`` ties it to a request."""
        if call is not None and (call.answered or call.cancelled):
            return
        self._outbox.put_nowait((call, frame))

    def _post_threadsafe(self, frame: bytes, call: _Call | None) -> None:
        if threading.get_ident() == self._thread:
            self._post(frame, call)
        else:  # a sync handler running in a worker thread
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._post, frame, call)

    async def _drain(self) -> None:
        """Write queued messages one whole line at a time, in order."""
        while (item := await self._outbox.get()) is not None:
            call, frame = item
            if not self._output_open or (call is not None and call.cancelled):
                continue
            try:
                await self._write(frame + b"\n")
            except Exception:
                logger.warning("The STDIO output is closed; dropping messages", exc_info=True)
                self._output_open = False

    # ----------------------------------------------------------- routing

    def _receive(self, line: bytes | None) -> None:
        if line is None:
            error = InvalidRequest("Invalid request: message exceeds MCP_MAX_REQUEST_SIZE")
            self._post(encode_error(None, error))
            return
        if not line.strip():
            return
        try:
            envelope = parse_message(line, max_depth=self.dispatcher.settings.limits.max_json_depth)
        except McpError as error:
            self._post(encode_error(getattr(error, "request_id", None), error))
            return
        if envelope.kind == "response":
            self._on_response(envelope)
        elif envelope.kind == "notification":
            self._on_notification(envelope)
        else:
            self._on_request(envelope)

    def _on_request(self, envelope: Envelope) -> None:
        assert envelope.id is not None
        if envelope.id in self._calls:
            error = InvalidRequest("Invalid request: id is already used by a request in flight")
            self._post(encode_error(envelope.id, error))
            return
        era = era_of(envelope, in_session=self._session is not None)
        if era == "initialize" or (era == "legacy" and envelope.method == "initialize"):
            self._initialize(envelope)
            return
        if era is None and envelope.method == "ping":
            # 2025-11-25 basic/utilities/ping: allowed before initialize.
            self._post(self.dispatcher.encode_raw_result(envelope.id, {}))
            return
        call = _Call(envelope.id)
        work: Coroutine[Any, Any, None]
        if era != "legacy":  # STDIO has no header to say otherwise: a 2026-07-28 request
            try:
                ctx = modern_context(envelope, user=self.user)  # -32602 / -32022 without a usable _meta
            except McpError as error:
                self._post(encode_error(envelope.id, error))
                return
            if envelope.method == "subscriptions/listen":
                call.listen = True
                work = self._listen(call, envelope, ctx)
            else:
                work = self._respond(call, envelope, ctx)
        else:
            work = self._respond(call, envelope, self._legacy_context(envelope, call))
        self._calls[call.id] = call
        call.task = self._loop.create_task(work)
        call.task.add_done_callback(lambda task: self._forget(call, task))

    def _forget(self, call: _Call, task: asyncio.Task[None]) -> None:
        if self._calls.get(call.id) is call:
            del self._calls[call.id]
        if not task.cancelled() and task.exception() is not None:
            logger.error("STDIO request %r failed", call.id, exc_info=task.exception())

    def _on_notification(self, envelope: Envelope) -> None:
        # notifications/initialized and unknown notifications need nothing.
        if envelope.method != "notifications/cancelled":
            return
        request_id = envelope.params.get("requestId")
        if not is_valid_id(request_id):
            return  # invalid cancellations are ignored silently
        call = self._calls.get(request_id)
        if call is not None:
            self._cancel(call)

    def _cancel(self, call: _Call) -> None:
        call.cancelled = True
        if call.task is not None:
            call.task.cancel()

    def _on_response(self, envelope: Envelope) -> None:
        error = envelope.error if envelope.error is not UNSET else None
        if self.pending.resolve(_SESSION, envelope.id, result=envelope.result, error=error):
            return
        if self._session is None:
            refused = InvalidRequest("Invalid request: clients do not send responses in 2026-07-28")
            self._post(encode_error(envelope.id, refused))
        else:
            logger.debug("Ignored a response to unknown request %r", envelope.id)

    # ---------------------------------------------------------- requests

    async def _respond(self, call: _Call, envelope: Envelope, ctx: CallContext) -> None:
        def emit(method: str, params: dict[str, Any]) -> None:
            self._post_threadsafe(encode_notification(method, params), call)

        reply = await self.dispatcher.respond(envelope, ctx, emit)
        self._post(reply.body, call)
        call.answered = True

    async def _listen(self, call: _Call, envelope: Envelope, ctx: CallContext) -> None:
        try:
            stream = cast(AsyncGenerator[bytes, None], self.dispatcher.listen(envelope, ctx))
            async with contextlib.aclosing(stream):
                async for frame in stream:
                    self._post(frame, call)
        except McpError as error:
            self._post(encode_error(envelope.id, error), call)
            return
        except Exception:
            logger.exception("subscriptions/listen %r failed", envelope.id)
            self._post(encode_error(envelope.id, InternalError()), call)
            return
        # The stream ended on the server's side, its last frame the
        # subscription's result: on STDIO notifications/cancelled follows
        # (MCP 2026-07-28 basic/patterns/subscriptions).
        ended = {"requestId": call.id, "reason": "Subscription ended by the server"}
        self._post(encode_notification("notifications/cancelled", ended), call)

    # ------------------------------------------------------------ legacy

    def _initialize(self, envelope: Envelope) -> None:
        if self._session is not None:
            error: McpError = InvalidRequest("Invalid request: this process is already initialized")
            self._post(encode_error(envelope.id, error))
            return
        try:
            handshake = self.dispatcher.initialize(envelope.params)
        except McpError as error:
            self._post(encode_error(envelope.id, error))
            return
        self._session = session = LocalSession(
            version=handshake.version,
            capabilities=handshake.capabilities,
            client_info=handshake.client_info,
        )
        self._post(self.dispatcher.encode_raw_result(envelope.id, handshake.result))
        if self.dispatcher.listens:
            task = self._loop.create_task(self._session_notifications(session))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    def _legacy_context(self, envelope: Envelope, call: _Call) -> CallContext:
        assert self._session is not None
        return legacy_context(
            envelope, self._session, user=self.user, client_request=self._client_requester(call)
        )

    def _client_requester(self, call: _Call) -> ClientRequest:
        # The request goes with its call (never written once the call ended);
        # withdrawing it is written whatever became of the call.
        return client_requester(
            self.pending,
            _SESSION,
            lambda frame: self._post(frame, call),
            withdraw=self._post,
            closing=lambda: self._closing,
        )

    async def _session_notifications(self, session: LocalSession) -> None:
        """Send list changes and subscribed resource updates (no subscription id)."""

        async def current() -> LocalSession:
            return session

        try:
            async for frame in self.dispatcher.session_notifications(current, user=self.user):
                if frame:
                    self._post(frame)
        except Exception:
            logger.exception("The 2025-11-25 change notifications stopped")

    # ---------------------------------------------------------- shutdown

    async def _shutdown(self, grace: float) -> None:
        """Stop subscriptions now, give requests ``grace`` seconds, cancel the rest."""
        self._closing = True
        for call in list(self._calls.values()):
            if call.listen:
                self._cancel(call)
        for task in self._background:
            task.cancel()
        # Nobody can answer a server-to-client request any more.
        self.pending.cancel_all(_SESSION)
        running = [call.task for call in self._calls.values() if call.task and not call.listen]
        if running and grace > 0:
            await asyncio.wait(running, timeout=grace)
        for call in list(self._calls.values()):
            self._cancel(call)
        tasks = [call.task for call in self._calls.values() if call.task is not None]
        tasks = [task for task in (*tasks, *self._background) if not task.done()]
        if tasks:
            _, stuck = await asyncio.wait(tasks, timeout=_CANCEL_TIMEOUT)
            if stuck:
                logger.warning("%d STDIO task(s) ignored cancellation at shutdown", len(stuck))
