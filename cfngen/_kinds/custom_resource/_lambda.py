"""The custom resource's function as SAM finds it, and one Lambda invocation of it in-process.

The template is read with cfn-lint's decoder (YAML short forms become the long-form intrinsics);
the custom resource is the `Custom::*` / `AWS::CloudFormation::CustomResource` (`--resource`
when there are several); its function is the `AWS::Serverless::Function` or
`AWS::Lambda::Function` its ServiceToken names (`GetAtt F.Arn`, `Sub "${F.Arn}"`, `Ref F`, or
an ARN ending in the FunctionName), with SAM's `Globals.Function`. Inline code (`ZipFile`,
`InlineCode`) runs as `index.py` beside AWS's `cfnresponse` module, as on Lambda.

Each invocation is a cold start: the function's own modules are imported afresh (Lambda
containers share no memory, so nothing a handler caches survives to the next request), in a
thread that is abandoned at the deadline, as Lambda ends the invocation.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import re
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError

TEMPLATE_NAMES = ("template.yaml", "template.yml", "template.json")
FUNCTION_TYPES = ("AWS::Serverless::Function", "AWS::Lambda::Function")
_CUSTOM = re.compile(r"^(Custom::[A-Za-z0-9_@-]{1,60}|AWS::CloudFormation::CustomResource)$")
ACCOUNT_ID = "123456789012"
STACK_NAME = "cfngen-test"
PSEUDO = {
    "AWS::AccountId": ACCOUNT_ID,
    "AWS::Partition": "aws",
    "AWS::StackName": STACK_NAME,
    "AWS::URLSuffix": "amazonaws.com",
    "AWS::NotificationARNs": "",
}
#: AWS's cfnresponse module as Lambda provides it to inline code (the PyPI package of that
#: name is someone else's).
CFNRESPONSE = Path(__file__).with_name("aws_cfnresponse.txt")


def stack_id(region: str) -> str:
    return (
        f"arn:aws:cloudformation:{region}:{ACCOUNT_ID}:stack/{STACK_NAME}/"
        "2c5d4e80-6d7a-11ef-9c1d-0a1b2c3d4e5f"
    )


def load_template(path: Path) -> dict[str, Any]:
    from cfnlint.decode import decode_str  # type: ignore[import-untyped]

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CfngenError(f"{path}: cannot read it: {exc}", "pass a readable template") from None
    template, matches = decode_str(text)
    if template is None or not isinstance(template, dict):
        first = matches[0].message if matches else "not a template"
        raise CfngenError(f"{path}: cannot read it: {first}", "fix the template")
    plain: dict[str, Any] = json.loads(json.dumps(template, default=str))
    return plain


def find_template(root: Path, given: Path | None) -> Path:
    if given is not None:
        path = given if given.is_absolute() else root / given
        if not path.is_file():
            raise CfngenError(f"{given}: no such template", "pass --template FILE")
        return path
    for name in TEMPLATE_NAMES:
        if (root / name).is_file():
            return root / name
    from cfngen._project import custom_resource_template

    found = custom_resource_template(root)
    if found is None:
        raise CfngenError(
            f"{root}: no template.yaml, template.yml or template.json",
            "pass --template FILE",
        )
    return found


@dataclass
class Function:
    """The Lambda function that serves the custom resource."""

    logical_id: str
    code_dir: Path
    module: str
    attribute: str
    timeout: float = 3.0
    memory: int = 128
    runtime: str | None = None
    #: Inline code: cfnresponse is importable beside it.
    inline: bool = False
    #: Folders of the function's layers that are in this project (`<ContentUri>/python`).
    layers: tuple[Path, ...] = ()
    #: Where the function's requirements were installed for the run (see `prepare`).
    installed: tuple[str, ...] = ()
    #: The SNS topic (logical id) the ServiceToken names: requests arrive wrapped in it.
    sns_topic: str | None = None

    def load(self) -> Callable[[Any, Any], Any]:
        """The handler, imported afresh (a cold start): its own modules are dropped first."""
        root = str(self.code_dir.resolve())
        layers = [str(layer.resolve()) for layer in self.layers]
        for folder in (root, *layers):
            _forget(folder)
        # Lambda's order: the function's code, then its layers (/opt/python).
        sys.path[:0] = [root, *layers]
        # Requirements installed for the run come last: cfngen's own packages (boto3, moto's
        # patched botocore) must win; they stay for imports the handler makes later.
        sys.path.extend(p for p in self.installed if p not in sys.path)
        importlib.invalidate_caches()
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError as exc:
            raise HandlerError(
                f"importing {self.module} from {self.code_dir}: {exc} (install the function's "
                "requirements where cfngen runs, as `sam build` would put them in its package)"
            ) from exc
        except Exception as exc:
            raise HandlerError(f"importing {self.module} from {self.code_dir}: {exc}") from exc
        finally:
            for folder in (root, *layers):
                with contextlib.suppress(ValueError):
                    sys.path.remove(folder)
        handler = getattr(module, self.attribute, None)
        if not callable(handler):
            raise HandlerError(f"{self.module} has no function {self.attribute}")
        return handler  # type: ignore[no-any-return]

    def prepare(self) -> list[str]:
        """Import the handler once before the tests; when a module is missing and the code
        folder has a requirements.txt, install it (as `sam build` would package it) into
        cfngen's cache and use it for the run. Returns what the user should know."""
        try:
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                self.load()
        except HandlerError as exc:
            if not isinstance(exc.__cause__, ModuleNotFoundError):
                return []  # every request reports it
            requirements = self.code_dir / "requirements.txt"
            if not requirements.is_file() or not any(
                line.strip() and not line.strip().startswith("#")
                for line in requirements.read_text(encoding="utf-8").splitlines()
            ):
                return []
            target = install_requirements(requirements)
            self.installed = (target,)
            return [f"{exc.__cause__}: installed {requirements} for the run ({target})"]
        return []


