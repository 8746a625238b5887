"""Command-line options more than one kind declares (cfngen/_kind/_options.py)."""

from __future__ import annotations

from cfngen._kind._options import CliOption

_PARAMETERS = "parameters (modules and custom resources)"
#: `cfngen module render` takes a module's parameters too.
_COMMANDS = ("test", "invoke", "module render")

#: Parameter values: a module's, or those of a custom resource's template.
PARAMETERS = (
    CliOption(
        "--param",
        "params",
        "a value for one of the parameters of the module, or of the custom resource's "
        "template (repeatable; default: its Default)",
        _PARAMETERS,
        metavar="NAME=VALUE",
        repeat=True,
        commands=_COMMANDS,
    ),
    CliOption(
        "--params",
        "params_file",
        "parameter values: a JSON/YAML mapping (YAML short forms such as !Sub allowed), "
        "or a CloudFormation ParameterKey/ParameterValue list",
        _PARAMETERS,
        metavar="FILE",
        path=True,
        commands=_COMMANDS,
    ),
)
