"""pytest configuration of the example tests."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: builds an extension or trains (seconds to a minute)")
