"""Files cfngen writes verbatim into users' projects (beside their handlers).

They run on the project's Lambda runtime, not on cfngen's Python: standard library,
botocore and cloudformation-cli-python-lib only (the library brings boto3), and code that
every runtime a project may declare accepts (cfngen_aws.py: Python 3.8 and newer).
`cfngen generate` copies them with its header line; `source(name)` is their text.
"""

from __future__ import annotations

import functools
from pathlib import Path


@functools.cache
def source(name: str) -> str:
    """The text of the support file `name` (e.g. "cfngen_runtime.py")."""
    return Path(__file__).with_name(name).read_text(encoding="utf-8")


#: Waiters, retries, error mapping and the boto3 client factory for handlers (issue 13).
AWS_MODULE = "cfngen_aws.py"
#: The callback context key under which cfngen_aws keeps its state (its STATE_KEY): generate
#: declares it in CallbackContext, validate refuses it as a property of the user's.
STATE_KEY = "cfngen"
