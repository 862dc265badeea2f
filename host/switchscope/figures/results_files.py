"""Reading what switchscope wrote: the JSON of run, sweep, measure, analyze and
intrusion ({"results": [...]}), or a directory of them: a suite's (runs/**/*.json),
its runs/ tree, a folder of suites or of runs' files.
`compare` and `report` read through here, so both accept the same inputs and
refuse the same bad ones with the same words."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import jsonschema

from switchscope.common import paths
from switchscope.common.errors import SwitchscopeError
from switchscope.figures.result import SCHEMA, SCHEMA_VERSION, Result

HINT = "give the --json file of switchscope run, sweep, measure, analyze or intrusion, or a suite's directory"
CURRENT = f"{SCHEMA}/{SCHEMA_VERSION}"
SCHEMA_FILE = Path(__file__).with_name("results.schema.json")  # every file read back is checked against it


@cache
def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_FILE.read_text())
    return jsonschema.Draft202012Validator(schema)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


class _DuplicateKey(ValueError):
    pass


def _one_of_each(pairs: list) -> dict:
    """An object whose keys are each written once: a key written twice ("samples" twice) is kept by one reader
    as its first and by another as its last, so the file says two things."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise _DuplicateKey(twice)
    return found


def _parsed(text: str, where: str):
    """The document, or the reason it is not switchscope's JSON: not JSON, NaN or
    Infinity (which Python would write, and no other reader accepts), nesting too deep,
    a key written twice in one object."""
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_one_of_each)
    except _DuplicateKey as twice:
        raise SwitchscopeError(f"{where}: the key '{twice}' is written twice in one object, and no switchscope "
                               "writes that: which of the two is meant is not known",
                               "measure again: the file was altered or damaged") from None
    except ValueError as error:
        raise SwitchscopeError(f"{where}: not JSON ({error})", HINT) from None
    except RecursionError:
        raise SwitchscopeError(f"{where}: not switchscope results (nested too deep to be a result)", HINT) from None


def _check_schema(document, where: str) -> None:
    """Refuse, naming the field and what it should be, a document the results schema does not accept."""
    error = jsonschema.exceptions.best_match(_validator().iter_errors(document))
    if error is None:
        return
    field_path = error.json_path.removeprefix("$").removeprefix(".") or "the document"
    message = error.message if len(error.message) <= 160 else error.message[:150] + " ..."
    raise SwitchscopeError(f"{where}: {field_path}: {message}",
                           f"{HINT} (the schema: {SCHEMA_FILE.name} in the switchscope package)")


LARGEST_NUMBER = 2**53  # beyond it a float, which statistics, scaling and figures work in, skips integers


