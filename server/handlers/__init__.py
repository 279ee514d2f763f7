"""Requests in, answers out: the dispatcher, and the handlers of players, the lobby and races.

Each room registers its own handlers with :class:`~server.handlers.dispatch.Dispatcher`
(the features theirs: the daily deal, challenges, arenas, hindsight), saying which of them
may be asked before ``hello``.
"""
