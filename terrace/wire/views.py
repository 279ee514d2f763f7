"""A view's changes: what differs between two views of one game, and applying it back.

A client that says ``"views": "changes"`` in its ``hello`` gets, in each ``moved``,
only the view's fields that the move changed (``changes``) instead of the whole
``view``. A view's fields never come and go during a game; the maps among them
(``piles``, ``foundations``, Louis's ``heaps`` and ``abeyance``) change entry by
entry. So the changes are: every top-level field whose value differs, whole, except
that a map keeps only the entries that differ. Every value is a replacement, never
an increment: applying the same changes twice gives the same view.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from terrace.vocab import ViewMode
from terrace.wire.messages import View

_ABSENT = object()


def view_changes(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> View:
    """The changes that turn ``before`` into ``after`` (with no ``before``: all of ``after``)."""
    if before is None:
        return dict(after)
    out: View = {}
    for key, value in after.items():
        old = before.get(key, _ABSENT)
        if value == old:
            continue
        if isinstance(value, dict) and isinstance(old, dict):
            out[key] = {k: v for k, v in value.items() if old.get(k, _ABSENT) != v}
        else:
            out[key] = value
    return out


def apply_changes(view: Mapping[str, Any], changes: Mapping[str, Any]) -> View:
    """``view`` with ``changes`` applied (a new view; ``view`` is left as it was)."""
    out = dict(view)
    for key, value in changes.items():
        old = out.get(key)
        out[key] = {**old, **value} if isinstance(value, dict) and isinstance(old, dict) else value
    return out


def moved_for(answer: Mapping[str, Any], mode: ViewMode, changes: Mapping[str, Any] | None) -> View:
    """A ``moved`` answer as a client of view ``mode`` gets it: the whole ``view``, or its
    ``changes`` in place of it."""
    if mode == "changes" and changes is not None and "view" in answer:
        out = {k: v for k, v in answer.items() if k != "view"}
        out["changes"] = changes
        return out
    return dict(answer)
