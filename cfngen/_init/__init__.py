"""`cfngen init`, `cfngen upgrade` and `cfngen template sync`: the engine that makes projects.

The kind says what to ask and which template renders the answers (`Kind.init`); this package
does the rest, for every kind alike:
- _answers: checks shared by every kind's questions, and gathering answers from flags and --data
- _wizard: the questionary wizard (only the CLI calls it; it is the one interactive part)
- _template_cache: the templates shipped in the package and the git cache copier renders from
- _copier: the calls into copier
- _scaffold: init (render, generate, commit, move into place)
- _upgrade: upgrade (refusals first, three-way merge, generate)

Nothing is imported here, so that the CLI can load one part without the rest.
"""
