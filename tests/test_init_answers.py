"""The answers `cfngen init` accepts, checked the same way from the wizard, flags and --data."""

from __future__ import annotations

import pytest

from cfngen._errors import CfngenError
from cfngen._init import _answers
from cfngen._kind import all_kinds, lookup, named
from cfngen._kinds.resource import HANDLERS
from cfngen._kinds.resource import _answers as resource
from cfngen._kinds.resource._answers import QUESTIONS, Answers
from cfngen._languages._python_runtimes import DEFAULT_RUNTIME, RUNTIMES
from cfngen._typename import TypeName

#: Every answer the resource template asks: the kind, then the kind's questions.
KEYS = ("artifact_type", *(question.key for question in QUESTIONS))


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("Acme::Svc::Widget", None),
        ("1Org::2Svc::3Res", None),
        ("A1::B2::C3", None),
        ("Acme::Svc", "2 part(s)"),
        ("Acme::Svc::Widget::MODULE", "4 part(s)"),
        ("Acme::S::Widget", "2 to 64"),
        ("Acme::Svc-X::Widget", "letters and digits"),
        ("Acme:Svc:Widget", "1 part(s)"),
        ("", "empty"),
        ("AWS::S3::Thing", "AWS namespace is reserved"),
        ("aws::S3::Thing", "AWS namespace is reserved"),
        ("Alexa::Skill::Thing", "reserved"),
        ("Custom::Svc::Thing", "reserved"),
        ("AMZN::Svc::Thing", "reserved"),
    ],
)
def test_type_names(value, problem):
    found = _answers.type_name_error(value)
    if problem is None:
        assert found is None
        assert _answers.check_type_name(value) == value
    else:
        assert problem in found
        with pytest.raises(CfngenError, match="invalid type name"):
            _answers.check_type_name(value)


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("acme_svc_widget", True),
        ("ext_1org_2svc_3res", True),
        ("_private", True),
        ("1org_svc", False),
        ("acme-svc", False),
        ("class", False),
        ("None", False),
        ("acme.svc", False),
        ("", False),
        ("wídget", False),
    ],
)
def test_package_names(value, ok):
    assert (_answers.package_name_error(value) is None) == ok


@pytest.mark.parametrize(
    ("value", "hidden"),
    [
        ("json", "Python's own json module"),
        ("os", "Python's own os module"),
        ("typing", "Python's own typing module"),
        ("Json", "Python's own json module"),
        ("asyncio", "Python's own asyncio module"),
        ("boto3", "the boto3 package"),
        ("botocore", "the botocore package"),
        ("moto", "the moto package"),
        ("cfngen", "the cfngen package"),
        ("cloudformation_cli_python_lib", "the cloudformation_cli_python_lib package"),
        ("yaml", "the yaml package"),
    ],
)
def test_package_names_that_would_hide_a_module_are_refused(value, hidden):
    """The handlers run with src/ first on sys.path: `src/json/` would replace json."""
    assert hidden in (_answers.package_name_error(value) or "")
    with pytest.raises(CfngenError, match="would hide"):
        _answers.check_package_name(value)


def _table_modules() -> list[tuple[str, str]]:
    from cfngen._init._dependency_modules import MODULES

    return [(module, name) for name, modules in MODULES.items() for module in modules]


@pytest.mark.parametrize(("module", "distribution"), _table_modules())
def test_every_module_of_what_handlers_run_beside_is_refused_as_a_package_name(
    module, distribution
):
    """time_machine (cfngen's simulated clock) and the rest of cfngen[all]'s closure passed
    while a hand-written list named 45 of them."""
    problem = _answers.package_name_error(module) or ""
    assert f"would hide the {module.lower()} package ({distribution})" in problem
    # Without case too: on macOS's file system `Time_Machine/` hides `time_machine`.
    assert _answers.package_name_error(module.upper()) is not None


def test_the_table_of_dependency_modules_is_what_the_installed_distributions_say():
    """Made at release time (`python tests/make_dependency_modules.py`): the same table on every
    machine, checked here against what is installed. A distribution only other Pythons need
    (tomli, exceptiongroup before 3.11) keeps its row where it is not installed."""
    from importlib import metadata

    from cfngen._init._dependency_modules import MODULES
    from tests import make_dependency_modules as maker

    regenerated, kept = maker.table(MODULES)
    assert regenerated == MODULES, (
        "cfngen/_init/_dependency_modules.py is out of date: run "
        "`python tests/make_dependency_modules.py`"
    )
    for name in kept:
        with pytest.raises(metadata.PackageNotFoundError):
            metadata.distribution(name)
    assert list(MODULES) == sorted(MODULES)
    assert all(list(modules) == sorted(modules) for modules in MODULES.values())
    # Nothing only some platforms' wheels carry.
    assert not [m for ms in MODULES.values() for m in ms if "mypyc" in m or "." in m]


