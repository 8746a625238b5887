"""What a watch session loads ahead of its runs, so that each run's child starts warm: what every
run needs before the first (cfngen's runner, moto, botocore, the model renderer, the permission
tests' IAM table), and after each run the library modules it imported and the botocore models
of the services its handlers called. Never the project's own code."""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

#: The services whose botocore models this process loaded (load_service_models).
_loaded: set[str] = set()


def warm(modules: Iterable[str]) -> None:
    """Import here the library modules a run imported, so the next run's child has them."""
    if not modules:
        return
    from cfngen._contract._moto_imports import install

    install()  # as in the sandbox: moto's EC2 models only if a run imported them for real
    for name in sorted(modules):
        if name in sys.modules:
            continue
        with contextlib.suppress(Exception):  # only a head start: the child imports the rest
            importlib.import_module(name)
    # moto parses the botocore model of a service it answers once per process (with its own
    # additions), and botocore's shared loader reads it for the first client: each worker did
    # both for every run (60-70 ms, the first test's client).
    utils = sys.modules.get("moto.core.utils")
    services = []
    for name in modules:
        parts = name.split(".")
        if utils is not None and len(parts) == 3 and parts[2] == "responses":
            with contextlib.suppress(Exception):  # a moto service botocore names otherwise
                model = utils.get_service_model(parts[1])
                # What moto's serializer works out of it on first use: the error shapes
                # (every error response of a worker's first test: ~20 ms) and operations.
                _ = model.error_shapes
                for operation in model.operation_names:
                    model.operation_model(operation)
                services.append(utils.service_name_from_moto_package_name(parts[1]))
    from cfngen._contract._botocore_caches import load_service_models

    load_service_models(set(services) - _loaded)
    _loaded.update(services)


def prepare() -> None:
    """Import what every run needs before the first: cfngen's runner and generate (with the
    model renderer), moto, botocore and the runtime library."""
    from cfngen._contract._moto_imports import install

    install()
    for name in (
        "cfngen._contract._runner",
        "cfngen._contract._results",
        "cfngen._generate",
        "cfngen._kinds",
        # What renders models.py when a schema edit changes it (0.5 s to import).
        "datamodel_code_generator.config",
        "datamodel_code_generator.model.dataclass",
        "datamodel_code_generator.parser.jsonschema",
        "black",
        "black.mode",
        "black.parsing",
        "moto",
        "moto.core.models",
        "boto3",
        "botocore.session",
        "cloudformation_cli_python_lib",
        "jsonschema",
        "time_machine",
    ):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    from cfngen._contract._iam import table

    with contextlib.suppress(Exception):  # the permission tests' table, read from the cache
        table()  # a run without it says so itself


def library_modules(names: set[str], root: Path) -> list[str]:
    """The modules among `names` that are libraries: not the project's own, not from a
    folder the run made (requirements installed for it), not a stand-in."""
    found = []
    project = str(root) + os.sep
    temp = tempfile.gettempdir() + os.sep
    for name in names:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None) or ""
        if not path or path.startswith((project, temp)) or name == "__main__":
            continue
        found.append(name)
    return found
