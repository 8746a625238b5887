"""The StackSets route of the user guide: a template that registers the extension in every
account and region a stack set reaches, written for the kind, and optionally deployed.

The registry's own resource types do the work: `AWS::CloudFormation::ResourceVersion`,
`ModuleVersion` or `HookVersion`, the default version, for a hook its `HookTypeConfig`, and for
a public extension the `Publisher` and `PublicTypeVersion`. The package is read from a bucket
in each region (`<prefix>-<region>`, as `cfngen publish` names its buckets), because the
registry reads packages only from its own region.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

#: The registry's resource types for each kind: (version, default version, name property,
#: package property).
_TYPES = {
    "RESOURCE": ("ResourceVersion", "ResourceDefaultVersion", "TypeName", "SchemaHandlerPackage"),
    "HOOK": ("HookVersion", "HookDefaultVersion", "TypeName", "SchemaHandlerPackage"),
    "MODULE": ("ModuleVersion", "ModuleDefaultVersion", "ModuleName", "ModulePackage"),
}
#: A hook that does nothing until its owner turns it on: what a stack set should not decide.
_HOOK_OFF = {
    "CloudFormationConfiguration": {
        "HookConfiguration": {"TargetStacks": "NONE", "FailureMode": "WARN", "Properties": {}}
    }
}


def stack_set_template(
    registry_type: str,
    type_name: str,
    *,
    public: bool = False,
    version: str | None = None,
    configuration: str | None = None,
) -> str:
    version_type, default_type, name_key, package_key = _TYPES[registry_type]
    handlers = registry_type != "MODULE"
    parameters: dict[str, Any] = {
        "PackageBucketPrefix": {
            "Type": "String",
            "Description": "the package buckets' name without the region (`cfngen publish` "
            "uploads to cfngen-publish-<account>-<region>)",
        },
        "PackageKey": {"Type": "String", "Description": "the package's key in each bucket"},
    }
    version_properties: dict[str, Any] = {
        name_key: type_name,
        package_key: {"Fn::Sub": "s3://${PackageBucketPrefix}-${AWS::Region}/${PackageKey}"},
    }
    conditions: dict[str, Any] = {}
    if handlers:
        parameters["ExecutionRoleArn"] = {
            "Type": "String",
            "Default": "",
            "Description": "the handlers' execution role (empty: none)",
        }
        conditions["HasExecutionRole"] = {
            "Fn::Not": [{"Fn::Equals": [{"Ref": "ExecutionRoleArn"}, ""]}]
        }
        version_properties["ExecutionRoleArn"] = {
            "Fn::If": ["HasExecutionRole", {"Ref": "ExecutionRoleArn"}, {"Ref": "AWS::NoValue"}]
        }
    default_key = "Arn" if registry_type == "MODULE" else "TypeVersionArn"
    resources: dict[str, Any] = {
        "Version": {
            "Type": f"AWS::CloudFormation::{version_type}",
            "Properties": version_properties,
        },
        "DefaultVersion": {
            "Type": f"AWS::CloudFormation::{default_type}",
            "Properties": {default_key: {"Ref": "Version"}},
        },
    }
    if registry_type == "HOOK":
        resources["Configuration"] = {
            "Type": "AWS::CloudFormation::HookTypeConfig",
            "DependsOn": "DefaultVersion",
            "Properties": {
                "TypeArn": {"Fn::GetAtt": ["Version", "TypeArn"]},
                "Configuration": configuration or json.dumps(_HOOK_OFF),
                "ConfigurationAlias": "default",
            },
        }
    if public:
        resources["Publisher"] = {
            "Type": "AWS::CloudFormation::Publisher",
            "Properties": {"AcceptTermsAndConditions": True},
        }
        published: dict[str, Any] = {"Arn": {"Fn::GetAtt": ["Version", "TypeArn"]}}
        if registry_type == "MODULE":
            published = {"Type": "MODULE", "TypeName": type_name}
        if version is not None:
            published["PublicVersionNumber"] = version
        resources["PublicVersion"] = {
            "Type": "AWS::CloudFormation::PublicTypeVersion",
            "DependsOn": ["DefaultVersion", "Publisher"],
            "Properties": published,
        }
    template: dict[str, Any] = {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": f"Registers {type_name} in every region the stack set reaches",
        "Parameters": parameters,
    }
    if conditions:
        template["Conditions"] = conditions
    template["Resources"] = resources
    template["Outputs"] = {
        "VersionArn": {"Value": {"Ref": "Version"}},
    }
    return str(yaml.safe_dump(template, sort_keys=False, width=100))


def deploy_stack_set(
    session: Any,
    name: str,
    template: str,
    *,
    parameters: dict[str, str],
    account: str,
    regions: list[str],
    region: str,
) -> str:
    """Create or update the stack set `name` and its instances in `account` and `regions`; the
    operation id of the instances' change."""
    import botocore.exceptions

    from cfngen._package._aws import aws_call

    cfn = session.client("cloudformation", region_name=region)
    given = [{"ParameterKey": k, "ParameterValue": v} for k, v in parameters.items()]
    try:
        cfn.describe_stack_set(StackSetName=name)
        exists = True
    except botocore.exceptions.ClientError:
        exists = False
    call = cfn.update_stack_set if exists else cfn.create_stack_set
    aws_call(
        f"{'updating' if exists else 'creating'} the stack set {name}",
        call,
        StackSetName=name,
        TemplateBody=template,
        Parameters=given,
        Capabilities=["CAPABILITY_IAM"],
    )
    operation = aws_call(
        f"creating the instances of {name}",
        cfn.create_stack_instances,
        StackSetName=name,
        Accounts=[account],
        Regions=regions,
    )
    return str(operation.get("OperationId", ""))
