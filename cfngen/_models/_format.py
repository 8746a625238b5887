"""models.py formatted as black formats it: by ruff's formatter (the pinned package's binary),
black when ruff is missing."""

from __future__ import annotations

from cfngen._models._generate import MODERN_PYTHON, internal_error

#: black's line length: models.py reads like any black-formatted project file.
LINE_LENGTH = 88


def format_source(text: str, *, python: tuple[int, int] = MODERN_PYTHON) -> str:
    """black's formatting, done by ruff's formatter when it is installed.

    ruff writes the same bytes on these modules (tested on the corpus) in 20 ms, where black
    costs 0.1 s to import and 2.6 s on QuickSight::Dashboard (ruff: 0.1 s). Both are told the
    oldest Python the module runs on (py38, py39 or py310), so they never write syntax it
    cannot read.
    """
    formatted = _ruff_format(text, python)
    if formatted is not None:
        return formatted
    from black import format_str
    from black.mode import Mode, TargetVersion
    from black.parsing import InvalidInput

    try:
        return format_str(
            text,
            mode=Mode(
                target_versions={TargetVersion[f"PY{python[0]}{python[1]}"]},
                line_length=LINE_LENGTH,
            ),
        )
    except InvalidInput as error:
        raise internal_error(f"the generated models.py is not valid Python: {error}") from error


def _ruff_format(text: str, python: tuple[int, int]) -> str | None:
    """ruff's formatting, or None when ruff is missing or fails (black then says why)."""
    import importlib
    import subprocess

    try:
        # The binary of the pinned ruff package, never another one on PATH.
        ruff = importlib.import_module("ruff.__main__").find_ruff_bin()
    except (ImportError, FileNotFoundError):
        return None
    # --isolated: the user's ruff settings must not change derived files
    result = subprocess.run(
        [
            ruff,
            "format",
            "--isolated",
            f"--line-length={LINE_LENGTH}",
            f"--target-version=py{python[0]}{python[1]}",
            "--stdin-filename=models.py",
            "-",
        ],
        input=text,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    return result.stdout if result.returncode == 0 else None
