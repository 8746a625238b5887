"""`cfngen build`: handler zips cross-installed for the runtime's CPython, ABI, architecture
and Amazon Linux, from a wheelhouse made in the session (no package index)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from cfngen._errors import CfngenError, ExitCode
from cfngen._package import build_package
from cfngen._package._platform import Platform
from tests._wheelhouse import native_module, pyenv_python, write_sdist, write_wheel
from tests.test_init_support import cfngen_argv, cfngen_env, made_once

PACKAGE = "acme-svc-widget.zip"
PKG = "acme_svc_widget"
IMPORTABLE = ("3.10", "3.11", "3.12", "3.13")


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tiny distributions covering each case the build must handle."""
    house = tmp_path_factory.mktemp("wheelhouse")
    work = tmp_path_factory.mktemp("native-build")
    init = b"from tinyext._tiny import answer\n"
    for version in IMPORTABLE:
        name, so = native_module(pyenv_python(version), "_tiny", work / version)
        abi = "cp" + version.replace(".", "")
        tag = f"{abi}-{abi}-manylinux_2_17_x86_64"
        write_wheel(
            house, "tinyext", "1.0", {"tinyext/__init__.py": init, f"tinyext/{name}": so}, tag=tag
        )
    # No CPython 3.14 here to compile with: a wheel whose tags and file name say cp314.
    fake = b"\x7fELF not loaded"
    write_wheel(
        house,
        "tinyext",
        "1.0",
        {"tinyext/__init__.py": init, "tinyext/_tiny.cpython-314-x86_64-linux-gnu.so": fake},
        tag="cp314-cp314-manylinux_2_17_x86_64",
    )
    write_wheel(
        house,
        "tinyext",
        "1.0",
        {"tinyext/__init__.py": init, "tinyext/_tiny.cpython-312-aarch64-linux-gnu.so": fake},
        tag="cp312-cp312-manylinux_2_17_aarch64",
    )
    for abi in ("cp311", "cp312"):
        write_wheel(
            house,
            "newglibc",
            "1.0",
            {f"newglibc/_n.{abi}.so": fake, "newglibc/__init__.py": b""},
            tag=f"{abi}-{abi}-manylinux_2_34_x86_64",
        )
    write_wheel(
        house,
        "purelib",
        "1.0",
        {"purelib.py": b"import six, urllib3\n"},
        requires=("six", "urllib3"),
    )
    write_wheel(house, "six", "1.17.0", {"six.py": b"# six\n"})
    write_wheel(house, "urllib3", "2.0", {"urllib3/__init__.py": b""})
    write_sdist(house, "puresrc", "1.0")
    write_sdist(house, "nativesrc", "1.0", wheel_tag="cp311-cp311-linux_x86_64")
    return house


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """pip sees no configuration of this machine, and cfngen a cache of the test's own."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("CFNGEN_HOME", str(tmp_path / "home"))


def project(
    tmp_path_factory: pytest.TempPathFactory,
    tmp_path: Path,
    requirements: str,
    runtime: str = "python3.12",
) -> Path:
    made = made_once(tmp_path_factory, "widget", "--type-name", "Acme::Svc::Widget")
    root = tmp_path / "widget"
    shutil.copytree(made, root)
    (root / "requirements.txt").write_text(requirements)
    config = json.loads((root / ".rpdk-config").read_text())
    config["runtime"] = runtime
    (root / ".rpdk-config").write_text(json.dumps(config, indent=4) + "\n")
    return root


def build(root: Path, wheelhouse: Path, **options: object):
    return build_package(
        root, pip_options=["--no-index", "--find-links", str(wheelhouse)], **options
    )


def handler_names(data: bytes) -> set[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return set(archive.namelist())


def extract_handler(package: Path, dest: Path) -> Path:
    with zipfile.ZipFile(package) as outer:
        inner = outer.read("ResourceProvider.zip")
    with zipfile.ZipFile(io.BytesIO(inner)) as archive:
        archive.extractall(dest)
    return dest


@pytest.mark.oracle  # each runtime's CPython is the judge
@pytest.mark.parametrize("version", IMPORTABLE)
def test_native_wheel_has_the_runtime_abi_and_imports_on_its_cpython(
    version, wheelhouse, offline, tmp_path_factory, tmp_path
):
    root = project(tmp_path_factory, tmp_path, "tinyext\n", runtime=f"python{version}")
    result = build(root, wheelhouse)
    abi = "cp" + version.replace(".", "")
    assert [(s.name, s.native_tag) for s in result.handler.shipped] == [
        ("tinyext", f"{abi}-{abi}-manylinux_2_17_x86_64")
    ]
    names = handler_names(result.handler.data)
    assert f"tinyext/_tiny.cpython-{abi[2:]}-x86_64-linux-gnu.so" in names
    site = extract_handler(result.path, tmp_path / "lambda")
    check = subprocess.run(
        [pyenv_python(version), "-c", "import tinyext; print(tinyext.answer())"],
        cwd=site,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.stdout.strip() == "42", check.stderr


def test_python314_gets_the_cp314_wheel(wheelhouse, offline, tmp_path_factory, tmp_path):
    root = project(tmp_path_factory, tmp_path, "tinyext\n", runtime="python3.14")
    result = build(root, wheelhouse)
    assert result.handler.shipped[0].native_tag == "cp314-cp314-manylinux_2_17_x86_64"
    assert "tinyext/_tiny.cpython-314-x86_64-linux-gnu.so" in handler_names(result.handler.data)


def test_arm64_in_template_yml_gets_the_aarch64_wheel(
    wheelhouse, offline, tmp_path_factory, tmp_path
):
    root = project(tmp_path_factory, tmp_path, "tinyext\n")
    template = root / "template.yml"
    text = template.read_text().replace(
        "      Handler: acme_svc_widget.handlers.resource\n",
        "      Handler: acme_svc_widget.handlers.resource\n      Architectures: [arm64]\n",
    )
    assert text != template.read_text()
    template.write_text(text)
    result = build(root, wheelhouse)
    assert result.handler.platform.arch == "aarch64"
    assert "tinyext/_tiny.cpython-312-aarch64-linux-gnu.so" in handler_names(result.handler.data)


@pytest.mark.parametrize(
    ("runtime", "accepted"),
    [("python3.12", True), ("python3.11", False)],
)
def test_wheels_for_a_newer_glibc_only_go_to_amazon_linux_2023(  # noqa: PLR0917
    runtime, accepted, wheelhouse, offline, tmp_path_factory, tmp_path
):
    root = project(tmp_path_factory, tmp_path, "newglibc\n", runtime=runtime)
    if accepted:
        assert build(root, wheelhouse).handler.shipped[0].name == "newglibc"
        return
    with pytest.raises(CfngenError) as caught:
        build(root, wheelhouse)
    assert "newglibc" in caught.value.message
    assert "Amazon Linux 2," in caught.value.message
    assert caught.value.exit_code == ExitCode.FAILED
    assert not (root / PACKAGE).exists()


def test_a_pure_python_sdist_is_built_into_a_wheel(wheelhouse, offline, tmp_path_factory, tmp_path):
    root = project(tmp_path_factory, tmp_path, "puresrc==1.0\n")
    result = build(root, wheelhouse)
    assert [s.name for s in result.handler.shipped] == ["puresrc"]
    assert "puresrc.py" in handler_names(result.handler.data)


def test_a_native_sdist_is_refused_by_name_and_nothing_changes(
    wheelhouse, offline, tmp_path_factory, tmp_path
):
    root = project(tmp_path_factory, tmp_path, "tinyext\n")
    build(root, wheelhouse)
    before = snapshot(root)
    (root / "requirements.txt").write_text("tinyext\nnativesrc\n")
    before["requirements.txt"] = (root / "requirements.txt").read_bytes()
    with pytest.raises(CfngenError) as caught:
        build(root, wheelhouse)
    assert caught.value.message.startswith("nativesrc 1.0 has native code and publishes no wheel")
    assert "CPython 3.12 on x86_64" in caught.value.message
    assert caught.value.exit_code == ExitCode.FAILED
    assert snapshot(root) == before


def test_what_lambda_provides_is_left_out_unless_include_boto3(
    wheelhouse, offline, tmp_path_factory, tmp_path
):
    root = project(tmp_path_factory, tmp_path, "purelib\n")
    lean = build(root, wheelhouse)
    assert [s.name for s in lean.handler.shipped] == ["purelib"]
    assert lean.handler.left_out == ("six 1.17.0", "urllib3 2.0")
    names = handler_names(lean.handler.data)
    assert "purelib.py" in names
    assert not {n for n in names if n.startswith(("six", "urllib3"))}
    full = build(root, wheelhouse, include_boto3=True)
    assert {"six.py", "urllib3/__init__.py"} <= handler_names(full.handler.data)
    assert full.handler.left_out == ()


def test_same_inputs_give_the_same_bytes(wheelhouse, offline, tmp_path_factory, tmp_path):
    root = project(tmp_path_factory, tmp_path, "tinyext\npuresrc\n")
    first = build(root, wheelhouse, use_cache=False).data
    os.utime(root / "src" / PKG / "handlers.py", (1, 1))  # a new mtime changes no byte
    second = build(root, wheelhouse, use_cache=False)
    assert second.data == first
    assert not second.written
    with zipfile.ZipFile(io.BytesIO(first)) as outer:
        infos = outer.infolist()
        inner = zipfile.ZipFile(io.BytesIO(outer.read("ResourceProvider.zip"))).infolist()
    for infos_, method in ((infos, zipfile.ZIP_STORED), (inner, zipfile.ZIP_DEFLATED)):
        assert [i.filename for i in infos_] == sorted(i.filename for i in infos_)
        assert {i.date_time for i in infos_} == {(1980, 1, 1, 0, 0, 0)}
        assert {i.external_attr >> 16 for i in infos_} == {0o100644}
        assert {i.compress_type for i in infos_} == {method}


def test_a_rebuild_with_nothing_changed_runs_no_pip_and_keeps_the_bytes(
    wheelhouse, tmp_path_factory, tmp_path
):
    root = project(tmp_path_factory, tmp_path, "tinyext\n")
    env = cfngen_env(
        tmp_path, PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheelhouse)
    )
    first = subprocess.run(
        [*cfngen_argv(), "build", "-v"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert first.returncode == 0, first.stderr
    assert "pip |" in first.stderr  # pip's output, with -v
    data = (root / PACKAGE).read_bytes()
    again = subprocess.run(
        [*cfngen_argv(), "build", "-v"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"up to date: {PACKAGE}")
    assert "pip |" not in again.stderr
    assert (root / PACKAGE).read_bytes() == data
    # Its speed (< 1 s) is a benchmark (docs/benchmarks.md), not a unit test on a shared machine.


def test_a_source_change_reaches_the_handler_zip(wheelhouse, offline, tmp_path_factory, tmp_path):
    root = project(tmp_path_factory, tmp_path, "tinyext\n")
    build(root, wheelhouse)
    handlers = root / "src" / PKG / "handlers.py"
    handlers.write_text(handlers.read_text() + "\nCHANGED = True\n")
    result = build(root, wheelhouse)
    assert result.written
    with zipfile.ZipFile(io.BytesIO(result.handler.data)) as archive:
        assert archive.read(f"{PKG}/handlers.py").endswith(b"CHANGED = True\n")


def test_a_handler_over_lambdas_unzipped_limit_is_refused_before_deflating(
    wheelhouse, offline, tmp_path_factory, tmp_path
):
    root = project(tmp_path_factory, tmp_path, "tinyext\n")
    with (root / "src" / PKG / "data.bin").open("wb") as big:
        big.truncate(262_144_001)  # sparse: nothing is written to disk
    with pytest.raises(CfngenError) as caught:
        build(root, wheelhouse)
    assert "262,144,000 bytes" in caught.value.message
    assert "gettingstarted-limits" in caught.value.message
    assert not (root / PACKAGE).exists()


def test_without_requirements_txt_the_zip_holds_the_package_and_a_warning(
    wheelhouse, offline, tmp_path_factory, tmp_path
):
    root = project(tmp_path_factory, tmp_path, "")
    (root / "requirements.txt").unlink()
    result = build(root, wheelhouse)
    assert {n.split("/")[0] for n in handler_names(result.handler.data)} == {PKG}
    assert any("requirements.txt: no such file" in w for w in result.warnings)


@pytest.mark.parametrize(
    ("platform", "present", "absent"),
    [
        (
            Platform("3.12", "x86_64", "2023"),
            ["manylinux_2_34_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64"],
            ["manylinux_2_35_x86_64"],
        ),
        (
            Platform("3.11", "x86_64", "2"),
            ["manylinux_2_26_x86_64", "manylinux2010_x86_64", "manylinux_2_5_x86_64"],
            ["manylinux_2_27_x86_64", "manylinux_2_34_x86_64"],
        ),
        (
            Platform("3.12", "aarch64", "2023"),
            ["manylinux_2_34_aarch64", "manylinux2014_aarch64"],
            ["manylinux_2_16_aarch64", "manylinux1_aarch64", "manylinux_2_34_x86_64"],
        ),
    ],
)
def test_platform_tags_are_what_the_amazon_linux_release_accepts(platform, present, absent):
    assert set(present) <= set(platform.tags)
    assert not set(absent) & set(platform.tags)
    assert platform.tags[0] == present[0]  # newest first: pip prefers the first match


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def test_the_cli_names_a_native_sdist_in_one_message_with_exit_1(
    wheelhouse, tmp_path_factory, tmp_path
):
    root = project(tmp_path_factory, tmp_path, "nativesrc\n")
    env = cfngen_env(tmp_path, PIP_CONFIG_FILE=os.devnull)
    result = subprocess.run(
        [*cfngen_argv(), "build", "--no-index", "--find-links", str(wheelhouse)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == ExitCode.FAILED
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("cfngen: error:")]
    assert errors == [
        "cfngen: error: nativesrc 1.0 has native code and publishes no wheel for CPython 3.12 on "
        "x86_64 (Amazon Linux 2023, glibc 2.34); built here it would be "
        "nativesrc-1.0-cp311-cp311-linux_x86_64.whl, which Lambda cannot load"
    ]
    assert not (root / PACKAGE).exists()


# ------------------------------------------------------------ releases published only as source

#: A dependency's wheels (name, version, its requirements), the releases published only as
#: source, the older wheels pip may fall back to, and what the package must hold: the shapes
#: that broke real hooks (ResolutionImpossible, or an older release than the one tested).
FROM_SOURCE = {
    "every release of the dependent needs it: ResolutionImpossible": (
        [("needy", "1.0", ("srconly>=2",)), ("needy", "1.1", ("srconly>=2",))],
        [("srconly", "1.0")],
        {"needy": "1.1", "srconly": "2.0"},
    ),
    "a loose requirement: pip took an older release that had a wheel": (
        [("needy", "1.0", ("srconly",))],
        [("srconly", "1.0")],
        {"needy": "1.0", "srconly": "2.0"},
    ),
    "an older dependent needed a release with a wheel: pip took both older": (
        [("needy", "1.0", ("srconly<2",)), ("needy", "2.0", ("srconly>=2",))],
        [("srconly", "1.0")],
        {"needy": "2.0", "srconly": "2.0"},
    ),
    "no release has a wheel": (
        [("needy", "1.0", ("srconly>=1",))],
        [],
        {"needy": "1.0", "srconly": "2.0"},
    ),
}


def source_only_house(folder: Path, dependents, old_wheels) -> Path:
    for name, version, requires in dependents:
        write_wheel(folder, name, version, {f"{name}.py": b"import srconly\n"}, requires=requires)
    for name, version in old_wheels:
        write_wheel(folder, name, version, {f"{name}.py": b"VALUE = 'an older wheel'\n"})
    write_sdist(folder, "srconly", "2.0")
    return folder


def installed_here(monkeypatch: pytest.MonkeyPatch, folder: Path, name: str, version: str) -> None:
    """`name` `version` as this process sees it installed: where `cfngen test` imports from."""
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    monkeypatch.syspath_prepend(str(folder))


def hook_root(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, requirements: str) -> Path:
    made = made_once(
        tmp_path_factory, "editor-hook", "--artifact-type", "hook", "-t", "Acme::Svc::Hook"
    )
    root = tmp_path / "hook"
    shutil.copytree(made, root)
    (root / "requirements.txt").write_text(requirements)
    return root


@pytest.mark.parametrize(
    ("kind", "case"),
    [
        pytest.param(
            "resource",
            case,
            marks=() if index < 2 else pytest.mark.exhaustive,
            id=f"resource-{case}",
        )
        for index, case in enumerate(FROM_SOURCE)
    ]
    + [
        pytest.param(
            "hook",
            "every release of the dependent needs it: ResolutionImpossible",
            marks=pytest.mark.exhaustive,
            id="hook-every release of the dependent needs it: ResolutionImpossible",
        )
    ],
)
def test_a_dependency_published_only_as_source_is_built_and_packed_as_tested(  # noqa: PLR0917
    kind, case, offline, monkeypatch, tmp_path_factory, tmp_path
):
    dependents, old_wheels, expected = FROM_SOURCE[case]
    house = source_only_house(tmp_path / "house", dependents, old_wheels)
    installed_here(monkeypatch, tmp_path / "here", "srconly", "2.0")  # what the tests ran
    if kind == "hook":
        root = hook_root(tmp_path_factory, tmp_path, "needy\n")
        inner = "acme_svc_hook"
    else:
        root = project(tmp_path_factory, tmp_path, "needy\n")
        inner = PKG

    result = build(root, house)

    shipped = {s.name: s.version for s in result.handler.shipped}
    assert shipped == expected
    assert [s.name for s in result.handler.shipped if s.from_source] == ["srconly"]
    with zipfile.ZipFile(io.BytesIO(result.handler.data)) as archive:
        assert archive.read("srconly.py") == b"VALUE = 'built from source'\n"
        assert f"{inner}/handlers.py" in archive.namelist()
    assert not [w for w in result.warnings if "srconly" in w]


@pytest.mark.parametrize(
    ("requirements", "here", "says"),
    [
        ("srconly==1.0\n", "2.0", "srconly 1.0 (tested with 2.0)"),
        ("srconly\n", "3.0", "srconly 2.0, built from its source (tested with 3.0)"),
    ],
    ids=["an older wheel pinned", "a newer release installed here"],
)
def test_a_packed_version_other_than_the_tested_one_is_named(  # noqa: PLR0917
    requirements, here, says, offline, monkeypatch, tmp_path_factory, tmp_path
):
    house = source_only_house(tmp_path / "house", [], [("srconly", "1.0")])
    installed_here(monkeypatch, tmp_path / "here", "srconly", here)
    root = project(tmp_path_factory, tmp_path, requirements)

    warnings = build(root, house).warnings

    [warning] = [w for w in warnings if "srconly" in w]
    assert warning.startswith("the package holds other versions than `cfngen test` runs")
    assert says in warning
