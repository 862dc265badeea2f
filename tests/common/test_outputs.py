"""Outputs that are not plain new files: links, FIFOs, devices, sockets, one
file named twice, a file inside an input directory, and a write that fails
half-way (a file-size limit). Each either writes where the user meant, or is
refused before any work with the file the user had left as it was."""

import json
import os
import socket
import stat
import subprocess
import sys
import threading

import pytest

from conftest import lay_out, refused_cleanly, run_command

VCD = """$timescale 1 ns $end
$scope module top $end
$var wire 1 ! D13 $end
$upscope $end
$enddefinitions $end
#0
0!
""" + "".join(f"#{t}\n1!\n#{t + 100}\n0!\n#{t + 200}\n1!\n#{t + 350}\n0!\n" for t in range(1000, 20000, 1000))

ANALYZE = ["analyze", "capture.vcd", "--channel", "D13"]


@pytest.fixture
def results(tmp_path, monkeypatch, capsys):
    """Two results files (BASE and NEW directories) written by analyze itself."""
    lay_out(tmp_path, {"capture.vcd": VCD})
    monkeypatch.chdir(tmp_path)
    for side in ("base", "new"):
        (tmp_path / side).mkdir()
        status, said = run_command([*ANALYZE, "--json", f"{side}/result.json"], capsys)
        assert status == 0, said
    return tmp_path


def _files(folder):
    return {path: path.read_bytes() for path in folder.rglob("*") if path.is_file() and not path.is_symlink()}


@pytest.mark.parametrize("outputs, fragment", [
    (["--json", "out.json", "--junit", "out.json"], "is also the file of --junit"),
    (["--json", "./sub/../out.json", "--junit", "out.json"], "is also the file of --junit"),
    (["--json", "link.json", "--junit", "out.json"], "is also the file of --junit"),
    (["--json", "base/summary.json"], "inside the input directory base"),
    (["--json", "new/deeper/summary.json"], "inside the input directory new"),
])
def test_compare_outputs_that_would_collide_are_refused(results, monkeypatch, capsys, outputs, fragment):
    (results / "sub").mkdir()
    (results / "link.json").symlink_to("out.json")
    before = _files(results)
    status, said = run_command(["compare", "base", "new", *outputs], capsys)
    assert "Traceback" not in said and status == 2 and fragment in said, said
    assert _files(results) == before
    assert not (results / "out.json").exists()


def test_two_vcds_and_the_json_of_one_run_may_not_share_a_file(tmp_path, monkeypatch, capsys):
    refused_cleanly(tmp_path, {}, ["run", "--method", "scope", "--scenario", "yield", "--vcd", "same.json",
                                   "--json", "same.json"], 2, "is also the file of --json", monkeypatch, capsys)


def test_a_socket_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind("out.sock")
    try:
        refused_cleanly(tmp_path, {"capture.vcd": VCD}, [*ANALYZE, "--json", "out.sock"], 2,
                        "neither a regular file nor a FIFO", monkeypatch, capsys)
        assert stat.S_ISSOCK(os.stat(tmp_path / "out.sock").st_mode)
    finally:
        listener.close()


def test_a_link_is_followed_and_stays_a_link(tmp_path, monkeypatch, capsys):
    lay_out(tmp_path, {"capture.vcd": VCD, "kept/result.json": "old"})
    (tmp_path / "link.json").symlink_to("kept/result.json")
    monkeypatch.chdir(tmp_path)
    status, said = run_command([*ANALYZE, "--json", "link.json"], capsys)
    assert status == 0, said
    assert (tmp_path / "link.json").is_symlink()
    assert json.loads((tmp_path / "kept/result.json").read_text())["results"][0]["scenario"] == "D13"


def test_a_fifo_is_written_to_not_replaced(tmp_path, monkeypatch, capsys):
    lay_out(tmp_path, {"capture.vcd": VCD})
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    read = {}

    def reader():
        with open(fifo) as file:
            read["text"] = file.read()

    thread = threading.Thread(target=reader)
    thread.start()
    monkeypatch.chdir(tmp_path)
    status, said = run_command([*ANALYZE, "--json", "out.fifo"], capsys)
    thread.join(timeout=30)
    assert status == 0, said
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert json.loads(read["text"])["results"][0]["scenario"] == "D13"


def test_a_fifo_nobody_reads_is_an_error_not_a_hang(tmp_path, monkeypatch, capsys):
    lay_out(tmp_path, {"capture.vcd": VCD})
    os.mkfifo(tmp_path / "out.fifo")
    monkeypatch.chdir(tmp_path)
    status, said = run_command([*ANALYZE, "--json", "out.fifo"], capsys)
    assert status == 2 and "no process is reading it" in said and "Traceback" not in said, said
    assert stat.S_ISFIFO(os.stat(tmp_path / "out.fifo").st_mode)


def test_a_character_device_is_written_to_not_replaced(tmp_path, monkeypatch, capsys):
    lay_out(tmp_path, {"capture.vcd": VCD})
    monkeypatch.chdir(tmp_path)
    status, said = run_command([*ANALYZE, "--json", os.devnull], capsys)
    assert status == 0, said
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


@pytest.mark.slow  # the command in a process of its own, under the limit: about half a second
def test_a_file_size_limit_leaves_the_old_file_and_no_partial_one(tmp_path):
    """RLIMIT_FSIZE makes the write fail with EFBIG (Python ignores SIGXFSZ)."""
    lay_out(tmp_path, {"capture.vcd": VCD, "result.json": "the user's earlier result\n"})
    limit = "import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200)); "
    done = subprocess.run([sys.executable, "-c", limit + "from switchscope import cli; sys.exit(cli.main(sys.argv[1:]))",
                           *ANALYZE, "--json", "result.json"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    said = done.stdout + done.stderr
    assert done.returncode in (1, 2) and "cannot write" in said and "Traceback" not in said, said
    assert (tmp_path / "result.json").read_text() == "the user's earlier result\n"
    assert not list(tmp_path.glob(".result.json.*"))
