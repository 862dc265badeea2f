#!/usr/bin/env python3
"""Measures every figure README.md and docs/*.md state, and writes each
figure block in place (between its `<!-- figures: NAME (bench/pages.py) -->`
and `<!-- end figures -->` lines), so that no page quotes a figure the tool
no longer prints.

    python3 bench/pages.py                   # measure, rewrite every block (not the slow ones: --slow)
    python3 bench/pages.py --check           # measure, compare with the pages, rewrite nothing; exit 1 on a difference
    python3 bench/pages.py --only irq-latency,floor   # those blocks (and the runs they need) only
    python3 bench/pages.py --list            # every block: its page, and the commands its figures come from
    python3 bench/pages.py --keep DIR        # keep each run's outputs in DIR; --reuse DIR renders from them again

A check ignores times (the machine's) and, for a run taken at fewer samples
than its page states (--quick: each run's check count), the counts that
depend on the sample count. tests/test_pages.py checks every block the same
way, quickly.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "host")]  # the renderers use a few of switchscope's own functions


def _use_the_checkouts_python() -> None:
    """switchscope's dependencies live in the checkout's .venv: start again under it if this Python lacks them."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        venv = HERE.parent / ".venv" / "bin" / "python"
        if venv.exists() and Path(sys.executable).resolve() != venv.resolve():
            os.execv(str(venv), [str(venv), *sys.argv])
        sys.exit("bench/pages.py needs switchscope's dependencies: run it with the Python of the .venv "
                 "that ./setup.sh made")


from pages_runs import PLACEHOLDER, RUNS, Block, Outcome, Run, measure  # noqa: E402
from pages_text import COUNT, TIME, blocks_in, differences, plain, rewrite  # noqa: E402


def _blocks() -> dict[str, Block]:
    from pages_blocks import BLOCKS
    return {block.name: block for block in BLOCKS}


def ignored_kinds(block: Block, measured: dict[str, Outcome]) -> set[str]:
    """Times always; the counts that depend on the sample count where a run took fewer samples than its page."""
    return {TIME} | ({COUNT} if any(not measured[run].at_page_count for run in block.runs) else set())


def derive(blocks: list[Block], quick: bool, scratch: Path, measured: dict[str, Outcome] | None = None,
           progress=print, keep: Path | None = None, timing: bool = False) -> dict[str, Outcome]:
    """Measure every run the blocks need, once each (those already in `measured` are kept), at each run's check
    count if `quick`; `timing`: the times will be written (pages_runs.measure). With `keep`, each run's outputs
    are saved there as soon as it is measured."""
    measured = {} if measured is None else measured
    for name in dict.fromkeys(run for block in blocks for run in block.runs):
        if name not in measured:
            progress(f"measuring {name}: {RUNS[name].what}")
            started = time.monotonic()
            measured[name] = measure(RUNS[name], quick, scratch, timing)
            progress(f"  {time.monotonic() - started:.1f} s")
            if keep:
                _keep(keep, {name: measured[name]})
    return measured


def _load(directory: Path) -> dict[str, Outcome]:
    """The outcomes --keep kept in `directory`; a file that is not one is refused (ValueError) naming it."""
    found = {}
    for path in directory.glob("*/outcome.json"):
        try:
            document = json.loads(path.read_text())
            run: Run = RUNS[document["run"]]
            found[run.name] = Outcome(run, document["samples"], document["files"], document["outputs"],
                                      document["seconds"], document.get("not_applicable", []))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as error:
            raise ValueError(f"{path} is not an outcome --keep wrote ({type(error).__name__}: {error})") from None
    return found


def _reused(directory: Path, blocks: list[Block]) -> dict[str, Outcome]:
    """--reuse: every run the blocks need, as --keep kept it in `directory`; a run not kept there is refused
    (ValueError) by name, never measured afresh without a word."""
    if not directory.is_dir():
        raise ValueError(f"--reuse {directory}: no such directory")
    kept = _load(directory)
    needed = list(dict.fromkeys(run for block in blocks for run in block.runs))
    missing = [name for name in needed if name not in kept]
    if missing:
        raise ValueError(f"--reuse {directory} holds no kept outcome of the run{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)}, which these blocks need" + ("" if kept else " (it holds none)")
                         + f": --reuse renders, measuring nothing; keep them first with --keep {directory}")
    return kept


