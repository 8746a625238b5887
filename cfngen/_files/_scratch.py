"""Temporary folders a command needs until its process ends: the local HTTPS receiver's
certificate, a custom resource's inline code written out as a module. They are read by the
handlers' forked workers for the whole run, so no `finally` of a narrower scope may remove them.
"""

from __future__ import annotations

import os
from pathlib import Path


def scratch_folder(prefix: str) -> Path:
    """A new private folder in the temporary directory, removed when this process exits (a
    normal exit, an exception, or an interrupt cfngen handles; SIGKILL leaves it, as it leaves
    any temporary file). A worker forked from this process that exits normally leaves it to
    its parent."""
    # Imported here: cfngen._files is on every command's start-up path, this only on a few.
    import atexit
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix=prefix))
    owner = os.getpid()

    def remove() -> None:
        if os.getpid() == owner:
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
    return folder
