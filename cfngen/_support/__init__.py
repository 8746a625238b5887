"""Modules cfngen writes verbatim into projects, beside the code derived from the schema.

support_source(name) -> the module's text, as `cfngen generate` writes it (after its header).

They run in the user's Lambda function, not in cfngen: each needs only the standard library,
botocore and cloudformation-cli-python-lib, runs on every Python a project may declare (3.8 and
newer), passes `mypy --strict`, and is black-formatted at 88 columns like the project's code.
"""

from __future__ import annotations

import functools
from pathlib import Path

#: Waiters, retries, error mapping and the boto3 client factory for handlers (issue 13).
AWS_MODULE = "cfngen_aws.py"
#: The callback context key under which cfngen_aws keeps its state (its STATE_KEY): generate
#: declares it in CallbackContext, validate refuses it as a property of the user's.
STATE_KEY = "cfngen"


@functools.cache
def support_source(name: str) -> str:
    return Path(__file__).with_name(name).read_text(encoding="utf-8")
