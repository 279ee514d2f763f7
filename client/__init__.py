"""The ``terrace`` command: the thin terminal client for people.

Online it holds no rules of its own: the server's views and legal moves are
the truth. Offline practice drives the engine (``terrace``) directly. The
client imports only ``terrace``, never ``server`` or ``bots``.
"""
