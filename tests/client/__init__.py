"""Tests of client/: the terrace command, its screen, records and rendering."""
