"""Zip files whose bytes depend on their contents only.

`zipfile` records each file's modification time and mode, and keeps entries in the order they
were added; a package built twice from the same inputs would then differ. Here every entry gets
the same date (1980-01-01, the earliest a zip can hold), mode 0644, and entries are sorted.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from pathlib import Path

from cfngen._progress import advance, phase

FIXED_DATE = (1980, 1, 1, 0, 0, 0)
_REGULAR_0644 = (0o100644 & 0xFFFF) << 16
#: zlib's level 6: within 2 % of level 9 on a handler's dependencies, in half the time.
_LEVEL = 6


def zip_bytes(
    entries: Mapping[str, bytes | Path], *, deflate: bool, what: str = "the package"
) -> bytes:
    """A zip of `entries` (archive name -> content, or a file to read it from); `what` it is
    names the phase (cfngen._progress) that counts its entries."""
    buffer = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    with zipfile.ZipFile(buffer, "w") as archive, phase(f"zipping {what}", total=len(entries)):
        for name in sorted(entries):
            content = entries[name]
            data = content.read_bytes() if isinstance(content, Path) else content
            info = zipfile.ZipInfo(name, FIXED_DATE)
            info.create_system = 3  # Unix, so that readers honour the mode below
            info.external_attr = _REGULAR_0644
            info.compress_type = method
            archive.writestr(info, data, compresslevel=_LEVEL if deflate else None)
            advance()
    return buffer.getvalue()


def unzipped_size(data: bytes) -> int:
    """The total size of the files in the zip `data`, as Lambda counts it against its limit."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return sum(info.file_size for info in archive.infolist())
