"""The code of a template's Lambda function (a custom resource's, a Lambda hook's), loaded as
Lambda loads it.

From the template (`_template.py` finds the function the ServiceToken names): SAM's `CodeUri`
(or a plain function's local `Code` folder) relative to the template, the handler
`pkg/main.handler` or `pkg.main.handler` imported as the module `pkg.main` with the code folder
on sys.path (so a package's relative imports work); inline code (`ZipFile`, `InlineCode`) as
`index.py` beside AWS's `cfnresponse` module, which Lambda provides to inline code alone. Inline
code that is not text cfngen can read offline (a preprocessor's tag such as `!Rain::Embed
file.py`, a function of values only a deployed stack knows) is refused: `--handler` names the
file it stands for.

From `--handler FILE.py:FUNCTION`: the file imported as Lambda would import it, as a module of
its code root: the function's code folder when the file is in it, else the first folder above
the file that is not a package (no `__init__.py`), so `src/pkg/main.py` runs as `pkg.main` from
`src/`. It runs with the template's function's settings (Timeout, memory, layers, SNS) when the
ServiceToken names one, and with `cfnresponse` importable when that function's code is inline.

Every folder read is checked by the repository rule (_reach.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError
from cfngen._kinds._shared._intrinsics import _Resolver
from cfngen._kinds._shared._lambda import CFNRESPONSE, Function
from cfngen._kinds._shared._reach import Reach

FUNCTION_TYPES = ("AWS::Serverless::Function", "AWS::Lambda::Function")
HINT = "point its ServiceToken at a function in the template, or pass --handler FILE.py:FUNCTION"


@dataclass
class Declared:
    """The function as the template declares it."""

    logical_id: str
    type: str
    #: Its Properties, over SAM's `Globals.Function` for a serverless function.
    properties: dict[str, Any]
    #: The template's Resources (its layers are among them).
    resources: Mapping[str, Any]
    #: The SNS topic (logical id) the ServiceToken names: requests arrive wrapped in it.
    sns_topic: str | None = None

    @property
    def inline(self) -> tuple[bool, Any]:
        """(whether its code is inline, the inline value as the template holds it)."""
        if self.type == FUNCTION_TYPES[0]:
            return "InlineCode" in self.properties, self.properties.get("InlineCode")
        code = self.properties.get("Code")
        if isinstance(code, dict) and "ZipFile" in code:
            return True, code["ZipFile"]
        return False, None

    @property
    def handler(self) -> tuple[str, str]:
        """(module, attribute) of its Handler: `pkg/main.handler` is (`pkg.main`, `handler`)."""
        handler = self.properties.get("Handler")
        if not isinstance(handler, str) or "." not in handler:
            raise CfngenError(f"{self.logical_id} has no Handler module.function", HINT)
        module, _, attribute = handler.rpartition(".")
        return module.replace("/", "."), attribute


def from_template(path: Path, declared: Declared, resolver: _Resolver, reach: Reach) -> Function:
    """The function with the code the template gives it."""
    module, attribute = declared.handler
    inline, value = declared.inline
    if inline:
        code_dir = _inline_folder(module, _inline_code(path, declared, value, resolver))
    else:
        code_dir = _code_folder(path, declared, reach)
    return _function(declared, code_dir, module, attribute, path=path, reach=reach, inline=inline)


def from_flag(
    root: Path, handler: str, path: Path, declared: Declared | None, reach: Reach
) -> tuple[Function, str]:
    """The function `--handler FILE.py:FUNCTION` names (relative to `root`), with what the
    user should know about how it is imported."""
    file_name, sep, attribute = handler.rpartition(":")
    if not sep or not file_name.endswith(".py") or not attribute.isidentifier():
        raise CfngenError(
            f"--handler {handler!r} is not FILE.py:FUNCTION", "e.g. --handler src/app.py:handler"
        )
    file = Path(os.path.abspath(root / file_name))  # an absolute file_name stays itself
    if not file.is_file():
        raise CfngenError(f"--handler: {file_name} does not exist", "name the handler's file")
    reach.code(file, "--handler", listed=False)  # its code root is listed
    base, why = _code_root(file, path, declared)
    parts = file.relative_to(base).with_suffix("").parts
    bad = [part for part in parts if not part.isidentifier()]
    if bad:
        raise CfngenError(
            f"--handler: {file_name} cannot be imported from {base}: {bad[0]!r} is not a "
            "Python name",
            "name a file whose folders below its code root are Python packages",
        )
    module = ".".join(parts)
    code_dir = reach.code(base, "the code root of --handler")
    note = f"--handler runs {module}.{attribute} from {base} ({why})"
    if declared is None:
        note += "; the ServiceToken names no function of the template: Lambda's defaults apply"
        return Function("Function", code_dir, module, attribute), note
    inline, _ = declared.inline
    function = _function(
        declared, code_dir, module, attribute, path=path, reach=reach, inline=inline
    )
    if inline:
        # Lambda gives inline code AWS's cfnresponse; the file stands for that code.
        function.layers = (*function.layers, _inline_folder(None, None))
        note += f"; {declared.logical_id}'s code is inline, so cfnresponse is importable"
    return function, note


def _code_root(file: Path, path: Path, declared: Declared | None) -> tuple[Path, str]:
    """The folder Lambda would import `file` from, and why."""
    if declared is not None and not declared.inline[0]:
        folder = _local_code(path, declared)
        if folder is not None:
            folder = Path(os.path.abspath(folder))
            if file.is_relative_to(folder):
                return folder, f"the code folder of {declared.logical_id}"
    base = file.parent
    while (base / "__init__.py").is_file() and base.parent != base:
        base = base.parent
    return base, "the first folder above it that is not a package"


def _local_code(path: Path, declared: Declared) -> Path | None:
    """The function's local code folder as the template names it (relative to the template,
    as SAM reads it), or None when its code is elsewhere (S3, an image)."""
    if declared.type == FUNCTION_TYPES[0]:
        code_uri = declared.properties.get("CodeUri", ".")
        if isinstance(code_uri, str) and not code_uri.startswith("s3://"):
            return path.parent / code_uri
        return None
    code = declared.properties.get("Code")
    if isinstance(code, str) and not code.startswith("s3://"):
        return path.parent / code  # `aws cloudformation package` input
    return None


def _code_folder(path: Path, declared: Declared, reach: Reach) -> Path:
    name = declared.logical_id
    key = "CodeUri" if declared.type == FUNCTION_TYPES[0] else "Code"
    folder = _local_code(path, declared)
    if folder is None:
        raise CfngenError(f"{path}: {name}'s {key} is not a local folder (S3 or an image)", HINT)
    if not folder.is_dir():
        raise CfngenError(f"{path}: {name}'s code folder {folder} does not exist", HINT)
    return reach.code(folder, f"{key} of {name}")


def _inline_code(path: Path, declared: Declared, value: Any, resolver: _Resolver) -> str:
    """The inline code's text; a CfngenError when it is not text cfngen can know offline."""
    if isinstance(value, str):
        return value
    unknown: list[str] = []
    text = _Resolver(resolver.document, resolver.region, unknown, resolver.given).resolve(value)
    if isinstance(text, str) and not unknown:
        return text
    _module, attribute = declared.handler
    shown = json.dumps(value)
    if isinstance(value, dict) and len(value) == 1:
        ((key, argument),) = value.items()
        # As written: cfn-lint's decoder reads any tag `!X` as `Fn::X`.
        written = argument if isinstance(argument, str) else json.dumps(argument)
        shown = f"!{key.removeprefix('Fn::')} {written}"
        embedded = path.parent / argument if isinstance(argument, str) else None
        if embedded is not None and embedded.suffix == ".py" and embedded.is_file():
            raise CfngenError(
                f"{path}: {declared.logical_id}'s inline code is `{shown}`, which a "
                "preprocessor replaces before deploying: cfngen cannot run it",
                f"pass --handler {os.path.relpath(embedded)}:{attribute}",
            )
    raise CfngenError(
        f"{path}: {declared.logical_id}'s inline code is `{shown[:80]}`, not code cfngen can "
        "read offline",
        f"pass --handler FILE.py:{attribute} with the file it stands for",
    )


