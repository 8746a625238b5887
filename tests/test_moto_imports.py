"""The import shim that keeps moto's EC2 models out of runs that never call EC2
(cfngen/_contract/_moto_imports.py): SSM works without them, and EC2 and SSM's uses of EC2
work through them the moment they are needed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import json, sys
    from cfngen._contract._moto_imports import install
    {install}
    import boto3
    from moto import mock_aws
    seen = {{}}
    with mock_aws():
        ssm = boto3.client("ssm", region_name="us-east-1")
        ssm.put_parameter(Name="/app/key", Value="v", Type="String")
        assert ssm.get_parameter(Name="/app/key")["Parameter"]["Value"] == "v"
        seen["ec2 models after SSM"] = "moto.ec2.models" in sys.modules
        ec2 = boto3.client("ec2", region_name="us-east-1")
        image = ec2.describe_images(Owners=["amazon"])["Images"][0]["ImageId"]
        instance = ec2.run_instances(ImageId=image, MinCount=1, MaxCount=1,
            TagSpecifications=[{{"ResourceType": "instance",
                                "Tags": [{{"Key": "Name", "Value": "web"}}]}}])
        seen["vpcs"] = len(ec2.describe_vpcs()["Vpcs"])
        # SSM reaching into EC2's backends (the name it imported at import time):
        sent = ssm.send_command(DocumentName="AWS-RunShellScript",
            Targets=[{{"Key": "tag:Name", "Values": ["web"]}}],
            Parameters={{"commands": ["true"]}})
        seen["targets"] = sent["Command"]["TargetCount"]
        seen["ec2 models after EC2"] = "moto.ec2.models" in sys.modules
    # A second run in the same process: moto's reset of every backend.
    with mock_aws():
        boto3.client("ssm", region_name="us-east-1").put_parameter(
            Name="/again", Value="v", Type="String")
        seen["vpcs again"] = len(boto3.client("ec2", region_name="us-east-1")
                                 .describe_vpcs()["Vpcs"])
    print(json.dumps(seen))
    """
)


@pytest.mark.parametrize("install", [True, False], ids=["with the shim", "without"])
def test_ssm_runs_without_ec2s_models_and_ec2_works_when_called(install):
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    code = SCRIPT.format(install="install()" if install else "")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["ec2 models after SSM"] is (not install)
    assert seen["vpcs"] == 1 and seen["vpcs again"] == 1
    assert seen["targets"] == 1
    assert seen["ec2 models after EC2"] is True


def test_nothing_is_shimmed_when_ec2_is_imported_already():
    code = (
        "import moto.ec2, sys\n"
        "from cfngen._contract._moto_imports import install\n"
        "install()\n"
        "print(type(sys.modules['moto.ec2']).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "module", done.stderr


IAM_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from cfngen._contract._moto_imports import install
    {install}
    import boto3, botocore.exceptions
    from moto import mock_aws
    from moto.core import set_initial_no_auth_action_count
    seen = {{}}

    def real(name):
        module = sys.modules.get(name)
        return module is not None and type(module).__name__ == "module"

    with mock_aws():
        ssm = boto3.client("ssm", region_name="us-east-1")
        ssm.put_parameter(Name="/app/key", Value="v", Type="String")
        seen["access control after SSM"] = real("moto.iam.access_control")
        # S3 judges a bucket policy with IAM's access control (its other names):
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="cfngen-shim")
        s3.put_bucket_policy(Bucket="cfngen-shim", Policy=json.dumps({{"Version": "2012-10-17",
            "Statement": [{{"Effect": "Deny", "Principal": "*", "Action": "s3:PutObject",
                           "Resource": "arn:aws:s3:::cfngen-shim/denied/*"}}]}}))
        s3.put_object(Bucket="cfngen-shim", Key="allowed", Body=b"x")
        try:
            s3.put_object(Bucket="cfngen-shim", Key="denied/x", Body=b"x")
            seen["denied put"] = "allowed"
        except botocore.exceptions.ClientError as error:
            seen["denied put"] = error.response["Error"]["Code"]
        seen["objects"] = s3.list_objects_v2(Bucket="cfngen-shim")["KeyCount"]

        # IAM authentication switched on: unknown keys are refused by the real check.
        @set_initial_no_auth_action_count(0)
        def checked():
            try:
                ssm.get_parameter(Name="/app/key")
            except botocore.exceptions.ClientError as error:
                return error.response["Error"]["Code"]
            return "allowed"

        seen["with authentication"] = checked()
        seen["access control after"] = real("moto.iam.access_control")
    print(json.dumps(seen))
    """
)


@pytest.mark.parametrize("install", [True, False], ids=["with the shim", "without"])
def test_iams_access_control_is_imported_only_when_a_request_is_checked(install):
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    code = IAM_SCRIPT.format(install="install()" if install else "")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["access control after SSM"] is (not install)
    assert seen["denied put"] in ("AccessDenied", "403")  # moto 5.2 sends no body
    assert seen["objects"] == 1
    assert seen["with authentication"] != "allowed"  # unknown keys: refused (403)
    assert seen["access control after"] is True
