"""What the runner reads of a kind's protocol (`Responses`): where an answer's status is, which
statuses and error codes its handlers may answer (taken from cloudformation-cli-python-lib, never
copied by hand), which status means "call me again", and how its entrypoint is imported.
"""

from __future__ import annotations

from typing import Any, Protocol


def lib_error_codes() -> frozenset[str]:
    """Every error code cloudformation-cli-python-lib knows (HandlerErrorCode)."""
    from cloudformation_cli_python_lib.interface import HandlerErrorCode

    return frozenset(code.value for code in HandlerErrorCode)


def lib_statuses(hook: bool = False) -> frozenset[str]:
    """Every status of a progress event (OperationStatus; HookStatus for hooks)."""
    from cloudformation_cli_python_lib.interface import HookStatus, OperationStatus

    return frozenset(status.value for status in (HookStatus if hook else OperationStatus))


class Responses(Protocol):
    """What the runner reads of a kind's protocol (a `ContractProtocol` is one)."""

    #: For messages: "resource handler", "hook handler".
    label: str
    #: The response field holding the status ("status", "hookStatus", "Status").
    status_key: str
    #: The status asking to be called again, or None when the protocol never re-invokes.
    in_progress: str | None
    #: The entrypoint's library module whose `_get_boto_session` the runner shares per set of
    #: credentials offline (None: leave it alone).
    session_module: str | None

    # Properties: a kind reads them from the library when first asked, after the runner
    # checked that the library is installed (cfngen/_extras.py).
    @property
    def statuses(self) -> frozenset[str]:
        """Every status an answer may carry."""
        ...

    @property
    def error_codes(self) -> frozenset[str]:
        """The error codes this kind's handlers may return."""
        ...

    def adapt(self, entrypoint: Any) -> None:
        """Fix the imported entrypoint object where its library is wrong (called per import)."""
        ...
