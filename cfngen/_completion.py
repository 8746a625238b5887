"""`cfngen completion bash|zsh|fish`: shell completion scripts, written from the argparse parser.

The scripts are static: every command, option and choice is in them, so pressing TAB runs no
Python at all (answers in a millisecond, nothing imported). Regenerate them after upgrading
cfngen. zsh runs the bash script through its bashcompinit.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

__all__ = ["SHELLS", "offer", "script"]

SHELLS = ("bash", "zsh", "fish")

#: The attribute of an argparse action holding the values completion offers for it where
#: argparse's `choices` cannot say (values spelled several ways, or costly to list each time a
#: parser is built): a tuple, or a function that returns one.
COMPLETIONS = "cfngen_completions"


def offer(action: argparse.Action, values: Callable[[], Iterable[str]] | Iterable[str]) -> None:
    """Have the completion scripts offer `values` for this option or positional argument."""
    setattr(action, COMPLETIONS, values)


@dataclass
class _Node:
    """One command on the path (`""`, `"template"`, `"template sync"`)."""

    path: tuple[str, ...]
    help: str = ""
    commands: dict[str, str] = field(default_factory=dict)
    options: list[tuple[list[str], str, tuple[str, ...] | None, bool]] = field(default_factory=list)
    #: The values of its first positional argument (invoke's ACTION, `runtime set`'s RUNTIME),
    #: when it has values to offer.
    first: tuple[str, ...] = ()
    #: Whether only those values fit there (no file name: no other positional follows).
    only_first: bool = False


def _values(action: argparse.Action) -> tuple[str, ...] | None:
    """What completion offers for an argument: argparse's choices, else what the CLI declared
    (cfngen/_cli/_options.py offer)."""
    if action.choices:
        return tuple(str(c) for c in action.choices)
    offered = getattr(action, COMPLETIONS, None)
    if offered is None:
        return None
    values = offered() if callable(offered) else offered
    return tuple(dict.fromkeys(str(v) for v in values)) or None


def _nodes(parser: argparse.ArgumentParser) -> list[_Node]:
    found: list[_Node] = []

    def walk(p: argparse.ArgumentParser, path: tuple[str, ...], help_text: str) -> None:
        node = _Node(path, help_text)
        found.append(node)
        children: list[tuple[str, argparse.ArgumentParser, str]] = []
        positionals = []
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                helps = {a.dest: a.help or "" for a in action._choices_actions}
                for name, child in action.choices.items():
                    node.commands[name] = helps.get(name, "")
                    children.append((name, child, helps.get(name, "")))
            elif action.option_strings and action.help != argparse.SUPPRESS:
                takes_value = action.nargs != 0
                node.options.append(
                    (list(action.option_strings), action.help or "", _values(action), takes_value)
                )
            elif not action.option_strings:
                positionals.append(action)
        if positionals and not node.commands:
            node.first = _values(positionals[0]) or ()
            node.only_first = len(positionals) == 1
        for name, child, text in children:
            walk(child, (*path, name), text)

    walk(parser, (), parser.description or "")
    return found


def script(shell: str, parser: argparse.ArgumentParser, prog: str = "cfngen") -> str:
    nodes = _nodes(parser)
    if shell == "fish":
        return _fish(nodes, prog)
    bash = _bash(nodes, prog)
    if shell == "zsh":
        return (
            f'#compdef {prog}\n# {prog} completion for zsh: eval "$({prog} completion zsh)" in '
            "~/.zshrc\n(( $+functions[compdef] )) || { autoload -U +X compinit && compinit }\n"
            "autoload -U +X bashcompinit && bashcompinit\n" + bash
        )
    return bash


def _bash(nodes: list[_Node], prog: str) -> str:
    fn = f"_{prog.replace('-', '_')}_complete"
    known = sorted(" ".join(node.path) for node in nodes if node.path)
    words_cases = []
    value_cases = []
    takes_value: list[str] = []
    for node in nodes:
        key = " ".join(node.path)
        options = sorted({o for names, _, _, _ in node.options for o in names})
        words_cases.append(
            f"        {shlex.quote(key)}) commands={shlex.quote(' '.join(node.commands))}; "
            f"options={shlex.quote(' '.join(options))}; "
            f"first={shlex.quote(' '.join(node.first))} ;;"
        )
        for names, _, choices, value in node.options:
            if value:
                takes_value.extend(shlex.quote(f"{key}:{name}") for name in names)
            if choices:
                for name in names:
                    value_cases.append(
                        f"        {shlex.quote(key + ':' + name)}) "
                        f'COMPREPLY=($(compgen -W {shlex.quote(" ".join(choices))} -- "$cur")); '
                        "return ;;"
                    )
    known_case = "|".join(shlex.quote(k) for k in known) or "''"
    value_case = "|".join(takes_value) or "''"
    return f"""# {prog} completion for bash: eval "$({prog} completion bash)" in ~/.bashrc, or save
