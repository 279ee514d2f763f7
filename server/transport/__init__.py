"""The server's edge: websocket connections, plain HTTP, per-address limits and the inbox of requests."""