@pytest.mark.parametrize(
    "type_name", ["1Org::2Svc::3Res", "Import::As::If", "Class::Def::None", "Acme::Svc::Widget"]
)
def test_default_package_name_is_always_valid(type_name):
    answers = resource.resolve({"type_name": _answers.check_type_name(type_name)})
    assert _answers.package_name_error(answers.package_name) is None


def test_defaults_are_the_newest_supported_runtime_tags_and_every_handler():
    answers = resource.resolve({"type_name": _answers.check_type_name("Acme::Svc::Widget")})
    assert answers == Answers(
        type_name=answers.type_name,
        package_name="acme_svc_widget",
        runtime=DEFAULT_RUNTIME.name,
        artifact_type="RESOURCE",
        tagging=True,
        type_configuration=False,
        handlers=HANDLERS,
    )
    supported = [r for r in RUNTIMES if r.status == "supported"]
    assert DEFAULT_RUNTIME.name in _answers.supported_runtimes()
    assert max(r.python_version for r in supported) == DEFAULT_RUNTIME.python_version


@pytest.mark.parametrize(
    ("value", "expected"),
    [("python3.12", "python3.12"), ("python312", "python3.12"), ("python3.14", "python3.14")],
)
def test_runtimes(value, expected):
    assert _answers.check_runtime(value) == expected


def test_a_new_project_cannot_start_on_a_deprecated_runtime():
    with pytest.raises(CfngenError) as info:
        _answers.check_runtime("python3.10")
    assert "deprecated" in info.value.message and "2026-10-31" in info.value.message
    assert "python3.11" in info.value.hint and "python3.10" not in info.value.hint


def test_unknown_runtime_lists_the_choices():
    with pytest.raises(CfngenError) as info:
        _answers.check_runtime("python2.7")
    assert "python3.12" in info.value.hint


@pytest.mark.parametrize("value", ["resource", "RESOURCE", "Resource", "resource type"])
def test_artifact_types(value):
    assert lookup(value) is named("resource")


def test_every_kind_is_found_by_its_name_label_and_official_spellings():
    for kind in all_kinds():
        for spelling in (kind.name, kind.label, *kind.artifact_types, *kind.aliases):
            assert lookup(spelling) is kind


def test_unknown_artifact_type():
    with pytest.raises(CfngenError, match="unknown artifact type"):
        lookup("lambda")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("create,read", ("create", "read")),
        ("list, create ,READ", ("create", "read", "list")),
        (["delete", "create"], ("create", "delete")),
        ("none", ()),
        ("", ()),
        ([], ()),
        ("create,create", ("create",)),
    ],
)
def test_handlers(value, expected):
    assert resource.parse_handlers(value) == expected


def test_unknown_handler():
    with pytest.raises(CfngenError, match=r"unknown handler.*: destroy"):
        resource.parse_handlers("create,destroy")


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("Yes", True), ("1", True), ("off", False), ("n", False), (False, False)],
)
def test_yes_no(value, expected):
    assert _answers.parse_bool("tagging", value) is expected


def test_yes_no_rejects_anything_else():
    with pytest.raises(CfngenError, match="not a yes/no value"):
        _answers.parse_bool("tagging", "maybe")


def test_data_items():
    assert _answers.parse_data(["tagging=false", "handlers=create,read", "runtime=a=b"], KEYS) == {
        "tagging": "false",
        "handlers": "create,read",
        "runtime": "a=b",
    }


@pytest.mark.parametrize(
    ("item", "message"),
    [("tagging", "not KEY=VALUE"), ("=x", "not KEY=VALUE"), ("colour=red", "unknown key")],
)
def test_bad_data_items(item, message):
    with pytest.raises(CfngenError, match=message):
        _answers.parse_data([item], KEYS)


def test_collect_checks_flags_and_data_and_refuses_contradictions():
    given = _answers.collect(
        QUESTIONS,
        {"type_name": "Acme::Svc::Widget", "runtime": None, "tagging": False},
        {"handlers": "read", "tagging": "no"},
    )
    assert given == {"type_name": "Acme::Svc::Widget", "tagging": False, "handlers": ("read",)}
    with pytest.raises(CfngenError, match="given twice"):
        _answers.collect(QUESTIONS, {"tagging": True}, {"tagging": "false"})
    with pytest.raises(CfngenError, match="reserved"):
        _answers.collect(QUESTIONS, {}, {"type_name": "AWS::Svc::Thing"})


