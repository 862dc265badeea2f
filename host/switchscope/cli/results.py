"""The commands that read results: compare (for CI) and report (the HTML page)."""

from __future__ import annotations

import json
from pathlib import Path

from switchscope.common import outputs
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import results_files
from switchscope.present import compare, display, html_report

def command_compare(args) -> int:
    threshold = compare.Threshold.parse(args.threshold)
    inputs = (Path(args.base), Path(args.new))
    junit = outputs.check_file(args.junit, "--junit", inputs) if args.junit else None
    json_path = outputs.check_file(args.json, "--json", inputs) if args.json else None
    outputs.distinct((junit, "--junit"), (json_path, "--json"))
    found = compare.compare(compare.load(inputs[0], "base"), compare.load(inputs[1], "new"), args.metric, threshold,
                            tuple(args.ignore_option))
    print("\n".join(display.table(compare.table_rows(found, args.fail_on), markup=True)) if found
          else "  nothing to compare")
    print(compare.summary(found, threshold, tuple(args.ignore_option), args.fail_on))
    if junit:
        compare.write_junit(junit, found, threshold, args.fail_on)
    if json_path:
        outputs.write_text(json_path, json.dumps({"metric": args.metric, "threshold": str(threshold),
                                                  "fail_on": args.fail_on,
                                                  "comparisons": [c.as_json() for c in found]}, indent=1) + "\n")
    return 1 if compare.regressions(found, args.fail_on) else 0


def command_report(args) -> int:
    files = [file for given in args.inputs for file in results_files.files_in(Path(given), "input")]
    page = outputs.check_file(args.html, "--html", tuple(files))
    found = [results_files.read_file(file, "input") for file in files]
    results = sum(len(f.results) + len(f.intrusion) for f in found)
    if not results:
        raise SwitchscopeError(f"no results in {', '.join(args.inputs)}: nothing to report",
                               results_files.HINT)
    html_report.write(page, found, args.title)
    print(f"{page}: {results} results from {len(found)} file(s)")
    return 0
