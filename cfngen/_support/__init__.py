"""The runtime library cfngen writes into users' projects: the package `cfngen_runtime/` here.

It runs on the project's Lambda runtime, not on cfngen's Python: standard library, botocore and
cloudformation-cli-python-lib only (the library brings boto3), in code that every runtime a
project may declare accepts (Python 3.8 and newer). `cfngen generate` writes it as a folder with
its header line on every file (`vendored`): inside the handler package (`src/<pkg>/cfngen_runtime/`,
where both `cfngen build` and the official `cfn submit`, which packs only src/<pkg>/, take it
along), or beside a custom resource's models. A custom resource gets its protocol module as one
file (`HELPER_FILE`). Projects made by earlier versions hold single-file copies instead
(`LEGACY_MODULES`): generate removes them, or makes them shims while the project's code imports
them (`legacy_imports`).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from cfngen._support import cfngen_runtime as _package

#: The package's import name, and its folder in a project (under src/, or beside a function).
PACKAGE = "cfngen_runtime"
VERSION: str = _package.__version__
#: The one declared range of cloudformation-cli-python-lib (see the package's __init__).
LIBRARY_RANGE: str = _package.CLOUDFORMATION_CLI_PYTHON_LIB
LIBRARY_REQUIREMENT = f"cloudformation-cli-python-lib{LIBRARY_RANGE}"
STATE_KEY: str = _package.STATE_KEY
#: The custom resource helper: the package's `custom_resource` module as one file.
HELPER_FILE = "cfngen_custom_resource.py"

#: The single files earlier cfngen versions copied beside models.py -> the modules of the
#: package that replaced them, whose names a shim in their place re-exports. cfngen_runtime.py
#: gets none: the package has its import name and exports what the file did.
LEGACY_MODULES: dict[str, tuple[str, ...]] = {
    "cfngen_runtime.py": (),
    "cfngen_aws.py": ("clients", "waiters", "steps"),
    "cfngen_hook.py": ("hooks",),
}

_ROOT = Path(__file__).with_name(PACKAGE)


@functools.cache
def package_files() -> dict[str, str]:
    """The package's files, by their path in the project ("cfngen_runtime/steps.py") -> text."""
    return {
        f"{PACKAGE}/{path.name}": path.read_text(encoding="utf-8")
        for path in sorted(_ROOT.glob("*.py"))
    }


def module_source(module: str) -> str:
    """The text of one module of the package ("custom_resource")."""
    return package_files()[f"{PACKAGE}/{module}.py"]


def shim(legacy: str) -> str:
    """What stands at a legacy single file's path while the project's code imports it."""
    modules = LEGACY_MODULES[legacy]
    lines = [
        f'"""{legacy}: the runtime library of earlier cfngen versions, now the package',
        f"{PACKAGE} {VERSION} beside it ({', '.join(f'.{PACKAGE}.{m}' for m in modules)}).",
        "",
        "cfngen keeps this module while your code imports it. Import from the package instead",
        f"(`from .{PACKAGE}.{modules[0]} import ...`): the next `cfngen generate` removes it.",
        '"""',
        "",
    ]
    lines += [f"from .{PACKAGE}.{module} import *  # noqa: F403" for module in modules]
    if legacy == "cfngen_aws.py":  # the single file exported it too
        lines.append(f"from .{PACKAGE} import STATE_KEY  # noqa: F401")
    return "\n".join(lines) + "\n"


#: An import statement: `from <source> import <names>` (names in parentheses may span lines)
#: or `import <modules>`.
_STATEMENT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<source>[\w.]+)[ \t]+import[ \t]*(?P<names>\([^)]*\)|[^\n]*)"
    r"|import[ \t]+(?P<modules>[^\n]*))",
    re.MULTILINE,
)
_LEGACY = re.compile(r"(?P<dot>\.?)\b(?P<name>cfngen_(?:aws|hook))\b")


def legacy_imports(texts: list[str]) -> list[str]:
    """The legacy files that need a shim (`LEGACY_MODULES` keys but cfngen_runtime.py, whose
    name the package took) that the project's code `texts` imports from its package: `from
    .cfngen_aws import`, `from acme.cfngen_hook import`, `import acme.cfngen_aws`, `from .
    import cfngen_aws`."""
    found: set[str] = set()
    for text in texts:
        for statement in _STATEMENT.finditer(text):
            dotted = statement.group("source") or statement.group("modules") or ""
            names = statement.group("names") or ""
            for match in _LEGACY.finditer(dotted):
                if match.group("dot"):
                    found.add(match.group("name") + ".py")
            for match in _LEGACY.finditer(names):
                found.add(match.group("name") + ".py")
    return sorted(found)


# --------------------------------------------------------------------------- in a project


def vendored(folder: str) -> dict[str, str]:
    """The package's files as generate writes them into `folder` (a project-relative posix
    path, "" for the root), by path -> text (without cfngen's header)."""
    return {_join(folder, path): text for path, text in package_files().items()}


def is_vendored_path(relpath: str, folder: str) -> bool:
    """Whether `relpath` is a module of the package in `folder`: the ones this version ships
    and any other (a module an earlier version shipped is generate's to remove)."""
    parent, _, name = relpath.rpartition("/")
    return parent == _join(folder, PACKAGE) and name.endswith(".py") and name.isascii()


def project_code(folders: list[Path], skip: set[Path]) -> list[str]:
    """The text of every .py file below `folders` but those in `skip` and the package's own
    folder (what the project's code imports is read from it)."""
    texts = []
    for folder in folders:
        for path in sorted(folder.rglob("*.py")) if folder.is_dir() else ():
            if path in skip or PACKAGE in path.relative_to(folder).parts[:-1]:
                continue
            try:
                texts.append(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue
    return texts


def shims(package_dir: str, imported: list[str]) -> dict[str, str]:
    """A shim at `package_dir`/<legacy file> for each legacy file the project's code imports."""
    return {_join(package_dir, name): shim(name) for name in imported if LEGACY_MODULES.get(name)}


def legacy_notes(root: Path, package_dir: str, imported: list[str]) -> list[str]:
    """What generate says about the single files of earlier versions found in `package_dir`."""
    notes = []
    for name, modules in LEGACY_MODULES.items():
        relpath = _join(package_dir, name)
        if not (root / relpath).is_file():
            continue
        replaced = ", ".join(f"{PACKAGE}.{module}" for module in modules) or "the same name"
        if name in imported:
            old = name.removesuffix(".py")
            notes.append(
                f"{relpath}: cfngen's runtime library is now the package {PACKAGE} "
                f"{VERSION} ({replaced}); your code imports {old}, so this file is now a "
                f"shim that imports from the package. Write `from .{PACKAGE}.<module> import "
                f"...` instead of `from .{old} import ...` and generate removes it "
                '(docs/handlers.md, "The runtime library")'
            )
        elif not modules:
            notes.append(
                f"{relpath}: cfngen's runtime library is now the package {PACKAGE} {VERSION} "
                f"beside it, which took this file's import name (`from .{PACKAGE} import "
                "Resource` keeps working): generate removes the file when it is as cfngen "
                "wrote it"
            )
        else:
            notes.append(
                f"{relpath}: cfngen's runtime library is now the package {PACKAGE} "
                f"{VERSION} ({replaced}), and your code does not import this copy: "
                "generate removes it when it is as cfngen wrote it"
            )
    return notes


def _join(folder: str, name: str) -> str:
    return name if folder in ("", ".") else f"{folder}/{name}"
