"""`switchscope completion bash|zsh|fish`: a completion script made from the
command line's own grammar (every subcommand and option) and the catalog (the
kernels, targets, scenarios and methods there are, `list`'s subjects, the
--config options and their values), so it cannot drift from either. Install: `switchscope completion bash > ~/.local/share/bash-completion/completions/switchscope`."""

from __future__ import annotations

import argparse

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.cli.listing import LIST_SECTIONS

SHELLS = ("bash", "zsh", "fish")
_NAMED = {"kernel": lambda: catalog.KERNELS, "target": lambda: {**catalog.TARGETS, **catalog.real_boards()},
          "scenario": lambda: {**catalog.SCENARIOS, **catalog.scenario_groups()}, "method": lambda: catalog.METHODS}
_PATH_METAVARS = {"PATH", "DIR", "DEVICE", "URL", "FILE"}
_POSITIONAL = {"section": lambda: (*LIST_SECTIONS, "all")}  # a positional's words where argparse has no choices
CONFIG = "--config"  # NAME=VALUE: completed by name, then by the option's values


def config_options() -> dict[str, list[str]]:
    """Every --config option of every kernel, with its values (the union where kernels differ)."""
    found: dict[str, list[str]] = {}
    for kernel in catalog.KERNELS.values():
        for name, option in configs.options_of(kernel).items():
            found.setdefault(name, [])
            found[name] += [value for value in option.values if value not in found[name]]
    return found


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
    return [str(c) for action in command._actions if not action.option_strings
            for c in (action.choices or _POSITIONAL.get(action.dest, lambda: ())())]


def _bash_config() -> str:
    """The bash function that completes --config's word (NAME=VALUE, more values or NAME=VALUE after commas).
    bash splits a word at "=" (COMP_WORDBREAKS) and replaces only what follows it: the replies drop the
    word's text up to its last "=" there."""
    options = config_options()
    cases = "\n".join(f"        {name}) values=\"$values {' '.join(values)}\" ;;" for name, values in options.items())
    return f"""_switchscope_config() {{
    local word="$1" head="" last="$1" name="" typed="" values="" before
    case "$word" in *,*) head="${{word%,*}},"; last="${{word##*,}}" ;; esac
    case "$last" in
        *=*) name="${{last%%=*}}"; typed="${{last#*=}}"; head="$head$name=" ;;
        *) typed="$last"; values="{' '.join(f'{name}=' for name in options)}"
           before="${{head%,}}"  # a further value of the option named before the comma
           while [ -n "$before" ] && [[ "${{before##*,}}" != *=* ]]; do
               if [[ "$before" == *,* ]]; then before="${{before%,*}}"; else before=""; fi
           done
           name="${{before##*,}}"; name="${{name%%=*}}" ;;
    esac
    case "$name" in
{cases}
    esac
    COMPREPLY=($(compgen -W "$values" -- "$typed"))
    COMPREPLY=("${{COMPREPLY[@]/#/$head}}")
    if [[ "$COMP_WORDBREAKS" == *=* && "$word" == *=* ]]; then
        local shown="${{word%=*}}="
        COMPREPLY=("${{COMPREPLY[@]#"$shown"}}")
    fi
    if [[ "${{COMPREPLY[*]}}" == *= || "${{COMPREPLY[*]}}" == *=\\ * ]]; then compopt -o nospace 2>/dev/null; fi
}}
"""


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
{_bash_config()}
_switchscope() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" words="" choices=""
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "{' '.join(commands)} --help --version" -- "$cur"))
        return
    fi
    local command="${{COMP_WORDS[1]}}"
    # --config's word as typed, from the line: COMP_WORDS has it split at "="
    local line="${{COMP_LINE:0:COMP_POINT}}"
    local typed="${{line##* }}" option="${{line% *}}"
    option="${{option%"${{option##*[! ]}}"}}"
    if [ "$line" != "$typed" ] && [ "${{option##* }}" = "{CONFIG}" ]; then
        _switchscope_config "$typed"
        return
    fi
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
        choices = _positional_choices(command)
        if choices:
            lines.append(f"complete -c switchscope -n '__fish_seen_subcommand_from {name}' -a '{' '.join(choices)}'")
        for flag, values in _options(command).items():
            line = f"complete -c switchscope -n '__fish_seen_subcommand_from {name}' -l {flag[2:]}"
            if flag == CONFIG:
                pairs = [f"{name}={value}" for name, values in config_options().items() for value in values]
                line += f" -x -a '{' '.join(pairs)}'"
            elif values == []:
                line += " -r -F"
            elif values:
                line += f" -x -a '{' '.join(values)}'"
            lines.append(line)
    return "\n".join(lines) + "\n"


def command_completion(args, top: argparse.ArgumentParser) -> int:
    print({"bash": bash, "zsh": zsh, "fish": fish}[args.shell](top), end="")
    return 0
