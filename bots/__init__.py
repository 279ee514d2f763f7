"""Terrace Race bots: the SDK to race a program, sample bots, the arena and the swarm.

A bot is one class with one method, ``choose(view, legal) -> move``
(:class:`bots.bot.Bot`); :func:`bots.sdk.run` races it on a server and
``terrace-arena`` measures it offline. Bots import only ``terrace``.
"""

from .bot import Bot, load_bot

__all__ = ["Bot", "load_bot"]
