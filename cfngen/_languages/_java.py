"""Java handlers (cloudformation-cli-java-plugin): the jar `mvn package` builds, run by AWS's
own Lambda runtime client for Java.

`.rpdk-config` records `"entrypoint": "<package>.HandlerWrapper::handleRequest"`: the plugin's
generated wrapper, a `RequestStreamHandler` (`handleRequest(InputStream, OutputStream,
Context)`). The pom's shade plugin packs it with all its libraries into `target/<artifact>.jar`.
cfngen never builds it (`mvn package` is the project's own) and names the command when the jar
is missing or older than the sources.

It runs in one `java` process per run, under
`com.amazonaws.services.lambda.runtime.api.client.AWSLambda` from
`com.amazonaws:aws-lambda-java-runtime-interface-client` (the client AWS's Java base images
run): it speaks the Lambda Runtime API that cfngen emulates (cfngen/_contract/_runtime_api.py)
and calls the handler as Lambda's Java runtime does. cfngen downloads nothing: the client and
its libraries are read from the local Maven repository, and a missing one is named with the
`mvn dependency:get` that fetches it.

Two things Lambda does that a plain `java -cp` does not, done here:
- Lambda unpacks the jar, so the signature files the shade plugin copies from signed libraries
  (Bouncy Castle's, Eclipse's) are never checked; in a jar on the class path they no longer
  match the merged manifest and every class fails to load. Unpacking 130 MB for each run costs
  seconds, so the JVM is told to treat those signatures as absent (`jdk.jar.disabledAlgorithms`
  in a security file of cfngen's): the jar is read as unsigned, which is what Lambda's copy is.
- The network: a JVM ignores the proxy variables cfngen sets for every runtime, so the same
  closed loopback port is given as the JVM's proxy properties (`-Dhttp.proxyHost`, ...).
- /tmp: the plugin's wrapper empties `java.io.tmpdir` before every call (Lambda's /tmp is the
  function's own), so the JVM is given the runtime's own temporary folder, never the
  machine's. The client's native library, which it would copy to a fixed /tmp path on every
  start, is unpacked once into cfngen's cache instead (_java_jni).

Recent releases of the AWS SDK for Java v2 read `AWS_ENDPOINT_URL`; the plugin's library pins
2.19.0, whose `SdkSystemSetting` has no such setting: its clients (and any the handler builds
with that SDK) call AWS's endpoints and fail against the closed proxy (docs/languages.md).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

from cfngen._errors import CfngenError
from cfngen._files._contain import readable, repository_root
from cfngen._languages._runtime import Launch

#: The Lambda runtime client and what it needs at run time (its pom's compile scope), as
#: Maven lays them out in a local repository.
CLIENT = "com.amazonaws:aws-lambda-java-runtime-interface-client:2.10.1"
_CLIENT_JARS = (
    "com/amazonaws/aws-lambda-java-runtime-interface-client/2.10.1/"
    "aws-lambda-java-runtime-interface-client-2.10.1.jar",
    "com/amazonaws/aws-lambda-java-core/1.4.0/aws-lambda-java-core-1.4.0.jar",
    "com/amazonaws/aws-lambda-java-serialization/1.2.0/aws-lambda-java-serialization-1.2.0.jar",
    "software/amazon/awssdk/utils-lite/2.34.0/utils-lite-2.34.0.jar",
    "software/amazon/awssdk/annotations/2.34.0/annotations-2.34.0.jar",
)
_MAIN = "com.amazonaws.services.lambda.runtime.api.client.AWSLambda"
_SECURITY = Path(__file__).parent / "java" / "unsigned.security"
_ENTRYPOINT = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*::[A-Za-z_$][\w$]*$")
#: What the build reads besides src/ (the pom copies the schema into the jar, where the
#: wrapper validates against it): a change there means the jar is stale.
_BUILD_INPUTS = ("pom.xml",)
#: A JVM ignores the proxy variables: the run's closed loopback port as its properties.
_PROXY_PROPERTIES = (
    "-Dhttp.proxyHost=127.0.0.1",
    "-Dhttp.proxyPort={proxy_port}",
    "-Dhttps.proxyHost=127.0.0.1",
    "-Dhttps.proxyPort={proxy_port}",
    "-Dhttp.nonProxyHosts=localhost|127.*|[::1]",
    "-DsocksProxyHost=127.0.0.1",
    "-DsocksProxyPort={proxy_port}",
)


def maven_repository() -> Path:
    """The local Maven repository: `$MAVEN_REPOSITORY` (cfngen's name for it), else Maven's
    default, `~/.m2/repository`."""
    named = os.environ.get("MAVEN_REPOSITORY")
    return Path(named) if named else Path.home() / ".m2" / "repository"


class JvmRuntime:
    program = "java"

    def launch(self, root: Path, config: dict[str, Any]) -> Launch:
        entrypoint = config.get("entrypoint")
        if not isinstance(entrypoint, str) or not _ENTRYPOINT.match(entrypoint):
            raise CfngenError(
                f".rpdk-config: entrypoint {entrypoint!r} is not a class and method",
                'write it as the Java plugin does: "<package>.HandlerWrapper::handleRequest"',
            )
        from cfngen._languages._java_build import check_built

        built = root / check_built(root, config).artefact
        jar = readable(built, repository_root(root), what="the built jar")
        java = shutil.which(self.program)
        if java is None:
            raise CfngenError(
                "java is not on PATH: Java handlers run in a JVM",
                "install a JDK (the version of the project's runtime, e.g. 17) and run again",
            )
        repository = maven_repository()
        missing = [name for name in _CLIENT_JARS if not (repository / name).is_file()]
        if missing:
            raise CfngenError(
                f"the Lambda runtime client for Java is not in the local Maven repository "
                f"{repository} (missing {missing[0].rsplit('/', 1)[1]})",
                f"fetch it once: mvn dependency:get -Dartifact={CLIENT}",
            )
        classpath = [str(repository / name) for name in _CLIENT_JARS] + [str(jar)]
        from cfngen._languages._java_jni import PROPERTY, native_library

        # Never the client's own copy to a fixed /tmp path, which JVMs starting at once race on.
        library = native_library(repository / _CLIENT_JARS[0])
        native = () if library is None else (f"-D{PROPERTY}={library}",)
        # Read by every JVM, the handler's children too, after the user's own options so that
        # these win; `{proxy_port}` and `{tmp}` are the run's (filled in by the runner).
        user = os.environ.get("JAVA_TOOL_OPTIONS", "")
        options = " ".join([*user.split(), *_PROXY_PROPERTIES, "-Djava.io.tmpdir={tmp}"])
        runtime = config.get("runtime") if isinstance(config.get("runtime"), str) else "java17"
        return Launch(
            argv=(
                java,
                f"-Djava.security.properties={_SECURITY}",
                *native,
                # One JVM serves a run of a few hundred short calls: the quick compiler
                # alone starts sooner and is fast enough.
                "-XX:TieredStopAtLevel=1",
                "-cp",
                os.pathsep.join(classpath),
                _MAIN,
                entrypoint,
            ),
            cwd=root,
            handler=f"{built.relative_to(root).as_posix()}, {entrypoint}",
            env={"AWS_EXECUTION_ENV": f"AWS_Lambda_{runtime}", "JAVA_TOOL_OPTIONS": options},
            endpoint_note=(
                "recent AWS SDKs for Java v2 read AWS_ENDPOINT_URL; 2.19.0, which the plugin's "
                "library pins, does not, and its clients' calls fail against a closed loopback "
                "proxy"
            ),
            clock_note=(
                "callbackDelaySeconds are waited for real (a JVM's clock cannot be simulated), "
                "each at most --max-delay seconds"
            ),
        )


JAVA_RUNTIME = JvmRuntime()
