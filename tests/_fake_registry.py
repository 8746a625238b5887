"""A stateful fake of the CloudFormation registry, per region, on botocore's event hooks.

moto implements none of the registry's calls (RegisterType, PublishType, ...), so this answers
them before a request is sent, from state it keeps per region: registered versions and the
default, registration progress, type configuration, the publisher, TestType's status and public
versions; with the documented errors public publish scripts run into (the per-type limit of 50
registered versions, a default version that cannot be deregistered while others exist, a
version number on a first publish, an unverified publisher, untested versions, a package bucket
in another region). Every other call (S3, STS, EC2, stacks and stack sets) goes on to moto.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from botocore.awsrequest import AWSResponse

ACCOUNT = "123456789012"
LIMIT = 50


class Refused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Version:
    arn: str
    number: int
    package: str
    default: bool = False
    tests: str = "NOT_TESTED"


@dataclass
class Extension:
    kind: str
    name: str
    versions: list[Version] = field(default_factory=list)
    public: list[str] = field(default_factory=list)
    configuration: str | None = None
    schema: str = "{}"


@dataclass
class Region:
    name: str
    types: dict[str, Extension] = field(default_factory=dict)
    publisher: str = "verified"  # or "unverified", "none"
    #: TestType fails here with this reason (a planted failure).
    tests_fail: str | None = None
    registrations: dict[str, dict[str, Any]] = field(default_factory=dict)


class FakeRegistry:
    def __init__(self) -> None:
        self.regions: dict[str, Region] = defaultdict(lambda: Region(""))
        #: (region, operation, parameters) of every registry call, in order.
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self._ids = itertools.count(1)

    def region(self, name: str) -> Region:
        found = self.regions[name]
        found.name = name
        return found

    def install(self, session: Any) -> None:
        """Answer the registry calls of every client `session` (a boto3.Session) makes."""
        session.events.register("before-parameter-build.cloudformation", self._keep)
        session.events.register("before-call.cloudformation", self._answer)

    # --- botocore's side -----------------------------------------------------------------

    @staticmethod
    def _keep(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        context["fake-registry-params"] = dict(params)

    def _answer(self, model: Any, context: dict[str, Any], request_signer: Any, **_: Any) -> Any:
        handler = getattr(self, f"op_{model.name}", None)
        if handler is None:
            return None  # a stack or stack set call: moto's
        region = request_signer.region_name
        params = context.get("fake-registry-params", {})
        self.calls.append((region, model.name, params))
        try:
            body = handler(self.region(region), **params)
            return AWSResponse("https://fake", 200, {}, None), {**body, "ResponseMetadata": {}}
        except Refused as exc:
            error = {"Error": {"Code": exc.code, "Message": str(exc)}, "ResponseMetadata": {}}
            return AWSResponse("https://fake", 400, {}, None), error

    # --- the registry --------------------------------------------------------------------

    def _type(self, region: Region, name: str) -> Extension:
        if name not in region.types:
            raise Refused("TypeNotFoundException", f"The type {name} cannot be found.")
        return region.types[name]

    def _by_arn(self, region: Region, arn: str) -> tuple[Extension, Version | None]:
        for extension in region.types.values():
            if arn == _type_arn(region.name, extension):
                return extension, None
            for version in extension.versions:
                if version.arn == arn:
                    return extension, version
        raise Refused("TypeNotFoundException", f"{arn} cannot be found.")

    def op_DescribeType(self, region: Region, **p: Any) -> dict[str, Any]:
        if "Arn" in p:
            extension, version = self._by_arn(region, p["Arn"])
        else:
            extension, version = self._type(region, p["TypeName"]), None
        if version is None:
            version = next(v for v in extension.versions if v.default)
        if version.tests == "IN_PROGRESS":  # the next look finds the verdict
            version.tests = "FAILED" if region.tests_fail else "PASSED"
        answer = {
            "Arn": version.arn,
            "Type": extension.kind,
            "TypeName": extension.name,
            "DefaultVersionId": next(f"{v.number:08d}" for v in extension.versions if v.default),
            "IsDefaultVersion": version.default,
            "Schema": extension.schema,
            "TypeTestsStatus": version.tests,
        }
        if version.tests == "FAILED":
            answer["TypeTestsStatusDescription"] = region.tests_fail
        if extension.public:
            answer["LatestPublicVersion"] = extension.public[-1]
        return answer

    def op_ListTypeVersions(self, region: Region, **p: Any) -> dict[str, Any]:
        extension = self._type(region, p["TypeName"])
        return {
            "TypeVersionSummaries": [
                {
                    "Arn": v.arn,
                    "VersionId": f"{v.number:08d}",
                    "IsDefaultVersion": v.default,
                    "TimeCreated": f"2026-01-01T00:00:{v.number:02d}Z",
                }
                for v in extension.versions
            ]
        }

    def op_RegisterType(self, region: Region, **p: Any) -> dict[str, Any]:
        name = p["TypeName"]
        extension = region.types.setdefault(name, Extension(p["Type"], name))
        if len(extension.versions) >= LIMIT:
            raise Refused(
                "CFNRegistryException",
                f"Maximum number of versions ({LIMIT}) exceeded for {name}",
            )
        bucket = p["SchemaHandlerPackage"].removeprefix("s3://").split("/")[0]
        token = f"token-{next(self._ids)}"
        where = _bucket_region(bucket)
        if where != region.name:
            region.registrations[token] = {
                "ProgressStatus": "FAILED",
                "Description": f"The S3 bucket {bucket} is in {where}, not in {region.name}",
            }
            return {"RegistrationToken": token}
        number = max((v.number for v in extension.versions), default=0) + 1
        version = Version(
            f"{_type_arn(region.name, extension)}/{number:08d}",
            number,
            p["SchemaHandlerPackage"],
            default=not extension.versions,
        )
        extension.versions.append(version)
        extension.schema = _schema_in(p["SchemaHandlerPackage"])
        region.registrations[token] = {
            "ProgressStatus": "COMPLETE",
            "TypeArn": _type_arn(region.name, extension),
            "TypeVersionArn": version.arn,
        }
        return {"RegistrationToken": token}

    def op_DescribeTypeRegistration(self, region: Region, **p: Any) -> dict[str, Any]:
        return region.registrations[p["RegistrationToken"]]

    def op_SetTypeDefaultVersion(self, region: Region, **p: Any) -> dict[str, Any]:
        extension, version = self._by_arn(region, p["Arn"])
        assert version is not None
        for v in extension.versions:
            v.default = v is version
        return {}

    def op_SetTypeConfiguration(self, region: Region, **p: Any) -> dict[str, Any]:
        extension, _ = self._by_arn(region, p["TypeArn"])
        extension.configuration = p["Configuration"]
        return {"ConfigurationArn": f"{p['TypeArn']}/configuration/default"}

    def op_DeregisterType(self, region: Region, **p: Any) -> dict[str, Any]:
        extension, version = self._by_arn(region, p["Arn"])
        assert version is not None
        if version.default and len(extension.versions) > 1:
            raise Refused(
                "CFNRegistryException",
                "Version is the default version and cannot be deregistered while others exist",
            )
        extension.versions.remove(version)
        return {}

    def op_DescribePublisher(self, region: Region, **p: Any) -> dict[str, Any]:
        if region.publisher == "none":
            return {}
        status = "VERIFIED" if region.publisher == "verified" else "UNVERIFIED"
        return {"PublisherId": "fakepublisher", "PublisherStatus": status}

    def op_RegisterPublisher(self, region: Region, **p: Any) -> dict[str, Any]:
        if p.get("AcceptTermsAndConditions") is not True:
            raise Refused("InvalidParameter", "You must accept the terms and conditions")
        region.publisher = "verified"
        return {"PublisherId": "fakepublisher"}

    def op_TestType(self, region: Region, **p: Any) -> dict[str, Any]:
        _, version = self._by_arn(region, p["Arn"])
        assert version is not None
        version.tests = "IN_PROGRESS"
        return {"TypeVersionArn": version.arn}

    def op_PublishType(self, region: Region, **p: Any) -> dict[str, Any]:
        extension, _ = self._by_arn(region, p["Arn"])
        if region.publisher != "verified":
            raise Refused("CFNRegistryException", "The publisher is not verified")
        default = next(v for v in extension.versions if v.default)
        if default.tests != "PASSED":
            raise Refused("CFNRegistryException", "The default version has not passed TestType")
        number = p.get("PublicVersionNumber")
        if not extension.public:
            if number is not None:
                raise Refused(
                    "InvalidParameter",
                    "PublicVersionNumber must be omitted for the first publish (it is 1.0.0)",
                )
            number = "1.0.0"
        elif number is None or _key(number) <= _key(extension.public[-1]):
            raise Refused(
                "InvalidParameter",
                f"PublicVersionNumber must be above {extension.public[-1]}",
            )
        extension.public.append(number)
        arn = f"arn:aws:cloudformation:{region.name}::type/resource/fake/{extension.name}"
        return {"PublicTypeArn": f"{arn}/{number}"}


def _type_arn(region: str, extension: Extension) -> str:
    kind = extension.kind.lower()
    return (
        f"arn:aws:cloudformation:{region}:{ACCOUNT}:type/{kind}/{extension.name.replace('::', '-')}"
    )


def _bucket_region(bucket: str) -> str:
    import boto3

    location = boto3.client("s3", region_name="us-east-1").get_bucket_location(Bucket=bucket)
    return location.get("LocationConstraint") or "us-east-1"


def _schema_in(package: str) -> str:
    """The schema a package holds, as the registry reads it when it registers the version."""
    import io
    import zipfile

    import boto3

    bucket, _, key = package.removeprefix("s3://").partition("/")
    data = boto3.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        return archive.read("schema.json").decode() if "schema.json" in names else "{}"


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))
