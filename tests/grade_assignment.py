"""Grades notebooks/assignment.ipynb-style submissions by reading the kernel's JSON outputs.

Usage: .venv/bin/python tests/grade_assignment.py SUBMISSION.ipynb [--kernel analysis]
Prints one line per criterion and the score; exits 0 when every criterion passes.

This is the example of how to grade with analysis-kernel: execute the notebook with nbclient,
collect the `application/vnd.analysis-kernel.*+json` payloads, and check them.

A submission is untrusted code, and `%check` would run it in a `python3` child process (the
CPython oracle): the kernel is started with ANALYSIS_KERNEL_NO_CPYTHON=1, which turns the oracle
off for the kernel's lifetime (a `%config cpython_oracle=1` in the submission cannot turn it on).
"""

import argparse
import os
import sys

import nbformat
from nbclient import NotebookClient

MIME = "application/vnd.analysis-kernel.{}+json"


def payloads(nb, kind):
    """Every payload of `kind` in the executed notebook, in order."""
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if MIME.format(kind) in data:
                found.append(data[MIME.format(kind)])
    return found


def last(nb, kind, function):
    matching = [p for p in payloads(nb, kind) if p.get("function") == function]
    return matching[-1] if matching else None


def grade(nb, function="clamp"):
    """(criterion, passed, detail) for each rubric line."""
    results = []
    cfg = last(nb, "cfg", function)
    conditions = [n for n in cfg["nodes"] if n["kind"] == "condition"] if cfg else []
    results.append(("CFG has exactly two condition nodes", cfg is not None and len(conditions) == 2,
                    f"{len(conditions)} condition nodes" if cfg else "no %cfg output"))
    cons = last(nb, "constraints", function)
    if cons is None:
        results.append(("precondition lo <= hi is stated", False, "no %constraints output"))
        results.append(("exactly three paths, all feasible", False, "no %constraints output"))
    else:
        pre = " ".join(cons.get("preconditions", []))
        results.append(("precondition lo <= hi is stated", "lo" in pre and "hi" in pre, pre or "none"))
        feasible = [p["feasible"] for p in cons["paths"]]
        ok = len(feasible) == 3 and all(f is True for f in feasible) and not cons["truncated"]
        results.append(("exactly three paths, all feasible", ok, f"feasible: {feasible}"))
    check = last(nb, "check", function)
    results.append(("symbolic execution is exhaustive and precise",
                    check is not None and check["exhaustive"] and check["precise"],
                    "no %check output" if check is None else
                    f"exhaustive={check['exhaustive']} precise={check['precise']}"))
    return results


def execute(nb, kernel="analysis"):
    """Executes the submission `nb` in place, in a kernel whose CPython oracle is off."""
    env = dict(os.environ, ANALYSIS_KERNEL_NO_CPYTHON="1")
    NotebookClient(nb, timeout=300, kernel_name=kernel, allow_errors=True).execute(env=env)
    return nb


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("notebook")
    parser.add_argument("--kernel", default="analysis")
    args = parser.parse_args()
    nb = nbformat.read(args.notebook, as_version=4)
    results = grade(execute(nb, args.kernel))
    for name, passed, detail in results:
        print(f"[{'x' if passed else ' '}] {name}: {detail}")
    score = sum(p for _, p, _ in results)
    print(f"score: {score}/{len(results)}")
    return 0 if score == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
