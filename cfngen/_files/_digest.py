"""The one digest cfngen records of bytes: the manifest's files, the journal's originals, every
cache entry, build keys and what the watch compares. One function, so a file's digest means
the same wherever it is written down or read back."""

from __future__ import annotations


def sha256(data: bytes) -> str:
    """The sha256 of `data`, as 64 lower-case hex digits."""
    import hashlib  # here, not at the top: recover() runs on every command's quick path

    return hashlib.sha256(data).hexdigest()
