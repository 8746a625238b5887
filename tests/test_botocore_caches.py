"""botocore's caches shared by every session while handlers run
(cfngen/_contract/_botocore_caches.py): event-name aliases the same as botocore's own, a
client's handler registered under an old service name still called, an aliaser given another
table untouched; a handler's `**kwargs` checked once per function, as botocore checks it; one
SSL context while moto answers; service models read once per process,
also ahead of the first client; clients' operation functions made once per service model and
their event handlers copied as botocore copies them; and botocore as it was after each block."""

from __future__ import annotations

import functools
import inspect

import boto3
import botocore.client
import botocore.compat
import botocore.hooks
import botocore.session
import pytest
from moto import mock_aws

from cfngen._contract._botocore_caches import (
    load_service_models,
    one_ssl_context,
    shared_botocore_loader,
    shared_client_methods,
    shared_event_aliases,
    shared_handler_checks,
)

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


def _ssl_context(client):
    return client._endpoint.http_session._manager.connection_pool_kw["ssl_context"]


@pytest.mark.parametrize("services", [("ssm", "ssm"), ("ssm", "s3", "sts")])
def test_clients_share_one_ssl_context_in_the_block_and_work(monkeypatch, services):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws(), one_ssl_context():
        clients = [boto3.client(name, region_name="us-east-1") for name in services]
        assert len({id(_ssl_context(client)) for client in clients}) == 1
        clients[0].put_parameter(Name="/p", Value="v", Type="String")
        assert clients[0].get_parameter(Name="/p")["Parameter"]["Value"] == "v"
    apart = [boto3.client(name, region_name="us-east-1") for name in services]
    assert len({id(_ssl_context(client)) for client in apart}) == len(services)


def test_service_models_loaded_ahead_are_not_read_again(monkeypatch):
    """What a watch session does before it forks a run: the run's first client reads no
    model file (it took 60-70 ms in each worker of each run)."""
    import botocore.loaders

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    load_service_models(["ssm"])
    read: list[str] = []
    original = botocore.loaders.JSONFileLoader.load_file

    def load_file(self, file_path):
        read.append(file_path)
        return original(self, file_path)

    monkeypatch.setattr(botocore.loaders.JSONFileLoader, "load_file", load_file)
    with shared_botocore_loader(), mock_aws():
        client = botocore.session.Session().create_client("ssm", region_name="us-west-2")
        client.describe_parameters()
    assert read == []
    with shared_botocore_loader():
        botocore.session.Session().create_client("sqs", region_name="us-east-1")
    assert any("sqs" in path for path in read)  # one not loaded ahead is read as usual


def test_botocore_is_as_it_was_after_the_other_blocks():
    import botocore.httpsession

    loader = botocore.session.create_loader
    context = botocore.httpsession.URLLib3Session._get_ssl_context
    with shared_botocore_loader(), one_ssl_context():
        assert botocore.session.create_loader is not loader
        assert botocore.httpsession.URLLib3Session._get_ssl_context is not context
    assert botocore.session.create_loader is loader
    assert botocore.httpsession.URLLib3Session._get_ssl_context is context


def _takes_kwargs(**kwargs):
    return kwargs


def _takes_none(event_name):
    return event_name


class _Handlers:
    def takes_kwargs(self, **kwargs):
        return kwargs

    def takes_none(self):
        return None

    def __call__(self, **kwargs):
        return kwargs


def _claims_none(**kwargs):
    return kwargs


_claims_none.__signature__ = inspect.Signature()  # type: ignore[attr-defined]

HANDLERS = {
    "function with **kwargs": (_takes_kwargs, True),
    "function without": (_takes_none, False),
    "method with **kwargs": (_Handlers().takes_kwargs, True),
    "method without": (_Handlers().takes_none, False),
    "callable object": (_Handlers(), True),
    "partial": (functools.partial(_takes_kwargs, extra=1), True),
    "partial without": (functools.partial(_takes_none), False),
    "lambda": (lambda **kwargs: None, True),
    "own __signature__ without": (_claims_none, False),
}


@pytest.mark.parametrize("handler, accepted", HANDLERS.values(), ids=HANDLERS.keys())
def test_handlers_are_accepted_or_refused_as_botocore_does(handler, accepted):
    def register() -> bool:
        try:
            botocore.hooks.HierarchicalEmitter().register("before-call.ssm", handler)
        except ValueError:
            return False
        return True

    assert register() is accepted  # botocore itself
    with shared_handler_checks():
        assert register() is accepted
        assert register() is accepted  # the second time, from what the first found
    assert botocore.hooks.accepts_kwargs is botocore.compat.accepts_kwargs


def _trie_copies() -> tuple[object, object, object]:
    trie = boto3.session.Session()._session._events._emitter._handlers
    before = botocore.hooks._PrefixTrie._recursive_copy(trie, trie.__dict__)
    with shared_client_methods():
        inside = botocore.hooks._PrefixTrie._recursive_copy(trie, trie.__dict__)
    return trie, before, inside


def _nodes(node: dict) -> list[dict]:
    return [node, *(n for child in node.get("children", {}).values() for n in _nodes(child))]


def test_event_handlers_are_copied_as_botocore_copies_them():
    trie, before, inside = _trie_copies()
    assert inside == before
    for copied, original in zip(
        _nodes(inside["_root"]), _nodes(trie.__dict__["_root"]), strict=True
    ):
        assert copied is not original  # a copy of the structure...
        values = copied.get("values")
        if values is not None:  # ...whose lists are new (a handler added to one only)
            assert all(a is not b for a, b in zip(values, original["values"], strict=True))


@pytest.mark.parametrize("services", [("ssm",), ("ssm", "s3"), ("s3", "s3", "sts")])
def test_clients_of_a_service_share_operation_functions_and_work(services):
    """Two clients of one service get the same operations, each its own class, and a
    handler of `creating-client-class` changing one class's attributes changes only it."""
    with mock_aws(), shared_client_methods():
        session = boto3.session.Session(region_name="us-east-1")
        added = []

        def add_method(class_attributes, **kwargs):
            class_attributes["cfngen_marker"] = len(added)
            added.append(True)

        session.events.register("creating-client-class", add_method)
        made = [session.client(service) for service in services]
        plain = boto3.session.Session(region_name="us-east-1").client(services[0])
        for number, client in enumerate(made):
            assert client.cfngen_marker == number
            assert set(client._PY_TO_OP_NAME) == set(
                boto3.session.Session(region_name="us-east-1")
                .client(client.meta.service_model.service_name)
                ._PY_TO_OP_NAME
            )
        assert not hasattr(plain, "cfngen_marker")
        assert type(made[0]) is not type(plain)
        ssm = made[0] if services[0] == "ssm" else session.client("ssm")
        ssm.put_parameter(Name="n", Value="v", Type="String")
        assert ssm.get_parameter(Name="n")["Parameter"]["Value"] == "v"


def test_botocore_is_as_it_was_after_the_client_methods_block():
    creator, trie = botocore.client.ClientCreator, botocore.hooks._PrefixTrie
    before = (creator._create_methods, creator._create_name_mapping, trie._recursive_copy)
    with shared_client_methods():
        assert creator._create_methods is not before[0]
    assert (creator._create_methods, creator._create_name_mapping, trie._recursive_copy) == before