def _keep(directory: Path, measured: dict[str, Outcome]) -> None:
    for name, outcome in measured.items():
        (directory / name).mkdir(parents=True, exist_ok=True)
        (directory / name / "outcome.json").write_text(json.dumps(outcome.to_json()))


def main() -> int:
    _use_the_checkouts_python()
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--check", action="store_true", help="compare only; exit 1 when a page differs")
    options.add_argument("--quick", action="store_true", help="take each run's check sample count")
    options.add_argument("--only", help="block names, comma-separated")
    options.add_argument("--slow", action="store_true", help="also the blocks whose runs take minutes (times)")
    options.add_argument("--list", action="store_true", help="every block, its page and its commands")
    options.add_argument("--print", action="store_true", help="print the blocks as derived; write nothing")
    options.add_argument("--keep", type=Path, help="keep each run's outputs in this directory")
    options.add_argument("--reuse", type=Path, help="render from the outputs --keep kept, measuring nothing new")
    args = options.parse_args()
    blocks = _blocks()
    on_pages = {found.name: found for found in blocks_in()}
    if args.list:
        for name, block in blocks.items():
            page = on_pages[name].page.relative_to(HERE.parent) if name in on_pages else "(on no page)"
            print(f"{name}  [{page}]{'  (slow)' if block.slow else ''}: runs {', '.join(block.runs) or 'none'}")
        for run in RUNS.values():
            counts = (f"{run.samples} samples" if run.samples else "no --samples") + \
                (f", checked at {run.check_samples}" if run.check_samples else "")
            print(f"run {run.name} ({counts}): {run.what}")
            for command in run.commands:
                shown = PLACEHOLDER.sub(lambda m: m.group(2) + (".json" if m.group(1) == "json" else "/"),
                                        " ".join(command).replace("{samples}", str(run.samples)))
                print(f"    {shown if command[0].endswith('.py') else 'switchscope ' + shown}")
        return 0
    if args.only is not None and "" in [name.strip() for name in args.only.split(",")]:
        options.error(f"--only {args.only!r}: an empty block name (--only takes block names, comma-separated; "
                      "leave --only out for every block; python3 bench/pages.py --list names them)")
    unknown = sorted(set(on_pages) - set(blocks)) + sorted(set((args.only or "").split(",")) - set(blocks) - {""})
    if unknown:
        sys.exit(f"no such block: {', '.join(unknown)} (python3 bench/pages.py --list names them)")
    chosen = [blocks[name] for name in (args.only.split(",") if args.only else blocks)
              if args.only or args.slow or not blocks[name].slow]
    try:
        measured = _reused(args.reuse, chosen) if args.reuse else {}
    except ValueError as error:
        options.error(str(error))
    with tempfile.TemporaryDirectory(prefix="switchscope-pages-") as scratch:
        measured = derive(chosen, args.quick, Path(scratch), measured, lambda line: print(line, file=sys.stderr),
                          args.keep, timing=not (args.check or args.print))
    bodies, different = {}, []
    for block in chosen:
        rendered = block.render(measured)
        if args.print:
            print(f"<!-- figures: {block.name} -->\n{plain(rendered)}<!-- end figures -->\n")
            continue
        found = on_pages.get(block.name)
        if found is None:
            print(f"{block.name}: on no page (add its markers where it belongs)", file=sys.stderr)
            continue
        diff = differences(found.body, rendered, ignored_kinds(block, measured))
        if diff:
            different.append(block.name)
            if args.check:
                print(f"{block.name} ({found.page.name}) differs:\n{diff}")
        bodies[block.name] = plain(rendered)
    if args.print:
        return 0
    if args.check:
        print(f"{len(chosen) - len(different)} of {len(chosen)} blocks read what the tool prints"
              + (f"; differing: {', '.join(different)}" if different else ""))
        return 1 if different else 0
    changed = [page.name for page in sorted({found.page for found in on_pages.values()}) if rewrite(page, bodies)]
    print(f"{len(bodies)} blocks written; pages changed: {', '.join(changed) or 'none'}"
          + (f"; blocks whose figures changed: {', '.join(different)}" if different else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
