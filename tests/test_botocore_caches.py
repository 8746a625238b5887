"""botocore's event-name aliases shared by every session while handlers run
(cfngen/_contract/_botocore_caches.py): the same names as botocore's own, a client's handler
registered under an old service name still called, an aliaser given another table untouched,
and botocore as it was after the block."""

from __future__ import annotations

import boto3
import botocore.hooks
import botocore.session
import pytest
from moto import mock_aws

from cfngen._contract._botocore_caches import shared_event_aliases

NAMES = [
    "before-call.apigateway.GetRestApis",
    "creating-client-class.autoscaling",
    "before-parameter-build.cognito-idp.SignUp",
    "needs-retry.data.iot.Publish",
    "before-call.ssm.GetParameter",
    "provide-client-params.s3.PutObject",
]


@pytest.mark.parametrize("name", NAMES)
def test_names_alias_as_botocore_aliases_them(name):
    expected = botocore.hooks.EventAliaser(botocore.hooks.HierarchicalEmitter())
    with shared_event_aliases():
        first = botocore.hooks.EventAliaser(botocore.hooks.HierarchicalEmitter())
        second = botocore.hooks.EventAliaser(botocore.hooks.HierarchicalEmitter())
        assert first._alias_event_name(name) == expected._alias_event_name(name)
        # The second finds it in the shared cache: the same answer.
        assert second._alias_event_name(name) == expected._alias_event_name(name)


def test_another_table_keeps_its_own_cache():
    with shared_event_aliases():
        ours = botocore.hooks.EventAliaser(botocore.hooks.HierarchicalEmitter(), {"ssm": "x"})
        assert (
            ours._alias_event_name("before-call.ssm.GetParameter") == "before-call.x.GetParameter"
        )
        plain = botocore.hooks.EventAliaser(botocore.hooks.HierarchicalEmitter())
        assert plain._alias_event_name("before-call.ssm.GetParameter") == (
            "before-call.ssm.GetParameter"
        )


def test_a_handler_registered_under_an_old_name_is_called(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    called: list[str] = []
    with shared_event_aliases(), mock_aws():
        for _ in range(2):  # a second session finds the names cached by the first
            session = boto3.session.Session(region_name="us-east-1")
            client = session.client("autoscaling")
            client.meta.events.register(
                "before-call.autoscaling.DescribeAutoScalingGroups",
                lambda **kwargs: called.append("yes"),
            )
            client.describe_auto_scaling_groups()
    assert called == ["yes", "yes"]


def test_botocore_is_as_it_was_after_the_block():
    before = botocore.hooks.EventAliaser.__init__
    with shared_event_aliases():
        assert botocore.hooks.EventAliaser.__init__ is not before
    assert botocore.hooks.EventAliaser.__init__ is before
    first = botocore.hooks.EventAliaser(botocore.hooks.HierarchicalEmitter())
    second = botocore.hooks.EventAliaser(botocore.hooks.HierarchicalEmitter())
    first._alias_event_name("before-call.apigateway.GetRestApis")
    assert second._alias_name_cache == {}
