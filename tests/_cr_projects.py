"""Custom-resource projects laid out as people lay them out in their repositories: templates in
a `templates/` folder beside a `src/` tree, the handler inside a package (`src/pkg/main.py`,
`Handler: pkg/main.handler`), plain SAM stacks in the same folder, shared code in a monorepo's
`../shared`. Written for these tests; every handler answers through its ResponseURL by hand."""

from __future__ import annotations

import subprocess
from pathlib import Path

#: The package's protocol module: one PUT of the response body, as the docs describe it.
ANSWER = """\
import json
import urllib.request


def respond(event, status, physical_id, data=None, reason=None):
    body = {
        "Status": status,
        "PhysicalResourceId": physical_id,
        "StackId": event["StackId"],
        "RequestId": event["RequestId"],
        "LogicalResourceId": event["LogicalResourceId"],
        "Data": data or {},
    }
    if reason:
        body["Reason"] = reason
    request = urllib.request.Request(
        event["ResponseURL"], data=json.dumps(body).encode(), method="PUT"
    )
    request.add_header("Content-Type", "")
    urllib.request.urlopen(request, timeout=5).read()
"""

#: How the handler module imports its package's protocol module, in the styles people use.
IMPORTS = {
    "relative": "from .answer import respond\n",
    "absolute": "from pkg.answer import respond\n",
    "from-package": "from pkg import answer\n\nrespond = answer.respond\n",
}

MAIN = """\
{imports}

def handler(event, context):
    physical_id = event.get("PhysicalResourceId") or "thing-" + event["LogicalResourceId"]
    if event["RequestType"] == "Delete":
        respond(event, "SUCCESS", physical_id)
        return
    name = event["ResourceProperties"].get("Name", "")
    respond(event, "SUCCESS", physical_id, {{"Greeting": "Hello, " + name}})
"""

#: A custom resource template in `templates/`, its function's code in `../src`.
TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Parameters:
  Env:
    Type: String
    Default: dev
Resources:
  ThingFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: {code_uri}
      Handler: pkg/main.handler
      Runtime: python3.12
      Timeout: 10
  Thing:
    Type: Custom::Thing
    Properties:
      ServiceToken: !GetAtt ThingFunction.Arn
      ServiceTimeout: 60
      Name: !Sub "${{Env}}-world"
"""

#: A plain SAM stack of the same repository: no custom resource, no module.
STACK = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Resources:
  Api:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: ../src/
      Handler: pkg/main.handler
      Runtime: python3.12
      Events:
        Get:
          Type: Api
          Properties:
            Path: /
            Method: get
  Bucket:
    Type: AWS::S3::Bucket
"""


def git_init(folder: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def package(src: Path, imports: str = "relative") -> Path:
    """`src/pkg/` with `__init__.py`, `answer.py` and `main.py` (importing in that style)."""
    folder = src / "pkg"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "__init__.py").write_text("")
    (folder / "answer.py").write_text(ANSWER)
    (folder / "main.py").write_text(MAIN.format(imports=IMPORTS[imports]))
    return folder / "main.py"


def repository(root: Path, *, imports: str = "relative", git: bool = True) -> Path:
    """A repository at `root`: `templates/thing.yaml` (the custom resource), `templates/
    api.yaml` (a plain SAM stack) and `src/pkg/`. Returns the template."""
    root.mkdir(parents=True, exist_ok=True)
    if git:
        git_init(root)
    package(root / "src", imports)
    templates = root / "templates"
    templates.mkdir()
    (templates / "api.yaml").write_text(STACK)
    template = templates / "thing.yaml"
    template.write_text(TEMPLATE.format(code_uri="../src/"))
    return template
