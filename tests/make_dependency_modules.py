"""Write cfngen/_init/_dependency_modules.py: the top-level modules of what handlers run beside.

    python tests/make_dependency_modules.py

Run it at release time (and whenever a dependency is added or its pin moves), in an environment
with `pip install -e ".[dev]"`; tests/test_init_answers.py checks the table against the
installed distributions. A project package named like one of these modules would hide it from
the handlers, the project's tests and cfngen itself (src/ comes first on sys.path), so
`cfngen init` refuses such a name.

What is walked: the dependency closure of `cfngen[all]` (what `cfngen test`, `invoke` and the
pytest plugin run handlers with; boto3 and botocore are also what Lambda provides) and of
`pytest` (the starter projects' tests, requirements-dev.txt). A conditional dependency counts
if its marker holds on any of the reference environments below (CPython 3.10 to 3.14 on Linux,
macOS and Windows), so the table does not depend on the machine that makes it. Its names are
read from the installed distribution's RECORD (top_level.txt when it has none), as module names
without their extension-module suffix (`_cffi_backend`, never `_cffi_backend.cpython-311-...`),
and without what only some platforms' wheels carry (mypyc's `<hash>__mypyc` helpers,
auditwheel's `<name>.libs` folders), so the table is the same on every machine.
A distribution the walk reaches that is not installed here (one only older Pythons need) keeps
the entry the table already has, and is named on stderr; a new one must be added on a machine
that has it.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import json
import sys
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

TARGET = Path(__file__).resolve().parent.parent / "cfngen" / "_init" / "_dependency_modules.py"
ROOTS = ("cfngen[all]", "pytest")

_PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
_PLATFORMS = (
    {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix"},
    {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix"},
    {"sys_platform": "win32", "platform_system": "Windows", "os_name": "nt"},
)
ENVIRONMENTS = [
    {
        **platform,
        "python_version": python,
        "python_full_version": f"{python}.0",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
    }
    for python, platform in itertools.product(_PYTHONS, _PLATFORMS)
]


def _holds(marker: Marker | None, extras: frozenset[str]) -> bool:
    if marker is None:
        return True
    return any(
        marker.evaluate({**environment, "extra": extra})
        for environment in ENVIRONMENTS
        for extra in (extras or {""})
    )


def closure() -> tuple[dict[str, frozenset[str]], set[str]]:
    """Every distribution the roots need (canonical name -> extras asked of it), and those of
    them not installed here."""
    needed: dict[str, frozenset[str]] = {}
    missing: set[str] = set()
    todo = [Requirement(root) for root in ROOTS]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        extras = frozenset(requirement.extras)
        if name in needed and extras <= needed[name]:
            continue
        needed[name] = needed.get(name, frozenset()) | extras
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            missing.add(name)
            continue
        for line in distribution.requires or ():
            required = Requirement(line)
            if _holds(required.marker, needed[name]):
                todo.append(required)
    return needed, missing


def _editable(distribution: metadata.Distribution) -> bool:
    try:
        url = json.loads(distribution.read_text("direct_url.json") or "{}")
    except ValueError:
        return False
    return bool(url.get("dir_info", {}).get("editable"))


def top_level_modules(name: str) -> tuple[str, ...]:
    """The importable top-level names an installed distribution puts on sys.path."""
    distribution = metadata.distribution(name)
    found: set[str] = set()
    if _editable(distribution):
        # Its RECORD lists a .pth file, not its modules (cfngen itself, in a checkout): the
        # distribution's own name is the module it installs, when that imports.
        module = name.replace("-", "_")
        if importlib.util.find_spec(module) is not None:
            found.add(module)
    paths = [str(path) for path in distribution.files or ()]
    if not paths:
        text = distribution.read_text("top_level.txt") or ""
        return tuple(sorted(line.strip() for line in text.splitlines() if line.strip()))
    for path in paths:
        parts = path.replace("\\", "/").split("/")
        first = parts[0]
        if first in ("..", "__pycache__") or first.endswith((".dist-info", ".data", ".egg-info")):
            continue
        if len(parts) == 1:  # a module file, not a package folder
            if not first.endswith((".py", ".so", ".pyd")):
                continue  # .pth files, licences, data
            first = first.split(".", 1)[0]
        # mypyc's helper modules (`<hash>__mypyc`) come only with the compiled wheels some
        # platforms get (tomli, pytokens): leaving them out keeps the table the same everywhere,
        # and nobody names a package so. So do auditwheel's `<name>.libs` folders.
        if first.isidentifier() and not first.startswith("__editable__"):
            found.add(first)
    return tuple(sorted(name for name in found if not name.endswith("__mypyc")))


def table(existing: dict[str, tuple[str, ...]]) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """distribution -> its modules, for the closure; and the distributions kept from
    `existing` because they are not installed here."""
    needed, missing = closure()
    modules: dict[str, tuple[str, ...]] = {}
    kept = []
    for name in sorted(needed):
        if name in missing:
            if name not in existing:
                raise SystemExit(f"{name} is needed on some Python or platform but not installed")
            modules[name] = existing[name]
            kept.append(name)
        else:
            modules[name] = top_level_modules(name)
    return modules, kept


def existing_table() -> dict[str, tuple[str, ...]]:
    if not TARGET.is_file():
        return {}
    tree = ast.parse(TARGET.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "MODULES":
            assert node.value is not None
            value: dict[str, tuple[str, ...]] = ast.literal_eval(node.value)
            return value
    return {}


def render(modules: dict[str, tuple[str, ...]]) -> str:
    lines = [
        '"""The top-level modules of every distribution handlers run beside: cfngen[all]\'s',
        "dependency closure and pytest's, on CPython 3.10-3.14 on Linux, macOS and Windows.",
        "",
        "Generated by `python tests/make_dependency_modules.py` (its docstring says how); do not",
        'edit. cfngen init refuses a package name that would hide one of them."""',
        "",
        "#: Distribution (canonical name) -> the top-level modules it installs.",
        "MODULES: dict[str, tuple[str, ...]] = {",
    ]
    for name, names in modules.items():
        # json.dumps: double quotes, as the formatter writes them (the names are ASCII).
        inner = ", ".join(json.dumps(module) for module in names)
        lines.append(f"    {json.dumps(name)}: ({inner}{',' if len(names) == 1 else ''}),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    modules, kept = table(existing_table())
    for name in kept:
        print(f"kept {name} from the table: not installed here", file=sys.stderr)
    TARGET.write_text(render(modules), encoding="utf-8")
    print(f"wrote {TARGET} ({len(modules)} distributions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
