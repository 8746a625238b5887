"""Where a publish stands in each region, kept in the project so that a rerun resumes only the
regions that did not finish.

The file is `.cfngen-publish/state.json`, beside a `.gitignore` of its own holding `*` (the way
pytest keeps its cache out of commits without an edit to the project's .gitignore). A state
belongs to one type, version and package digest: a rebuilt package or another version starts
over.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from cfngen._files import writable, write_atomic

FOLDER = ".cfngen-publish"
_FILE = f"{FOLDER}/state.json"


class State:
    def __init__(self, root: Path, key: str) -> None:
        self.root = root
        self.key = key
        self.regions: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()  # regions finish in parallel threads
        try:
            data = json.loads((root / _FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and data.get("key") == key:
            regions = data.get("regions")
            self.regions = regions if isinstance(regions, dict) else {}

    def done(self, region: str) -> dict[str, Any] | None:
        entry = self.regions.get(region)
        return entry if isinstance(entry, dict) and entry.get("status") == "done" else None

    def record(self, region: str, **entry: Any) -> None:
        with self._lock:
            self.regions[region] = entry
            self._write()

    def _write(self) -> None:
        folder = writable(self.root, FOLDER, what="the publish state")
        folder.mkdir(exist_ok=True)
        ignore = writable(self.root, f"{FOLDER}/.gitignore", what="the publish state")
        if not ignore.exists():
            ignore.write_text("# cfngen publish's progress, per region: not for commits\n*\n")
        target = writable(self.root, _FILE, what="the publish state")
        # Whole or not at all: a rerun never reads half a state.
        write_atomic(
            target, json.dumps({"key": self.key, "regions": self.regions}, indent=2) + "\n"
        )
