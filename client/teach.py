"""What the screen teaches: each variant's rules in short, its notation with examples from
the position on the board, and one way of writing cards (``10♥``) in every sentence shown
(the texts themselves are the core's, terrace/rules/teach.py, which the pages read too).

Pure functions of plain data (a view, the legal moves), so help for a race and for
practice is the same text. Players may type a ten as ``10`` or ``T``; the screen shows
``10`` everywhere, in the board, in refusals and in help.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from terrace.rules.cards import parse_card

# The texts and the card writing live in the core, so the pages teach the same lines.
from terrace.rules.teach import NOTATION, RULES, SUITS, card_text, cards_in_text

__all__ = [
    "NOTATION",
    "RULES",
    "SUITS",
    "card_text",
    "cards_in_text",
    "explain",
    "help_text",
    "moves_of_card",
]


def _family(variant: str) -> bool:
    return variant != "louis"


def _top(view: Mapping[str, Any], place: str) -> str | None:
    """The card on top of ``place`` (canonical name) in ``view``, if the view shows it."""
    if place == "T":
        terrace = view.get("terrace") or []
        return str(terrace[-1]) if terrace else None
    if place == "W":
        waste = view.get("waste") or []
        return str(waste[-1]) if waste else None
    for key in ("piles", "heaps", "abeyance"):
        places = view.get(key) or {}
        if place in places:
            got = places[place]
            if isinstance(got, list):
                return str(got[-1]) if got else None
            return str(got) if got else None
    return None


def moves_of_card(typed: str, view: Mapping[str, Any], legal: Sequence[str]) -> list[str]:
    """The legal moves of the card ``typed`` (``10h``, ``Th``, ``T♥``: one card) wherever it is
    on top in ``view``: what Tab offers for a card typed instead of a place."""
    wanted = parse_card(typed)
    if wanted is None:
        return []
    return [
        m for m in legal if "-" in m and (top := _top(view, m.split("-", 1)[0])) and parse_card(top) == wanted
    ]


def short_form(move: str, variant: str) -> str:
    """What a person may type for ``move``: no dash; the family ignores case, Louis does not."""
    if move == "S-W" and _family(variant):
        return "d"
    if move.startswith("S-") and not _family(variant):
        return "deal"
    if "-" not in move:
        return move
    source, target = move.split("-", 1)
    return (source + target).lower() if _family(variant) else source + target


def explain(move: str, view: Mapping[str, Any], variant: str) -> str:
    """One legal move in words for the position in ``view``: ``3-F1 (3f1): 7♦ from pile 3 to F1``."""
    typed = short_form(move, variant)
    head = f"{move} ({typed})" if typed != move else move
    if "-" not in move:
        return f"{head}: {'deal the next round' if move == 'redeal' else move}"
    source, target = move.split("-", 1)
    if source == "S":
        return f"{head}: {'turn the next stock card onto the waste' if target == 'W' else 'deal the next card to heap ' + target}"
    if move == "W-S":
        return f"{head}: turn the waste over for the second pass"
    card = _top(view, source)
    names = {"T": "the terrace", "W": "the waste"}
    where = names.get(source) or (f"pile {source}" if _family(variant) else _place(source))
    to = _place(target) if not target.isdigit() else f"pile {target}"
    what = card_text(card) + " from " if card else ""
    return f"{head}: {what}{where} to {to}"


def _place(name: str) -> str:
    if name.startswith("F"):
        return name
    if len(name) == 2 and name[0] in "AKX":
        return {"A": "the ace foundation ", "K": "the king foundation ", "X": "abeyance "}[name[0]] + name
    return f"heap {name}"


def help_text(
    variant: str, view: Mapping[str, Any], legal: Sequence[str], commands: Iterable[str], examples: int = 3
) -> str:
    """The ``help`` screen: rules in short, notation, up to ``examples`` legal moves of this
    position explained (every base at the base choice: the first move is one of four, and
    each is a real choice), how many more there are, and the commands."""
    # One line per paragraph: the screen wraps it to the terminal's width (a line broken here
    # as well would be broken twice on a narrow terminal).
    rules, notation = (
        RULES.get(variant, RULES["terrace"]),
        NOTATION["family" if _family(variant) else "louis"],
    )
    lines = [" ".join(rules), " ".join(notation)]
    base_choice = view.get("phase") == "choose-base"
    shown = _examples(legal, len(legal) if base_choice else examples)
    if shown:
        more = len(legal) - len(shown)
        some = f" ({len(shown)} of {len(legal)} legal moves; Tab lists them all)" if more else ""
        lines.append(f"Now you could type{some}:")
        lines += ["  " + explain(m, view, variant) for m in shown]
    else:
        lines.append("No legal move now: the game is over for you.")
    words = [*commands, "help", "quit"]
    lines.append("Commands: " + ", ".join(words) + ". Tab completes moves and commands.")
    return "\n".join(lines)


def _examples(legal: Sequence[str], count: int) -> list[str]:
    """A few legal moves worth showing: foundation moves first, then the others, the stock last."""

    def rank(m: str) -> tuple[int, str]:
        target = m.split("-", 1)[-1]
        home = target.startswith(("F", "A", "K")) and len(target) <= 2
        return (0 if home else 2 if m.startswith("S-") else 1, m)

    return sorted(legal, key=rank)[:count]
