"""The size limits a package must meet, each with the page that documents it.

CloudFormation creates the handler's Lambda function from ResourceProvider.zip, so Lambda's
limits on a deployment package are the registry's: a registration over them fails minutes after
the upload with an internal error (cloudformation-cli issue #371, where the maintainers traced
such a failure to the package size and advised checking it against Lambda). cfngen checks them
before anything is uploaded.
"""

from __future__ import annotations

from dataclasses import dataclass

_LAMBDA_QUOTAS = "https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html"
_CFN_QUOTAS = (
    "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html"
)


@dataclass(frozen=True)
class Limit:
    what: str
    bytes: int
    source: str
    #: True when going over it makes registration fail; False when it only may.
    hard: bool

    def problem(self, size: int, subject: str) -> str | None:
        if size <= self.bytes:
            return None
        return (
            f"{subject} is {size_text(size)}, over {self.what} of {size_text(self.bytes)} "
            f"({self.bytes:,} bytes; {self.source})"
        )


#: Lambda refuses a function whose files, unzipped, exceed this ("Unzipped size must be
#: smaller than 262144000 bytes").
LAMBDA_UNZIPPED = Limit(
    "Lambda's limit on a deployment package's unzipped contents", 262_144_000, _LAMBDA_QUOTAS, True
)
#: Lambda's limit for a zip uploaded with the function rather than from S3; the registry does
#: not say which way it creates the function, so going over it is a warning.
LAMBDA_ZIPPED = Limit(
    "Lambda's limit on a zipped deployment package uploaded directly",
    52_428_800,
    _LAMBDA_QUOTAS,
    False,
)
#: "Hooks configuration size: maximum amount of data that a hook's configuration can store."
HOOK_CONFIGURATION = Limit(
    "CloudFormation's limit on a hook's configuration", 204_800, _CFN_QUOTAS, True
)


def size_text(size: int) -> str:
    """`1.4 MB`, `12.3 kB`: decimal units, as the quotas pages write them."""
    if size < 1_000_000:
        return f"{size / 1000:.1f} kB"
    return f"{size / 1_000_000:.1f} MB"
