"""OpenTelemetry spans and metrics of MCP requests, through ``opentelemetry-api`` only.

Follows the OpenTelemetry semantic conventions for the Model Context
Protocol (GenAI conventions, ``gen-ai/mcp.md``, status Development):

* one ``SERVER`` span per request the dispatcher serves, named
  ``{mcp.method.name} {target}`` (``tools/call get-weather``) where the
  target is the tool or prompt name, only for a tool or prompt the server
  has (a name the client made up would make span names high-cardinality),
  else ``{mcp.method.name}``;
* its parent is the caller's context carried in ``params._meta``
  (``traceparent``, ``tracestate``, extracted with the W3C
  ``TraceContextTextMapPropagator``), and the span links the ambient
  context (the HTTP server's span) when there is one; without a
  ``traceparent`` the ambient context is the parent;
* attributes: ``mcp.method.name``, ``jsonrpc.request.id``,
  ``mcp.protocol.version``, ``mcp.session.id`` (2025-11-25 sessions: a
  SHA-256 digest of the id, which is a credential, never the id itself),
  ``gen_ai.tool.name`` and ``gen_ai.operation.name`` (``execute_tool``) for
  ``tools/call``, ``gen_ai.prompt.name`` for ``prompts/get``,
  ``mcp.resource.uri`` for ``resources/read``, ``resources/subscribe`` and
  ``resources/unsubscribe`` (without its query string, fragment or user
  information: ``_record.redact_uri``), ``client.address``, ``network.transport``
  (``tcp`` over HTTP, ``pipe`` over STDIO; none in-process) and
  ``network.protocol.name`` (``http``); on failure ``error.type``
  (``tool_error`` for a result with ``isError``, else the JSON-RPC code,
  also in ``rpc.response.status_code``; ``cancelled`` for a request
  cancelled before its answer) and the span status ``ERROR`` (described by
  the JSON-RPC error message the client got; a tool error's text is not
  copied);
* events: ``notifications/progress`` (``mcp.progress``,
  ``mcp.progress.total``) for each progress notification sent,
  ``elicitation/create``, ``sampling/createMessage`` or ``roots/list`` for
  each request a 2025-11-25 handler sends its client, and
  ``mcp.input_required`` (``mcp.input_request.methods``) when a 2026-07-28
  request is answered with ``InputRequiredResult``;
* the histogram ``mcp.server.operation.duration`` (seconds, the
  conventions' bucket boundaries) with ``mcp.method.name``,
  ``mcp.protocol.version``, ``network.transport``,
  ``network.protocol.name``, ``gen_ai.operation.name``, the tool or prompt
  name (only a known one) and, on failure, ``error.type`` and
  ``rpc.response.status_code``.

Arguments, results and log messages never go into attributes or events.

A task's run (``django_mcp.tasks.run``) is a span of its own,
``execute_tool {tool}`` (``INTERNAL``, as GenAI ``execute_tool`` spans),
in a trace of its own, with a link to the span of the request that created
the task (whose ``traceparent`` the task row keeps in ``call``).

Nothing here imports ``opentelemetry`` until ``build()`` is called, so the
module imports without the ``otel`` extra. ``mcp.server.session.duration``
is not recorded: a 2025-11-25 session ends by expiring from the cache,
which nothing observes, or by a ``DELETE`` the dispatcher never sees.
"""

from __future__ import annotations

import contextvars
import hashlib
import importlib.metadata
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from django_mcp.observability._record import redact_uri
from django_mcp.protocol.results import InputRequiredResult

if TYPE_CHECKING:
    from django_mcp.dispatcher.codec import Envelope
    from django_mcp.dispatcher.context import CallContext, ClientRequest, Emit
    from django_mcp.observability._record import CallRecord
    from django_mcp.server.compiler import CompiledServer

__all__ = [
    "DURATION_BUCKETS",
    "INSTRUMENTATION_NAME",
    "OPERATION_DURATION",
    "RequestSpan",
    "TaskSpan",
    "Telemetry",
    "build",
]

INSTRUMENTATION_NAME: Final = "django_mcp"
"""The name of the tracer and meter (the instrumentation scope)."""

