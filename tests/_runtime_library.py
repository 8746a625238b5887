"""The runtime library's modules of what earlier versions shipped as one file, cfngen_aws.py
(clients, waiters, steps), as one namespace, for the tests written against that file."""

from __future__ import annotations

import types

from cfngen._support.cfngen_runtime import STATE_KEY, clients, steps, waiters

aws = types.SimpleNamespace(
    **{**vars(clients), **vars(waiters), **vars(steps), "STATE_KEY": STATE_KEY}
)
