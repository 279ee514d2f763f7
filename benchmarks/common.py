"""What every benchmark report starts with: the machine and the command that ran."""

from __future__ import annotations

import os
import platform
import shlex
import sys
from collections.abc import Sequence
from typing import Any


def machine() -> str:
    return f"{platform.python_implementation()} {platform.python_version()} | {platform.platform()} | {os.cpu_count()} CPUs"


def run_info(argv: Sequence[str] | None) -> dict[str, Any]:
    """The report's header fields; ``argv`` None means the script's own command line."""
    return {
        "machine": machine(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "command": shlex.join(["python", *sys.argv]) if argv is None else shlex.join(argv),
    }