OPERATION_DURATION: Final = "mcp.server.operation.duration"
"""The histogram of request durations, in seconds."""

DURATION_BUCKETS: Final = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
"""The bucket boundaries (seconds) the conventions advise for the duration histogram."""

#: Methods whose ``params.uri`` is recorded as ``mcp.resource.uri``.
_URI_METHODS: Final = frozenset({"resources/read", "resources/subscribe", "resources/unsubscribe"})
#: The ``_meta`` keys carrying the caller's W3C trace context (SEP-414: unprefixed).
_TRACE_KEYS: Final = ("traceparent", "tracestate")
#: The span of the task run in progress (its status writes run in threads that copy it).
_TASK_SPAN: Final[contextvars.ContextVar[Any]] = contextvars.ContextVar("django_mcp_task_span", default=None)


class RequestSpan:
    """The span of one request being served, current while it runs."""

    __slots__ = ("span", "target_known", "token")

    def __init__(self, span: Any, token: Any, *, target_known: bool) -> None:
        self.span = span
        self.token = token
        self.target_known = target_known

    def __repr__(self) -> str:
        return f"RequestSpan({self.span!r})"

    def traced_emit(self, emit: Emit) -> Emit:
        """Return ``emit`` adding an event to the span for each progress notification."""
        span = self.span

        def traced(method: str, params: dict[str, Any]) -> None:
            if method == "notifications/progress":
                attributes = {
                    name: float(value)
                    for name, value in (
                        ("mcp.progress", params.get("progress")),
                        ("mcp.progress.total", params.get("total")),
                    )
                    if isinstance(value, int | float) and not isinstance(value, bool)
                }
                span.add_event(method, attributes)
            emit(method, params)

        return traced

    def traced_client_request(self, client_request: ClientRequest) -> ClientRequest:
        """Return ``client_request`` adding an event for each request sent to the client."""
        span = self.span

        async def traced(method: str, params: dict[str, Any]) -> Any:
            span.add_event(method)
            return await client_request(method, params)

        return traced


class TaskSpan:
    """The span of one task run, current while the run lasts."""

    __slots__ = ("marker", "span", "token")

    def __init__(self, span: Any, token: Any, marker: Any) -> None:
        self.span = span
        self.token = token
        self.marker = marker

    def __repr__(self) -> str:
        return f"TaskSpan({self.span!r})"


