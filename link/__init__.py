"""The client stack every client program shares: one connection, one session policy.

``link.Connection`` is one websocket (requests matched to answers, pushes,
rate-limit resends); ``link.Session`` keeps one identity at one server across
drops and redirects, with its decisions in ``terrace.wire.session``. The terminal
client (``client/``) and the bot SDK (``bots/``) both import it; it imports
only ``terrace``.
"""

from terrace.wire.session import HelloRefused, News

from .connection import (
    DEFAULT_SERVER,
    Connection,
    Offline,
    Refused,
    checked,
    default_server,
    fetch,
    server_url,
)
from .session import Session

__all__ = [
    "DEFAULT_SERVER",
    "Connection",
    "HelloRefused",
    "News",
    "Offline",
    "Refused",
    "Session",
    "checked",
    "default_server",
    "fetch",
    "server_url",
]
