"""The Lambda runtime client's native library, unpacked once into cfngen's cache.

The client (2.10.1, `JniHelper.load`) copies its JNI library out of its jar to the fixed path
`/tmp/.libaws-lambda-jni.so` on every start (whatever `java.io.tmpdir` says) and loads it: two
JVMs starting at once (two runs, two terminals, two test workers) load a half-written file and
abort. When the system property `...runtimeapi.NativeClient.JNI` names a file, the client
`System.load`s that path and copies nothing, so cfngen unpacks the library that fits this
machine once, into the cache `java-jni` keyed by the jar's digest (written aside, flushed and
renamed into place by _files._cache: a reader never sees half a file, racing writers both end
with a whole one), and names it with that property.
"""

from __future__ import annotations

import platform
import zipfile
from pathlib import Path

from cfngen._files._cache import Cache
from cfngen._files._digest import sha256

PROPERTY = "com.amazonaws.services.lambda.runtime.api.client.runtimeapi.NativeClient.JNI"
_CACHE = Cache("java-jni", keep=4, what="the cache of the Java runtime client's native library")
#: The machine (`platform.machine()`) -> the name the client's jar gives its library for it.
_ARCHES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch_64", "arm64": "aarch_64"}


def library_name() -> str | None:
    """The jar's library for this machine (`jni/libaws-lambda-jni.<platform>.so`); None where
    the client has none (not Linux, another architecture): it is then left to its own ways."""
    arch = _ARCHES.get(platform.machine().lower())
    if platform.system() != "Linux" or arch is None:
        return None
    # glibc names itself; musl (Alpine) does not, and libc_ver() answers with no name.
    libc = "linux" if platform.libc_ver()[0] == "glibc" else "linux_musl"
    return f"libaws-lambda-jni.{libc}-{arch}.so"


def native_library(client_jar: Path) -> Path | None:
    """The client's native library for this machine, unpacked from `client_jar` into the
    cache (or, with the cache off or unusable, into a folder of this process's own); None
    when the machine or the jar has none (the client then unpacks it itself, as before)."""
    name = library_name()
    if name is None:
        return None
    try:
        jar_bytes = client_jar.read_bytes()
        with zipfile.ZipFile(client_jar) as jar:
            library = jar.read(f"jni/{name}")
    except (OSError, KeyError, zipfile.BadZipFile):
        return None
    key = f"{sha256(jar_bytes)}-{name}"
    found = _CACHE.get_folder(key)
    if found is not None:
        return found / name
    folder = _CACHE.new_folder()
    try:
        (folder / name).write_bytes(library)
    except OSError:  # a full disk: the client unpacks it itself, as before
        _CACHE.drop(folder)
        return None
    put = _CACHE.put_folder(key, folder)
    if put is not None:
        return put / name
    # Another process put the same key meanwhile (the same bytes): theirs is used.
    found = _CACHE.get_folder(key)
    if found is not None:
        _CACHE.drop(folder)
        return found / name
    # No cache: this folder is this process's alone (removed when it exits), still no race.
    return folder / name
