"""What several kinds share, so that no kind imports another's modules: the resource schema
language and its checks (a hook's settings and targets are resource schemas: _checks.py and the
modules it uses), the execution role and SAM template of a kind with handlers (_role.py,
_sam.py, templates/), the resource types cfn-lint bundles (_targets.py: a hook's targets, a
module's resources), template parameters from the command line (_parameters.py), and
`KindBase`, the defaults and forwarding every kind shares (_base.py). Nothing here imports a
kind.
"""
