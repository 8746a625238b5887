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
