"""`--save` through the real Jupyter client: files land in the kernel's working directory (the
notebook's folder) and nowhere else, never over an existing file without `--force`, and a
refused or failed write is an error reply named as Python would name it."""

import os

import pytest
from jupyter_client.manager import start_new_kernel

from conftest import KERNEL_NAME
from test_protocol import run

DOT = "digraph { a -> b }"


@pytest.fixture()
def folder(tmp_path):
    """(kernel client, the kernel's working directory, a directory outside it)."""
    notebook, outside = tmp_path / "notebook", tmp_path / "outside"
    notebook.mkdir()
    outside.mkdir()
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME, cwd=str(notebook))
    try:
        yield kc, notebook, outside
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def error(reply, msgs):
    """(ename, evalue) of a failed cell, checking the iopub error says the same."""
    assert reply["status"] == "error", reply
    errors = [m["content"] for m in msgs if m["msg_type"] == "error"]
    assert [(e["ename"], e["evalue"]) for e in errors] == [(reply["ename"], reply["evalue"])]
    return reply["ename"], reply["evalue"]


def test_saves_beside_the_notebook_and_never_overwrites_silently(folder):
    kc, notebook, _ = folder
    reply, _ = run(kc, f"%%dot --save fig.svg\n{DOT}")
    assert reply["status"] == "ok", reply
    first = (notebook / "fig.svg").read_text()
    assert "<svg" in first and ">a</text>" in first
    ename, evalue = error(*run(kc, "%%dot --save fig.svg\ndigraph { x -> y }"))
    assert ename == "FileExistsError"
    assert "'fig.svg'" in evalue and "--force" in evalue
    assert (notebook / "fig.svg").read_text() == first
    reply, _ = run(kc, "%%dot --save fig.svg --force\ndigraph { x -> y }")
    assert reply["status"] == "ok", reply
    assert ">x</text>" in (notebook / "fig.svg").read_text()
    (notebook / "figs").mkdir()
    reply, _ = run(kc, "%who --save ./figs/who.txt")
    assert reply["status"] == "ok", reply
    assert (notebook / "figs" / "who.txt").read_text() == "No functions defined.\nNo variables defined.\n"


def test_a_failed_write_stops_the_cell(folder):
    kc, notebook, _ = folder
    ename, evalue = error(*run(kc, "%who --save missing/who.txt\n%who --save after.txt"))
    assert ename == "FileNotFoundError"
    assert "'missing/who.txt'" in evalue
    assert not (notebook / "after.txt").exists()


@pytest.mark.parametrize(
    "target, why",
    [("../../../../etc/x.txt", "`..`"), ("/etc/x.txt", "absolute"), ("fig.exe", "unknown extension")],
)
def test_paths_out_of_the_folder_are_refused_before_any_work(folder, target, why):
    kc, notebook, _ = folder
    ename, evalue = error(*run(kc, f"%%dot --save {target}\n{DOT}"))
    assert ename == "UsageError"
    assert why in evalue and target in evalue, evalue
    assert os.listdir(notebook) == []
    assert not os.path.exists("/etc/x.txt")


def test_symbolic_links_do_not_lead_out(folder):
    kc, notebook, outside = folder
    (notebook / "out").symlink_to(outside)
    ename, evalue = error(*run(kc, f"%%dot --save out/fig.svg\n{DOT}"))
    assert ename == "PermissionError" and "'out/fig.svg'" in evalue, evalue
    secret = outside / "secret.txt"
    secret.write_text("keep")
    (notebook / "fig.txt").symlink_to(secret)
    for force in ["", " --force"]:
        ename, evalue = error(*run(kc, f"%who --save fig.txt{force}"))
        assert ename == "PermissionError" and "symbolic link" in evalue, evalue
    assert secret.read_text() == "keep"
    assert os.listdir(outside) == ["secret.txt"]


def test_force_needs_save_and_help_says_so(folder):
    kc, _, _ = folder
    ename, evalue = error(*run(kc, "%who --force"))
    assert ename == "UsageError" and "--force only applies with --save" in evalue
    _, msgs = run(kc, "%help cfg")
    text = "".join(m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "display_data")
    assert "--force" in text and "--save" in text
