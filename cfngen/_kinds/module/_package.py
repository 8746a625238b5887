"""What `cfngen build` puts in a module's registry package: the official `cfn submit --dry-run`'s
file set (`.rpdk-config`, `schema.json`, `fragments/<the one fragment>`, `overrides.json`).

`schema.json` is derived from the fragment as the package is built, not read from disk: the
official `cfn validate`/`submit` rewrite the file in their poorer form, and the package must
carry cfngen's (with parameter types, defaults, allowed values and outputs). An invalid
fragment stops the build (exit 1) before anything is uploaded.
"""

from __future__ import annotations

import json

from cfngen._errors import CfngenError, ExitCode
from cfngen._kind import Entries, FileSet, PackageContext
from cfngen._package._layout import overrides, rpdk_config


def module_files(context: PackageContext) -> Entries:
    from cfngen._kinds.module._derive import module_schema
    from cfngen._kinds.module._fragment import decode_utf8, the_fragment
    from cfngen._validate import render_text

    project = context.project
    path = the_fragment(project.root)
    data = context.files.read(path)  # a link is followed only within the repository
    decode_utf8(data, str(path))  # not UTF-8: exit 2, as every command says
    report = project.kind.check_file(path, strict=False)
    if not report.valid or report.schema is None:
        raise CfngenError(
            f"{path}: the fragment is invalid; nothing was packaged:\n"
            + render_text([report]).rstrip(),
            "fix it (`cfngen validate` lists every problem) and build again",
            exit_code=ExitCode.FAILED,
        )
    schema = module_schema(str(project.config["typeName"]), report.schema)
    return {
        "schema.json": (json.dumps(schema, indent=4) + "\n").encode(),
        "fragments/" + path.name: data,
    }


PACKAGING = FileSet(registry_type="MODULE", parts=(rpdk_config, module_files, overrides))
