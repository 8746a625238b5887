"""Custom::Greeting: a Lambda-backed custom resource.

cfngen_custom_resource (written by `cfngen generate`) speaks the protocol: one answer per
request, also on exceptions and before the deadline, within 4,096 bytes, with the physical id
rules kept. Write what each operation does; every property arrives as a string.
"""

from cfngen_custom_resource import CustomResource, Request, Result

resource = CustomResource()


def _name(request: Request) -> str:
    name = request.properties.get("Name", "")
    if not name:
        # An exception becomes a FAILED answer with this message as its Reason.
        raise ValueError("Name is required")
    return name


@resource.create
def create(request: Request) -> Result:
    name = _name(request)
    # request.physical_id is derived from the request: a duplicate delivery gets the same one.
    # Make the resource here (idempotently), then return its id and what Fn::GetAtt reads.
    return Result(request.physical_id, data={"Greeting": f"Hello, {name}!"})


@resource.update
def update(request: Request) -> Result:
    name = _name(request)
    # Change it in place and keep the id; Result(new_id, replace=True) replaces it instead.
    return Result(request.physical_id, data={"Greeting": f"Hello, {name}!"})


@resource.delete
def delete(request: Request) -> None:
    # Remove it; raise cfngen_custom_resource.NotFound (or just return) when it is gone
    # already, which is also how a Delete of an id this function never made must end.
    return None


# The Lambda handler (template.yaml: Handler: app.handler).
handler = resource
