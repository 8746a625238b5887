"""The official CloudFormation CLI's project file: its name and what it assumes when a key is
absent. A leaf module (it imports nothing), so the runtimes table, the kind interface and the
project loader can all name the file without importing each other."""

from __future__ import annotations

CONFIG_FILE = ".rpdk-config"
#: What the official tool assumes when `.rpdk-config` has no artifact_type.
OFFICIAL_DEFAULT_ARTIFACT_TYPE = "RESOURCE"
