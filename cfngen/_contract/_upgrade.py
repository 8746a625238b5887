"""`cfngen test --upgrade-from REV`: what a resource made by the released handlers does when the
new ones take over.

CloudFormation keeps the resources consumers made with an earlier version; after an update of
the type, the new handlers read, update and delete them. So: the project as it was at REV (its
schema, handlers and models, from git) creates a resource on one AWS both runs share (a moto
server cfngen starts, or `--endpoint-url`), then this project's handlers read it, update it
and delete it, and read it once more (it must be gone). A handler that renamed where it keeps
its data fails the read. Each step is a test of the report.
"""

from __future__ import annotations

import contextlib
import io
import json
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cfngen._contract._results import InvokeResult, SuiteResult, TestResult
from cfngen._errors import CfngenError

#: The tests, in order; each needs the ones before it.
STEPS = (
    "upgrade_create_with_old_handlers",
    "upgrade_read_with_new_handlers",
    "upgrade_update_with_new_handlers",
    "upgrade_delete_with_new_handlers",
    "upgrade_read_after_delete_not_found",
)
_CODE = "cfngen/upgrade-failed"


def run_upgrade(
    root: Path,
    rev: str,
    *,
    invoke: Callable[..., InvokeResult],
    endpoint_url: str | None = None,
    on_result: Callable[[TestResult], None] | None = None,
) -> SuiteResult:
    """The upgrade steps of the project in `root` from `rev`; `invoke` is cfngen._contract's
    (passed in: it is what imports the handlers)."""
    from cfngen._contract._target import moto_server
    from cfngen._files import scratch_folder
    from cfngen._project import load_project

    project = load_project(root)
    if project.kind.contract is None or project.kind.contract.upgrade_identifiers is None:
        raise CfngenError(
            f"a {project.kind.label} keeps no resource for new handlers to take over",
            "--upgrade-from is for resource types",
        )
    result = SuiteResult()
    started = time.monotonic()
    scratch = scratch_folder("cfngen-upgrade-")
    old_root = _checkout(project.root, rev, scratch)
    where = contextlib.nullcontext(endpoint_url) if endpoint_url else moto_server()
    with where as url:
        _Steps(root, old_root, scratch, invoke, url, result, on_result).run()
    result.seconds = time.monotonic() - started
    return result


class _Steps:
    def __init__(  # noqa: PLR0917 - the run's parts, named once
        self,
        root: Path,
        old_root: Path,
        scratch: Path,
        invoke: Callable[..., InvokeResult],
        url: str,
        result: SuiteResult,
        on_result: Callable[[TestResult], None] | None,
    ) -> None:
        self.root, self.old_root, self.scratch = root, old_root, scratch
        self.invoke, self.url = invoke, url
        self.result, self.on_result = result, on_result
        self.created: dict[str, Any] = {}

    def run(self) -> None:
        for index, name in enumerate(STEPS):
            start = time.monotonic()
            try:
                problem = getattr(self, f"_{name.removeprefix('upgrade_')}")()
            except CfngenError as exc:
                problem = exc.message
            test = TestResult(
                name,
                "failed" if problem else "passed",
                problem,
                time.monotonic() - start,
                code=_CODE if problem else None,
            )
            self._report(test)
            if problem:
                for skipped in STEPS[index + 1 :]:
                    self._report(TestResult(skipped, "skipped", f"{name} failed", 0.0))
                return

    def _report(self, test: TestResult) -> None:
        self.result.tests.append(test)
        if self.on_result is not None:
            self.on_result(test)

    def _call(self, root: Path, action: str, request: dict[str, Any]) -> InvokeResult:
        path = self.scratch / f"{action.lower()}-{len(list(self.scratch.glob('*.json')))}.json"
        path.write_text(json.dumps(request), encoding="utf-8")
        return self.invoke(root, action, path, endpoint_url=self.url)

    def _model(self, outcome: InvokeResult) -> dict[str, Any]:
        model = outcome.outcome.response.get("resourceModel")
        return model if isinstance(model, dict) else {}

    def _identifiers(self) -> dict[str, Any]:
        from cfngen._project import load_project

        contract = load_project(self.root).kind.contract
        assert contract is not None and contract.upgrade_identifiers is not None  # run_upgrade
        found = contract.upgrade_identifiers(self.root, self.created)
        return found if found else dict(self.created)

    # --- the steps: each returns None when it passed, else what went wrong ---------------

    def _create_with_old_handlers(self) -> str | None:
        inputs = _inputs(self.old_root, "create")
        done = self._call(self.old_root, "CREATE", {"desiredResourceState": inputs})
        if not done.succeeded:
            return f"the handlers at the earlier revision could not create: {done.verdict}"
        self.created = self._model(done)
        return None if self.created else "the earlier CREATE returned no resourceModel"

    def _read_with_new_handlers(self) -> str | None:
        done = self._call(self.root, "READ", {"desiredResourceState": self._identifiers()})
        if not done.succeeded:
            return (
                f"this project's READ of a resource the earlier handlers made failed: "
                f"{done.verdict} (does it look for its data where the earlier ones kept it?)"
            )
        read = self._model(done)
        lost = [key for key, value in self.created.items() if key in read and read[key] != value]
        missing = [key for key in self.created if key not in read]
        if lost or missing:
            parts = [
                f"{k} reads {json.dumps(read[k])}, was {json.dumps(self.created[k])}" for k in lost
            ]
            parts += [f"{k} is gone" for k in missing]
            return "READ after the upgrade differs from what CREATE returned: " + "; ".join(parts)
        self.created = {**self.created, **read}
        return None

    def _update_with_new_handlers(self) -> str | None:
        desired = {**_inputs(self.root, "update"), **self._identifiers()}
        done = self._call(
            self.root,
            "UPDATE",
            {"desiredResourceState": desired, "previousResourceState": self.created},
        )
        if not done.succeeded:
            return f"this project's UPDATE of the earlier handlers' resource failed: {done.verdict}"
        return None

    def _delete_with_new_handlers(self) -> str | None:
        done = self._call(self.root, "DELETE", {"desiredResourceState": self._identifiers()})
        return None if done.succeeded else f"DELETE failed: {done.verdict}"

    def _read_after_delete_not_found(self) -> str | None:
        done = self._call(self.root, "READ", {"desiredResourceState": self._identifiers()})
        code = done.outcome.error_code
        if done.succeeded or code != "NotFound":
            return f"READ after DELETE answered {done.verdict}, not FAILED NotFound"
        return None


