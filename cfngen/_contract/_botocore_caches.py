"""botocore's pure per-object caches, shared by every session while handlers run.

The loader of service models: the runtime library makes a new boto3 session for every handler
call, and a handler makes its own in every new container; a new session parses the service's
JSON model again (0.1-0.3 s per client). Sessions made while handlers run share one loader, one
per process (a watch session's, cfngen/_watch_warm.py, loads the models its runs used before it
forks the next); the parsed models are read-only, so sharing changes nothing else.

A handler runs as in a new Lambda container for every test: it makes its own botocore session
and clients, as it would there, and each of them works out again what no session can change.
The largest of these is the event aliaser's: every session and every client (a copy of its
session's emitter) starts with an empty `_alias_name_cache` and aliases each of the ~130 event
names it registers or emits through botocore's `EVENT_ALIASES` again (about an eighth of a
`cfngen test` worker's CPU on the example). The alias of a name is a pure function of the name
and the alias table, so aliasers with botocore's own table share one cache; one given another
table keeps its own. The SSL context of each client's HTTP layer is shared only while moto
answers every request (`one_ssl_context`), and whether a handler function takes `**kwargs` is
checked once per function (`shared_handler_checks`). Nothing else about a session or client
is shared: exception classes, for one, stay per session as in AWS.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import os
import types
from collections.abc import Iterable, Iterator
from typing import Any


@contextlib.contextmanager
def shared_botocore_loader() -> Iterator[None]:
    """For the length of the block, every botocore session made uses this process's loader of
    service models (one per search path)."""
    import botocore.session

    original = botocore.session.create_loader
    botocore.session.create_loader = _cached_loader
    try:
        yield
    finally:
        botocore.session.create_loader = original


@functools.cache
def _cached_loader(search_path_string: str | None = None) -> Any:
    import botocore.loaders

    return botocore.loaders.create_loader(search_path_string)


def load_service_models(services: Iterable[str]) -> None:
    """Have the shared loader read what a client of each service reads (its model, endpoint
    rules, partitions), by making one client each with fake keys and none of the machine's
    AWS configuration: no request is sent."""
    try:
        import botocore.exceptions
        import botocore.session
    except ImportError:
        return
    from cfngen._contract._environ import patched_environ

    hidden: dict[str, str | None] = {
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_PROFILE": None,
        "AWS_DEFAULT_PROFILE": None,
        "AWS_ENDPOINT_URL": None,
    }
    with patched_environ(hidden), shared_botocore_loader():
        session = botocore.session.Session()
        for service in sorted(set(services)):
            with contextlib.suppress(botocore.exceptions.BotoCoreError, ValueError):
                session.create_client(
                    service,
                    region_name="us-east-1",
                    aws_access_key_id="warm",
                    aws_secret_access_key="warm",
                )


@contextlib.contextmanager
def shared_event_aliases() -> Iterator[None]:
    """For the length of the block, aliasers made with botocore's alias table share the
    cache of aliased names."""
    try:
        from botocore import hooks
    except ImportError:  # no botocore: nothing to share
        yield
        return
    aliaser = hooks.EventAliaser
    original = aliaser.__init__
    default = hooks.EVENT_ALIASES
    shared: dict[str, str] = {}

    def init(self: Any, event_emitter: Any, event_aliases: Any = None) -> None:
        original(self, event_emitter, event_aliases)
        # Its __copy__ passes a copy of the table: equal is as good as the same.
        if event_aliases is None or event_aliases is default or event_aliases == default:
            self._alias_name_cache = shared

    aliaser.__init__ = init
    try:
        yield
    finally:
        aliaser.__init__ = original


@contextlib.contextmanager
def one_ssl_context() -> Iterator[None]:
    """For the length of the block, botocore's HTTP sessions share one SSL context.

    Only while moto answers every request in this process (offline): botocore's HTTP layer is
    then made for each client and never opens a connection, yet each client made a new SSL
    context for it, about half a millisecond (OpenSSL's defaults and the system's CA store
    loaded) of the three a client takes. With a connection possible (an endpoint, AWS) every
    client keeps its own, as botocore makes them.
    """
    try:
        from botocore import httpsession
    except ImportError:
        yield
        return
    session = httpsession.URLLib3Session
    original = session._get_ssl_context
    shared: list[Any] = []

    def get_ssl_context(self: Any) -> Any:
        if not shared:
            shared.append(original(self))
        return shared[0]

    session._get_ssl_context = get_ssl_context
    try:
        yield
    finally:
        session._get_ssl_context = original


@contextlib.contextmanager
def shared_handler_checks() -> Iterator[None]:
    """For the length of the block, botocore's check that an event handler takes `**kwargs` is
    made once per function.

    Every session registers some 110 handlers and every client some 20, and botocore checks
    each with `inspect.getfullargspec` (a quarter of the time a session and a client take).
    Whether a plain function (or a method of one) takes `**kwargs` is a fact of its code object;
    anything else (a partial, a callable object, a function given its own `__signature__`) is
    checked as botocore checks it.
    """
    try:
        from botocore import hooks
    except ImportError:
        yield
        return
    original = hooks.accepts_kwargs
    known: dict[types.CodeType, bool] = {}

    def accepts_kwargs(func: Any) -> Any:
        target = getattr(func, "__func__", func) if inspect.ismethod(func) else func
        if not isinstance(target, types.FunctionType) or "__signature__" in vars(target):
            return original(func)
        code = target.__code__
        if code not in known:
            known[code] = original(func)
        return known[code]

    hooks.accepts_kwargs = accepts_kwargs
    try:
        yield
    finally:
        hooks.accepts_kwargs = original


@contextlib.contextmanager
def shared_client_methods() -> Iterator[None]:
    """For the length of the block, clients of one service model share the functions of their
    operations, and each client's copy of its session's event handlers is made without
    `copy.copy`'s dispatch at every node.

    A client's class is made anew for every client: a function per operation (some 150 for
    SSM), each the same closure over the operation's name (a fifth of the time a client
    takes). They are made once per service model now (the model is the shared loader's, so
    one per service); the class itself is still made per client, from a copy of them, and the
    `creating-client-class` event still sees and may change that copy, as in botocore. The
    copy of the event handlers' trie (a third of the time) is the same structure copied by a
    loop that calls no `__copy__`.
    """
    try:
        from botocore import client, hooks
    except ImportError:
        yield
        return
    creator = client.ClientCreator
    original_methods, original_names = creator._create_methods, creator._create_name_mapping
    trie, node_list = hooks._PrefixTrie, hooks.NodeList
    original_copy = trie._recursive_copy
    methods: dict[tuple[int, str], dict[str, Any]] = {}
    names: dict[tuple[int, str], dict[str, str]] = {}

    def key(model: Any) -> tuple[int, str]:
        return id(model._service_description), model.service_name

    def create_methods(self: Any, service_model: Any) -> dict[str, Any]:
        made = methods.get(key(service_model))
        if made is None:
            made = methods[key(service_model)] = original_methods(self, service_model)
        return dict(made)

    def create_name_mapping(self: Any, service_model: Any) -> dict[str, str]:
        made = names.get(key(service_model))
        if made is None:
            made = names[key(service_model)] = original_names(self, service_model)
        return dict(made)

    def recursive_copy(self: Any, node: dict[str, Any]) -> dict[str, Any]:
        copied = {}
        for name, value in node.items():
            if type(value) is node_list:
                copied[name] = node_list(value.first[:], value.middle[:], value.last[:])
            elif isinstance(value, dict):
                copied[name] = recursive_copy(self, value)
            else:
                copied[name] = copy.copy(value) if isinstance(value, node_list) else value
        return copied

    creator._create_methods, creator._create_name_mapping = create_methods, create_name_mapping
    trie._recursive_copy = recursive_copy
    try:
        yield
    finally:
        creator._create_methods, creator._create_name_mapping = original_methods, original_names
        trie._recursive_copy = original_copy
