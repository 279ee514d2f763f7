"""House bots: bots that wait in the queue so nobody races alone, at a person's pace."""
