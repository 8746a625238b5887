"""Unit tests for the handlers, called through the same entry point as `cfn invoke`.

Run them with `python -m pytest`. `cfngen test` checks the whole handler contract.
"""

from __future__ import annotations

from acme_svc_widget import handlers

TYPE_NAME = "Acme::Svc::Widget"


def test_the_handlers_module_registers_the_type():
    assert handlers.resource.type_name == TYPE_NAME
