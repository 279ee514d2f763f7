"""Races at the edge: the registry of races not over, their drivers, log, archive, audience,
matchmaking, and the nodes that share them."""
