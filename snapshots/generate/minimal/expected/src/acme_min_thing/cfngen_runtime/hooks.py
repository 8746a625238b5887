= cfngen/_support/cfngen_runtime/hooks.py, with cfngen's header
