"""Kept for code that imports from here; the file helpers live in cfngen._files."""

from __future__ import annotations

from cfngen._files import read_optional as read_if_exists
from cfngen._files import write_atomic

__all__ = ["read_if_exists", "write_atomic"]