def _inputs(root: Path, which: str) -> dict[str, Any]:
    """The contract tests' inputs of the project in `root` (inputs/, else example_inputs/)."""
    for folder in ("inputs", "example_inputs"):
        path = root / folder / f"inputs_1_{which}.json"
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                return data
    raise CfngenError(
        f"{root}: no inputs/inputs_1_{which}.json to {which} the resource with",
        "run `cfngen generate` (it writes inputs from the schema), or write one",
    )


def _checkout(root: Path, rev: str, scratch: Path) -> Path:
    """The project folder as it was at `rev`, from git, under `scratch`."""
    from cfngen._files import repository_root
    from cfngen._git import git, git_available

    hint = "pass a revision of the project's git repository (HEAD~1, v1.2.0, main)"
    if not git_available():
        raise CfngenError(
            "--upgrade-from reads the earlier handlers from git, which is missing", hint
        )
    top = repository_root(root)
    if not (top / ".git").exists():
        raise CfngenError(f"{root} is in no git repository: nothing to upgrade from", hint)
    found = git(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
        top,
        check=False,
    )
    if found.returncode != 0:
        raise CfngenError(f"{rev!r} is no revision of {top}", hint)
    commit = found.stdout.strip()
    relpath = root.resolve().relative_to(top.resolve()).as_posix()
    config = ".rpdk-config" if relpath == "." else f"{relpath}/.rpdk-config"
    if git(["cat-file", "-e", f"{commit}:{config}"], top, check=False).returncode != 0:
        raise CfngenError(f"the project did not exist at {rev}: nothing to upgrade from", hint)
    archive = _archive(top, commit, relpath)
    _extract(archive, scratch / "old")
    return scratch / "old" / relpath


def _extract(archive: bytes, where: Path) -> None:
    """Unpack `archive` under `where`: nothing outside it, no link leading out (tarfile's data
    filter where this Python has it: 3.11.4, 3.10.12 and later; else the same rules here)."""
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(where, filter="data")
            return
        for member in tar.getmembers():
            parts = Path(member.name).parts
            if member.name.startswith("/") or ".." in parts:
                raise CfngenError(f"git archive holds {member.name!r}, outside the project", None)
            if member.isfile() or member.isdir():
                tar.extract(member, where)  # links are left out: they could lead anywhere


def _archive(top: Path, commit: str, relpath: str) -> bytes:
    import subprocess

    done = subprocess.run(
        ["git", "archive", "--format=tar", commit, "--", relpath],
        cwd=top,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise CfngenError(
            f"git archive {commit[:12]} failed: {done.stderr.decode(errors='replace').strip()}",
            "check that git works in the repository",
        )
    return done.stdout
