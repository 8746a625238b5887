"""What every test of one `cfngen test` run of a resource's contract shares."""

from __future__ import annotations

from dataclasses import dataclass

from cfngen._contract._runner import Runner
from cfngen._contract._type_configuration import TypeConfiguration
from cfngen._kinds.resource._view import ResourceSchema
from cfngen._kinds.resource.contract._request import Limits
from cfngen._kinds.resource.contract._rules import Conformance
from cfngen._project import Project


@dataclass
class SuiteRun:
    """What every test of one `cfngen test` run shares."""

    info: ResourceSchema
    runner: Runner[Project]
    limits: Limits
    conformance: Conformance
    #: What every request carries as typeConfiguration (`configuration.for_handler`).
    configuration: TypeConfiguration