def install_requirements(requirements: Path) -> str:
    """`pip install -r requirements --target <cache>` once per content and Python version."""
    import hashlib
    import shutil
    import subprocess

    from cfngen._init._template_cache import cfngen_home

    text = requirements.read_bytes()
    key = hashlib.sha256(text + sys.version.encode()).hexdigest()[:16]
    target = cfngen_home() / "custom-resource" / "requirements" / key
    if (target / ".complete").is_file():
        return str(target)
    building = target.with_name(key + ".building")
    shutil.rmtree(building, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--target", str(building), "-r", str(requirements)],
        capture_output=True,
        text=True,
        check=False,
        cwd=requirements.parent,
    )  # fmt: skip
    if done.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        raise CfngenError(
            f"{requirements}: pip could not install it: {done.stderr.strip()[-500:]}",
            "install the function's requirements where cfngen runs, or fix requirements.txt",
        )
    (building / ".complete").write_text("")
    shutil.rmtree(target, ignore_errors=True)
    building.rename(target)
    return str(target)


class HandlerError(Exception):
    """The handler cannot be imported: every request fails as Lambda's would."""


#: Code folders handlers were imported from in this process.
_ROOTS: set[str] = set()


def _forget(root: str) -> None:
    """Drop every module imported from a handler's folder (this one's or an earlier one's: a
    module named `app` from another project must not answer for this one's)."""
    _ROOTS.add(root)
    prefixes = tuple(folder + os.sep for folder in _ROOTS)
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if file.startswith(prefixes):
            del sys.modules[name]


@dataclass
class Resource:
    logical_id: str
    type: str
    properties: dict[str, Any]
    service_timeout: int | None
    function: Function
    template: Path
    warnings: list[str] = field(default_factory=list)


