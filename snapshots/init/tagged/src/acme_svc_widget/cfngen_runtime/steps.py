= cfngen/_support/cfngen_runtime/steps.py, with cfngen's header
