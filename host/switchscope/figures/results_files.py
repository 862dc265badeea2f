"""Reading what switchscope wrote: the JSON of run, sweep, measure, analyze and
intrusion ({"results": [...]}), or a suite's directory (runs/**/*.json).
`compare` and `report` read through here, so both accept the same inputs and
refuse the same bad ones with the same words."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from switchscope.common.errors import SwitchscopeError
from switchscope.figures.result import Result

HINT = "give the --json file of switchscope run, sweep, measure, analyze or intrusion, or a suite's directory"


@dataclass
class ResultsFile:
    path: Path
    results: list[Result]
    intrusion: list[dict] = field(default_factory=list)  # an intrusion report's rows
    failures: list = field(default_factory=list)  # what the command that wrote it could not measure
    not_applicable: list = field(default_factory=list)
    incomplete: str | None = None  # why the command wrote only part of what it was asked for


def files_in(path: Path, side: str) -> list[Path]:
    """The JSON files a path stands for: itself, or a directory's results."""
    if path.is_dir():
        files = sorted(path.glob("runs/**/*.json")) or sorted(path.glob("*.json"))
        if not files:
            raise SwitchscopeError(f"{side} {path}: a directory with no results (no runs/**/*.json, no *.json)", HINT)
        return files
    if path.is_file():
        return [path]
    raise SwitchscopeError(f"{side} {path}: no such file or directory")


def read_file(file: Path, side: str = "") -> ResultsFile:
    """One file's results; errors name it, after `side` (base, new, input) when given."""
    where = f"{side} {file}" if side else str(file)
    try:
        document = json.loads(file.read_text())
    except (OSError, UnicodeDecodeError) as error:
        raise SwitchscopeError(f"{where}: cannot be read ({error})") from None
    except ValueError as error:
        raise SwitchscopeError(f"{where}: not JSON ({error})", HINT) from None
    entries = document.get("results") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise SwitchscopeError(f"{where}: not switchscope results (no \"results\" list)", HINT)
    found = ResultsFile(file, [])
    for index, entry in enumerate(entries):
        if isinstance(entry, dict) and "schema" not in entry and isinstance(entry.get("probe"), dict):
            found.intrusion.append(entry)  # an intrusion report's row: each method's median, not a distribution
            continue
        found.results.append(Result.from_json(entry, f"{where}, result {index}"))
    for name in ("failures", "not_applicable"):
        listed = document.get(name, [])
        if not isinstance(listed, list):
            raise SwitchscopeError(f"{where}: \"{name}\" must be a list")
        setattr(found, name, listed)
    incomplete = document.get("incomplete")
    found.incomplete = str(incomplete) if incomplete else None
    return found


def read(path: Path, side: str) -> list[ResultsFile]:
    """Every results file a path stands for, read and checked."""
    return [read_file(file, side) for file in files_in(path, side)]


def results(path: Path, side: str) -> list[Result]:
    """Every result in a path's files, in file order."""
    return [result for found in read(path, side) for result in found.results]
