"""cfngen: build AWS CloudFormation extensions.

The command line is the product; the Python API is deliberately small. Everything whose name
starts with an underscore is internal and may change in any release.
"""

__version__ = "0.2.0"

from cfngen._errors import CfngenError, ExitCode

__all__ = ["CfngenError", "ExitCode", "__version__"]
