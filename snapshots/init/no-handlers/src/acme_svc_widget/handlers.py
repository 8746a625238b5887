"""The handlers CloudFormation calls to manage Acme::Svc::Widget resources.

This file is yours: `cfngen init` wrote it once and `cfngen upgrade` merges template changes
into it. models.py and the runtime library cfngen_runtime/ beside it are written by
`cfngen generate`; do not edit them. cfngen_runtime has what calling AWS takes: boto3
clients with retries pinned, AWS errors as the contract's error codes (`.clients`), and
steps that wait across callbacks (IN_PROGRESS) until the service is ready (`.steps`).

The schema declares no handlers yet. Add one to its "handlers" section, then register it here
with `@resource.handler(Action.CREATE)` (see the cloudformation-cli-python-lib documentation).
"""

from __future__ import annotations

import logging

from .cfngen_runtime.protocol import Resource
from .models import ResourceModel, TypeConfigurationModel

# Log through this logger: CloudFormation sends its output to CloudWatch Logs.
LOG = logging.getLogger(__name__)
TYPE_NAME = "Acme::Svc::Widget"

resource = Resource(TYPE_NAME, ResourceModel, TypeConfigurationModel)
test_entrypoint = resource.test_entrypoint
