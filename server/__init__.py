"""The Terrace Race server: protocol v1 over websockets, races, lobby, accounts, metrics.

Run it with ``terrace-server`` (see ``server.__main__``) or embed :class:`server.app.RaceServer`.
"""
