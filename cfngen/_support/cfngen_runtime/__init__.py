"""cfngen's runtime library: what handlers of a cfngen project import, one module per concern.

`cfngen generate` writes this package into the project as a folder (`src/cfngen_runtime/`; a
custom resource's models get it beside them) and keeps it current; every file starts with
cfngen's header, so cfngen rewrites or removes it and nobody else needs to. It goes into the
Lambda package with the handlers, both through `cfngen build` and through the official
`cfn submit` (which zips src/).

- `serialisation`: `CfnModel`, the base of the dataclasses in models.py (JSON in and out).
- `protocol`: `Resource`, cloudformation_cli_python_lib's with LIST's nextToken and handler
  exceptions reported by name.
- `clients`: boto3 clients with retries and timeouts pinned; the contract's error codes.
- `waiters`, `steps`: waiting for AWS within the 60 s a call has, and across calls.
- `hooks`: `Hook` and the helpers a hook's checks use.
- `custom_resource`: the Lambda-backed custom resource protocol. It needs nothing but the
  standard library, and a custom resource gets it as one file (`cfngen_custom_resource.py`).

Importing the package itself costs nothing: the names below are loaded when first used, so a
custom resource that only wants `custom_resource` never imports cloudformation_cli_python_lib.
Runs on Python 3.8 and newer.
"""

from __future__ import annotations

import importlib
from typing import Any

#: This library's version: cfngen writes it into projects, so a project says which one it runs.
__version__ = "1.0.0"

#: The versions of cloudformation-cli-python-lib this library is tested with. `protocol` and
#: `hooks` override private methods of its Resource and Hook, so a release outside it may break
#: them. Every requirements file cfngen writes and every test reads this one line.
CLOUDFORMATION_CLI_PYTHON_LIB = ">=2.1.20,<2.2"

#: The callback context key under which `steps` keeps its progress (a JSON object): models.py
#: declares it in CallbackContext, and a schema may not take it for a property of its own.
STATE_KEY = "cfngen"

#: What the single-file library of earlier cfngen versions exported, where each name lives now:
#: handlers that `from cfngen_runtime import Resource` keep working.
_MOVED = {
    "BaseResourceHandlerRequest": "serialisation",
    "CfnModel": "serialisation",
    "Resource": "protocol",
}

__all__ = [
    "CLOUDFORMATION_CLI_PYTHON_LIB",
    "STATE_KEY",
    "BaseResourceHandlerRequest",
    "CfnModel",
    "Resource",
    "__version__",
]


def __getattr__(name: str) -> Any:
    # PEP 562 (Python 3.7+): the module holding `name` is imported on first use only.
    module = _MOVED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
