"""Protocol v1 as plain data: its messages, frame codec and request checks, and a client's side of it."""