def find_resource(
    root: Path,
    *,
    template: Path | None = None,
    resource: str | None = None,
    handler: str | None = None,
    region: str = "us-east-1",
) -> Resource:
    path = find_template(root, template)
    document = load_template(path)
    resources = document.get("Resources")
    if not isinstance(resources, dict):
        raise CfngenError(f"{path}: has no Resources", "add the custom resource")
    customs = {
        name: body
        for name, body in resources.items()
        if isinstance(body, dict)
        and isinstance(body.get("Type"), str)
        and _CUSTOM.match(body["Type"])
    }
    if resource is not None:
        if resource not in customs:
            raise CfngenError(
                f"{path}: no custom resource {resource}",
                f"use one of {', '.join(sorted(customs)) or '(none)'}",
            )
        chosen = resource
    elif len(customs) == 1:
        (chosen,) = customs
    elif not customs:
        raise CfngenError(
            f"{path}: declares no Custom:: or AWS::CloudFormation::CustomResource resource",
            "add one, or pass --template",
        )
    else:
        raise CfngenError(
            f"{path}: declares {len(customs)} custom resources ({', '.join(sorted(customs))})",
            "pick one with --resource LOGICAL_ID",
        )
    body = customs[chosen]
    raw = body.get("Properties") or {}
    if not isinstance(raw, dict):
        raise CfngenError(f"{path}: {chosen}.Properties is not a mapping", "fix the template")
    token = raw.get("ServiceToken")
    raw = {k: v for k, v in raw.items() if k not in ("ServiceToken", "ServiceTimeout")}
    warnings: list[str] = []
    resolver = _Resolver(document, region, warnings)
    properties = {
        key: value
        for key, value in ((k, resolver.stringify(resolver.resolve(v))) for k, v in raw.items())
        if value is not _NO_VALUE
    }
    timeout = (body.get("Properties") or {}).get("ServiceTimeout")
    service_timeout = (
        int(timeout) if isinstance(timeout, (int, str)) and str(timeout).isdigit() else None
    )
    if handler is not None:
        function = _function_from_flag(root, handler)
    else:
        function = _function(path, document, chosen, token)
    properties["ServiceToken"] = (
        f"arn:aws:lambda:{region}:{ACCOUNT_ID}:function:{STACK_NAME}-{function.logical_id}"
    )
    return Resource(chosen, body["Type"], properties, service_timeout, function, path, warnings)


def _function_from_flag(root: Path, handler: str) -> Function:
    file, sep, attribute = handler.rpartition(":")
    if not sep or not file.endswith(".py") or not attribute.isidentifier():
        raise CfngenError(
            f"--handler {handler!r} is not FILE.py:FUNCTION", "e.g. --handler src/app.py:handler"
        )
    path = Path(file) if Path(file).is_absolute() else root / file
    if not path.is_file():
        raise CfngenError(f"--handler: {file} does not exist", "name the handler's file")
    return Function("Function", path.parent, path.stem, attribute)


def _function(path: Path, document: Mapping[str, Any], custom: str, token: Any) -> Function:
    resources = document.get("Resources") or {}
    name = _token_target(token, resources)
    hint = (
        "point its ServiceToken at a function in the template, or pass --handler FILE.py:FUNCTION"
    )
    if name is None:
        raise CfngenError(
            f"{path}: {custom}'s ServiceToken names no function of this template", hint
        )
    body = resources[name]
    kind = body.get("Type")
    topic: str | None = None
    if kind == "AWS::SNS::Topic":
        topic, name = name, _subscriber(name, resources)
        if name is None:
            raise CfngenError(
                f"{path}: {custom}'s ServiceToken names the SNS topic {topic}, which no Lambda "
                "function of this template subscribes to",
                hint,
            )
        body = resources[name]
        kind = body.get("Type")
    if kind not in FUNCTION_TYPES:
        raise CfngenError(
            f"{path}: {custom}'s ServiceToken names {name}, a {kind}, not a Lambda function", hint
        )
    properties = dict(body.get("Properties") or {})
    if kind == "AWS::Serverless::Function":
        globals_ = (document.get("Globals") or {}).get("Function") or {}
        properties = {**globals_, **properties}
    handler = properties.get("Handler")
    if not isinstance(handler, str) or "." not in handler:
        raise CfngenError(f"{path}: {name} has no Handler module.function", hint)
    module, _, attribute = handler.rpartition(".")
    module = module.replace("/", ".")
    inline: str | None = None
    code_dir: Path | None = None
    code = properties.get("Code")
    text = properties.get("InlineCode") if kind == FUNCTION_TYPES[0] else None
    if kind != FUNCTION_TYPES[0] and isinstance(code, dict):
        text = code.get("ZipFile")
    if isinstance(text, dict):  # Fn::Sub / Fn::Join around the code
        text = _Resolver(document, "us-east-1", []).resolve(text)
    if isinstance(text, str):
        inline = text
    elif kind == "AWS::Serverless::Function":
        code_uri = properties.get("CodeUri", ".")
        if not isinstance(code_uri, str) or code_uri.startswith("s3://"):
            raise CfngenError(f"{path}: {name}'s CodeUri is not a local folder", hint)
        code_dir = path.parent / code_uri
    elif isinstance(code, str) and not code.startswith("s3://"):
        code_dir = path.parent / code  # `aws cloudformation package` input
    else:
        raise CfngenError(f"{path}: {name}'s Code is in S3, not in this folder", hint)
    if inline is not None:
        folder = Path(tempfile.mkdtemp(prefix="cfngen-cr-inline-"))
        (folder / f"{module.split('.')[0]}.py").write_text(inline, encoding="utf-8")
        (folder / "cfnresponse.py").write_text(CFNRESPONSE.read_text(encoding="utf-8"))
        code_dir = folder
    assert code_dir is not None
    if not code_dir.is_dir():
        raise CfngenError(f"{path}: {name}'s code folder {code_dir} does not exist", hint)
    timeout = properties.get("Timeout", 3)
    memory = properties.get("MemorySize", 128)
    return Function(
        name,
        code_dir,
        module,
        attribute,
        timeout=float(timeout)
        if isinstance(timeout, (int, float, str)) and str(timeout).replace(".", "", 1).isdigit()
        else 3.0,
        memory=int(memory) if isinstance(memory, int) else 128,
        runtime=properties.get("Runtime") if isinstance(properties.get("Runtime"), str) else None,
        inline=inline is not None,
        layers=_layers(path, resources, properties.get("Layers")),
        sns_topic=topic,
    )


