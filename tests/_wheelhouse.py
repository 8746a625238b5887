"""Wheels and sdists made inside the test session, so that build tests need no package index.

`write_wheel` writes a valid wheel (METADATA, WHEEL with its tags, RECORD) around given files.
`native_module` compiles a tiny C extension with one of pyenv's interpreters, for import tests on
the runtime's CPython. `write_sdist` writes an sdist whose in-tree build backend (no build
requirements, so pip builds it offline) makes a wheel with a chosen tag: pure, or pretending to
be native.
"""

from __future__ import annotations

import base64
import hashlib
import io
import subprocess
import tarfile
import textwrap
import zipfile
from pathlib import Path

PYENV = Path("/root/.pyenv/versions")


def pyenv_python(version: str) -> Path:
    """The newest pyenv CPython X.Y on this machine; a failure (not a skip) when it is missing."""
    found = sorted(PYENV.glob(f"{version}.*"), key=lambda p: [int(x) for x in p.name.split(".")])
    assert found, f"CPython {version} is not under {PYENV}: install it with pyenv"
    return found[-1] / "bin" / "python"


def write_wheel(
    folder: Path,
    name: str,
    version: str,
    files: dict[str, bytes],
    *,
    tag: str = "py3-none-any",
    requires: tuple[str, ...] = (),
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    dist = f"{name.replace('-', '_')}-{version}"
    info = f"{dist}.dist-info"
    entries = dict(files)
    entries[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        + "".join(f"Requires-Dist: {r}\n" for r in requires)
    ).encode()
    pure = "true" if tag.endswith("-none-any") else "false"
    entries[f"{info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: cfngen-tests\nRoot-Is-Purelib: {pure}\nTag: {tag}\n"
    ).encode()
    record = [f"{n},sha256={_b64(hashlib.sha256(d).digest())},{len(d)}" for n, d in entries.items()]
    entries[f"{info}/RECORD"] = ("\n".join([*record, f"{info}/RECORD,,"]) + "\n").encode()
    path = folder / f"{dist}-{tag}.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for entry, data in entries.items():
            archive.writestr(entry, data)
    return path


def native_module(python: Path, module: str, work: Path) -> tuple[str, bytes]:
    """(file name, bytes) of a C extension `module` built for `python`: `answer()` returns 42."""
    work.mkdir(parents=True, exist_ok=True)
    info = subprocess.run(
        [
            python,
            "-c",
            "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'));"
            "print(sysconfig.get_paths()['include'])",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    suffix, include = info[0], info[1]
    source = work / f"{module}.c"
    source.write_text(
        textwrap.dedent(
            f"""
            #include <Python.h>
            static PyObject *answer(PyObject *self, PyObject *args) {{
                return PyLong_FromLong(42);
            }}
            static PyMethodDef methods[] = {{{{"answer", answer, METH_NOARGS, ""}}, {{NULL}}}};
            static struct PyModuleDef def = {{
                PyModuleDef_HEAD_INIT, "{module}", NULL, -1, methods
            }};
            PyMODINIT_FUNC PyInit_{module}(void) {{ return PyModule_Create(&def); }}
            """
        )
    )
    out = work / f"{module}{suffix}"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-O1", f"-I{include}", "-o", str(out), str(source)], check=True
    )
    return out.name, out.read_bytes()


_BACKEND = """
import base64, hashlib, os, zipfile

NAME, VERSION, TAG = {name!r}, {version!r}, {tag!r}

def _wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist = NAME.replace("-", "_") + "-" + VERSION
    info = dist + ".dist-info"
    entries = {{NAME.replace("-", "_") + ".py": b"VALUE = 'built from source'\\n",
               info + "/METADATA": ("Metadata-Version: 2.1\\nName: " + NAME + "\\nVersion: "
                                    + VERSION + "\\n").encode(),
               info + "/WHEEL": ("Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: " + TAG
                                 + "\\n").encode()}}
    record = []
    for n, d in entries.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
        record.append(n + ",sha256=" + digest + "," + str(len(d)))
    entries[info + "/RECORD"] = ("\\n".join(record + [info + "/RECORD,,"]) + "\\n").encode()
    filename = dist + "-" + TAG + ".whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w") as archive:
        for n, d in entries.items():
            archive.writestr(n, d)
    return filename

build_wheel = _wheel

def get_requires_for_build_wheel(config_settings=None):
    return []
"""


def write_sdist(folder: Path, name: str, version: str, *, wheel_tag: str = "py3-none-any") -> Path:
    """An sdist that builds, offline, into a wheel tagged `wheel_tag`."""
    folder.mkdir(parents=True, exist_ok=True)
    base = f"{name.replace('-', '_')}-{version}"
    files = {
        "pyproject.toml": (
            '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
            f'[project]\nname = "{name}"\nversion = "{version}"\n'
        ),
        "backend.py": _BACKEND.format(name=name, version=version, tag=wheel_tag),
        "PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
    }
    path = folder / f"{base}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for entry, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{base}/{entry}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def _b64(digest: bytes) -> str:
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
