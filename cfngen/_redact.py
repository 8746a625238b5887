"""Secrets never reach an output: one registry of the secret strings of this process, and one
scrubber every output goes through (the CLI's stdout and stderr, `pytest --cfngen`'s reports).

What is secret: the values `{{resolve:ssm-secure:...}}` and `{{resolve:secretsmanager:...}}`
references resolve to, and every value seeded with `--secret`. They are registered in the
process that renders output, before any handler runs (worker processes are forks of it).

Scrubbing happens where text leaves cfngen rather than in each renderer: a handler's captured log
line, a traceback, a message it returned and a report in any format all pass through the same
streams. Each format escapes differently, so each secret is matched as it is and as JSON, Python
`repr`, XML and GitHub workflow commands spell it. A secret shorter than SHORT characters is
scrubbed only where it stands alone (not inside a longer word), so that a two-letter secret does
not blank out every word containing those letters; `short_secrets()` names them for a warning.
"""

from __future__ import annotations

import json
import re
from typing import Any, TextIO
from xml.sax.saxutils import escape

#: What a secret is replaced with.
MASK = "****"
#: Secrets shorter than this are scrubbed only as whole words.
SHORT = 8

_secrets: set[str] = set()
#: The compiled scrubber, made again after a secret is registered (one slot, no global).
_compiled_pattern: list[re.Pattern[str]] = []


def register(secret: str) -> None:
    """Scrub `secret` from every output of this process from now on."""
    if isinstance(secret, str) and secret and secret not in _secrets:
        _secrets.add(secret)
        _compiled_pattern.clear()


def registered() -> frozenset[str]:
    return frozenset(_secrets)


def short_secrets() -> list[str]:
    return sorted(s for s in _secrets if len(s) < SHORT)


def forget_all() -> None:
    """For tests that run several commands in one process."""
    _secrets.clear()
    _compiled_pattern.clear()


def scrub(text: str) -> str:
    """`text` with every registered secret, in any of the spellings outputs use, masked."""
    if not _secrets or not isinstance(text, str):
        return text
    return _compiled().sub(MASK, text)


def scrub_data(value: Any) -> Any:
    """A JSON-like value with every string scrubbed (a configuration shown to the user)."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {scrub(str(k)): scrub_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_data(v) for v in value]
    return value


def _spellings(secret: str) -> set[str]:
    github = secret.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
        escape(secret, {'"': "&quot;", "'": "&apos;"}),
        github,
        github.replace(":", "%3A").replace(",", "%2C"),
    }


def _compiled() -> re.Pattern[str]:
    if not _compiled_pattern:
        parts = []
        for secret in _secrets:
            for spelling in _spellings(secret):
                word = re.escape(spelling)
                parts.append(
                    (len(spelling), word if len(secret) >= SHORT else rf"(?<!\w){word}(?!\w)")
                )
        # Longest first: a secret containing another is masked whole.
        _compiled_pattern.append(re.compile("|".join(p for _, p in sorted(parts, reverse=True))))
    return _compiled_pattern[0]


class Scrubbed:
    """A text stream that scrubs what is written to it."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(scrub(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)
