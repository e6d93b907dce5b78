"""Let a long-lived event stream hold no OS thread of its own.

Django's ASGI handler (and ``McpASGIApp``'s fast path) serves each request
inside asgiref's ``ThreadSensitiveContext``. The request's first thread-sensitive
``sync_to_async`` call (a ``MiddlewareMixin`` middleware such as
``SessionMiddleware``, ``request.auser()``) starts a one-thread executor
for that context, and the executor lives until the response has been sent.
For an event stream that is as long as the client listens: one idle thread
(and its stack) per open stream.

``release_request_thread()``, called once the stream's response has started
(every middleware has run by then), shuts that executor down and sends the
stream's later thread-sensitive calls (a session lookup, a sync permission
check) to asgiref's process-wide single-thread executor instead. This uses
asgiref's ``SyncToAsync.thread_sensitive_context`` and
``context_to_thread_executor``; the live test
``tests/live/test_http_server.py`` notices if they change.
"""

from __future__ import annotations

from asgiref.sync import SyncToAsync
from django.db import connections

__all__ = ["release_request_thread"]


def release_request_thread() -> None:
    """Shut down the current request's thread-sensitive executor, if any.

    Call it from the task that sends the response, before the tasks the
    stream starts: they inherit the change.
    """
    context = SyncToAsync.thread_sensitive_context.get(None)
    if context is None:
        return  # not under Django's ASGI handler (a test client, WSGI)
    SyncToAsync.thread_sensitive_context.set(None)  # type: ignore[arg-type]
    executor = SyncToAsync.context_to_thread_executor.pop(context, None)
    if executor is not None:
        # Database connections belong to the thread that opened them:
        # close them there before the thread ends.
        executor.submit(connections.close_all)
        executor.shutdown(wait=False)
