"""The Lambda hook kind: an `AWS::CloudFormation::LambdaHook` in the user's own SAM/CloudFormation
template, whose logic is a Lambda function of that template (AWS's guide, "Create Lambda
functions to evaluate resources for Lambda Hooks").

Like a custom resource, such a project has no `.rpdk-config` (nothing is registered: the
template activates the hook): it is the folder of the template that declares the LambdaHook.
What it gives the engines (cfngen/_kind/_kind.py says when each is asked):

- validate: each LambdaHook against the resource's schema as cfn-lint bundles it, the function
  its LambdaFunction names, its target filters and execution role (_validate.py);
- generate: nothing (no derived file);
- invoke and test: the requests CloudFormation sends per target operation (_requests.py), the
  function run by cfngen/_contract's runner offline, and one named test per rule its answers
  keep (_rules.py, _run.py);
- init: its questions (_answers.py) and the copier template in templates/lambda_hook/;
- build and submit: none; the user's stack deploys it.

Nothing heavy is imported here: the registry imports every kind.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._kinds._shared._base import KindBase
from cfngen._kinds.lambda_hook._requests import INVOCATION_POINTS, POINT_ALIASES

if TYPE_CHECKING:
    from cfngen._kind import Project
    from cfngen._validate._file_report import FileReport

#: A template with a working Lambda hook (`cfngen validate --example`).
EXAMPLE_TEMPLATE = Path(__file__).with_name("example-template.yaml")
#: The properties `cfngen test` sends per target type, beside the template (optional).
INPUTS_FILE = "lambda-hook-inputs.json"
#: A hook type name (the LambdaHook's Alias), as the resource's schema has it.
HOOK_ALIAS = re.compile(r"^[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}$")


class LambdaHookKind(KindBase):
    name = "lambda-hook"
    label = "Lambda hook"
    order = 4
    artifact_types: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ("LAMBDA_HOOK", "lambdahook", "AWS::CloudFormation::LambdaHook")
    example_files = (EXAMPLE_TEMPLATE,)
    #: `cfngen invoke ACTION`: the invocation points, as a hook's, and their short names.
    invoke_actions = (*INVOCATION_POINTS, *POINT_ALIASES)
    #: A template; never the inputs `cfngen test` sends (`validate --owned` leaves them alone).
    precommit_files = (r"[^/]+\.(json|ya?ml|template)",)

    def check_type_name(self, value: str) -> str:
        """The LambdaHook's Alias, `Org::Service::Hook` (never asked by the project loader: the
        project has no `.rpdk-config`)."""
        if not HOOK_ALIAS.match(value) or value.lower().startswith("aws"):
            from cfngen._errors import CfngenError

            raise CfngenError(
                f"invalid Lambda hook type name {value!r}",
                "three parts of 2 to 64 letters or digits, Org::Service::Hook, not AWS::",
            )
        return value

    # ------------------------------------------------------------------ a project

    def project_file(self, root: Path) -> Path | None:
        """A folder without `.rpdk-config` is a Lambda hook project when a template at its top
        declares an AWS::CloudFormation::LambdaHook: that template."""
        from cfngen._kinds.lambda_hook._declared import lambda_hook_template

        return lambda_hook_template(root)

    # ------------------------------------------------------------------ validate

    def checked_files(self, project: Project) -> list[Path]:
        from cfngen._kinds.lambda_hook._declared import TEMPLATE_NAMES

        found = project.template or self.project_file(project.root)
        if found is None:
            found = next(
                (project.root / n for n in TEMPLATE_NAMES if (project.root / n).is_file()),
                project.root / TEMPLATE_NAMES[0],
            )
        return [found]

    def claims(self, path: Path) -> str | None:
        from cfngen._kinds.lambda_hook._declared import declares_lambda_hook

        found = declares_lambda_hook(path)
        if not found:
            return None
        return f"checked as a Lambda hook template: it declares {', '.join(found)}"

    def check_file(self, path: Path, *, strict: bool, display: str | None = None) -> FileReport:
        from cfngen._kinds.lambda_hook._validate import check_file

        return check_file(path, strict=strict, display=display)

    def check_text(
        self, text: str, *, path: Path | None, strict: bool, display: str | None = None
    ) -> FileReport:
        from cfngen._kinds.lambda_hook._validate import check_text

        return check_text(text, path=path, strict=strict, display=display)

    # ------------------------------------------------------------------ invoke, test, init
    # KindBase finds the contract in _run.py and init's questions in _answers.py.

    # ------------------------------------------------------------------ build, submit
    #: Nothing to register: the user's stack activates the hook.
    packaging_at = None


KIND = LambdaHookKind()
