"""The custom resource kind: a Lambda-backed `Custom::Name` (or
`AWS::CloudFormation::CustomResource`) in the user's own SAM/CloudFormation template.

Such a project has no `.rpdk-config` and must never get one (the official CloudFormation CLI
would take it for one of its kinds): cfngen/_project.py knows it by its template, and the
project is the folder that holds the template (`--template templates/x.yaml` alone names it:
SAM reads CodeUri relative to the template, and properties-schema.json and
custom-resource-inputs.json sit beside it). What it gives
the engines (cfngen/_kind/_kind.py says when each is asked):

- validate: the template's custom resources (ServiceToken, type name, ServiceTimeout, their
  properties against `properties-schema.json` when there is one) and that schema itself
  (_validate.py);
- generate: the protocol helper `cfngen_custom_resource.py` beside each handler that imports
  it (_derive.py);
- invoke and test: the request/response protocol and the lifecycle tests (_protocol.py,
  _tests.py), run against the function the template names (or `--handler`), its code loaded
  as Lambda loads it (_code.py) from inside the repository (_reach.py), the template's
  parameters from `--param`/`--params`, by cfngen/_contract's runner, offline (_run.py);
- init: its questions (_answers.py) and the copier template in templates/custom_resource/;
- build and submit: none; the user's SAM/CloudFormation stack deploys it.

Nothing heavy is imported here: the registry imports every kind.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from cfngen._kind._options import CliOption
from cfngen._kinds._shared._base import KindBase
from cfngen._kinds._shared._options import PARAMETERS
from cfngen._support import HELPER_FILE

if TYPE_CHECKING:
    from cfngen._project import Project
    from cfngen._validate._file_report import FileReport

#: The optional JSON schema of the custom resource's properties, beside the template.
PROPERTIES_SCHEMA = "properties-schema.json"
#: The optional properties `cfngen test` sends: {"create", "update", "replace", "invalid"}.
INPUTS_FILE = "custom-resource-inputs.json"
#: A template with a working custom resource (`cfngen validate --example`).
EXAMPLE_TEMPLATE = Path(__file__).with_name("example-template.yaml")
#: The helper module generate writes beside the handler (cfngen/_support).
HELPER_MODULE = HELPER_FILE
#: A `Custom::` type name CloudFormation accepts (AWS::CloudFormation::CustomResource aside).
CUSTOM_TYPE_NAME = re.compile(r"^Custom::[A-Za-z0-9_@-]{1,60}$")


class CustomResourceKind(KindBase):
    name = "custom-resource"
    label = "custom resource"
    order = 3
    artifact_types: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ("custom", "CUSTOM_RESOURCE", "Custom::")
    example_files = (EXAMPLE_TEMPLATE,)
    #: RequestType values (_protocol.py).
    invoke_actions = ("Create", "Update", "Delete")
    cli_options = (
        CliOption(
            "--template",
            "template",
            "the SAM/CloudFormation template (default: the project's template.yaml, "
            "template.yml, template.json or other template that declares a custom resource); "
            "without a project folder, the folder that holds FILE is the project",
            "custom resources",
            metavar="FILE",
            path=True,
        ),
        CliOption(
            "--resource",
            "resource",
            "the custom resource, when the template has several (`cfngen test` without it "
            "runs the tests of each, named cr_create[LOGICAL_ID])",
            "custom resources",
            metavar="LOGICAL_ID",
        ),
        CliOption(
            "--handler",
            "handler",
            "run this handler instead of the code of the function the ServiceToken names, "
            "imported as Lambda would: from that function's code folder when FILE is in it, "
            "else from the first folder above FILE that is not a package",
            "custom resources",
            metavar="FILE.py:FUNCTION",
        ),
        CliOption(
            "--property",
            "property",
            "a ResourceProperties value (repeatable; default: the template's)",
            "custom resources",
            metavar="K=V",
            repeat=True,
            commands=("invoke",),
        ),
        CliOption(
            "--old-property",
            "old_property",
            "an OldResourceProperties value of an Update (repeatable)",
            "custom resources",
            metavar="K=V",
            repeat=True,
            commands=("invoke",),
        ),
        CliOption(
            "--physical-id",
            "physical_id",
            "the PhysicalResourceId of an Update or Delete",
            "custom resources",
            metavar="ID",
            commands=("invoke",),
        ),
        *PARAMETERS,
    )
    #: A template and its properties schemas; never the inputs `cfngen test` sends.
    precommit_files = (r"[^/]+\.(json|ya?ml|template)",)
    precommit_exclude = ("custom-resource-inputs",)

    def check_type_name(self, value: str) -> str:
        """`Custom::Name`, as CloudFormation takes it (a custom resource has no `.rpdk-config`,
        so only a command that names one asks)."""
        if not CUSTOM_TYPE_NAME.match(value):
            from cfngen._errors import CfngenError

            raise CfngenError(
                f"invalid custom resource type {value!r}",
                "Custom:: then 1 to 60 letters, digits, _, @ or -",
            )
        return value

    def project_file(self, root: Path) -> Path | None:
        """The template that makes `root` a custom resource's project (it has no
        `.rpdk-config`): the first one at its top that declares a custom resource."""
        from cfngen._kinds.custom_resource._detect import project_template

        return project_template(root)

    # ------------------------------------------------------------------ validate

    def checked_files(self, project: Project) -> list[Path]:
        from cfngen._kinds.custom_resource._detect import custom_resources
        from cfngen._kinds.custom_resource._template import find_template
        from cfngen._kinds.custom_resource._type_files import schema_files

        template = project.template or find_template(project.root, None)
        types = set(custom_resources(template).values())
        return [template, *schema_files(template.parent, types)]

    def claims(self, path: Path) -> str | None:
        """A template given by path is a custom resource's when it declares one; a properties
        schema when it sits where a custom resource's template looks for one."""
        from cfngen._kinds.custom_resource._detect import custom_resource_template, custom_resources
        from cfngen._kinds.custom_resource._type_files import SCHEMAS_FOLDER, is_schema_file

        if is_schema_file(path):
            folder = path.parent.parent if path.parent.name == SCHEMAS_FOLDER else path.parent
            template = custom_resource_template(folder)
            if template is not None:
                return f"checked as a properties schema of the custom resources of {template.name}"
        found = custom_resources(path)
        if not found:
            return None
        declared = ", ".join(f"{name}: {kind}" for name, kind in sorted(found.items()))
        return f"checked as a custom resource template: it declares {declared}"

    def check_file(self, path: Path, *, strict: bool, display: str | None = None) -> FileReport:
        from cfngen._kinds.custom_resource._validate import check_file

        return check_file(path, strict=strict, display=display)

    def check_text(
        self, text: str, *, path: Path | None, strict: bool, display: str | None = None
    ) -> FileReport:
        from cfngen._kinds.custom_resource._validate import check_text

        return check_text(text, path=path, strict=strict, display=display)

    packaging_at = None


KIND = CustomResourceKind()
