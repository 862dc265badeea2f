"""docs/porting.md's table of what a kernel port supplies is kernel.h's list
of functions, exactly: a port written from the table links."""

import re

from switchscope.common.paths import checkout


def test_the_porting_table_lists_every_function_of_kernel_h_and_no_other():
    header = (checkout() / "firmware/include/switchscope/kernel.h").read_text()
    declared = set(re.findall(r"^[A-Za-z_][\w \*]*?\b(ss_\w+)\s*\(", header, re.MULTILINE))
    docs = (checkout() / "docs/porting.md").read_text()
    kernel_section = docs.split("## The kernel", 1)[1].split("\n## ", 1)[0]
    tabled = set(re.findall(r"^\| `(ss_\w+)\(", kernel_section, re.MULTILINE))
    assert declared == tabled, f"in kernel.h only: {declared - tabled}; in the table only: {tabled - declared}"
    count = re.search(r"its port of the (\w+) functions", (checkout() / "README.md").read_text())
    assert count and count.group(1) == str(len(declared))
