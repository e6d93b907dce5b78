"""Transports: Streamable HTTP (async Django views) and STDIO."""

__all__: list[str] = []
