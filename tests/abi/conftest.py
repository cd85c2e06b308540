"""Fixtures shared with the cpp_extension tests (a private JIT cache per test)."""

from tests.cpp_extension.conftest import ext_dir  # noqa: F401
