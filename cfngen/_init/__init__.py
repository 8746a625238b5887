"""`cfngen init`, `cfngen upgrade` and `cfngen template sync`.

- _answers: what init needs to know, checked the same way from the wizard, flags and --data
- _wizard: the questionary wizard (only the CLI calls it; it is the one interactive part)
- _templates: the templates shipped in the package and the git cache copier renders from
- _copier: the calls into copier
- _scaffold: init (render, generate, commit, move into place)
- _upgrade: upgrade (refusals first, three-way merge, generate)

Nothing is imported here, so that the CLI can read the answer keys without loading the rest.
"""