def _too_large(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > LARGEST_NUMBER


def _check_numbers(document, where: str) -> None:
    """Refuse, naming the field, a number no run writes and no reader can work with: an integer too large
    for a float (a figure would raise) or any number past LARGEST_NUMBER in size."""
    pending = [("", document)]  # walked without recursion, in the document's order: the first such is named
    while pending:
        path, value = pending.pop()
        if isinstance(value, list) and value and set(map(type, value)) <= {int, float} \
                and -LARGEST_NUMBER <= min(value) and max(value) <= LARGEST_NUMBER:
            continue  # a list of samples, in C's time: a million numbers in a few hundredths of a second
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        nested = []
        for key, item in items:  # a million samples are a million numbers: a path is made only where needed
            if isinstance(item, (dict, list)):
                nested.append((f"{path}.{key}" if isinstance(key, str) else f"{path}[{key}]", item))
            elif _too_large(item):
                where_in = f"{path}.{key}" if isinstance(key, str) else f"{path}[{key}]"
                shown = f"{item:g}" if isinstance(item, float) else \
                    (str(item) if len(str(item)) <= 24 else f"an integer of {len(str(item))} digits")
                raise SwitchscopeError(f"{where}: {where_in.removeprefix('.')}: {shown} is too large for a result "
                                       f"(its numbers stay within {LARGEST_NUMBER:,} in size)",
                                       "no run writes such a number: the file was altered or damaged; measure again")
        pending += reversed(nested)


@dataclass
class ResultsFile:
    path: Path
    results: list[Result]
    intrusion: list[dict] = field(default_factory=list)  # an intrusion report's rows
    failures: list = field(default_factory=list)  # what the command that wrote it could not measure
    not_applicable: list = field(default_factory=list)
    incomplete: str | None = None  # why the command wrote only part of what it was asked for
    subset: dict | None = None  # --subset: which share of which plan it holds ("subset", "plan", "points")
    plan: dict | None = None  # a sweep's: the plan its points belong to ("digest", "points"), for --resume

    @property
    def how_to_finish(self) -> str:
        """What makes an incomplete file whole, by the command that wrote it: a sweep's (it names its plan)
        is resumed; a run's, which --resume does not continue, is measured again."""
        if self.plan is not None or self.subset is not None:
            return f"finish it: the same sweep again with --resume and --json {self.path}; or measure again"
        return f"measure again: the same run with --json {self.path} (a run is not resumed; a sweep is)"


SUITE_UNFINISHED = "finish it: switchscope suite --out DIR --resume, with the options it was started with"


def _results_under(folder: Path) -> list[Path]:
    """A suite's results (runs/**/*.json: its plan.json beside them is none), else the folder's own *.json
    and then each subfolder's, found the same way: a suite's runs/ tree, a folder of suites or of runs.
    Hidden and linked folders are passed over (a link could lead back up)."""
    runs = sorted((folder / "runs").glob("**/*.json"))
    if runs:
        return runs
    files = sorted(path for path in folder.glob("*.json") if path.is_file())
    for sub in sorted(folder.iterdir()):
        if sub.is_dir() and not sub.is_symlink() and not sub.name.startswith(".") and sub.name != "runs":
            files += _results_under(sub)
    return files


def files_in(path: Path, side: str) -> list[Path]:
    """The JSON files a path stands for: itself, or a directory's results, in its subfolders too."""
    if path.is_dir():
        try:
            files = _results_under(path)
        except OSError as error:
            raise SwitchscopeError(f"{side} {path}: cannot be read ({error})") from None
        if not files:
            raise SwitchscopeError(f"{side} {path}: a directory with no results (no *.json in it or its "
                                   "subfolders)", HINT)
        return files
    if path.is_file():
        return [path]
    kind = paths.special_kind(path)
    if kind:
        raise SwitchscopeError(f"{side} {path}: {kind}, not a file: results are read from files and directories "
                               "(a stream can be read only once, and a directory's files are read in turn)",
                               "save it to a file first (switchscope ... --json FILE, or cat > FILE), and give that")
    raise SwitchscopeError(f"{side} {path}: no such file or directory", HINT)


def read_file(file: Path, side: str = "") -> ResultsFile:
    """One file's results; errors name it, after `side` (base, new, input) when given."""
    where = f"{side} {file}" if side else str(file)
    try:
        text = file.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise SwitchscopeError(f"{where}: cannot be read ({error})") from None
    document = _parsed(text, where)
    if not isinstance(document, dict) or not isinstance(document.get("results"), list):
        raise SwitchscopeError(f"{where}: not switchscope results (no \"results\" list)", HINT)
    for index, entry in enumerate(document["results"]):  # a later version's file is said as such, not as errors
        if isinstance(entry, dict) and entry.get("schema", CURRENT) != CURRENT:
            raise SwitchscopeError(f"{where}, result {index}: schema '{entry['schema']}' is not {CURRENT}",
                                   "measure again with this switchscope, or use the version that wrote it")
    _check_schema(document, where)
    _check_numbers(document, where)
    found = ResultsFile(file, [])
    for index, entry in enumerate(document["results"]):
        if "marker" in entry and "probe" in entry:
            found.intrusion.append(entry)  # an intrusion report's row: each method's median, not a distribution
            continue
        found.results.append(Result.from_json(entry, f"{where}, result {index}"))
    found.failures = document.get("failures", [])
    found.not_applicable = document.get("not_applicable", [])
    incomplete = document.get("incomplete")
    found.incomplete = str(incomplete) if incomplete else None
    found.subset = document.get("subset") if isinstance(document.get("subset"), dict) else None
    found.plan = document.get("plan") if isinstance(document.get("plan"), dict) else None
    return found


def read(path: Path, side: str) -> list[ResultsFile]:
    """Every results file a path stands for, read and checked."""
    return [read_file(file, side) for file in files_in(path, side)]


def results(path: Path, side: str) -> list[Result]:
    """Every result in a path's files, in file order."""
    return [result for found in read(path, side) for result in found.results]