def _inline_folder(module: str | None, code: str | None) -> Path:
    """A temporary folder with AWS's cfnresponse module, and the inline code as the handler's
    module when there is one."""
    from cfngen._files import scratch_folder

    folder = scratch_folder("cfngen-cr-inline-")
    if module is not None and code is not None:
        (folder / f"{module.split('.')[0]}.py").write_text(code, encoding="utf-8")
    (folder / "cfnresponse.py").write_text(CFNRESPONSE.read_text(encoding="utf-8"))
    return folder


def _function(
    declared: Declared,
    code_dir: Path,
    module: str,
    attribute: str,
    *,
    path: Path,
    reach: Reach,
    inline: bool,
) -> Function:
    properties = declared.properties
    timeout = properties.get("Timeout", 3)
    memory = properties.get("MemorySize", 128)
    runtime = properties.get("Runtime")
    return Function(
        declared.logical_id,
        code_dir,
        module,
        attribute,
        timeout=float(timeout)
        if isinstance(timeout, (int, float, str)) and str(timeout).replace(".", "", 1).isdigit()
        else 3.0,
        memory=int(memory) if isinstance(memory, int) else 128,
        runtime=runtime if isinstance(runtime, str) else None,
        inline=inline,
        layers=_layers(path, declared.resources, reach, properties.get("Layers")),
        sns_topic=declared.sns_topic,
    )


def _layers(path: Path, resources: Mapping[str, Any], reach: Reach, given: Any) -> tuple[Path, ...]:
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
            folder = reach.code(path.parent / content, f"ContentUri of {target}")
            out.append(folder / "python" if (folder / "python").is_dir() else folder)
    return tuple(out)


def load_template(path: Path) -> dict[str, Any]:
    from cfngen._cfn_template import decode, plain

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CfngenError(f"{path}: cannot read it: {exc}", "pass a readable template") from None
    decoded = decode(text)
    if not isinstance(decoded.template, dict):
        first = decoded.errors[0][2] if decoded.errors else "not a template"
        raise CfngenError(f"{path}: cannot read it: {first}", "fix the template")
    template: dict[str, Any] = plain(decoded.template)
    return template
