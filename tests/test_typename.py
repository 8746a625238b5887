import importlib

import pytest

from cfngen._errors import CfngenError
from cfngen._typename import TypeName, python_package_name, reserved_namespace, type_name_problem


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("Acme::Svc::Widget", None),
        ("A1::B2::C3", None),
        ("Acme::Svc", "2 part(s)"),
        ("Acme::Svc::Widget::X", "4 part(s)"),
        ("Acme::S::Widget", "2 to 64"),
        ("Acme::Svc-x::Widget", "letters and digits"),
        ("", "empty"),
        ("A" * 65 + "::Svc::Widget", "2 to 64"),
    ],
)
def test_type_name_problems(value, problem):
    found = type_name_problem(value)
    if problem is None:
        assert found is None
    else:
        assert problem in found


def test_type_name_derives_official_file_and_package_names():
    t = TypeName("Acme::Svc::Widget")
    assert t.parts == ("Acme", "Svc", "Widget")
    assert t.namespace == "Acme"
    assert t.hyphenated == "Acme-Svc-Widget"
    assert t.schema_filename == "acme-svc-widget.json"
    assert t.package_name == "acme_svc_widget"


@pytest.mark.parametrize("value", ["1Org::2Svc::3Res", "Import::As::If", "Acme::Svc::Widget"])
def test_package_name_is_always_importable(value, tmp_path, monkeypatch):
    name = python_package_name(value)
    assert name.isidentifier()
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module(name)


def test_invalid_type_name_raises_with_hint():
    with pytest.raises(CfngenError) as info:
        TypeName("nope")
    assert "three parts" in info.value.hint


@pytest.mark.parametrize(
    ("org", "reserved"),
    [("AWS", "AWS"), ("aws", "AWS"), ("Alexa", "Alexa"), ("Custom", "Custom"), ("Acme", None)],
)
def test_reserved_namespaces(org, reserved):
    assert reserved_namespace(org) == reserved
