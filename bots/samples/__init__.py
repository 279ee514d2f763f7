"""Sample bots, each a short file: ``random_bot``, ``greedy`` and ``planner``."""
