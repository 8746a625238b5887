"""Running a project's handlers in this process: `cfngen invoke` and `cfngen test`.

No SAM, no Docker, no AWS account: the handlers are imported and called through their Lambda
entrypoint, with fake credentials, every AWS call served by moto.
"""

from __future__ import annotations

from cfngen._contract._handlers import HandlerCrash, Invocation, Limits, Outcome
from cfngen._contract._invoke import InvokeResult, invoke
from cfngen._contract._suite import TEST_NAMES, SuiteResult, TestResult, run_contract_tests

__all__ = [
    "TEST_NAMES",
    "HandlerCrash",
    "Invocation",
    "InvokeResult",
    "Limits",
    "Outcome",
    "SuiteResult",
    "TestResult",
    "invoke",
    "run_contract_tests",
]
