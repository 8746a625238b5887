= cfngen/_support/cfngen_runtime/protocol.py, with cfngen's header
