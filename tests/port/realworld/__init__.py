"""Published torch extensions from PyPI, ported and checked: `python -m tests.port.realworld`."""
