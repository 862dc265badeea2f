"""The pages quote only what the tool prints: every figure block of README.md
and docs/*.md (between `<!-- figures: NAME (bench/pages.py) -->` and
`<!-- end figures -->`) is derived again from the tool and compared with the
page. bench/pages.py writes the blocks; this checks them.

Cheaply: each run is measured once for all the blocks that read it, at its
check sample count where the figures do not depend on the count (the switch
figures have zero spread on the simulators: 200 samples give the medians of
10,000), and at the page's count where they do. Times are never compared
(the page states the machine they were taken on); the blocks of the bench
scripts that take minutes (throughput, a million samples; the matrix) are
only checked to be well formed.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import pages  # noqa: E402
from pages_blocks import BLOCKS  # noqa: E402
from pages_results import compiler  # noqa: E402
from pages_runs import Outcome, Run  # noqa: E402
from pages_text import (COUNT, PAGES, TIME, blocks_in, counted, differences, plain, rewrite,  # noqa: E402
                        timed)

ON_PAGES = blocks_in()
REGISTERED = {block.name: block for block in BLOCKS}
QUICK_RUNS = {"options"}  # `switchscope list`: no firmware
MEASURED_BLOCKS = [block for block in BLOCKS if set(block.runs) - QUICK_RUNS and not block.slow]


def test_every_block_on_the_pages_has_its_generator_and_every_generator_its_block():
    names = [found.name for found in ON_PAGES]
    assert sorted(set(names) - set(REGISTERED)) == [], "blocks on the pages that bench/pages.py does not write"
    assert sorted(set(REGISTERED) - set(names)) == [], "blocks bench/pages.py writes that no page holds"
    assert len(names) == len(set(names)), "a block name used twice"


def test_every_marker_closes_its_block():
    for page in PAGES:
        text = page.read_text()
        assert text.count("<!-- figures: ") == text.count("<!-- end figures -->"), page.name
        assert text.count("<!-- figures: ") == len([b for b in ON_PAGES if b.page == page]), page.name


def test_a_block_differs_in_a_figure_but_not_in_a_time():
    rendered = f"| yield | 124 | {counted(10000)} | took {timed('3.0 s')} |\n"
    assert differences("| yield | 124 | 10000 | took 9.9 s |\n", rendered, {TIME}) == ""
    assert differences("| yield | 125 | 10000 | took 3.0 s |\n", rendered, {TIME}) != ""
    # a count is compared at the page's sample count, not at a check's smaller one
    assert differences("| yield | 124 | 9950 | took 3.0 s |\n", rendered, {TIME}) != ""
    assert differences("| yield | 124 | 9950 | took 3.0 s |\n", rendered, {TIME, COUNT}) == ""
    assert plain(rendered) == "| yield | 124 | 10000 | took 3.0 s |\n"


def test_rewriting_a_block_leaves_the_rest_of_the_page(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("before\n<!-- figures: a (bench/pages.py) -->\nold\n<!-- end figures -->\nafter\n"
                    "<!-- figures: b (bench/pages.py) -->\n<!-- end figures -->\n")
    assert rewrite(page, {"a": "new\n", "b": "filled\n"})
    assert page.read_text() == ("before\n<!-- figures: a (bench/pages.py) -->\nnew\n<!-- end figures -->\nafter\n"
                                "<!-- figures: b (bench/pages.py) -->\nfilled\n<!-- end figures -->\n")
    assert not rewrite(page, {"a": "new\n"})


def test_a_block_read_again_at_a_check_count_ignores_the_counts():
    run = Run("r", "", (), samples=10000, check_samples=200)
    block = pages.Block("b", ("r",), lambda measured: "")
    assert pages.ignored_kinds(block, {"r": Outcome(run, 200)}) == {TIME, COUNT}
    assert pages.ignored_kinds(block, {"r": Outcome(run, 10000)}) == {TIME}


@pytest.mark.slow  # `switchscope list` in a process of its own: Python's start and switchscope's imports
def test_the_blocks_that_build_nothing_read_what_their_sources_say(tmp_path):
    """The compilers' table comes from the pinned reference figures, the options from `switchscope list`."""
    quick = [block for block in BLOCKS if set(block.runs) <= QUICK_RUNS]
    outcomes = pages.derive(quick, True, tmp_path, progress=lambda line: None)
    for block in quick:
        found = next(b for b in ON_PAGES if b.name == block.name)
        assert differences(found.body, block.render(outcomes), {TIME}) == "", \
            f"python3 bench/pages.py --only {block.name}"


