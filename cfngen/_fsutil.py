"""Kept for code that imports write_atomic from here; the file helpers live in cfngen._files."""

from __future__ import annotations

from cfngen._files import write_atomic

__all__ = ["write_atomic"]