def _subscriber(topic: str, resources: Mapping[str, Any]) -> str | None:
    """The Lambda function subscribed to the topic: through the topic's Subscription list, an
    AWS::SNS::Subscription, or a SAM function's SNS event."""

    def function_of(endpoint: Any) -> str | None:
        found = _token_target(endpoint, resources)
        body = resources.get(found) if found else None
        return found if isinstance(body, dict) and body.get("Type") in FUNCTION_TYPES else None

    def is_topic(value: Any) -> bool:
        return bool(value in ({"Ref": topic}, topic))

    for name, body in resources.items():
        if not isinstance(body, dict):
            continue
        properties = body.get("Properties") or {}
        kind = body.get("Type")
        if name == topic:
            for item in properties.get("Subscription") or []:
                if isinstance(item, dict) and str(item.get("Protocol")).lower() == "lambda":
                    found = function_of(item.get("Endpoint"))
                    if found:
                        return found
        elif kind == "AWS::SNS::Subscription" and is_topic(properties.get("TopicArn")):
            found = function_of(properties.get("Endpoint"))
            if found:
                return found
        elif kind == "AWS::Serverless::Function":
            for event in (properties.get("Events") or {}).values():
                if (
                    isinstance(event, dict)
                    and event.get("Type") == "SNS"
                    and is_topic((event.get("Properties") or {}).get("Topic"))
                ):
                    return str(name)
    return None


def _layers(path: Path, resources: Mapping[str, Any], given: Any) -> tuple[Path, ...]:
    """The local folders of the layers a function names (`Ref` to an
    AWS::Serverless::LayerVersion with a local ContentUri); Python layers keep modules in
    `python/`."""
    out: list[Path] = []
    for item in given if isinstance(given, list) else []:
        target = item.get("Ref") if isinstance(item, dict) else None
        body = resources.get(target) if isinstance(target, str) else None
        if not isinstance(body, dict) or body.get("Type") != "AWS::Serverless::LayerVersion":
            continue
        content = (body.get("Properties") or {}).get("ContentUri")
        if isinstance(content, str) and not content.startswith("s3://"):
            folder = path.parent / content
            out.append(folder / "python" if (folder / "python").is_dir() else folder)
    return tuple(out)


def _token_target(token: Any, resources: Mapping[str, Any]) -> str | None:
    """The logical id of the function a ServiceToken names."""
    candidates: list[str] = []
    if isinstance(token, dict) and len(token) == 1:
        ((fn, arg),) = token.items()
        if fn == "Fn::GetAtt":
            target = arg[0] if isinstance(arg, list) and arg else str(arg).split(".")[0]
            candidates.append(str(target))
        elif fn == "Ref":
            candidates.append(str(arg))
        elif fn == "Fn::Sub":
            text = arg[0] if isinstance(arg, list) and arg else arg
            candidates += re.findall(r"\$\{([A-Za-z0-9]+)(?:\.[A-Za-z]+)?\}", str(text))
    elif isinstance(token, str):
        for logical_id, body in resources.items():
            properties = body.get("Properties") if isinstance(body, dict) else None
            function_name = properties.get("FunctionName") if isinstance(properties, dict) else None
            if isinstance(function_name, str) and token.endswith(f":function:{function_name}"):
                candidates.append(logical_id)
    for candidate in candidates:
        body = resources.get(candidate)
        if isinstance(body, dict) and body.get("Type") in FUNCTION_TYPES:
            return candidate
    return candidates[0] if candidates and candidates[0] in resources else None


