"""Generated code runs on the Python of the project's Lambda runtime: python3.8 and newer.

Models are generated for the declared runtime (`render_models(..., python=(3, 9))`), written
into a package with the shipped runtime library (cfngen_runtime/), and imported and
round-tripped by that CPython (pyenv's, in a cached virtualenv with
cloudformation-cli-python-lib). There is no CPython 3.14 here: python3.14 models are the
3.10+ ones, which 3.13 runs.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest

from cfngen._models import MODERN_PYTHON, render_models
from cfngen._models._verify import target_problems
from tests._corpus import corpus
from tests._maximal import empties, first_difference, maximal, stringify
from tests._pythons import VERSIONS, round_trip, run_json, runtime_python, write_packages
from tests.test_models import AWKWARD, EVERY_NAME, official_handlers, schema_with
from tests.test_models_corpus import sample
from tests.test_runtime_support import CALLBACK, SINK, lambda_event

#: Hand-made schemas that exercise every kind of hint, plus real ones of every size. (SINK's
#: `{"V": "32.5"}` fits two anyOf branches, so `maximal` cannot say what comes back.)
SCHEMAS = {"awkward": AWKWARD, "every_name": EVERY_NAME}
REAL = [
    "AWS::S3::Bucket",
    "AWS::ECS::TaskDefinition",
    "AWS::Batch::JobDefinition",
    # `ComponentProperties = Dict[str, "ComponentProperty"]`: 3.8 leaves the quoted name a
    # ForwardRef inside the alias, and its "true" stayed a string until the runtime resolved it.
    "AWS::AmplifyUIBuilder::Component",
]


def package_name(label: str) -> str:
    return "m_" + "".join(c if c.isalnum() else "_" for c in label).lower()


def problems_on(python_version, schemas, tmp_path):
    """Every way the models of `schemas` fail to import or give back what they read, when run
    by CPython `python_version` (label -> problem)."""
    python = runtime_python(python_version)
    packages, cases, expected = {}, {}, {}
    for label, schema in schemas.items():
        package = package_name(label)
        packages[package] = render_models(schema, python=python_version)
        typed, wanted = maximal(schema)
        cases[package] = [typed, stringify(typed), empties(schema)]
        expected[package] = [typed, wanted, empties(schema)]
    out = round_trip(python, tmp_path, packages, cases)
    problems = {}
    for label in schemas:
        package = package_name(label)
        if "error" in out[package]:
            problems[label] = out[package]["error"]
            continue
        for kind, result, wanted in zip(
            ("maximal", "stringified", "empties"),
            out[package]["results"],
            expected[package],
            strict=True,
        ):
            found = result.get("error") or first_difference(wanted, result["ok"])
            if found:
                problems[label] = f"{kind}: {found}"
    return problems


@pytest.mark.oracle  # each runtime's CPython is the judge
@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: f"py{v[0]}{v[1]}")
def test_models_import_and_round_trip_on_each_runtime(version, tmp_path):
    schemas = {**SCHEMAS, **{name: corpus()[name] for name in REAL}}
    assert problems_on(version, schemas, tmp_path) == {}


@pytest.mark.oracle  # each runtime's CPython is the judge
@pytest.mark.corpus
@pytest.mark.parametrize("version", [(3, 8), (3, 9)], ids=["py38", "py39"])
def test_corpus_sample_round_trips_on_old_runtimes(version, tmp_path):
    names = sample(60, largest=3)
    assert problems_on(version, {name: corpus()[name] for name in names}, tmp_path) == {}


def test_models_for_310_and_newer_are_one_module():
    """3.10 reads everything newer versions do: python3.11 ... python3.14 share its bytes
    (so 3.13 running them checks python3.14 too)."""
    modern = render_models(AWKWARD, python=MODERN_PYTHON)
    for minor in (11, 12, 13, 14):
        assert render_models(AWKWARD, python=(3, minor)) == modern


@pytest.mark.parametrize("version", [(3, 8), (3, 9)], ids=["py38", "py39"])
def test_old_runtime_models_say_it_the_old_way(version):
    text = render_models(AWKWARD, python=version)["models.py"]
    assert " | None" not in text and "TypeAlias" not in text
    assert "Optional[ResourceModel]" in text and "List[Rule]" in text
    assert target_problems(text, version) == []


OFFICIAL_HANDLERS_RUN = r"""
import importlib
handlers = importlib.import_module(job["package"] + ".handlers")
out = [handlers.resource(event, None) for event in job["events"]]
json.dump(out, sys.stdout, default=str)
"""


@pytest.mark.oracle  # each runtime's CPython is the judge
@pytest.mark.parametrize("version", [(3, 8), (3, 9)], ids=["py38", "py39"])
def test_official_handlers_run_through_lambdas_entrypoint_on_old_runtimes(version, tmp_path):
    """A python3.9 project made by `cfn init`, its models now cfngen's: the library's Lambda
    entrypoint, on that CPython, reads the request into our models and writes them back."""
    tag = {"type": "object", "properties": {"Key": {"type": "string"}, "N": {"type": "integer"}}}
    schema = schema_with({"type": "array", "items": {"$ref": "#/definitions/Tag"}}, {"Tag": tag})
    files = render_models(schema, python=version)
    files["handlers.py"] = official_handlers(schema["typeName"])
    write_packages(tmp_path, {"acme_test_thing": files})
    properties = {"P": [{"Key": "a", "N": "5"}, {"Key": "b"}]}
    job = {
        "package": "acme_test_thing",
        "events": [lambda_event(action, properties) for action in ("CREATE", "READ", "UPDATE")],
    }
    responses = run_json(runtime_python(version), tmp_path, OFFICIAL_HANDLERS_RUN, job)
    for response in responses:
        assert response["status"] == "SUCCESS", response
        # "5" came as CloudFormation sends it and went back typed: our models did the reading.
        assert response["resourceModel"] == {"P": [{"Key": "a", "N": 5}, {"Key": "b"}]}


@pytest.mark.oracle  # each runtime's CPython is the judge
def test_callback_context_models_run_on_the_oldest_runtime(tmp_path):
    files = render_models(SINK, CALLBACK, python=(3, 8))
    write_packages(tmp_path, {"sink": files})
    code = (
        "from sink.models import CallbackContext\n"
        "json.dump(CallbackContext._deserialize(job)._serialize(), sys.stdout)\n"
    )
    context = {"Attempts": "2", "Stage": "STABILISING", "PendingIds": ["a", "b"]}
    back = run_json(runtime_python((3, 8)), tmp_path, code, context)
    assert back == {**context, "Attempts": 2}


# ------------------------------------------------ the check that models fit their Python version

PLANTED = [
    # (module text, target, the problem the check must name)
    ("class A:\n    x: int | None = None\n", (3, 9), "`X | Y` in an annotation needs Python 3.10"),
    ("class A:\n    x: list[int]\n", (3, 8), "`list[...]` needs Python 3.9"),
    ("class A:\n    x: Dict[str, tuple[int]]\n", (3, 8), "`tuple[...]` needs Python 3.9"),
    ("from typing import List, TypeAlias\n", (3, 9), "typing.TypeAlias needs Python 3.10"),
    ("from typing import Annotated\n", (3, 8), "typing.Annotated needs Python 3.9"),
    ("from typing import Self\n", (3, 10), "typing.Self needs Python 3.11"),
    ("match x:\n    case 1:\n        pass\n", (3, 9), "syntax Python 3.9 cannot read"),
]


@pytest.mark.parametrize(("text", "python", "named"), PLANTED)
def test_the_target_check_names_each_planted_problem(text, python, named):
    assert any(named in problem for problem in target_problems(text, python))
    # The same text is fine for the Python version that has what it uses.
    assert target_problems(text, (3, 12)) == []


def test_module_level_annotations_are_never_evaluated_so_they_pass():
    assert target_problems("TIMEOUT_MINUTES: dict[str, int] = {}\n", (3, 8)) == []


@pytest.mark.oracle  # mypy is the judge
def test_models_for_old_runtimes_type_check(tmp_path):
    """mypy (which checks 3.10 and newer only) on the typing-module spellings."""
    from tests.test_models import TYPED_HANDLERS, mypy

    for version in ((3, 8), (3, 9)):
        folder = tmp_path / f"py{version[1]}"
        write_packages(folder, {"awkward": render_models(AWKWARD, python=version)})
        (folder / "awkward" / "handlers.py").write_text(TYPED_HANDLERS)
        write_packages(folder, {"every_name": render_models(EVERY_NAME, python=version)})
        result = mypy(folder)
        assert result.returncode == 0, result.stdout


IMPORT_SUPPORT = r"""
import importlib
json.dump([importlib.import_module("support." + name).__name__ for name in job], sys.stdout)
"""


@pytest.mark.oracle  # each runtime's CPython is the judge
@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: f"py{v[0]}{v[1]}")
def test_every_shipped_support_module_imports_on_each_runtime(version, tmp_path):
    """Every module of the runtime library generate copies beside models.py
    (cfngen/_support/cfngen_runtime/) imports on every runtime, inside a handler package."""
    from cfngen._support import package_files

    files = package_files()
    names = sorted(f"cfngen_runtime.{PurePosixPath(p).stem}" for p in files)
    names = [name.removesuffix(".__init__") for name in names]
    assert len(names) >= 8  # the package and one module per concern
    write_packages(tmp_path, {"support": dict(files)})
    imported = run_json(runtime_python(version), tmp_path, IMPORT_SUPPORT, names)
    assert imported == [f"support.{n}" for n in names]


def test_the_shipped_runtime_library_is_the_same_for_every_runtime():
    texts = {
        tuple((k, t) for k, t in sorted(render_models(SINK, python=v).items()) if k != "models.py")
        for v in VERSIONS
    }
    assert len(texts) == 1


WIDE_RUN = r"""
from wide.models import ResourceModel
out = {}
model = ResourceModel(P0="a", Config=None)
out["init"] = [model.P0, model.P1, model.Config]
out["repr"] = repr(ResourceModel(P0="a"))[:40]
try:
    ResourceModel(Nope=1)
