"""How an error shows the value it refuses (``errors.shown``, ``errors.printable``):
so that two values that look alike, an empty text and an empty list can be told apart
in one line."""

from __future__ import annotations

from cdk8s_headroom.vocabulary.errors import HeadroomConfigError, InputFileError, printable, shown


def test_a_cyrillic_letter_beside_latin_ones_is_shown_escaped() -> None:
    latin, cyrillic = "node-1", "n\u043ede-1"
    assert shown(cyrillic) == "'n\\u043ede-1'"
    assert shown(cyrillic) != shown(latin)


def test_control_characters_and_a_nul_are_shown_escaped_on_one_line() -> None:
    message = str(HeadroomConfigError("image", "nginx\x00:1\n", "an image reference"))
    assert message == "image: invalid value 'nginx\\x00:1\\n'; an image reference"
    assert "\x00" not in message and "\n" not in message


def test_an_empty_text_is_shown_as_two_quotes_not_as_null() -> None:
    assert shown("") == "''"
    assert shown(None) == "null"
    assert str(HeadroomConfigError("cpu", "", "a quantity")) == "cpu: invalid value ''; a quantity"


def test_an_empty_list_is_said_to_be_empty() -> None:
    assert shown([]) == "[] (empty)"
    assert shown(()) == "[] (empty)"
    assert (
        str(HeadroomConfigError("nodes", [], "a node")) == "nodes: invalid value [] (empty); a node"
    )


def test_values_inside_lists_and_maps_are_shown_the_same_way() -> None:
    assert shown(["n\u043ede", "", None, True]) == "['n\\u043ede', '', null, true]"
    assert shown({"k\u00e9y": [1]}) == "{'k\\xe9y': [1]}"


def test_a_file_name_with_control_and_non_ascii_characters_stays_one_line() -> None:
    assert printable("pods\n\u043e.yaml") == "pods\\n\\u043e.yaml"
    error = InputFileError("a\tb.yaml", "invalid YAML", line=3)
    assert str(error) == "a\\tb.yaml: line 3: invalid YAML"