_NO_VALUE = object()


class _Resolver:
    """Intrinsics resolved from parameter defaults and pseudo parameters, else a placeholder."""

    def __init__(self, document: Mapping[str, Any], region: str, warnings: list[str]) -> None:
        parameters = document.get("Parameters") or {}
        self.values: dict[str, Any] = {
            name: body["Default"]
            for name, body in parameters.items()
            if isinstance(body, dict) and "Default" in body
        }
        self.values.update(PSEUDO)
        self.values["AWS::Region"] = region
        self.values["AWS::StackId"] = stack_id(region)
        self.parameters = set(parameters)
        self.resources = set(document.get("Resources") or {})
        self.warnings = warnings

    def _placeholder(self, what: str) -> str:
        self.warnings.append(f"{what} cannot be resolved offline: a placeholder stands for it")
        return f"cfngen-placeholder-{re.sub(r'[^A-Za-z0-9]+', '-', what).strip('-')}"

    def ref(self, name: str) -> Any:
        if name == "AWS::NoValue":
            return _NO_VALUE
        if name in self.values:
            return self.values[name]
        return self._placeholder(f"Ref {name}")

    def resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            return [v for v in (self.resolve(item) for item in value) if v is not _NO_VALUE]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            ((key, arg),) = value.items()
            if key == "Ref" and isinstance(arg, str):
                return self.ref(arg)
            if key == "Fn::Sub":
                return self._sub(arg)
            if key == "Fn::Join" and isinstance(arg, list) and len(arg) == 2:
                parts = self.resolve(arg[1])
                if isinstance(parts, list):
                    return str(arg[0]).join(self.stringify(p) for p in parts)
            if key == "Fn::Select" and isinstance(arg, list) and len(arg) == 2:
                items = self.resolve(arg[1])
                index = self.resolve(arg[0])
                if isinstance(items, list) and str(index).isdigit() and int(index) < len(items):
                    return items[int(index)]
            if key == "Fn::Split" and isinstance(arg, list) and len(arg) == 2:
                text = self.resolve(arg[1])
                if isinstance(text, str):
                    return text.split(str(arg[0]))
            if key.startswith("Fn::") or key == "Condition":
                return self._placeholder(key + " " + json.dumps(arg)[:60])
        return {
            k: v for k, v in ((k, self.resolve(v)) for k, v in value.items()) if v is not _NO_VALUE
        }

    def _sub(self, arg: Any) -> str:
        text, extra = (arg[0], arg[1]) if isinstance(arg, list) and len(arg) == 2 else (arg, {})
        variables = {k: self.resolve(v) for k, v in (extra or {}).items()}

        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return str(self.stringify(variables[name]))
            if "." in name:
                return self._placeholder(f"GetAtt {name}")
            return str(self.stringify(self.ref(name)))

        return re.sub(r"\$\{([^}]+)\}", one, str(text))

    def stringify(self, value: Any) -> Any:
        """CloudFormation sends every scalar as a string."""
        if value is _NO_VALUE:
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return str(value)
        if isinstance(value, list):
            return [self.stringify(v) for v in value]
        if isinstance(value, dict):
            return {k: self.stringify(v) for k, v in value.items()}
        return value


# --------------------------------------------------------------------------- one invocation


class FakeContext:
    """The Lambda context object, with a deadline that the runner enforces."""

    def __init__(self, function: Function, seconds: float, region: str) -> None:
        self._deadline = time.monotonic() + seconds
        self.function_name = f"{STACK_NAME}-{function.logical_id}"
        self.function_version = "$LATEST"
        self.invoked_function_arn = (
            f"arn:aws:lambda:{region}:{ACCOUNT_ID}:function:{self.function_name}"
        )
        self.memory_limit_in_mb = str(function.memory)
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{self.function_name}"
        self.log_stream_name = time.strftime("%Y/%m/%d") + "/[$LATEST]" + uuid.uuid4().hex
        self.identity = None
        self.client_context = None

    def get_remaining_time_in_millis(self) -> int:
        return max(int((self._deadline - time.monotonic()) * 1000), 0)


