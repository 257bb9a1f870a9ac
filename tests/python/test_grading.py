"""The example autograder gives full marks to the reference answer and finds the faults of wrong ones."""

import pathlib
import sys

import nbformat

from conftest import KERNEL_NAME, ROOT

sys.path.insert(0, str(pathlib.Path(ROOT, "tests")))
import grade_assignment  # noqa: E402

REFERENCE = pathlib.Path(ROOT, "notebooks", "assignment.ipynb")


def run(nb):
    grade_assignment.execute(nb, KERNEL_NAME)
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


def test_the_grader_never_runs_a_submission_in_cpython():
    nb = nbformat.read(REFERENCE, as_version=4)
    check = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("%check clamp"))
    # A submission trying to turn the oracle back on.
    check.source = "%config cpython_oracle=1\n" + check.source
    grade_assignment.execute(nb, KERNEL_NAME)
    payload = grade_assignment.last(nb, "check", "clamp")
    assert payload["oracle"] == "interpreter", payload["oracle"]
    assert "ANALYSIS_KERNEL_NO_CPYTHON" in payload["oracle_note"]
    assert payload["exhaustive"] and payload["precise"]
