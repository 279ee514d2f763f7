"""``terrace-arena``: measure bots offline over numbered deals, head to head, and the solver's figures."""