@dataclass
class Invocation:
    """How one invocation ended."""

    context: FakeContext
    returned: bool
    error: str | None
    deadline_at: float
    ended_at: float
    output: str


class _Router(io.TextIOBase):
    """stdout/stderr while handlers run: the thread that runs the tests writes through; any
    other thread (the handler's, its timers') writes into the running invocation's buffer, and
    into nothing once its invocation is over (a handler abandoned at its deadline must not
    write into the report)."""

    def __init__(self, real: Any, owner: int) -> None:
        self.real = real
        self.owner = owner
        self.buffer: io.StringIO | None = None

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if threading.get_ident() == self.owner:
            return int(self.real.write(text))
        buffer = self.buffer
        return buffer.write(text) if buffer is not None else len(text)

    def flush(self) -> None:
        with contextlib.suppress(Exception):
            self.real.flush()


_ROUTERS: list[_Router] = []
#: Handler threads still running past their deadline: Lambda would have frozen them.
_ABANDONED: list[threading.Thread] = []


@contextlib.contextmanager
def routed_output() -> Iterator[None]:
    """Route the output of handler threads to their invocation (see _Router) while inside."""
    owner = threading.get_ident()
    out, err = _Router(sys.stdout, owner), _Router(sys.stderr, owner)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    _ROUTERS[:] = [out, err]
    try:
        yield
    finally:
        _ABANDONED[:] = [t for t in _ABANDONED if t.is_alive()]
        if not _ABANDONED:
            sys.stdout, sys.stderr = saved
        # else the routers stay: what an abandoned handler prints later goes nowhere.
        _ROUTERS.clear()


def _route_to(buffer: io.StringIO | None) -> None:
    for router in _ROUTERS:
        router.buffer = buffer


def _delivered(function: Function, event: Mapping[str, Any], region: str) -> Any:
    """The event as the function receives it: a copy, inside an SNS notification when the
    ServiceToken names a topic."""
    payload = json.loads(json.dumps(event))
    if function.sns_topic is None:
        return payload
    topic = f"arn:aws:sns:{region}:{ACCOUNT_ID}:{STACK_NAME}-{function.sns_topic}"
    return {
        "Records": [
            {
                "EventSource": "aws:sns",
                "EventVersion": "1.0",
                "EventSubscriptionArn": f"{topic}:{uuid.uuid4()}",
                "Sns": {
                    "Type": "Notification",
                    "MessageId": str(uuid.uuid4()),
                    "TopicArn": topic,
                    "Subject": "AWS CloudFormation custom resource request",
                    "Message": json.dumps(payload),
                    "Timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                    "MessageAttributes": {},
                },
            }
        ]
    }


#: Lambda's init phase (importing the handler) has its own limit, outside the function's Timeout.
INIT_SECONDS = 10.0


def invoke(
    function: Function,
    event: Mapping[str, Any],
    *,
    seconds: float,
    region: str,
) -> Invocation:
    """A cold start (import, bounded apart as Lambda's init phase), then the handler on
    `event` until it returns or its `seconds` are up."""
    output = io.StringIO()
    outcome: dict[str, Any] = {}
    loaded: dict[str, Any] = {}

    def init() -> None:
        try:
            loaded["handler"] = function.load()
        except BaseException as exc:  # reported as Lambda reports it
            loaded["error"] = f"{type(exc).__name__}: {exc}"

    _route_to(output)
    starting = threading.Thread(target=init, daemon=True, name="cfngen-cr-init")
    starting.start()
    starting.join(INIT_SECONDS)
    context = FakeContext(function, seconds, region)
    deadline = time.monotonic() + seconds

    def run() -> None:
        try:
            if "handler" not in loaded:
                raise HandlerError(loaded.get("error", f"init took over {INIT_SECONDS:g} s"))
            loaded["handler"](_delivered(function, event, region), context)
        except BaseException as exc:  # reported as Lambda reports it
            outcome["error"] = f"{type(exc).__name__}: {exc}"
        outcome["ended"] = time.monotonic()

    thread = threading.Thread(target=run, daemon=True, name=f"cfngen-cr-{context.aws_request_id}")
    thread.start()
    thread.join(seconds)
    returned = not thread.is_alive()
    _route_to(None)
    if not returned:
        _ABANDONED.append(thread)
    return Invocation(
        context,
        returned,
        outcome.get("error"),
        deadline,
        outcome.get("ended", deadline) if returned else deadline,
        output.getvalue(),
    )
