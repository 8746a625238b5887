"""`cfngen validate --owned`: of the files given, the ones some kind owns; the rest are left
alone. pre-commit passes every changed JSON and YAML file (it cannot tell a schema from a test
input by name: `custom-resource-inputs.json` looks like `<org>-<service>-<name>.json`), so what
a file is gets decided here, by the kinds, as for any file given by path:

- a project's `.rpdk-config` stands for its project (every file its kind checks);
- a file a kind claims by what it is and where it sits (a module's fragment, a custom
  resource's template or properties schema, a hook's schema);
- a file the kind of the project it sits in checks (`Kind.checked_files`: a resource's schema
  and callback context), the project being its folder or the one above;
- outside any project, a JSON object that declares a `typeName`: a schema of its own.

A folder given is a project, as always.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cfngen._errors import CfngenError


def owned(paths: Sequence[Path]) -> list[Path]:
    """`paths` without the files no kind owns, in their order."""
    return [path for path in paths if path.is_dir() or _is_owned(path)]


def _is_owned(path: Path) -> bool:
    from cfngen._kind import all_kinds
    from cfngen._project import CONFIG_FILE

    if path.name == CONFIG_FILE:
        return True
    if not path.is_file():
        return False
    for kind in all_kinds():
        if kind.claims(path):
            return True
    in_project = _in_project(path)
    if in_project is not None:
        return in_project
    return _declares_type_name(path)


def _in_project(path: Path) -> bool | None:
    """Whether the project `path` sits in checks it (None: it sits in no project)."""
    from cfngen._project import CONFIG_FILE, load_project, project_file

    for folder in (path.parent, path.parent.parent):
        if not (folder / CONFIG_FILE).is_file() and project_file(folder) is None:
            continue
        project = load_project(folder)  # a broken .rpdk-config stops the hook, saying why
        try:
            checked = project.kind.checked_files(project)
        except CfngenError:  # its schema is missing: this file is not it
            return False
        return path.resolve() in {file.resolve() for file in checked}
    return None


def _declares_type_name(path: Path) -> bool:
    from cfngen import _schema
    from cfngen._files import read_optional

    if path.suffix != ".json":
        return False
    try:
        data = read_optional(path)
        document = _schema.loads(data.decode("utf-8")).data if data is not None else None
    except (CfngenError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    return isinstance(document, dict) and "typeName" in document
