"""The kinds of extension cfngen knows, one folder each (resource/, hook/, module/,
custom_resource/), and _shared/, the code several kinds use.

Nothing here is imported by an engine: the registry (cfngen/_kind/_registry.py) finds these
folders by the package's name, and engines ask a kind through the `Kind` protocol
(cfngen/_kind/_kind.py). Only the CLI and the kinds themselves import this package's modules
(tests/test_import_graph.py); one kind never imports another's: what two kinds share lives in
_shared/.
"""