class Telemetry:
    """The tracer and the duration histogram of the configured providers.

    Either may be None: a project may configure traces without metrics,
    or the other way round.
    """

    def __init__(self, tracer: Any, histogram: Any) -> None:
        from opentelemetry import context, trace
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        self.tracer = tracer
        self.histogram = histogram
        self._trace = trace
        self._context = context
        self._propagator = TraceContextTextMapPropagator()

    def __repr__(self) -> str:
        return f"Telemetry(tracer={self.tracer is not None}, metrics={self.histogram is not None})"

    # ------------------------------------------------------------ requests

    def begin(
        self, compiled: CompiledServer, envelope: Envelope, ctx: CallContext, address: str | None = None
    ) -> RequestSpan:
        """Start the request's span and make it current; return it.

        ``address`` is the caller's (``client.address``), over HTTP.
        """
        method, request_id = envelope.method, envelope.id
        params_target, known = _target(compiled, method, envelope.params)
        if self.tracer is None:
            return RequestSpan(None, None, target_known=known)
        trace = self._trace
        attributes: dict[str, Any] = {"mcp.method.name": method}
        if request_id is not None:
            attributes["jsonrpc.request.id"] = str(request_id)
        if ctx.protocol_version:
            attributes["mcp.protocol.version"] = ctx.protocol_version
        session_id = getattr(ctx.session, "id", None)
        if isinstance(session_id, str):
            attributes["mcp.session.id"] = hashlib.sha256(session_id.encode()).hexdigest()[:32]
        attributes.update(_target_attributes(method, params_target))
        attributes.update(_network(ctx.http))
        if address:
            attributes["client.address"] = address
        parent = self._remote_parent(ctx.meta)
        links = None
        if parent is not None:
            # The conventions: the caller's MCP span is the parent; the
            # transport's (ambient) span is linked.
            ambient = trace.get_current_span().get_span_context()
            links = [trace.Link(ambient)] if ambient.is_valid else None
        name = f"{method} {params_target}" if known else method
        span = self.tracer.start_span(
            name, context=parent, kind=trace.SpanKind.SERVER, attributes=attributes, links=links
        )
        token = self._context.attach(trace.set_span_in_context(span, parent))
        return RequestSpan(span, token, target_known=known)

    def _remote_parent(self, meta: Mapping[str, Any]) -> Any:
        carrier = {key: meta[key] for key in _TRACE_KEYS if isinstance(meta.get(key), str)}
        if "traceparent" not in carrier:
            return None
        extracted = self._propagator.extract(carrier)
        if not self._trace.get_current_span(extracted).get_span_context().is_valid:
            return None  # a malformed traceparent: the ambient context stays the parent
        return extracted

    def end(self, scope: RequestSpan, record: CallRecord, *, result: Any, message: str | None) -> None:
        """End the request's span, record its duration, leave its context."""
        error = _error_attributes(record)
        span = scope.span
        if span is not None:
            try:
                if error:
                    span.set_attributes(error)
                    status = self._trace.Status(
                        self._trace.StatusCode.ERROR, message if record.outcome == "error" else None
                    )
                    span.set_status(status)
                if isinstance(result, InputRequiredResult):
                    methods = sorted({item.method for item in (result.input_requests or {}).values()})
                    span.add_event("mcp.input_required", {"mcp.input_request.methods": methods})
                span.end()
            finally:
                self._context.detach(scope.token)
        if self.histogram is not None:
            attributes: dict[str, Any] = {"mcp.method.name": record.method}
            if record.protocol_version:
                attributes["mcp.protocol.version"] = record.protocol_version
            attributes.update(_network(record.http))
            if scope.target_known:
                attributes.update(_target_attributes(record.method, record.component, metric=True))
            elif record.method == "tools/call":
                attributes["gen_ai.operation.name"] = "execute_tool"
            attributes.update(error)
            self.histogram.record(record.duration, attributes)

    # --------------------------------------------------------------- tasks

    def traceparent(self) -> str | None:
        """Return the current span's W3C ``traceparent``, None without a span."""
        carrier: dict[str, str] = {}
        self._propagator.inject(carrier)
        return carrier.get("traceparent")

    def begin_task(self, tool: str, protocol_version: str, traceparent: Any) -> TaskSpan | None:
        """Start a task run's span in a trace of its own, linked to the creating request's span."""
        if self.tracer is None:
            return None
        trace = self._trace
        links = None
        if isinstance(traceparent, str):
            creator = trace.get_current_span(self._propagator.extract({"traceparent": traceparent}))
            if creator.get_span_context().is_valid:
                links = [trace.Link(creator.get_span_context())]
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "mcp.method.name": "tools/call",
        }
        if protocol_version:
            attributes["mcp.protocol.version"] = protocol_version
        root = self._context.Context()  # not the worker's own context: a trace of its own
        span = self.tracer.start_span(
            f"execute_tool {tool}",
            context=root,
            kind=trace.SpanKind.INTERNAL,
            attributes=attributes,
            links=links,
        )
        token = self._context.attach(trace.set_span_in_context(span, root))
        return TaskSpan(span, token, _TASK_SPAN.set(span))

    def task_status(self, status: str, *, error_code: int | None, tool_error: bool) -> None:
        """Note a task's new status on the span of the task run in progress, if any.

        A request that changes a task (``tasks/cancel``, a reader failing a
        task whose worker stopped) leaves its own span alone.
        """
        span = _TASK_SPAN.get()
        if span is None or not span.is_recording():
            return
        span.set_attribute("mcp.task.status", status)
        error_type = "tool_error" if tool_error else (str(error_code) if error_code is not None else None)
        if error_type is not None:
            span.set_attribute("error.type", error_type)
            if error_code is not None:
                span.set_attribute("rpc.response.status_code", str(error_code))
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR))

    def end_task(self, scope: TaskSpan, *, failed: bool) -> None:
        """End a task run's span (``failed``: the run itself broke) and leave its context."""
        try:
            if failed:
                scope.span.set_attribute("error.type", "_OTHER")
                scope.span.set_status(self._trace.Status(self._trace.StatusCode.ERROR))
            scope.span.end()
        finally:
            _TASK_SPAN.reset(scope.marker)
            self._context.detach(scope.token)


