= cfngen/_support/cfngen_runtime/custom_resource.py, with cfngen's header
