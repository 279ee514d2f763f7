"""Errors as ``--json`` prints them: one JSON object on stdout, ``{"error": CODE, "message": TEXT}``,
so a script that reads a command's JSON gets JSON when the command fails too; the exit code
is the one the command has without ``--json``.

``CODE`` is the server's error code when the server refused (``no_race``...), ``offline``
when it could not be reached or the connection dropped, and the client's own word for its
own errors (``cannot_read``, ``not_json``, ``no_player``...).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable

from link import HelloRefused, Offline, Refused


def print_json_error(code: str, message: str) -> None:
    print(json.dumps({"error": code, "message": message}))


async def as_json(work: Awaitable[int]) -> int:
    """``work``'s exit code; a refusal or a lost server printed as a JSON error (exit 1)."""
    try:
        return await work
    except (Refused, HelloRefused) as exc:
        print_json_error(exc.code, str(exc))
    except Offline as exc:
        print_json_error("offline", str(exc))
    return 1
