"""The one-line error of reading a bad file, for the tests of ``files.documents``."""

from __future__ import annotations

import pytest

from cdk8s_headroom.files.documents import InputFileError, parse_objects


def parse_error(data: bytes, name: str = "f.yaml") -> str:
    """The message of reading ``data`` as the file ``name``: one line, that names it."""
    with pytest.raises(InputFileError) as error:
        parse_objects(data, name)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(name)
    return message
