"""Custom::Parameter: an SSM parameter that CloudFormation creates, updates and deletes.

cfngen_custom_resource (written by `cfngen generate`) speaks the protocol: one answer per
request, also on exceptions and before the deadline, within 4,096 bytes, with the physical id
rules kept. These functions only manage the parameter.
"""

import boto3

from cfngen_custom_resource import CustomResource, NotFound, Request, Result

resource = CustomResource()


def _ssm():  # type: ignore[no-untyped-def]
    return boto3.client("ssm")


def _checked(properties: dict) -> tuple:
    """(name, value), or ValueError: CloudFormation shows the message as the Reason."""
    name = properties.get("Name", "")
    value = properties.get("Value", "")
    if not name.startswith("/"):
        raise ValueError(f"Name must be a path that starts with '/', not {name!r}")
    if not value:
        raise ValueError("Value is required")
    return name, value


@resource.create
def create(request: Request) -> Result:
    name, value = _checked(request.properties)
    # Named before anything is made: if the put fails, the rollback Delete gets this id.
    request.physical_id = name
    # Overwrite: a duplicate delivery of this request must not fail.
    _ssm().put_parameter(Name=name, Value=value, Type="String", Overwrite=True)
    return Result(name, data={"Name": name})


@resource.update
def update(request: Request) -> Result:
    name, value = _checked(request.properties)
    _ssm().put_parameter(Name=name, Value=value, Type="String", Overwrite=True)
    # A new name is a new parameter: CloudFormation then deletes the old one.
    return Result(name, data={"Name": name}, replace=name != request.physical_id)


@resource.delete
def delete(request: Request) -> None:
    ssm = _ssm()
    try:
        ssm.delete_parameter(Name=request.physical_id)
    except ssm.exceptions.ParameterNotFound:
        raise NotFound(request.physical_id) from None


# The Lambda handler (template.yaml: Handler: app.handler).
handler = resource
