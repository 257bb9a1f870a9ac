"""The example autograder gives full marks to the reference answer and finds the faults of wrong ones."""

import pathlib
import sys

import nbformat
from nbclient import NotebookClient

from conftest import KERNEL_NAME, ROOT

sys.path.insert(0, str(pathlib.Path(ROOT, "tests")))
import grade_assignment  # noqa: E402

REFERENCE = pathlib.Path(ROOT, "notebooks", "assignment.ipynb")


def run(nb):
    NotebookClient(nb, timeout=300, kernel_name=KERNEL_NAME, allow_errors=True).execute()
    return {name: passed for name, passed, _ in grade_assignment.grade(nb)}


def test_reference_answer_gets_full_marks():
    results = run(nbformat.read(REFERENCE, as_version=4))
    assert all(results.values()), results


def test_dead_branch_and_missing_precondition_are_caught():
    nb = nbformat.read(REFERENCE, as_version=4)
    answer = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("def clamp"))
    # No precondition, and a third test that can never be true after the first two.
    answer.source = (
        "def clamp(x: int, lo: int, hi: int) -> int:\n"
        "    if x < lo:\n        return lo\n"
        "    if x > hi:\n        return hi\n"
        "    if x < lo:\n        return 0\n"
        "    return x"
    )
    results = run(nb)
    assert not results["CFG has exactly two condition nodes"]
    assert not results["precondition lo <= hi is stated"]
    assert not results["exactly three paths, all feasible"]
