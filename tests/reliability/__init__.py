"""Reliability: leaks over long runs, many Python threads, the GIL in long ops."""