def test_the_option_list_is_every_option_of_every_kernel():
    from switchscope import catalog
    from switchscope.catalog import configs
    every = {name for kernel in catalog.KERNELS.values() for name in configs.options_of(kernel)}
    found = next(b for b in ON_PAGES if b.name == "options")
    listed = {line.split("`")[1] for line in found.body.splitlines() if line.startswith("| `")}
    assert listed == every


@pytest.fixture(scope="session")
def measured(tmp_path_factory):
    """Every run, measured once for all the blocks that read it (at its check count)."""
    return {"scratch": tmp_path_factory.mktemp("pages"), "outcomes": {}}


def _page_compilers() -> set[str]:
    """The compilers the pages' figures were measured with (the default run's provenance names them)."""
    body = next(b for b in ON_PAGES if b.name == "default-provenance").body
    return {match.group(0) for match in re.finditer(r"(arm-none-eabi-gcc|avr-gcc) \d+\.\d+\.\d+", body)}


def _machine_compilers() -> set[str]:
    """The C compilers here, named as the pages name them ("avr-gcc 5.4.0")."""
    found = set()
    for tool in ("arm-none-eabi-gcc", "avr-gcc"):
        first = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
        found.add(compiler({"toolchain": {"compiler": first}}))
    return found


@pytest.mark.firmware
@pytest.mark.parametrize("name", [block.name for block in MEASURED_BLOCKS])
def test_the_page_reads_what_the_tool_prints(name, measured):
    if _machine_compilers() != _page_compilers():  # a figure is a property of the firmware, so of its compiler
        pytest.skip(f"the pages state the figures of {sorted(_page_compilers())}, this machine builds with "
                    f"{sorted(_machine_compilers())} (tests/figures/test_reference_figures.py pins both)")
    block = REGISTERED[name]
    outcomes = pages.derive([block], True, measured["scratch"], measured["outcomes"], progress=lambda line: None)
    found = next(b for b in ON_PAGES if b.name == name)
    difference = differences(found.body, block.render(outcomes), pages.ignored_kinds(block, outcomes))
    assert difference == "", (f"{found.page.name}, block {name}: the page is not what the tool prints "
                              f"(python3 bench/pages.py --only {name} writes it):\n{difference}")


@pytest.mark.parametrize("name", [block.name for block in BLOCKS if block.slow])
def test_the_slow_blocks_are_written(name):
    """Their runs take minutes (a million samples, a cold matrix) for times only, which are never compared:
    bench/pages.py --slow writes them, each with the machine it was taken on."""
    found = next(b for b in ON_PAGES if b.name == name)
    assert found.body.strip(), f"python3 bench/pages.py --only {name} writes it"


@pytest.mark.parametrize("arguments, said", [
    (["--only", ""], "--only '': an empty block name"),
    (["--only", "options,"], "--only 'options,': an empty block name"),
    (["--only", "floor", "--reuse", "{empty}"], "holds no kept outcome of the run suite, which these blocks need "
                                                "(it holds none): --reuse renders, measuring nothing"),
    (["--only", "floor", "--reuse", "{empty}/absent"], "absent: no such directory"),
    (["--only", "floor", "--reuse", "{damaged}"], "outcome.json is not an outcome --keep wrote (JSONDecodeError"),
], ids=["only-empty", "only-trailing-comma", "reuse-empty", "reuse-absent", "reuse-damaged"])
def test_what_pages_is_asked_for_wrong_is_refused_before_it_measures(tmp_path, arguments, said):
    (tmp_path / "empty").mkdir()
    (tmp_path / "damaged" / "suite").mkdir(parents=True)
    (tmp_path / "damaged" / "suite" / "outcome.json").write_text("{not json")
    pages_before = {page: page.read_bytes() for page in PAGES}
    done = subprocess.run([sys.executable, str(BENCH / "pages.py"),
                           *(a.format(empty=tmp_path / "empty", damaged=tmp_path / "damaged") for a in arguments)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert "measuring " not in done.stderr.replace("measuring nothing", "")  # what derive says as it starts a run
    assert {page: page.read_bytes() for page in PAGES} == pages_before
