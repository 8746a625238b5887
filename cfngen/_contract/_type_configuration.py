"""The type configuration handlers run with (`cfngen invoke`, `cfngen test`, `pytest --cfngen`),
for every kind that declares one in its schema's `typeConfiguration` (resource types, hooks).

Where it comes from, first found wins:

1. `--typeconfig FILE`: the properties object SetTypeConfiguration takes (what `cfn test
   --typeconfig` sends). A kind whose SetTypeConfiguration wraps them (a hook:
   `CloudFormationConfiguration.HookConfiguration.Properties`, the protocol's
   `typeconfig_envelope`) accepts that envelope too; another kind refuses it, naming the key.
2. (a hook's `cfngen invoke`: the request file's hookModel, read by the hook.)
3. `.rpdk-config` `contractSettings.typeConfiguration.configuration`, the layout of the user
   guide's Node.js example (`configurationAlias` may sit beside `configuration` or beside
   `typeConfiguration`). That the registry reads `contractSettings` is inferred from that
   example, not documented.
4. Nothing: when the schema requires configuration properties, stand-in values valid for it
   (a dynamic reference where its pattern asks for one) and one warning; else none, as an
   account that never called SetTypeConfiguration sends none.

Never a file in the home folder: the official tool reads ~/.cfn-cli/typeConfiguration.json
silently; here it is read only when named with --typeconfig. Whatever the source, the
configuration is checked against the schema's `typeConfiguration` as given, references
unresolved, as SetTypeConfiguration checks it: a problem is exit 2 before any handler runs.
Then its dynamic references are resolved for the handlers alone (_references.py).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfngen import _redact, _schema
from cfngen._contract import _references
from cfngen._errors import CfngenError

CONTRACT_SETTINGS = "contractSettings"
STAND_INS = "stand-ins"
_HOME_FILE = "~/.cfn-cli/typeConfiguration.json"


@dataclass
class TypeConfiguration:
    """The configuration of a run: as given (what is shown), and as the handlers get it."""

    #: Where it came from, for the output ("--typeconfig cfg.json", ...).
    source: str
    given: dict[str, Any] | None = None
    #: `given` with its dynamic references resolved: what requests carry.
    for_handler: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    #: Names the schema's typeConfiguration requires.
    required: tuple[str, ...] = ()
    #: Whether the schema declares a typeConfiguration at all.
    declared: bool = False

    def shown(self) -> str:
        """The configuration line of the output (resolved secrets never appear: `given` holds
        the references, not their values)."""
        if self.given is None:
            return f"type configuration: none ({self.source})"
        return f"type configuration ({self.source}): {json.dumps(self.given, sort_keys=True)}"

    def report(self) -> list[str]:
        """What the output says about it: where it came from (when the schema declares one or
        one was given), then the notes. Stand-ins are one warning, which names them."""
        if self.source == STAND_INS:
            return list(self.notes)
        if not self.declared and self.given is None:
            return list(self.notes)
        return [self.shown(), *self.notes]


def type_configuration(
    root: Path,
    config: Mapping[str, Any],
    schema: Mapping[str, Any],
    path: Path | None,
    *,
    envelope: Sequence[str] = (),
    seeds: _references.Seeds | None = None,
    from_request: tuple[dict[str, Any], str] | None = None,
    fetch: _references.Fetch | None = None,
) -> TypeConfiguration:
    """The configuration for a run of the project in `root` (`config`: its `.rpdk-config`);
    `from_request`: (a configuration a request file carries, where) used when no --typeconfig
    is given. Raises CfngenError (exit 2) for a file that cannot be read, an envelope the kind
    does not take, a configuration the schema refuses, or a malformed reference."""
    declared = schema.get("typeConfiguration")
    found = _given(root, config, path, envelope, from_request)
    required = _required(declared)
    if found is None:
        result = _without(schema, declared, required)
    else:
        given, source = found
        if isinstance(declared, dict):
            _check(schema, declared, given, source)
        result = TypeConfiguration(source, given, required=required)
    result.declared = isinstance(declared, dict)
    if result.given is not None and not result.declared:
        result.notes.append(
            f"{result.source}: the schema declares no typeConfiguration; sent as given"
        )
    if seeds is None:
        seeds = _references.Seeds()
    if result.given is not None:
        refs = _references.check(result.given, result.source)
        seeds.secure.update(r.name for r in refs if r.service == "ssm-secure")
        result.for_handler, notes = _references.resolve(
            result.given,
            seeds,
            result.source,
            stand_ins_quietly=result.source == STAND_INS,
            # Stand-ins name no real parameter: never looked up.
            fetch=None if result.source == STAND_INS else fetch,
        )
        result.notes.extend(notes)
    seeds.register_secrets()
    short = _redact.short_secrets()
    if short:
        result.notes.append(
            f"{len(short)} secret value(s) shorter than {_redact.SHORT} characters: masked in "
            "the output only where they stand as a word of their own (inside a longer word "
            "they are not the secret); use longer secrets"
        )
    return result


# --------------------------------------------------------------------------- sources


def _given(
    root: Path,
    config: Mapping[str, Any],
    path: Path | None,
    envelope: Sequence[str],
    from_request: tuple[dict[str, Any], str] | None,
) -> tuple[dict[str, Any], str] | None:
    if path is not None:
        shape = _shape(envelope)
        data = _schema.load_object(path, f"a type configuration file holds {shape}")
        return properties_of(data, envelope, str(path)), f"--typeconfig {path}"
    if from_request is not None:
        return from_request
    return _contract_settings(root, config)


def _shape(envelope: Sequence[str]) -> str:
    bare = "the properties object SetTypeConfiguration takes"
    if not envelope:
        return bare
    wrapped = "{...}"
    for key in reversed(envelope):
        wrapped = f'{{"{key}": {wrapped}}}'
    return f"{wrapped} (what SetTypeConfiguration takes) or {bare}"


def properties_of(data: dict[str, Any], envelope: Sequence[str], where: str) -> dict[str, Any]:
    """The properties of a file that may hold the kind's SetTypeConfiguration envelope
    (`envelope`: its keys; none for a resource type, whose file is the properties alone, so
    a hook's envelope given to one is refused naming it). `submit --configure` reads its file
    through this too: one format per kind."""
    shape = _shape(envelope)
    if not envelope:
        wrapper = "CloudFormationConfiguration"
        if wrapper in data:
            raise CfngenError(
                f"{where}: {wrapper} is the envelope of a hook's SetTypeConfiguration; a "
                "resource type's configuration is the properties object alone",
                f"write {shape}: the object inside {wrapper}.HookConfiguration.Properties",
            )
        return data
    if envelope[0] not in data:
        return data
    value: Any = data
    for depth, key in enumerate(envelope):
        value = value.get(key, {} if depth == len(envelope) - 1 else None)
        if not isinstance(value, dict):
            raise CfngenError(f"{where}: {'.'.join(envelope[: depth + 1])} is not an object", shape)
    properties: dict[str, Any] = value
    return properties


def _contract_settings(root: Path, config: Mapping[str, Any]) -> tuple[dict[str, Any], str] | None:
    settings = config.get(CONTRACT_SETTINGS)
    if settings is None:
        return None
    where = f"{root.name}/.rpdk-config {CONTRACT_SETTINGS}"
    hint = (
        f'write "{CONTRACT_SETTINGS}": {{"typeConfiguration": {{"configuration": {{...}}, '
        '"configurationAlias": "default"}}'
    )
    if not isinstance(settings, dict):
        raise CfngenError(f"{where} is not an object", hint)
    block = settings.get("typeConfiguration")
    if block is None:
        return None
    if not isinstance(block, dict):
        raise CfngenError(f"{where}.typeConfiguration is not an object", hint)
    for holder, name in ((settings, "configurationAlias"), (block, "configurationAlias")):
        alias = holder.get(name)
        if alias is not None and not isinstance(alias, str):
            raise CfngenError(f"{where}: configurationAlias must be a string", hint)
    configuration = block.get("configuration")
    if configuration is None:
        return None
    if not isinstance(configuration, dict):
        raise CfngenError(f"{where}.typeConfiguration.configuration is not an object", hint)
    return copy.deepcopy(configuration), f"{where}.typeConfiguration.configuration"


# --------------------------------------------------------------------------- the schema


def _required(declared: Any) -> tuple[str, ...]:
    if not isinstance(declared, dict) or not isinstance(declared.get("required"), list):
        return ()
    return tuple(name for name in declared["required"] if isinstance(name, str))


def _as_schema(schema: Mapping[str, Any], declared: dict[str, Any]) -> dict[str, Any]:
    """typeConfiguration as a schema of its own (its `$ref`s point into the definitions)."""
    return {**declared, "definitions": schema.get("definitions", {})}


def _check(
    schema: Mapping[str, Any], declared: dict[str, Any], given: dict[str, Any], source: str
) -> None:
    from cfngen._instances import model_errors

    problems = model_errors(_as_schema(schema, declared), given)
    if problems:
        raise CfngenError(
            f"{source}: the type configuration does not fit the schema's typeConfiguration: "
            + "; ".join(f"{pointer or '/'}: {why}" for pointer, why in problems),
            "fix the configuration, references unresolved (CloudFormation's "
            "SetTypeConfiguration refuses it too); no handler was run",
        )


def _without(
    schema: Mapping[str, Any], declared: Any, required: tuple[str, ...]
) -> TypeConfiguration:
    hint = (
        f"give the real one with --typeconfig FILE or in .rpdk-config {CONTRACT_SETTINGS}."
        f"typeConfiguration.configuration; the official {_HOME_FILE} is read only when named"
    )
    if not isinstance(declared, dict):
        return TypeConfiguration("the schema declares no typeConfiguration")
    if not required:
        return TypeConfiguration(
            "none given, none required: the handlers get none, as from an account that never "
            "called SetTypeConfiguration"
        )
    values = _stand_ins(declared, schema)
    names = ", ".join(required)
    result = TypeConfiguration(STAND_INS, values, required=required)
    result.notes.append(
        f"no type configuration given, and typeConfiguration requires {names}: the handlers "
        f"get stand-ins {json.dumps(values, sort_keys=True)}, references resolved to "
        f"stand-in values; {hint}"
    )
    return result


#: Tried for a required string whose schema asks for a reference.
_REFERENCES = (
    "{{{{resolve:ssm-secure:/{name}}}}}",
    "{{{{resolve:secretsmanager:{name}}}}}",
    "{{{{resolve:ssm:/{name}}}}}",
)


def _stand_ins(declared: dict[str, Any], schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Values for the required properties, valid for the schema where one can be made."""
    from cfngen._instances import create_inputs, model_errors

    whole = _as_schema(schema or {}, declared)
    try:
        made = create_inputs(whole, 1)
    except Exception:  # a schema the generator cannot serve: plain strings below
        made = []
    values = made[0] if made else {}
    required = _required(declared)
    values = {k: v for k, v in values.items() if k in required} or values
    properties = declared.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    for name in required:
        if name not in values:
            values[name] = f"cfngen-stand-in-{name}"
        if "resolve" in json.dumps(properties.get(name, {})):
            for form in _REFERENCES:
                tried = {**values, name: form.format(name=name)}
                if not model_errors(whole, tried):
                    values = tried
                    break
    return values


def for_run(
    runner: Any,
    schema: Mapping[str, Any],
    path: Path | None,
    *,
    from_request: tuple[dict[str, Any], str] | None = None,
) -> TypeConfiguration:
    """`type_configuration` for a kind's run: the runner's project and seeds, the envelope its
    protocol accepts (`typeconfig_envelope`)."""
    project = runner.project
    return type_configuration(
        project.root,
        project.config,
        schema,
        path,
        envelope=runner.protocol.typeconfig_envelope,
        seeds=runner.settings.seeds,
        from_request=from_request,
        fetch=account_of(runner),
    )


def account_of(runner: Any) -> _references.Fetch | None:
    """With `--profile`, references resolve in that account, as CloudFormation resolves them;
    offline (None), from the seeds."""
    settings = runner.settings
    if settings.profile is None:
        return None
    return _references.account_fetch(settings.profile, settings.region)


def model_class_note(entrypoint: Any, configuration: TypeConfiguration) -> str | None:
    """A handler entrypoint made without a TypeConfigurationModel gets None for every request's
    typeConfiguration, in the registry as here (cloudformation-cli-python-lib deserialises it
    only with the class): say so when there is a configuration to miss."""
    if configuration.for_handler is None:
        return None
    if getattr(entrypoint, "_type_configuration_model_cls", True) is not None:
        return None
    return (
        "the handlers' entrypoint is made without a TypeConfigurationModel, so "
        "request.typeConfiguration is None in every request (in the registry too): make it "
        "Resource(TYPE_NAME, ResourceModel, TypeConfigurationModel), importing "
        "TypeConfigurationModel from .models"
    )
