"""`cfngen test --upgrade-from REV`: the example's released handlers create, this project's
read, update and delete (on a moto server cfngen starts); a handler that changed where it
keeps its data fails the upgrade's read, although its own contract tests pass."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_init_support import made_once

ENV = {
    **os.environ,
    "NO_COLOR": "",
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@e",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@e",
}
STEPS = [
    "upgrade_create_with_old_handlers",
    "upgrade_read_with_new_handlers",
    "upgrade_update_with_new_handlers",
    "upgrade_delete_with_new_handlers",
    "upgrade_read_after_delete_not_found",
]


def cfngen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfngen", *args],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.fixture
def example(tmp_path_factory, tmp_path) -> Path:
    """The example in a git repository of its own, its first version committed."""
    made = made_once(tmp_path_factory, "example", "--example")
    root = tmp_path / "example"
    shutil.copytree(made, root)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "the released version"]):
        subprocess.run(["git", *args], cwd=root, env=ENV, check=True, capture_output=True)
    return root


def _report(done: subprocess.CompletedProcess[str]) -> dict[str, dict]:
    return {test["name"]: test for test in json.loads(done.stdout)["tests"]}


def test_the_released_example_upgrades_to_itself(example):
    done = cfngen("test", "--upgrade-from", "HEAD", "--format", "json", cwd=example)
    assert done.returncode == 0, done.stdout + done.stderr
    tests = _report(done)
    assert list(tests) == STEPS
    assert {t["outcome"] for t in tests.values()} == {"passed"}


def test_handlers_that_keep_their_data_elsewhere_fail_the_upgrade_read(example):
    # The new version marks the parameters it keeps with a layout tag, and reads only those:
    # consistent with itself (its own contract tests pass), blind to what was made before.
    handlers = next((example / "src").glob("*/handlers.py"))
    text = handlers.read_text()
    put = 'ssm.put_parameter(Name=name, Value=model.Value, Type="String")'
    tags = 'Tags={tag["Key"]: tag["Value"] for tag in tagged["TagList"]},'
    returned = '    return ResourceModel(\n        Name=parameter["Name"],'
    assert put in text and tags in text and returned in text
    marked = 'Tags=[{"Key": "app:layout", "Value": "2"}]'
    tag = f'ssm.add_tags_to_resource(ResourceType="Parameter", ResourceId=name, {marked})'
    text = text.replace(put, f"{put}\n        {tag}")
    text = text.replace(
        returned,
        '    tags = {tag["Key"]: tag["Value"] for tag in tagged["TagList"]}\n'
        '    if tags.pop("app:layout", None) != "2":\n'
        "        raise exceptions.NotFound(TYPE_NAME, name)  # kept the earlier way\n" + returned,
    ).replace(tags, "Tags=tags,")
    handlers.write_text(text)
    own = cfngen("test", cwd=example)
    assert own.returncode == 0, own.stdout[-2000:]
    done = cfngen("test", "--upgrade-from", "HEAD", "--format", "json", cwd=example)
    assert done.returncode == 1, done.stdout + done.stderr
    tests = _report(done)
    assert tests["upgrade_create_with_old_handlers"]["outcome"] == "passed"
    read = tests["upgrade_read_with_new_handlers"]
    assert read["outcome"] == "failed" and read["code"] == "cfngen/upgrade-failed"
    assert "READ" in read["message"] and "NotFound" in read["message"]
    assert {tests[name]["outcome"] for name in STEPS[2:]} == {"skipped"}


@pytest.mark.parametrize(
    "rev,message",
    [("no-such-revision", "is no revision"), ("--output=/tmp/x", "is no revision")],
    ids=["unknown", "an option"],
)
def test_a_revision_that_is_not_one_is_a_usage_error(example, rev, message):
    done = cfngen("test", f"--upgrade-from={rev}", cwd=example)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_a_project_that_did_not_exist_at_the_revision_is_a_usage_error(example):
    inner = example / "later"
    shutil.copytree(example, inner, ignore=shutil.ignore_patterns(".git", "later"))
    done = cfngen("test", "--upgrade-from", "HEAD", cwd=inner)
    assert done.returncode == 2 and "did not exist at HEAD" in done.stderr, done.stderr


def test_a_kind_without_resources_to_take_over_is_a_usage_error(tmp_path_factory, tmp_path):
    made = made_once(
        tmp_path_factory, "hook", "--artifact-type", "hook", "--type-name", "Acme::Svc::Guard"
    )
    root = tmp_path / "hook"
    shutil.copytree(made, root)
    done = cfngen("test", "--upgrade-from", "HEAD", cwd=root)
    assert done.returncode == 2 and "for resource types" in done.stderr, done.stderr


@pytest.mark.parametrize("filtered", [True, False], ids=["data filter", "without it"])
def test_the_archive_is_unpacked_inside_and_without_links_out(tmp_path, monkeypatch, filtered):
    import contextlib
    import io
    import tarfile

    from cfngen._contract import _upgrade
    from cfngen._errors import CfngenError

    if not filtered:  # the rules cfngen applies on a Python older than tarfile's data filter
        monkeypatch.delattr(tarfile, "data_filter", raising=False)

    def archive(*members: tuple[str, bytes | None, str | None]) -> bytes:
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as tar:
            for name, data, link in members:
                info = tarfile.TarInfo(name)
                if link is not None:
                    info.type, info.linkname = tarfile.SYMTYPE, link
                    tar.addfile(info)
                else:
                    info.size = len(data or b"")
                    tar.addfile(info, io.BytesIO(data or b""))
        return buffer.getvalue()

    _upgrade._extract(archive(("p/a.txt", b"kept", None)), tmp_path / "ok")
    assert (tmp_path / "ok" / "p" / "a.txt").read_bytes() == b"kept"
    with pytest.raises((CfngenError, tarfile.TarError)):
        _upgrade._extract(archive(("../evil.txt", b"x", None)), tmp_path / "out")
    assert not (tmp_path / "evil.txt").exists()
    with contextlib.suppress(CfngenError, tarfile.TarError):  # refused, or left out
        _upgrade._extract(archive(("p/link", None, "/etc/passwd")), tmp_path / "link")
    assert not (tmp_path / "link" / "p" / "link").is_symlink()
