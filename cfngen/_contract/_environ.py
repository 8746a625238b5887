"""The process environment changed for a block and put back after it (the sandbox, the
botocore caches, a custom resource's receiver): below them all, so none imports another for it."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping


@contextlib.contextmanager
def patched_environ(values: Mapping[str, str | None]) -> Iterator[None]:
    """The environment with `values` set (None: unset) inside, as it was after."""
    saved = {key: os.environ.get(key) for key in values}
    try:
        for key, value in values.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
