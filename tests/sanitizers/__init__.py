"""Sanitized (ASan + UBSan) runs of the core's tests."""
