"""OpenTelemetry SDK providers for the observability tests, passed explicitly.

The OpenTelemetry API lets a process set its global providers once, so these
tests never touch them: ``otel`` hands an SDK tracer provider (every span
to an ``InMemorySpanExporter``) and meter provider (an
``InMemoryMetricReader``) to ``django_mcp.observability.instrument()`` and
takes them back afterwards.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from django_mcp import observability

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
CALLER_TRACE_ID = 0x4BF92F3577B34DA6A3CE929D0E0E4736
CALLER_SPAN_ID = 0x00F067AA0BA902B7


@dataclasses.dataclass
class Otel:
    """What the SDK recorded during one test."""

    tracer_provider: TracerProvider
    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader

    def spans(self) -> list[ReadableSpan]:
        """Return the finished spans, oldest first."""
        return list(self.exporter.get_finished_spans())

    def points(self, name: str = "mcp.server.operation.duration") -> list[Any]:
        """Return the data points of the metric ``name`` (none when nothing was recorded)."""
        data = self.reader.get_metrics_data()
        if data is None:
            return []
        return [
            point
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == name
            for point in metric.data.data_points
        ]

    def metric(self, name: str = "mcp.server.operation.duration") -> Any:
        """Return the metric ``name`` itself."""
        data = self.reader.get_metrics_data()
        assert data is not None
        return next(
            metric
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == name
        )


@pytest.fixture
def otel() -> Iterator[Otel]:
    """Trace and measure requests with in-memory SDK providers for one test."""
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    observability.instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
    try:
        yield Otel(tracer_provider, exporter, reader)
    finally:
        observability.instrument()
        meter_provider.shutdown()
        tracer_provider.shutdown()
