"""The 1898 real AWS resource schemas: every one generates models that compile, import and
give back exactly the JSON they read, and bind every name the official plugin's models.py binds
for it; a sample type-checks with mypy and is black-clean."""

import functools
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings

from cfngen._models import MODELS_FILE, render_models
from tests._corpus import corpus, corpus_file_size, corpus_names
from tests._maximal import (
    empties,
    first_difference,
    load_models,
    maximal,
    strategy,
    stringify,
    unload,
)
from tests._official_models import bound_names, resource_models

pytestmark = pytest.mark.corpus

#: typeName -> why its models cannot give back what they read. The test fails when a schema
#: listed here starts to pass, or one missing from here fails.
EXPECTED_FAILURES: dict[str, str] = {}
#: typeName -> names of the official models.py that ours lacks, and why. A property whose
#: oneOf branches the plugin merges into one class is a union of the branches' classes here,
#: with no name of its own.
MISSING_OFFICIAL_NAMES: dict[str, set[str]] = {
    "AWS::VpcLattice::ResourceConfiguration": {
        "ResourceConfigurationDefinition",
        "_ResourceConfigurationDefinition",
    },
}


@pytest.fixture(autouse=True, scope="module")
def _rendered_every_time():
    """The generator is what these tests judge, on every schema: render each module, never
    read it back from the model cache (nor fill the cache with 1898 of them)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CFNGEN_NO_CACHE", "1")
        yield


@functools.cache
def by_size():
    return sorted(corpus_names(), key=lambda name: (-corpus_file_size(name), name))


def sample(count, largest=0):
    """The `largest` biggest schemas and an even spread of the rest, in a fixed order."""
    names = by_size()
    rest = sorted(names[largest:])
    step = len(rest) / (count - largest)
    return names[:largest] + [rest[int(i * step)] for i in range(count - largest)]


def round_trip_problems(models, schema):
    typed, expected = maximal(schema)
    problems = []
    for label, given_, wanted in (
        ("maximal", typed, typed),
        ("maximal, stringified", stringify(typed), expected),
        ("empty arrays and objects", empties(schema), empties(schema)),
    ):
        try:
            found = first_difference(wanted, models.ResourceModel._deserialize(given_)._serialize())
        except Exception as error:
            found = f"{type(error).__name__}: {error}"
        if found:
            problems.append(f"{label}: {found}")
    return problems


@pytest.mark.parametrize("type_name", corpus_names())
def test_round_trip(type_name):
    package = "_corpus_" + type_name.replace("::", "_")
    try:
        models = load_models(render_models(corpus()[type_name]), package)
        problems = round_trip_problems(models, corpus()[type_name])
        missing = {name for name in official_names(type_name) if not hasattr(models, name)}
    finally:
        unload(package)
    assert missing == MISSING_OFFICIAL_NAMES.get(type_name, set())
    if type_name in EXPECTED_FAILURES:
        assert problems, f"{type_name} passes now: remove it from EXPECTED_FAILURES"
    else:
        assert not problems, "\n".join(problems)


def test_expected_failures_are_corpus_schemas():
    assert set(EXPECTED_FAILURES) <= set(corpus())
    assert set(MISSING_OFFICIAL_NAMES) <= set(corpus())


def official_names(type_name: str) -> set[str]:
    """What the official models.py binds for the schema: none for the 15 corpus schemas it
    has no module for that compiles (class names that clash in its resolver, objects it cannot
    flatten, a property named None, a type name written as a class)."""
    from rpdk.core.exceptions import ModelResolverError
    from rpdk.core.jsonutils.utils import ConstraintError

    try:
        return bound_names(resource_models(corpus()[type_name]))
    except (ModelResolverError, ConstraintError, SyntaxError):
        return set()


def test_fifty_models_type_check(tmp_path):
    names = sample(50, largest=5)
    assert "AWS::QuickSight::Dashboard" in names
    for i, name in enumerate(names):
        folder = tmp_path / f"p{i:02d}_{name.replace('::', '_').lower()}"
        folder.mkdir()
        (folder / "__init__.py").write_text("")
        for file, text in render_models(corpus()[name]).items():
            (folder / file).parent.mkdir(exist_ok=True)
            (folder / file).write_text(text)
    result = subprocess.run(
        # The runtime library's modules are checked where they are written (cfngen's own mypy):
        # mypy follows the models' imports into the ones they use (serialisation).
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            f"--cache-dir={tmp_path / '.mypy'}",
            *("--exclude", "/cfngen_runtime/"),
            ".",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-5000:]
    # 50 packages of __init__.py and models.py (the runtime modules models.py imports are
    # followed, not listed).
    assert "no issues found in 100 source files" in result.stdout


@pytest.mark.parametrize("type_name", sample(12, largest=1))
def test_models_are_black_clean(type_name):
    from black import format_str
    from black.mode import Mode, TargetVersion

    text = render_models(corpus()[type_name])[MODELS_FILE]
    assert format_str(text, mode=Mode(target_versions={TargetVersion.PY310})) == text


@pytest.mark.parametrize("type_name", sample(40))
def test_hypothesis_instances_round_trip(type_name):
    schema = corpus()[type_name]
    package = "_hypothesis_" + type_name.replace("::", "_")
    models = load_models(render_models(schema), package)

    @settings(
        max_examples=30,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy(schema))
    def check(pair):
        typed, expected = pair
        assert (
            first_difference(typed, models.ResourceModel._deserialize(typed)._serialize()) is None
        )
        back = models.ResourceModel._deserialize(stringify(typed))._serialize()
        assert first_difference(expected, back) is None

    try:
        check()
    finally:
        unload(package)
