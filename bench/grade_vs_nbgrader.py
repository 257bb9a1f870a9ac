"""Submissions per minute: `nbgrader autograde` through the kernel, side by side with
`analysis-kernel grade`, on the same notebooks; and the peak memory of one grading job.

Usage: .venv/bin/python bench/grade_vs_nbgrader.py [--students 40] [--jobs 2]
                                                   [--kernel-name analysis] [--keep DIR]
The students' notebooks are nbgrader's released copy of grading/nbgrader/source/clamp with
one of four answers filled in (correct, wrong branch, the untouched stub, a refused import).
nbgrader grades them with its test cells (one kernel per notebook, one notebook at a time);
`analysis-kernel grade` grades the same files with notebooks/assignment.grade.toml (six
criteria: signature, %cfg, %constraints twice, %check, hidden tests), --jobs children at a
time. Peak memory: `/usr/bin/time -v analysis-kernel grade --one` on single submissions.
"""

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = pathlib.Path(os.environ.get("ANALYSIS_KERNEL_BIN", ROOT / "target" / "release" / "analysis-kernel"))
SPEC = ROOT / "notebooks" / "assignment.grade.toml"
FIXTURES = ROOT / "tests" / "fixtures" / "grade"
ANSWERS = [
    'def clamp(x: int, lo: int, hi: int) -> int:\n    """Precondition: lo <= hi"""\n'
    "    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n",
    'def clamp(x: int, lo: int, hi: int) -> int:\n    """Precondition: lo <= hi"""\n'
    "    if x < lo:\n        return hi\n    if x > hi:\n        return hi\n    return x\n",
    None,
    "import os\ndef clamp(x: int, lo: int, hi: int) -> int:\n    return min(max(x, lo), hi)\n",
]


def run(args, cwd=None, env=None):
    started = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - started, done


def peak_kb(submission):
    _, done = run(["/usr/bin/time", "-v", str(BIN), "grade", "--one", str(SPEC), str(submission)])
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    return int(match.group(1)) if match else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--kernel-name", default="analysis")
    parser.add_argument("--keep", help="keep the course directory here")
    args = parser.parse_args()

    work = pathlib.Path(args.keep or tempfile.mkdtemp(prefix="grade-bench-"))
    course = work / "course"
    shutil.rmtree(course, ignore_errors=True)
    shutil.copytree(ROOT / "grading" / "nbgrader", course)
    env = dict(os.environ, PATH=str(pathlib.Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    nbgrader = [sys.executable, "-m", "nbgrader"]
    kernel = f"--Execute.kernel_name={args.kernel_name}"
    _, done = run([*nbgrader, "generate_assignment", "clamp", "--force", kernel], cwd=course, env=env)
    assert done.returncode == 0, done.stderr
    released = json.loads((course / "release" / "clamp" / "clamp.ipynb").read_text())
    paths = []
    for i in range(args.students):
        nb = json.loads(json.dumps(released))
        answer = ANSWERS[i % len(ANSWERS)]
        if answer is not None:
            for cell in nb["cells"]:
                if cell["metadata"].get("nbgrader", {}).get("grade_id") == "clamp":
                    cell["source"] = answer
        target = course / "submitted" / f"s{i:04d}" / "clamp"
        target.mkdir(parents=True)
        (target / "clamp.ipynb").write_text(json.dumps(nb))
        paths.append(target / "clamp.ipynb")

    nb_seconds, done = run([*nbgrader, "autograde", "clamp", "--create", kernel], cwd=course, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    out = work / "grade-out"
    shutil.rmtree(out, ignore_errors=True)
    grade_seconds, done = run([str(BIN), "grade", str(SPEC), *map(str, paths), "--jobs", str(args.jobs), "--out", str(out)])
    assert done.returncode in (0, 1), done.stderr
    graded = len((out / "summary.jsonl").read_text().splitlines())
    assert graded == args.students

    n = args.students
    print(f"{n} submissions of the example assignment, {os.cpu_count()} cores")
    print(f"  nbgrader autograde (kernel {args.kernel_name}): {nb_seconds:7.1f} s  {60 * n / nb_seconds:8.0f} /min")
    print(f"  analysis-kernel grade --jobs {args.jobs}:      {grade_seconds:7.1f} s  {60 * n / grade_seconds:8.0f} /min")
    print(f"  speed-up: {nb_seconds / grade_seconds:.0f}x")
    print("peak memory of one grading job (analysis-kernel grade --one, /usr/bin/time -v):")
    for name, path in [
        ("correct notebook", paths[0]),
        ("correct.py", FIXTURES / "correct.py"),
        ("huge_allocation.py", FIXTURES / "huge_allocation.py"),
        ("prints_megabytes.py", FIXTURES / "prints_megabytes.py"),
        ("deep_recursion.py", FIXTURES / "deep_recursion.py"),
    ]:
        kb = peak_kb(path)
        print(f"  {name:22} {kb / 1024 if kb else float('nan'):7.1f} MiB")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
