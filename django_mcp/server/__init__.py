"""Component declarations, URI templates and the compiler."""

__all__: list[str] = []
