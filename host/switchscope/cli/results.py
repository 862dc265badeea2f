"""The commands that read results: compare (for CI), report (the HTML page) and merge (shares into one)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from switchscope.common import outputs
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import merge, results_files, suite
from switchscope.present import compare, compare_sides, compare_text, display, html_report, report, suite_page

def command_compare(args) -> int:
    threshold = compare.Threshold.parse(args.threshold)
    if args.allow_different_cores and not args.across_targets:
        raise SwitchscopeError("--allow-different-cores goes with --across-targets: results of one target are of "
                               "one core", "add --across-targets, or leave --allow-different-cores out")
    inputs = (Path(args.base), Path(args.new))
    junit = outputs.check_file(args.junit, "--junit", inputs) if args.junit else None
    json_path = outputs.check_file(args.json, "--json", inputs) if args.json else None
    outputs.distinct((junit, "--junit"), (json_path, "--json"))
    ignored = tuple(args.ignore_option) + ((compare.ACROSS_TARGETS,) if args.across_targets else ())
    base, new = compare_sides.load_side(inputs[0], "base"), compare_sides.load_side(inputs[1], "new")
    compare_sides.check_sides(base, new)
    found = compare.compare(base.results, new.results, args.metric, threshold, ignored, args.allow_different_cores)
    nothing = compare.nothing_compared(found, ignored)
    failed = compare_sides.failed_in_new(new)
    gate = (((("compared nothing", f"{nothing.message}"),) if nothing else ())
            + tuple((f"new: {said.partition(': ')[0]} failed", said) for said in failed))
    if junit:  # the files first: a terminal that fails or goes away costs none of them
        compare_text.write_junit(junit, found, threshold, args.fail_on, gate)
    if json_path:
        outputs.write_text(json_path, json.dumps({"metric": args.metric, "threshold": str(threshold),
                                                  "fail_on": args.fail_on,
                                                  "comparisons": [c.as_json() for c in found],
                                                  **({"compared_nothing": nothing.message} if nothing else {}),
                                                  **({"failed_in_new": failed} if failed else {})},
                                                 indent=1) + "\n")
    print("\n".join(display.table(compare_text.table_rows(found, args.fail_on), markup=True)) if found
          else "  nothing to compare")
    print(compare_text.summary(found, threshold, tuple(args.ignore_option), args.fail_on))
    if nothing:
        raise nothing
    for said in failed:
        print(f"error: new: a measurement failed, so its figure cannot be compared: {said}", file=sys.stderr)
    return 1 if compare.regressions(found, args.fail_on) or failed else 0


def command_report(args) -> int:
    files = [file for given in args.inputs for file in results_files.files_in(Path(given), "input")]
    page = outputs.check_file(args.html, "--html", tuple(files))
    for given in args.inputs:  # a suite's own index.html, or a file beside the results, is not the report's
        if Path(given).is_dir() and outputs.inside(page, Path(given)):
            raise SwitchscopeError(f"--html {args.html}: is inside the input directory {given}, whose files are the "
                                   "measurement's own (a suite's index.html)", "give a path outside it")
    found = [results_files.read_file(file, "input") for file in files]
    results = sum(len(f.results) + len(f.intrusion) for f in found)
    if not results:
        raise SwitchscopeError(f"no results in {', '.join(args.inputs)}: nothing to report",
                               results_files.HINT)
    html_report.write(page, found, args.title)
    print(f"{page}: {report.counted(results, 'result')} from {report.counted(len(found), 'file')}")
    return 0


def command_merge(args) -> int:
    inputs = list({Path(given).resolve(): Path(given) for given in args.inputs}.values())  # each read once
    if len(inputs) < len(args.inputs):
        print(f"note: {len(args.inputs) - len(inputs)} input(s) given twice, read once", file=sys.stderr)
    for given in inputs:
        merge.check_input(given)  # before anything is opened: a FIFO or a device is refused, not read
    if all(given.is_dir() for given in inputs):
        out = outputs.check_directory(args.out, "--out", tuple(inputs))
        suite.check_out(out)
        merge.check_out_of_suites(out)
        merged = merge.merge_suites(inputs)
        for point, outcome in merged.outcomes:
            if not isinstance(outcome, str):
                outputs.write_text(suite.result_path(out, point), json.dumps({"results": [outcome.to_json()]},
                                                                              indent=1) + "\n")
        suite.write_plan(out, merged.kernels, merged.targets, merged.samples, [p for p, _ in merged.outcomes], None,
                         merged.wall_seconds, merged.workers)
        written = suite_page.write(out, suite.every_point(merged.found, merged.outcomes), merged.samples,
                                   merged.wall_seconds, merged.workers, shares=len(inputs) if len(inputs) > 1 else None)
        measured = sum(1 for _, outcome in merged.outcomes if not isinstance(outcome, str))
        for point, outcome in merged.outcomes:
            if isinstance(outcome, str):
                print(f"error: {point.job} ({point.samples} samples): {outcome}", file=sys.stderr)
        print(f"{measured} of {len(merged.outcomes)} measurements from {len(inputs)} directories; {len(written)} "
              f"files in {out} (open {out / 'index.html'})")
        return 0 if measured == len(merged.outcomes) else 1
    if any(given.is_dir() for given in inputs):
        raise SwitchscopeError("merge takes directories (suites) or JSON files (sweeps, runs), not both", merge.HINT)
    out = outputs.check_file(args.out, "--out", tuple(inputs))
    merge.check_out_of_suites(out)
    results, failures = merge.merge_files(inputs)
    report.write_json(out, results, failures)
    print(f"{report.counted(len(results), 'result')} from {report.counted(len(inputs), 'file')} in {out}")
    return 0
