"""`switchscope completion bash|zsh|fish`: a completion script made from the
command line's own grammar (every subcommand and option) and the catalog (the
kernels, targets, scenarios and methods there are), so it cannot drift from
either. Install: `switchscope completion bash > ~/.local/share/bash-completion/completions/switchscope`."""

from __future__ import annotations

import argparse

from switchscope import catalog

SHELLS = ("bash", "zsh", "fish")
_NAMED = {"kernel": lambda: catalog.KERNELS, "target": lambda: {**catalog.TARGETS, **catalog.real_boards()},
          "scenario": lambda: {**catalog.SCENARIOS, **catalog.scenario_groups()}, "method": lambda: catalog.METHODS}
_PATH_METAVARS = {"PATH", "DIR", "DEVICE", "URL", "FILE"}


def _commands(top: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _values(action: argparse.Action) -> list[str] | None:
    """The words an option takes; [] for a file name; None for anything (a number)."""
    if action.choices:
        return [str(choice) for choice in action.choices]
    if action.dest in _NAMED:
        return [*_NAMED[action.dest](), "all"]
    if (action.metavar or "") in _PATH_METAVARS:
        return []
    return None


def _options(command: argparse.ArgumentParser) -> dict[str, list[str] | None | bool]:
    """Each option of a subcommand: the words it takes, or False for a flag."""
    found = {}
    for action in command._actions:
        for flag in action.option_strings:
            if flag.startswith("--"):
                found[flag] = False if action.nargs == 0 else _values(action)
    return found


def _positional_choices(command: argparse.ArgumentParser) -> list[str]:
    return [str(c) for action in command._actions if not action.option_strings and action.choices
            for c in action.choices]


def bash(top: argparse.ArgumentParser) -> str:
    commands = _commands(top)
    value_cases, option_cases = [], []
    for name, command in commands.items():
        options = _options(command)
        choices = _positional_choices(command)
        option_cases.append(f"        {name}) words=\"{' '.join(options)}\" choices=\"{' '.join(choices)}\" ;;")
        for flag, values in options.items():
            if values is False:
                continue
            reply = "compgen -f -- \"$cur\"" if values == [] else f"compgen -W \"{' '.join(values)}\" -- \"$cur\"" \
                if values else "true"
            value_cases.append(f"        {name}:{flag}) COMPREPLY=($({reply})); return ;;")
    return f"""# bash completion for switchscope (switchscope completion bash)
_switchscope() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" words="" choices=""
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "{' '.join(commands)} --help --version" -- "$cur"))
        return
    fi
    local command="${{COMP_WORDS[1]}}"
    case "$command:$prev" in
{chr(10).join(dict.fromkeys(value_cases))}
    esac
    case "$command" in
{chr(10).join(option_cases)}
    esac
    case "$cur" in
        -*) COMPREPLY=($(compgen -W "$words --help" -- "$cur")) ;;
        *) if [ -n "$choices" ]; then COMPREPLY=($(compgen -W "$choices" -- "$cur"))
           else COMPREPLY=($(compgen -f -- "$cur")); fi ;;
    esac
}}
complete -F _switchscope switchscope
"""


def zsh(top: argparse.ArgumentParser) -> str:
    return "# zsh completion for switchscope (switchscope completion zsh): the bash one, through bashcompinit\n" \
           "autoload -U +X bashcompinit && bashcompinit\n" + bash(top).split("\n", 1)[1]


def fish(top: argparse.ArgumentParser) -> str:
    commands = _commands(top)
    lines = ["# fish completion for switchscope (switchscope completion fish)", "complete -c switchscope -f"]
    for name, command in commands.items():
        summary = (command.description or "").split(".")[0].replace("'", "\\'")[:80]
        lines.append(f"complete -c switchscope -n __fish_use_subcommand -a {name} -d '{summary}'")
        for flag, values in _options(command).items():
            line = f"complete -c switchscope -n '__fish_seen_subcommand_from {name}' -l {flag[2:]}"
            if values == []:
                line += " -r -F"
            elif values:
                line += f" -x -a '{' '.join(values)}'"
            lines.append(line)
    return "\n".join(lines) + "\n"


def command_completion(args, top: argparse.ArgumentParser) -> int:
    print({"bash": bash, "zsh": zsh, "fish": fish}[args.shell](top), end="")
    return 0
