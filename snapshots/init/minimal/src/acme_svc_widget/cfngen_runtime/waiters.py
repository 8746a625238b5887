= cfngen/_support/cfngen_runtime/waiters.py, with cfngen's header
