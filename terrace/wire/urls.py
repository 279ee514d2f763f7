"""What to tell a person whose server URL cannot work: a hint from the URL alone.

The server speaks websockets at ``/ws`` on plain ``ws://`` unless a TLS proxy stands
in front of it. ``ws://host:8765`` (no path) reaches the HTTP pages, which answer 200
rather than switching protocols, and ``wss://`` to a plain server fails in the TLS
handshake: both errors say little about the fix, so the clients add this hint.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def url_hint(url: str) -> str | None:
    """A short fix for ``url`` that failed to connect (None when the URL looks right)."""
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss"):
        if parts.scheme in ("http", "https"):
            fixed = urlunsplit(("ws" if parts.scheme == "http" else "wss", parts.netloc, "/ws", "", ""))
            return f"the server URL is a websocket URL: try {fixed}"
        return "the server URL looks like ws://HOST:PORT/ws"
    if parts.path.rstrip("/") != "/ws":
        fixed = urlunsplit((parts.scheme, parts.netloc, "/ws", "", ""))
        return f"the websocket endpoint is /ws: try {fixed}"
    if parts.scheme == "wss":  # a TLS handshake with a plain server fails with no useful reason
        fixed = urlunsplit(("ws", parts.netloc, parts.path, "", ""))
        return f"if this server does not speak TLS, try {fixed}"
    return None


def with_hint(url: str, error: str) -> str:
    """``error`` (why ``url`` failed), followed by the hint for ``url`` in brackets when there is one."""
    hint = url_hint(url)
    return f"{error} ({hint})" if hint else error
