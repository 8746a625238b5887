= cfngen/_support/cfngen_runtime/__init__.py, with cfngen's header
