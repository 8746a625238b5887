= cfngen/_support/cfngen_runtime/clients.py, with cfngen's header
