"""`cfngen validate --against REF [PATH]`: the schema validated, then compared with REF."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cfngen._cli._output import painter, quiet
from cfngen._errors import CfngenError, ExitCode

#: The kinds whose schema consumers build on, by the registry's type (DescribeType's Type).
_REGISTRY_TYPES = {"RESOURCE": "RESOURCE", "HOOK": "HOOK"}


def run_against(args: argparse.Namespace) -> int:
    from cfngen._compat import _render as compat
    from cfngen._compat import check_against
    from cfngen._formats import display_path
    from cfngen._validate import json_document, render_summary, render_text, validate_paths

    if len(args.paths) > 1:
        raise CfngenError("--against compares one schema", "pass one project folder or schema")
    schema, kind = _schema_of(args.paths[0] if args.paths else Path.cwd())
    reports = validate_paths([schema], strict=args.strict)
    report = check_against(
        schema,
        args.against,
        kind=kind,
        accept=tuple(args.accept),
        profile=args.profile,
        region=args.region,
        display=display_path(schema),
    )
    if args.format == "json":
        doc = {**json_document(reports), "compatibility": report.as_json()}
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    elif args.format != "text":
        from cfngen._formats import render, report_cases, report_findings

        sys.stdout.write(
            render(
                args.format,
                findings=[*report_findings(reports), *compat.findings(report)],
                cases=[*report_cases(reports), *compat.cases(report)],
                tool="cfngen validate",
            )
        )
    else:
        sys.stdout.write(render_text(reports, painter(sys.stdout)))
        sys.stdout.write(compat.render_text(report))
        sys.stdout.flush()
    if not quiet() and args.format != "json":
        sys.stderr.write(render_summary(reports))
        sys.stderr.write(compat.summary(report))
    ok = all(r.valid for r in reports) and not report.breaking
    return ExitCode.OK if ok else ExitCode.FAILED


def _schema_of(target: Path) -> tuple[Path, str]:
    """The schema file to compare and the registry's type of what it describes."""
    from cfngen._project import CONFIG_FILE, load_project

    if target.is_dir():
        project = load_project(target)
        kind = next((t for t in project.kind.artifact_types if t in _REGISTRY_TYPES), None)
        if kind is None:
            raise CfngenError(
                f"{target}: a {project.kind.label} has no schema consumers build on",
                "--against compares the schema of a resource type or a hook",
            )
        return project.schema_path, kind
    if not target.is_file():
        raise CfngenError(f"{target}: no such file or folder", None)
    if (target.parent / CONFIG_FILE).is_file():
        return target, _schema_of(target.parent)[1]
    return target, "RESOURCE"
