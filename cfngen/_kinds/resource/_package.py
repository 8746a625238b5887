"""What `cfngen build` puts in a resource type's registry package: the official
`cfn submit --dry-run`'s file set (`.rpdk-config`, schema.json, configuration-schema.json with a
typeConfiguration, inputs/*, ResourceProvider.zip, src/<pkg>/**, .cfn_metadata.json,
overrides.json), from the parts cfngen/_package/_layout.py provides."""

from __future__ import annotations

from cfngen._kind import Configuration, FileSet
from cfngen._package._layout import (
    configuration_schema,
    handler,
    inputs,
    metadata,
    overrides,
    rpdk_config,
    schema,
)

PACKAGING = FileSet(
    registry_type="RESOURCE",
    parts=(rpdk_config, schema, configuration_schema, inputs, handler, metadata, overrides),
    role_template="resource-role.yaml",
    # SetTypeConfiguration takes a resource type's properties alone: no envelope.
    configuration=Configuration(),
)
