"""What several kinds share, so that no kind imports another's modules: the resource schema
language and its checks (a hook's settings and targets are resource schemas: _checks.py and the
modules it uses), the execution role and SAM template of a kind with handlers (_role.py,
_sam.py, templates/), the resource types cfn-lint bundles (_targets.py: a hook's targets, a
module's resources, a Lambda hook's target names), template parameters from the command line
(_parameters.py), a Lambda function declared in a template, loaded and run as Lambda does
(_lambda.py, _lambda_code.py, _reach.py, _intrinsics.py, _lambda_open.py: a custom resource's
function and a Lambda hook's), the local server of a hook request's payload documents
(_payload.py: hooks and Lambda hooks), and `KindBase`, the defaults and forwarding every kind
shares (_base.py). Nothing here imports a kind.
"""