except TypeError as error:
    out["unknown"] = str(error)
out["equal"] = ResourceModel(P0="a") == ResourceModel(P0="a")
given = {"P0": "x", "P1": "5", "Config": {"Mode": "m"}}
out["round_trip"] = ResourceModel._deserialize(given)._serialize()
json.dump(out, sys.stdout)
"""


@pytest.mark.oracle  # each runtime's CPython is the judge
@pytest.mark.parametrize("version", [(3, 8), (3, 13)], ids=["py38", "py313"])
def test_a_class_too_wide_for_dataclasses_init_works_the_same(version, tmp_path):
    """More than WIDE_CLASS fields: __init__ and __repr__ come from CfnModel, not dataclasses
    (which builds them in time quadratic in the fields)."""
    from cfngen._models._assemble import WIDE_CLASS

    properties = {f"P{i}": {"type": "string"} for i in range(WIDE_CLASS + 1)}
    properties["P1"] = {"type": "integer"}
    # Named like its type: the generator gives it a default_factory, not a default.
    properties["Config"] = {"$ref": "#/definitions/Config"}
    schema = schema_with({"type": "string"})
    schema["properties"] = properties
    schema["definitions"] = {
        "Config": {"type": "object", "properties": {"Mode": {"type": "string"}}}
    }
    files = render_models(schema, python=version)
    assert "@dataclass(init=False, repr=False)\nclass ResourceModel" in files["models.py"]
    write_packages(tmp_path, {"wide": files})
    out = run_json(runtime_python(version), tmp_path, WIDE_RUN, None)
    assert out["init"] == ["a", None, None]
    assert out["repr"].startswith("ResourceModel(P0='a', P1=None, P2=None")
    assert out["unknown"] == "ResourceModel() got an unexpected keyword argument 'Nope'"
    assert out["equal"] is True
    assert out["round_trip"] == {"P0": "x", "P1": 5, "Config": {"Mode": "m"}}
