"""The command line declares only the chosen command's arguments (for start-up time), and
still shows, parses and refuses every command's arguments as argparse does."""

from __future__ import annotations

import argparse
from importlib.metadata import version

import pytest

from cdk8s_headroom.cli import commands


def test_the_top_level_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        commands.main(["--help"])

    assert exit_.value.code == 0
    shown = capsys.readouterr().out
    for name, (help_line, _, _) in commands.COMMANDS.items():
        assert name in shown
        assert help_line.split()[0] in shown


@pytest.mark.parametrize("name", list(commands.COMMANDS))
def test_each_commands_help_shows_its_own_arguments(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    declared = argparse.ArgumentParser(add_help=False)
    commands.COMMANDS[name][2](declared)
    options = [o for action in declared._actions for o in action.option_strings]

    with pytest.raises(SystemExit) as exit_:
        commands.main([name, "--help"])

    assert exit_.value.code == 0
    shown = capsys.readouterr().out
    assert options or name == "validate", f"{name} declares no option"
    for option in options:
        assert option in shown


def test_an_option_of_another_command_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # --scenario is simulate's: plan, whose arguments alone are declared, refuses it.
    with pytest.raises(SystemExit) as exit_:
        commands.main(["plan", "--manifests", "d", "--snapshot", "s", "--scenario", "x.yaml"])

    assert exit_.value.code == 2
    assert "unrecognized arguments: --scenario x.yaml" in capsys.readouterr().err


def test_an_unknown_command_is_refused_with_the_list_of_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        commands.main(["simulat"])

    assert exit_.value.code == 2
    assert "invalid choice: 'simulat'" in capsys.readouterr().err


def test_version_prints_the_installed_packages_version(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        commands.main(["--version"])

    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"cdk8s-headroom {version('cdk8s-headroom')}\n"


def test_an_extra_argument_is_refused_with_the_commands_own_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        commands.main(["validate", "a", "b"])

    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith("usage: cdk8s-headroom validate [-h] PATH\n")
    assert error.endswith("cdk8s-headroom validate: error: unrecognized arguments: b\n")
