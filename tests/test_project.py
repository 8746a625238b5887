import json

import pytest

from cfngen._errors import CfngenError
from cfngen._project import load_project


def make(tmp_path, **config):
    (tmp_path / ".rpdk-config").write_text(json.dumps({"typeName": "Acme::Svc::Widget", **config}))
    return load_project(tmp_path)


def test_the_official_layout_when_rpdk_config_names_no_entrypoint(tmp_path):
    project = make(tmp_path)
    layout = project.language.layout(project)
    assert layout.entrypoint == "acme_svc_widget.handlers.resource"
    assert layout.test_entrypoint == "acme_svc_widget.handlers.test_entrypoint"
    assert layout.package_dir == tmp_path / "src" / "acme_svc_widget"
    assert layout.handlers_path == tmp_path / "src" / "acme_svc_widget" / "handlers.py"
    assert project.schema_path == tmp_path / "acme-svc-widget.json"


def test_a_renamed_package_is_found_from_the_entrypoint(tmp_path):
    project = make(tmp_path, entrypoint="widgets.api.handlers.resource")
    layout = project.language.layout(project)
    assert layout.package_name == "widgets"
    assert layout.handlers_path == tmp_path / "src" / "widgets" / "api" / "handlers.py"
    assert layout.test_entrypoint == "widgets.api.handlers.test_entrypoint"


@pytest.mark.parametrize("value", ["resource", "pkg.handlers.", "my pkg.handlers.resource", 7])
def test_an_entrypoint_that_is_not_module_dot_attribute_is_refused(tmp_path, value):
    with pytest.raises(CfngenError) as info:
        make(tmp_path, entrypoint=value)
    assert "entrypoint" in info.value.message
    assert "package.handlers.resource" in info.value.hint
