"""The project's work tree around an upgrade's merge: what was the user's before it, what the
merge changed, and how to put it back.

Only tracked changes stop an upgrade (they would mix with the merge's). Files git does not
track are the user's own (notes, a local .env, a scratch script) and stay as they are: the
upgrade refuses before the merge if the new template writes where one is, the rollback never
removes one, and the list of what the upgrade changed never names one. While the merge runs, a
marker in the repository's git folder (never in the work tree, so `git status` stays clean)
records them, so that the next upgrade after a kill can tell the merge's files from the user's.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from cfngen._errors import CfngenError
from cfngen._git import git, status_porcelain, untracked

_MARKER = "cfngen-upgrade-in-progress"


@dataclass(frozen=True)
class WorkTree:
    root: Path
    #: Files git did not track before the merge (relative to root): the user's.
    personal: frozenset[str]

    @classmethod
    def before_merge(cls, root: Path) -> WorkTree:
        """The tree as it is now, refused if an earlier upgrade was killed half-way or if
        tracked files have uncommitted changes."""
        marker = _marker(root)
        if marker.exists():
            earlier = cls(root, _recorded_personal(marker))
            earlier.refuse_leftovers()
            marker.unlink()
        dirty = status_porcelain(root)
        if dirty:
            more = f" and {len(dirty) - 10} more" if len(dirty) > 10 else ""
            raise CfngenError(
                f"the project has uncommitted changes in {len(dirty)} path(s): "
                f"{', '.join(dirty[:10])}{more}",
                "commit or stash them first, so the upgrade's changes can be reviewed on their "
                "own (files git does not track are left alone)",
            )
        return cls(root, frozenset(untracked(root)))

    def refuse_in_the_way(self, rendered: set[str]) -> None:
        """Refuse when the new template writes a file where one of the user's untracked files
        (or a file standing where it needs a folder) is: the merge would overwrite it. So is
        a `*.rej` file: copier takes every untracked one for its merge's rejected hunks."""
        in_way = sorted(
            path
            for path in self.personal
            if path in rendered
            or path.endswith(".rej")
            or any(name.startswith(f"{path}/") for name in rendered)
        )
        if in_way:
            raise CfngenError(
                f"the new template writes {', '.join(in_way)}, which git does not track here, "
                "so the merge would overwrite it",
                "commit it (the upgrade then merges the template's changes into it) or move it "
                "away, then run `cfngen upgrade` again",
            )

    def merging(self) -> None:
        """Record the user's files while the merge runs (see the module's docstring)."""
        _marker(self.root).write_text(
            json.dumps({"untracked": sorted(self.personal)}), encoding="utf-8"
        )

    def merged(self) -> None:
        _marker(self.root).unlink(missing_ok=True)

    def changed(self) -> list[str]:
        """The files the upgrade changed, added or deleted (relative to root, sorted)."""
        tracked = git(["diff", "--name-only", "--relative", "HEAD", "--", "."], self.root).stdout
        return sorted(set(tracked.splitlines()) | self._added())

    def restore(self) -> None:
        """Put the project back to HEAD after a failed or interrupted merge. Safe because the
        tracked files were clean before the merge began: every difference is the merge's, and
        so is every untracked file that is not the user's."""
        git(["reset", "--quiet", "--", "."], self.root, check=False)
        git(["checkout", "--quiet", "HEAD", "--", "."], self.root, check=False)
        for rel in self._added():
            path = self.root / rel
            path.unlink(missing_ok=True)
            for parent in path.parents:
                if parent == self.root or not parent.is_dir() or any(parent.iterdir()):
                    break
                parent.rmdir()

    def refuse_leftovers(self) -> None:
        """Refuse, saying how to undo them, the files a killed merge left (nothing when it
        left none)."""
        dirty = status_porcelain(self.root)
        added = sorted(self._added())
        if not dirty and not added:
            return
        steps = ["git checkout -- ."] if dirty else []
        if added:
            # Without untracked files of the user's, every untracked file is the merge's.
            named = " -- " + " ".join(shlex.quote(a) for a in added) if self.personal else ""
            steps.append(f"git clean -fd{named}")
        raise CfngenError(
            f"an earlier `cfngen upgrade` of {self.root} was killed half-way; its partly merged "
            f"files are still there ({len(dirty) + len(added)} path(s))",
            f"undo them with `{' && '.join(steps)}` in the project (what you committed, and "
            "your files git does not track, are safe), then run `cfngen upgrade` again",
        )

    def _added(self) -> set[str]:
        return untracked(self.root) - self.personal


def _marker(root: Path) -> Path:
    git_dir = git(["rev-parse", "--absolute-git-dir"], root).stdout.strip()
    return Path(git_dir) / _MARKER


def _recorded_personal(marker: Path) -> frozenset[str]:
    """The user's untracked files a marker recorded; none from a marker of an older cfngen
    (its content was the process id)."""
    try:
        doc = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return frozenset()
    names = doc.get("untracked") if isinstance(doc, dict) else None
    if not isinstance(names, list):
        return frozenset()
    return frozenset(name for name in names if isinstance(name, str))
