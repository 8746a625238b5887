"""`cfngen build` never packs what cfngen derived from other inputs than the project has now:
a packed file that `cfngen generate` still owns and would rewrite (models.py after a schema
edit) stops the build with exit 1 and the hint `cfngen generate`; a derived file the user took
over (a resource's edited input) is packed, and named in a warning. Derived files the package
does not hold (template.yml, docs) stop nothing.

Each case runs on both kinds that build a handler, as `cfngen init` makes them."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import made_once, run_command

KINDS = {
    "resource": ("widget", "--type-name", "Acme::Svc::Widget"),
    "hook": ("editor-hook", "--artifact-type", "hook", "-t", "Acme::Svc::Hook"),
}


@dataclass
class Made:
    kind: str
    root: Path
    pkg: str
    schema: Path

    def edit_schema(self, change: Callable[[dict], None]) -> None:
        doc = json.loads(self.schema.read_text())
        change(doc)
        self.schema.write_text(json.dumps(doc, indent=4) + "\n")

    def edit_json(self, relpath: str, change: Callable[[dict], None]) -> None:
        path = self.root / relpath
        doc = json.loads(path.read_text())
        change(doc)
        path.write_text(json.dumps(doc, indent=4) + "\n")

    def run(self, *args: str):
        env = {"CFNGEN_HOME": str(self.root.parent / "home"), "PIP_CONFIG_FILE": os.devnull}
        return run_command(*args, cwd=self.root, env=env)

    def package(self) -> list[Path]:
        return list(self.root.glob("acme-svc-*.zip"))


def make(kind: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Made:
    root = tmp_path / "ext"
    shutil.copytree(made_once(tmp_path_factory, *KINDS[kind]), root, symlinks=True)
    (root / "requirements.txt").write_text("")  # no dependencies: pip has nothing to do
    config = json.loads((root / ".rpdk-config").read_text())
    pkg = config["entrypoint"].split(".")[0]
    schema = root / (config["typeName"].lower().replace("::", "-") + ".json")
    assert schema.is_file()
    return Made(kind, root, pkg, schema)


@pytest.fixture(params=sorted(KINDS))
def made(request: pytest.FixtureRequest, tmp_path_factory, tmp_path) -> Made:
    return make(request.param, tmp_path_factory, tmp_path)


def new_property(made: Made) -> None:
    """A schema edit without `cfngen generate`: the models no longer match it."""

    def add(doc: dict) -> None:
        where = doc if made.kind == "resource" else doc["typeConfiguration"]
        where["properties"]["Extra"] = {"type": "string"}

    made.edit_schema(add)


def new_property_and_edited_models(made: Made) -> None:
    new_property(made)
    with (made.root / "src" / made.pkg / "models.py").open("a") as models:
        models.write("\n# a hand edit\n")


REFUSED: dict[str, tuple[Callable[[Made], None], str]] = {
    "a schema edit without generate": (new_property, "generated from an earlier"),
    "a schema edit and models.py edited by hand": (
        new_property_and_edited_models,
        "edited by hand since",
    ),
}


@pytest.mark.parametrize(("plant", "says"), REFUSED.values(), ids=REFUSED.keys())
def test_packed_files_generated_from_an_earlier_schema_stop_the_build(made, plant, says):
    plant(made)

    result = made.run("build")

    assert result.returncode == 1, result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("cfngen: error:")]
    assert len(errors) == 1, result.stderr
    assert f"src/{made.pkg}/models.py" in errors[0]
    assert says in errors[0]
    assert "  hint: run `cfngen generate`, then build again" in result.stderr
    assert made.package() == []
    if says == "edited by hand since":
        return
    assert made.run("generate").returncode == 0
    rebuilt = made.run("build")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert made.package()


def edited_input_then_new_description(made: Made) -> list[str]:
    """A resource's input the user edited is theirs for good: it is packed as it is, named."""
    made.edit_json("inputs/inputs_1_create.json", lambda doc: doc.update(Name="mine"))
    made.edit_schema(lambda doc: doc.update(description="Widgets, described anew"))
    return ["inputs/inputs_1_create.json"]


def new_runtime(made: Made) -> list[str]:
    """Only template.yml derives from the runtime, and the package does not hold it."""
    made.edit_json(".rpdk-config", lambda doc: doc.update(runtime="python3.12"))
    return []


def models_edited_after_generate(made: Made) -> list[str]:
    """The inputs are those the models were generated from: a hand edit is not stale."""
    with (made.root / "src" / made.pkg / "models.py").open("a") as models:
        models.write("\n# a hand edit\n")
    return []


BUILT: dict[str, tuple[Callable[[Made], list[str]], tuple[str, ...]]] = {
    "an input the user took over": (edited_input_then_new_description, ("resource",)),
    "another runtime": (new_runtime, ("resource", "hook")),
    "models edited, schema as generated": (models_edited_after_generate, ("resource", "hook")),
}


@pytest.mark.parametrize(
    ("kind", "plant"),
    [(kind, plant) for name, (plant, kinds) in BUILT.items() for kind in kinds],
    ids=[f"{kind}-{name}" for name, (_, kinds) in BUILT.items() for kind in kinds],
)
def test_what_the_user_owns_or_the_package_does_not_hold_never_stops_the_build(
    kind, plant, tmp_path_factory, tmp_path
):
    made = make(kind, tmp_path_factory, tmp_path)
    warned = plant(made)

    result = made.run("build")

    assert result.returncode == 0, result.stdout + result.stderr
    assert made.package()
    warnings = [line for line in result.stderr.splitlines() if line.startswith("cfngen: warning:")]
    for path in warned:
        assert any(f"{path} is yours" in line for line in warnings), result.stderr
    if not warned:
        assert not [line for line in warnings if " is yours " in line]
