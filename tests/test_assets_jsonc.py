"""Comment-tolerant JSON: comments go, strings stay intact, errors carry real line numbers."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brain.assets import jsonc


def test_line_comment_inside_string_survives():
    text = '{\n  "url": "http://example.com/a//b", // a comment\n  "x": 1\n}'
    assert jsonc.loads(text) == {"url": "http://example.com/a//b", "x": 1}


def test_file_starting_with_comment_and_comment_before_closing_bracket():
    text = "// header comment\n// another\n{\n  \"a\": [1, 2] // end a []\n}\n"
    assert jsonc.loads(text) == {"a": [1, 2]}


def test_block_comments_including_multiline_and_quotes_inside():
    text = '/* leading "quoted" */ {"a": /* inline */ 1,\n /* spans\n lines */ "b": "/* not a comment */"}'
    assert jsonc.loads(text) == {"a": 1, "b": "/* not a comment */"}


def test_comment_containing_a_quote_does_not_open_a_string():
    text = '{\n  "a": 1, // he said "hi\n  "b": 2\n}'
    assert jsonc.loads(text) == {"a": 1, "b": 2}


def test_trailing_commas_are_accepted():
    assert jsonc.loads('{"a": [1, 2,], "b": {"c": 3,},}') == {"a": [1, 2], "b": {"c": 3}}


def test_trailing_comma_inside_a_string_is_kept():
    assert jsonc.loads('{"a": "x,]", "b": [1,]}') == {"a": "x,]", "b": [1]}


def test_escaped_quote_in_string_before_slashes():
    assert jsonc.loads('{"a": "say \\"//\\" ok"} // c') == {"a": 'say "//" ok'}


def test_extra_closing_brace_reports_its_line():
    text = '{\n  "name": "MotionReact",\n  "v": 1\n  }\n}\n'
    with pytest.raises(jsonc.JsoncError) as info:
        jsonc.loads(text)
    assert info.value.line == 5
    assert "extra closing bracket" in info.value.message


def test_error_line_is_the_original_line_after_comments():
    text = "// one\n// two\n{\n  \"a\": 1 // three\n  \"b\": 2\n}"
    with pytest.raises(jsonc.JsoncError) as info:
        jsonc.loads(text)
    assert info.value.line == 5  # the missing comma is noticed at "b"


def test_strip_keeps_offsets_and_newlines():
    text = '{"a": 1} // x\n/* y\n z */ '
    out = jsonc.strip(text)
    assert len(out) == len(text)
    assert out.count("\n") == text.count("\n")


def test_locate_finds_the_line_of_a_nested_field():
    text = (
        "// comment\n"
        "{\n"
        '  "Animations": [\n'
        '    {"Name": "a", "Weight": 1},\n'
        "    {\n"
        '      "Name": "b",\n'
        '      "Weight": "heavy"\n'
        "    }\n"
        "  ]\n"
        "}\n"
    )
    assert jsonc.locate(text, ("Animations", 1, "Weight")) == 7
    assert jsonc.locate(text, ("Animations", 0)) == 4
    # A missing key points at its closest existing parent.
    assert jsonc.locate(text, ("Animations", 1, "Mood")) == 5
    assert jsonc.locate(text, ()) == 2


def test_locate_in_a_top_level_list():
    text = '[\n  {"activityID": "A"},\n  {"activityID": 5}\n]'
    assert jsonc.locate(text, (1, "activityID")) == 3


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet="ab/\\\"*, \t{}[]:x"),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(alphabet="ab/*\"", max_size=4),
                                                                     children, max_size=4),
    max_leaves=12,
)


@given(_json_values)
def test_any_json_with_comments_added_parses_back(value):
    text = json.dumps(value, indent=1)
    commented = "// head\n" + "\n".join(line + " // tail" for line in text.split("\n")) + "\n/* end */"
    assert jsonc.loads(commented) == value


@given(st.text(alphabet='ab"/\\ \n*', max_size=80))
def test_line_comment_fast_path_matches_the_full_tokenizer(text):
    """Only lines holding ``//`` are touched, yet the result is what the string-aware regex gives."""
    if "/*" in text or "\\\n" in text:  # block comments and escaped newlines take the full path anyway
        return
    assert jsonc.strip_comments(text) == jsonc._TOKENS.sub(jsonc._blank, text)


def test_only_commented_lines_change():
    text = '{"a": "x//y",  // one\n "b": 2 //two\n}//end'
    assert jsonc.strip_comments(text) == '{"a": "x//y",        \n "b": 2      \n}     '
    assert jsonc.strip_comments('{"plain": 1}') == '{"plain": 1}'