def _target(compiled: CompiledServer, method: str, params: Mapping[str, Any]) -> tuple[str, bool]:
    """Return the request's tool or prompt name (or URI) and whether the server has it."""
    if method == "tools/call" or method == "prompts/get":
        name = params.get("name")
        if not isinstance(name, str):
            return "", False
        known = compiled.tools if method == "tools/call" else compiled.prompts
        return name, name in known
    if method in _URI_METHODS:
        uri = params.get("uri")
        # A query string may carry a token: spans are exported elsewhere.
        return (redact_uri(uri) if isinstance(uri, str) else ""), False
    return "", False


def _target_attributes(method: str, target: str, *, metric: bool = False) -> dict[str, Any]:
    if method == "tools/call":
        attributes = {"gen_ai.operation.name": "execute_tool"}
        if target:
            attributes["gen_ai.tool.name"] = target
        return attributes
    if method == "prompts/get" and target:
        return {"gen_ai.prompt.name": target}
    if method in _URI_METHODS and target and not metric:
        return {"mcp.resource.uri": target}
    return {}


def _network(http: Any) -> dict[str, Any]:
    if http is None:
        return {"network.transport": "pipe"}
    if getattr(http, "in_process", False):
        return {}
    return {"network.transport": "tcp", "network.protocol.name": "http"}


def _error_attributes(record: CallRecord) -> dict[str, Any]:
    if record.outcome == "error" and record.error_code is not None:
        code = str(record.error_code)
        return {"error.type": code, "rpc.response.status_code": code}
    if record.outcome == "tool_error":
        return {"error.type": "tool_error"}
    if record.outcome == "cancelled":
        return {"error.type": "cancelled"}
    return {}


_built: dict[tuple[Any, Any], Telemetry] = {}


def build(tracer_provider: Any = None, meter_provider: Any = None) -> Telemetry | None:
    """Return the ``Telemetry`` of the given or the global providers; None when neither is configured.

    A global provider is configured once the SDK's (or another
    implementation's) has been set with ``trace.set_tracer_provider`` or
    ``metrics.set_meter_provider``; the API's proxy and no-op providers
    record nothing, so they count as absent. Returns None when
    ``opentelemetry-api`` is not installed.
    """
    try:
        from opentelemetry import metrics, trace
    except ImportError:
        return None
    if tracer_provider is None:
        tracer_provider = trace.get_tracer_provider()
        if isinstance(tracer_provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
            tracer_provider = None
    if meter_provider is None:
        meter_provider = metrics.get_meter_provider()
        # The API's proxy is private (opentelemetry.metrics._internal._ProxyMeterProvider,
        # checked on opentelemetry-api 1.27 to 1.45): known by its name.
        if isinstance(meter_provider, metrics.NoOpMeterProvider) or type(meter_provider).__name__ == (
            "_ProxyMeterProvider"
        ):
            meter_provider = None
    if tracer_provider is None and meter_provider is None:
        return None
    key = (tracer_provider, meter_provider)
    telemetry = _built.get(key)
    if telemetry is None:
        version = _version()
        tracer = (
            None if tracer_provider is None else tracer_provider.get_tracer(INSTRUMENTATION_NAME, version)
        )
        histogram = None
        if meter_provider is not None:
            meter = meter_provider.get_meter(INSTRUMENTATION_NAME, version)
            histogram = meter.create_histogram(
                OPERATION_DURATION,
                unit="s",
                description="MCP request duration as observed on the receiver from the time it was "
                "received until the result is sent.",
                explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
            )
        telemetry = _built[key] = Telemetry(tracer, histogram)
    return telemetry


def _version() -> str | None:
    try:
        return importlib.metadata.version("django-mcp-toolkit")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a checkout
        return None
