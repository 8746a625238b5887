"""`cfngen --version`: cfngen's version, then the versions of the libraries that shape what it
writes (a model, a template render, a formatted file), so a report of a difference in generated
output says which ones made it. Read from the installed distributions' metadata: nothing is
imported."""

from __future__ import annotations

from cfngen import __version__

#: Distributions whose version changes the bytes cfngen writes, and what each one shapes.
SHAPING = (
    ("datamodel-code-generator", "models.py"),
    ("black", "formatting"),
    ("ruff", "formatting"),
    ("cloudformation-cli-python-lib", "the handlers' runtime library"),
    ("copier", "project templates and upgrades"),
)


def versions() -> list[tuple[str, str, str]]:
    """(distribution, version or "not installed", what it shapes)."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name, shapes in SHAPING:
        try:
            found.append((name, version(name), shapes))
        except PackageNotFoundError:
            found.append((name, "not installed", shapes))
    return found


def render_versions() -> str:
    lines = [f"cfngen {__version__}"]
    rows = versions()
    width = max(len(name) + len(v) for name, v, _ in rows) + 1
    for name, found, shapes in rows:
        lines.append(f"  {f'{name} {found}'.ljust(width)}  ({shapes})")
    return "\n".join(lines) + "\n"
