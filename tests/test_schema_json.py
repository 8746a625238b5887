import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cfngen._schema import JsonSyntaxError, join_pointer, loads, pointer_tokens

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


def _walk(value, pointer=""):
    yield pointer, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, join_pointer(pointer, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, join_pointer(pointer, i))


def _offset(text, line, column):
    return sum(len(x) + 1 for x in text.split("\n")[: line - 1]) + column - 1


@settings(max_examples=200, deadline=None)
@given(json_values, st.sampled_from([None, 2, 4]))
def test_every_pointer_maps_to_the_text_of_its_value(value, indent):
    text = json.dumps(value, indent=indent)
    doc = loads(text)
    for pointer, expected in _walk(value):
        line, column = doc.position(pointer)
        parsed, _ = json.JSONDecoder().raw_decode(text, _offset(text, line, column))
        assert parsed == expected, pointer


def test_positions_are_one_based_line_and_column():
    doc = loads('{\n  "a": [1,\n    {"b/c": true}]\n}')
    assert doc.position("") == (1, 1)
    assert doc.position("/a") == (2, 8)
    assert doc.position("/a/1/b~1c") == (3, 13)
    assert doc.key_position("/a") == (2, 3)


def test_missing_pointer_falls_back_to_nearest_existing_ancestor():
    doc = loads('{"a": {"b": 1}}')
    assert doc.position("/a/nope/deeper") == doc.position("/a")


def test_duplicate_keys_are_found_with_both_positions():
    doc = loads('{"p": {\n "X": 1,\n "X": 2}}')
    assert doc.data == {"p": {"X": 2}}
    [dup] = doc.duplicates()
    assert (dup.pointer, dup.key, dup.line, dup.column) == ("/p", "X", 3, 2)
    assert (dup.first_line, dup.first_column) == (2, 2)


def test_no_duplicates_reported_for_the_same_key_in_different_objects():
    doc = loads('[{"a": 1}, {"a": 2}]')
    assert not doc.has_duplicates
    assert doc.duplicates() == []


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ('{"a": 1,}', 1, 9, "double quotes"),
        ('{\n"a": NaN}', 2, 6, "NaN is not valid JSON"),
        ('{"a": -Infinity}', 1, 7, "Infinity is not valid JSON"),
        ("\ufeff{}", 1, 1, "byte order mark"),
        ("", 1, 1, "Expecting value"),
    ],
)
def test_syntax_errors_carry_a_position(text, line, column, fragment):
    with pytest.raises(JsonSyntaxError) as info:
        loads(text)
    assert (info.value.line, info.value.column) == (line, column)
    assert fragment in info.value.message


def test_pointer_tokens_unescape():
    assert pointer_tokens("") == []
    assert pointer_tokens("/a~1b/c~0d/0") == ["a/b", "c~d", "0"]


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_scalar_span_is_exactly_the_scalars_text(value):
    text = json.dumps({"v": value, "w": [value]}, indent=2)
    doc = loads(text)
    for pointer, found in _walk(doc.data):
        span = doc.scalar_span(pointer)
        if isinstance(found, (dict, list)):
            assert span is None
        else:
            assert json.loads(text[span[0] : span[1]]) == found
    assert doc.scalar_span("/missing") is None
