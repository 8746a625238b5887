"""The `cfngen-validate` pre-commit hook's file selection, from what each kind declares
(`Kind.precommit_files`, `Kind.precommit_exclude`): .pre-commit-hooks.yaml is a static file
(pre-commit reads it from the repository, never runs cfngen to ask), so it is written from
these and a test keeps the two equal. `cfngen validate --owned` then leaves alone the files no
kind owns: a file name cannot say which JSON or YAML file is which.
"""

from __future__ import annotations

#: Folders no kind's files are in: installed packages, cfngen's own records.
ALWAYS_EXCLUDED = ("node_modules", r"\.cfngen")


def precommit_patterns() -> tuple[str, str]:
    """(files, exclude): the two regular expressions of the hook, every kind's in one."""
    from cfngen._kind._registry import all_kinds

    kinds = all_kinds()
    names = dict.fromkeys(name for kind in kinds for name in kind.precommit_files)
    folders = dict.fromkeys(
        [folder for kind in kinds for folder in kind.precommit_exclude] + list(ALWAYS_EXCLUDED)
    )
    return f"(^|/)({'|'.join(names)})$", f"(^|/)({'|'.join(folders)})/"
