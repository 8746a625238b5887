"""The kinds of value options take, each checked by argparse before anything runs (a usage
error names the option and the value)."""

from __future__ import annotations

import argparse
import math
import re


def _finite(text: str) -> float:
    """A number of seconds; `nan` and `inf` (which float() accepts) are not one."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number of seconds: {text!r}")
    return value


def seconds(text: str) -> float:
    value = _finite(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds: {text!r}")
    return value


def delay(text: str) -> float:
    value = _finite(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 seconds or more: {text!r}")
    return value


def count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return value


#: An AWS region name: `us-east-1`, `us-gov-west-1`, `cn-north-1`, `eu-isoe-west-1`, ...
_REGION = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9]{1,2}")


def region(text: str) -> str:
    """A region name, checked by its shape before any work (a new region needs no cfngen
    release; `mars-1`, `US-EAST-1` or `us-east` are refused)."""
    if not _REGION.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"not an AWS region: {text!r} (regions look like us-east-1 or eu-west-2)"
        )
    return text


def endpoint_url(text: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise argparse.ArgumentTypeError(
            f"not an http(s) URL: {text!r} (e.g. http://localhost:5000)"
        )
    return text
