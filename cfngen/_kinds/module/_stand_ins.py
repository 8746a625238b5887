"""Stand-in values for a module's parameters that have neither a value nor a default, so that
`cfngen test` (and `pytest --cfngen`) run on any module without flags.

A consumer must give such a parameter, so there is nothing to read it from; a test needs only
some value CloudFormation would accept. Each parameter's declaration (Type, AllowedValues,
AllowedPattern, MinLength/MaxLength, MinValue/MaxValue) becomes a JSON schema, and the instance
generator of cfngen/_instances makes a value for it (patterns read as AWS's Java engine reads
them; AWS-specific types such as `AWS::EC2::Subnet::Id` through the generator's samples of the
same formats); the value is then checked against the declaration as CloudFormation checks it.
`cfngen module render` never uses them: it makes a template someone may deploy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from cfngen._errors import CfngenError, ExitCode

#: AWS-specific parameter types -> the generator's format of the same values.
_FORMATS = {
    "AWS::EC2::AvailabilityZone::Name": "AWS::EC2::AvailabilityZone.Name",
    "AWS::EC2::Image::Id": "AWS::EC2::Image.Id",
    "AWS::EC2::Instance::Id": "AWS::EC2::Instance.Id",
    "AWS::EC2::KeyPair::KeyName": "AWS::EC2::KeyPair.KeyName",
    "AWS::EC2::SecurityGroup::GroupName": "AWS::EC2::SecurityGroup.Name",
    "AWS::EC2::SecurityGroup::Id": "AWS::EC2::SecurityGroup.Id",
    "AWS::EC2::Subnet::Id": "AWS::EC2::Subnet.Id",
    "AWS::EC2::VPC::Id": "AWS::EC2::VPC.Id",
    "AWS::EC2::Volume::Id": "AWS::EC2::Volume.Id",
    "AWS::Route53::HostedZone::Id": "AWS::Route53::HostedZone.Id",
}
_SSM = re.compile(r"^AWS::SSM::Parameter::(Name|Value<.*>)$")
_LIST = re.compile(r"^List<(.+)>$")


def stand_in(name: str, declaration: Mapping[str, Any]) -> str:
    """A value CloudFormation accepts for the parameter `name` declared as `declaration`
    (as a consumer would type it: a list type's items joined with commas). CfngenError (exit 1)
    when no value can satisfy it, naming the parameter."""
    ptype = str(declaration.get("Type", "String"))
    fallback: str | None = None
    if _SSM.match(ptype):
        # The name of a Systems Manager parameter: CloudFormation reads it at deploy time.
        item_type, fallback = "String", f"/cfngen/stand-in/{name}"
    else:
        # A list type's stand-in is one item (each item must fit, as CloudFormation checks).
        found = _LIST.match(ptype)
        item_type = (
            found.group(1) if found else "String" if ptype == "CommaDelimitedList" else ptype
        )
    allowed = declaration.get("AllowedValues")
    if isinstance(allowed, list) and allowed:
        options = [str(v) for v in allowed]
        value = next((v for v in options if _fits(v, declaration, item_type)), None)
    elif fallback is not None:
        value = fallback
    else:
        value = _generated(_schema(declaration, item_type), declaration, item_type)
    if value is None:
        raise CfngenError(
            f"parameter {name} has no value and no default, and no value fits its declaration "
            "(Type, AllowedValues, AllowedPattern, lengths, bounds)",
            f"give it: --param {name}=VALUE, or fix its constraints",
            exit_code=ExitCode.FAILED,
        )
    return value


def _schema(declaration: Mapping[str, Any], item_type: str) -> dict[str, Any]:
    """The JSON schema of one value (of the one item a list type's stand-in has)."""
    if item_type == "Number":
        schema: dict[str, Any] = {"type": "number"}
        for key, keyword in (("MinValue", "minimum"), ("MaxValue", "maximum")):
            bound = _number(declaration.get(key))
            if bound is not None:
                schema[keyword] = bound
        return schema
    schema = {"type": "string"}
    if item_type in _FORMATS:
        schema["format"] = _FORMATS[item_type]
    pattern = declaration.get("AllowedPattern")
    if isinstance(pattern, str):
        # CloudFormation matches the whole value (of each item of a CommaDelimitedList).
        schema["pattern"] = f"^(?:{pattern})$"
    for key, keyword in (("MinLength", "minLength"), ("MaxLength", "maxLength")):
        length = _number(declaration.get(key))
        if length is not None:
            schema[keyword] = int(length)
    return schema


def _generated(
    schema: dict[str, Any], declaration: Mapping[str, Any], item_type: str
) -> str | None:
    from cfngen._instances import create_inputs, format_samples

    if "pattern" in schema and "format" not in schema:
        # A pattern often describes a well-known kind of value (a CIDR block, an e-mail
        # address): a realistic one of those that fits is likelier to be valid where the
        # module uses it than any string the pattern alone makes.
        for sample in format_samples().values():
            if isinstance(sample, str) and _fits(sample, declaration, item_type):
                return sample

    wrapper = {
        "type": "object",
        "properties": {"Value": schema},
        "required": ["Value"],
        "additionalProperties": False,
    }
    for made in create_inputs(wrapper, 3):
        value = made["Value"]
        text = _text(value)
        if _fits(text, declaration, item_type):
            return text
    return None


def _text(value: Any) -> str:
    """A value as CloudFormation receives a parameter: a string (`5`, not `5.0`)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _fits(value: str, declaration: Mapping[str, Any], item_type: str) -> bool:
    """Whether CloudFormation accepts `value` for the declaration (each item of a list)."""
    from cfngen._patterns import PatternError, compile_pattern

    lo, hi = _number(declaration.get("MinLength")), _number(declaration.get("MaxLength"))
    if (lo is not None and len(value) < lo) or (hi is not None and len(value) > hi):
        return False
    allowed = declaration.get("AllowedValues")
    if isinstance(allowed, list) and allowed and value not in [str(v) for v in allowed]:
        return False
    pattern = declaration.get("AllowedPattern")
    if isinstance(pattern, str):
        try:
            if compile_pattern(pattern).fullmatch(value) is None:
                return False
        except PatternError:
            pass  # a pattern no engine here reads cannot rule a value out (validate says so)
    if item_type == "Number":
        number = _number(value)
        low, high = _number(declaration.get("MinValue")), _number(declaration.get("MaxValue"))
        if number is None or (low is not None and number < low):
            return False
        if high is not None and number > high:
            return False
    return True


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