# the output as ~/.local/share/bash-completion/completions/{prog}. Written by
# `{prog} completion`: static, so TAB runs no Python.
{fn}() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="" path="" word i commands="" options=""
    local first="" positional=0 value=0
    (( COMP_CWORD > 0 )) && prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    # The command words, then how many positional arguments precede the word completed (an
    # option's value is none of them).
    for (( i = 1; i < COMP_CWORD; i++ )); do
        word="${{COMP_WORDS[i]}}"
        if (( value )); then
            value=0
            continue
        fi
        case "${{path:+$path }}$word" in
            {known_case}) path="${{path:+$path }}$word"; positional=0; continue ;;
        esac
        case "$path:$word" in
            {value_case}) value=1 ;;
            *:-*) ;;
            *) (( positional++ )) ;;
        esac
    done
    case "$path:$prev" in
{chr(10).join(value_cases)}
    esac
    case "$path" in
{chr(10).join(words_cases)}
    esac
    if (( value )); then
        COMPREPLY=()
    elif [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
    elif [[ -n "$commands" ]]; then
        COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    elif [[ -n "$first" ]] && (( positional == 0 )); then
        COMPREPLY=($(compgen -W "$first" -- "$cur"))
    else
        COMPREPLY=()
    fi
}}
complete -o default -F {fn} {prog}
"""


def _fish(nodes: list[_Node], prog: str) -> str:
    lines = [
        f"# {prog} completion for fish: {prog} completion fish > "
        f"~/.config/fish/completions/{prog}.fish",
        f"# Written by `{prog} completion`: static, so TAB runs no Python.",
    ]
    names = {name for node in nodes for name in node.commands}
    for node in nodes:
        if not node.path:
            condition = "__fish_use_subcommand"
        else:
            deeper = [name for name in node.commands]
            condition = f"__fish_seen_subcommand_from {node.path[-1]}"
            if deeper:
                condition += f"; and not __fish_seen_subcommand_from {' '.join(deeper)}"
        for name, text in node.commands.items():
            lines.append(
                f"complete -c {prog} -f -n {shlex.quote(condition)} -a {name} "
                f"-d {shlex.quote(_short(text))}"
            )
        option_condition = (
            "not __fish_seen_subcommand_from " + " ".join(sorted(names))
            if not node.path
            else f"__fish_seen_subcommand_from {node.path[-1]}"
        )
        if node.first and node.path:
            # The first positional's values (beside file names when a file may follow).
            files = " -f" if node.only_first else ""
            lines.append(
                f"complete -c {prog}{files} -n {shlex.quote(condition)} "
                f"-a {shlex.quote(' '.join(node.first))}"
            )
        for option_names, text, choices, takes_value in node.options:
            spec = []
            for option in option_names:
                if option.startswith("--"):
                    spec.append(f"-l {option[2:]}")
                else:
                    spec.append(f"-s {option[1:]}")
            extra = ""
            if choices:
                extra = f" -xa {shlex.quote(' '.join(choices))}"
            elif takes_value:
                extra = " -r"
            lines.append(
                f"complete -c {prog} -n {shlex.quote(option_condition)} {' '.join(spec)}"
                f"{extra} -d {shlex.quote(_short(text))}"
            )
    return "\n".join(lines) + "\n"


def _short(text: str) -> str:
    first = text.split(";", maxsplit=1)[0].split(". ", maxsplit=1)[0].strip()
    return first[:80]
