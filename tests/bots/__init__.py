"""Tests of bots/: the SDK, the sample bots, the arena, the house and the swarm."""
