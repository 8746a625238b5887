#!/bin/bash
# The environment the pre-commit hooks install, for two commits of this repository side by side:
# `pre-commit install-hooks` and `pre-commit try-repo` wall time, the environment's size and its
# number of distributions, in alternating rounds (pip's cache warm, as on a developer's machine).
#
#   tests/bench/bench_hook_env.sh OLD_CHECKOUT NEW_CHECKOUT PROJECT [ROUNDS]
#
# PROJECT is a git repository holding a cfngen project (e.g. `cfngen init --no-input --example
# demo`); each checkout's HEAD commit is installed. Needs pre-commit on PATH.
set -euo pipefail
old=$1 new=$2 project=$3 rounds=${4:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"; rm -f "$project/.pre-commit-config.yaml"' EXIT
for round in $(seq "$rounds"); do
  for repo in "$old" "$new"; do
    home=$work/home
    rm -rf "$home"
    printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: cfngen-validate\n' \
      "$repo" "$(git -C "$repo" rev-parse HEAD)" > "$project/.pre-commit-config.yaml"
    cd "$project"
    /usr/bin/time -f "round $round $repo: install-hooks %e s" \
      env PRE_COMMIT_HOME="$home" pre-commit install-hooks > /dev/null
    env_dir=$(ls -d "$home"/repo*/py_env-*)
    echo "round $round $repo: $(du -sm "$env_dir" | cut -f1) MB," \
      "$("$env_dir/bin/python" -m pip list --format=freeze 2> /dev/null | wc -l) distributions"
    rm -f .pre-commit-config.yaml
    /usr/bin/time -f "round $round $repo: try-repo %e s" \
      env PRE_COMMIT_HOME="$home" pre-commit try-repo "$repo" cfngen-validate --all-files \
      > /dev/null
  done
done
