"""nbgrader end to end through the kernel: a course directory in a temporary directory with
grading/nbgrader's configuration and source assignment (the example assignment with nbgrader
cells), `nbgrader generate_assignment`, three students' submissions (a correct answer, a wrong
branch, the untouched stub, a hostile one), `nbgrader autograde` with the kernel under test,
then the scores read back from the gradebook."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

from conftest import KERNEL_NAME, ROOT


def gradebook_class():
    """nbgrader's Gradebook; a missing nbgrader fails this test (not a skip, not the suite)."""
    try:
        from nbgrader.api import Gradebook
    except ImportError as e:
        raise AssertionError("nbgrader is missing from .venv: run ./install.sh (requirements-dev.txt)") from e
    return Gradebook

COURSE = pathlib.Path(ROOT, "grading", "nbgrader")
ANSWERS = {
    "alice": 'def clamp(x: int, lo: int, hi: int) -> int:\n    """Precondition: lo <= hi"""\n'
    "    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n",
    "bob": 'def clamp(x: int, lo: int, hi: int) -> int:\n    """Precondition: lo <= hi"""\n'
    "    if x < lo:\n        return hi\n    if x > hi:\n        return hi\n    return x\n",
    "carol": None,  # the released stub: raise NotImplementedError()
    "mallory": "import os\nos.system('touch /tmp/nbgrader-submission-escaped')\n"
    "def clamp(x: int, lo: int, hi: int) -> int:\n    return min(max(x, lo), hi)\n",
}
# Points per test cell: test_visible (2) and test_hidden (3).
EXPECTED = {
    "alice": {"test_visible": 2.0, "test_hidden": 3.0},
    "bob": {"test_visible": 2.0, "test_hidden": 0.0},
    "carol": {"test_visible": 0.0, "test_hidden": 0.0},
    "mallory": {"test_visible": 0.0, "test_hidden": 0.0},
}


def nbgrader_cli(course, *args):
    # nbgrader runs `alembic` from PATH: the one next to this Python.
    env = dict(os.environ, PATH=str(pathlib.Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args, f"--Execute.kernel_name={KERNEL_NAME}"],
        cwd=course, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_nbgrader_autogrades_through_the_kernel(tmp_path):
    Gradebook = gradebook_class()
    course = tmp_path / "course"
    shutil.copytree(COURSE, course)
    nbgrader_cli(course, "generate_assignment", "clamp", "--force")
    released = json.loads((course / "release" / "clamp" / "clamp.ipynb").read_text())
    answer_cell = next(c for c in released["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "clamp")
    assert "raise NotImplementedError()" in "".join(answer_cell["source"])
    hidden = next(c for c in released["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "test_hidden")
    assert "clamp(-1, 0, 3)" not in "".join(hidden["source"]), "hidden tests were released"

    for student, answer in ANSWERS.items():
        nb = json.loads(json.dumps(released))
        if answer is not None:
            cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "clamp")
            cell["source"] = answer
        target = course / "submitted" / student / "clamp"
        target.mkdir(parents=True)
        (target / "clamp.ipynb").write_text(json.dumps(nb))

    log = nbgrader_cli(course, "autograde", "clamp", "--create")
    assert "ERROR" not in log, log

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student, expected in EXPECTED.items():
            submission = gb.find_submission("clamp", student)
            grades = {g.name: g.score for nb in submission.notebooks for g in nb.grades}
            assert grades == expected, (student, grades)
            assert submission.score == sum(expected.values())
            assert submission.max_score == 5.0
    assert not pathlib.Path("/tmp/nbgrader-submission-escaped").exists()

    # Failures are read from the kernel's error outputs: the wrong branch's hidden assert.
    graded = json.loads((course / "autograded" / "bob" / "clamp" / "clamp.ipynb").read_text())
    hidden = next(c for c in graded["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "test_hidden")
    errors = [o for o in hidden["outputs"] if o["output_type"] == "error"]
    assert errors and errors[0]["ename"] == "AssertionError", hidden["outputs"]
    assert "clamp(-1, 0, 3) should be 0" in errors[0]["evalue"]
