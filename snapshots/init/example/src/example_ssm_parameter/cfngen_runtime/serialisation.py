= cfngen/_support/cfngen_runtime/serialisation.py, with cfngen's header