def test_a_type_name_is_required():
    with pytest.raises(CfngenError, match="needs the type name"):
        resource.resolve({})


def test_copier_data_holds_exactly_the_template_questions():
    answers = resource.resolve({"type_name": _answers.check_type_name("Acme::Svc::Widget")})
    assert set(answers.copier_data()) == set(KEYS)
    assert answers.template == "resource"


def test_the_answer_keys_are_the_live_templates_questions():
    import yaml

    from cfngen._init import _template_cache

    live = _template_cache.live_version("resource")
    config = yaml.safe_load((live.path / "copier.yml").read_text())
    asked = {
        key
        for key, question in config.items()
        if not key.startswith("_") and question.get("when") is not False
    }
    # `ci` too: the wizard asks it, --ci and --data ci=... answer it, checked once. Not
    # ci_working_directory: init sets it from where the project is (cfngen/_init/_ci.py).
    assert asked == {*KEYS, "ci_working_directory"}


def test_the_example_needs_no_type_name_and_fixes_the_schema_answers():
    answers = resource.resolve({"example": True})
    assert answers == Answers(
        type_name=answers.type_name,
        package_name="example_ssm_parameter",
        runtime=DEFAULT_RUNTIME.name,
        example=True,
        tagging=True,
        type_configuration=False,
        handlers=HANDLERS,
    )
    assert answers.type_name == resource.EXAMPLE_TYPE_NAME
    assert _answers.type_name_error(resource.EXAMPLE_TYPE_NAME) is None
    own = resource.resolve({"example": True, "type_name": TypeName("Acme::Params::Greeting")})
    assert (own.type_name, own.package_name) == ("Acme::Params::Greeting", "acme_params_greeting")
    # Answers that agree with the example are fine; others are refused, not ignored.
    assert resource.resolve({"example": True, "tagging": True}).tagging is True
    with pytest.raises(CfngenError, match="the example is made with handlers=create,read,upd"):
        resource.resolve({"example": True, "handlers": ()})
    assert (
        resource.resolve({"example": False, "type_name": TypeName("A1::B2::C3")}).example is False
    )


def test_copier_yml_states_the_same_defaults_as_the_questions():
    """Plain `copier copy` of the template (without cfngen) must make what `cfngen init
    --no-input` makes: copier.yml repeats the defaults, so this test holds them together."""
    import yaml

    from cfngen._init import _template_cache

    live = _template_cache.live_version("resource")
    config = yaml.safe_load((live.path / "copier.yml").read_text())
    answers = resource.resolve({"type_name": TypeName("Acme::Svc::Widget")})
    for key in ("example", "runtime", "tagging", "type_configuration"):
        assert config[key]["default"] == answers.copier_data()[key], key
    assert config["handlers"]["default"] == list(HANDLERS)
    assert config["handlers"]["choices"] == list(HANDLERS)
    assert config["artifact_type"]["choices"] == list(named("resource").artifact_types)


@pytest.mark.parametrize(
    ("kind", "folder", "proposed"),
    [
        ("resource", "acme-storage-bucket", "Acme::Storage::Bucket"),
        ("resource", "acme_storage_bucket_policy", "Acme::Storage::BucketPolicy"),
        ("resource", "Acme Storage v2", "Acme::Storage::V2"),
        ("resource", "widget", None),
        ("resource", "my-widget", None),
        ("resource", "aws-s3-thing", None),  # a namespace AWS reserves
        ("resource", "a-b-c", None),  # parts of one letter
        ("hook", "acme-guard-bucket-hook", "Acme::Guard::BucketHook"),
        ("module", "acme-storage-bucket-module", "Acme::Storage::Bucket::MODULE"),
        ("module", "acme-storage-bucket", "Acme::Storage::Bucket::MODULE"),
        ("custom_resource", "acme-greeting", "Custom::AcmeGreeting"),
        ("custom_resource", "---", None),
    ],
)
def test_the_wizard_proposes_a_type_name_from_the_folder(kind, folder, proposed):
    from cfngen._kind import lookup

    spec = lookup(kind).init
    assert spec is not None
    question = next(q for q in spec.questions if q.key in ("type_name", "custom_type"))
    assert question.propose is not None
    assert question.propose({}, folder) == proposed
    if proposed is not None:
        assert str(question.check(proposed)) == proposed  # what Enter then gives
    if any(q.key == "example" for q in spec.questions):
        assert question.propose({"example": True}, folder) is None  # the example's own name
