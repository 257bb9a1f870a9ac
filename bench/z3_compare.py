"""Two builds of the kernel side by side on Z3-heavy cells (string theory, nonlinear integers).

Usage: .venv/bin/python bench/z3_compare.py [--runs 3] NAME=BINARY [NAME=BINARY ...]
e.g.   .venv/bin/python bench/z3_compare.py old=/tmp/old_analysis-kernel new=target/release/analysis-kernel

Each binary runs as a real Jupyter kernel (a temporary kernelspec, no LD_LIBRARY_PATH). Every
case is a definition cell then one command cell; the command runs `--runs` times and the best
and median wall times (execute_request to idle) are printed, with a digest of the cell's
text/plain output (paths, feasibility, leaves), so that verdicts can be compared across builds.
The last line of each case says whether all builds printed the same output, and the same
output once witness values are masked (the verdicts).
"""

import argparse
import hashlib
import json
import os
import re
import statistics
import sys
import tempfile
import time

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

IS_PAL = '''def is_pal(s: str) -> bool:
    i = 0
    j = len(s) - 1
    while i < j:
        if s[i] != s[j]:
            return False
        i = i + 1
        j = j - 1
    return True
'''

COUNT_CHAR = '''def count_char(s: str, c: str) -> int:
    n = 0
    i = 0
    while i < len(s):
        if s[i] == c:
            n = n + 1
        i = i + 1
    return n
'''

CLASSIFY = '''def classify(s: str, t: str) -> int:
    if s + t == t + s:
        if len(s) > 2 and s != t:
            return 1
        return 2
    if t in s and s.startswith("ab"):
        return 3
    if s.endswith(t) and len(t) > 3:
        return 4
    return 0
'''

BMI = '''def bmi(weight: int, height: int) -> str:
    """
    Preconditions:
        - height > 0
        - weight > 0
    """
    b = weight * 10000 // (height * height)
    if b < 18:
        return "under"
    elif b < 25:
        return "normal"
    elif b < 30:
        return "over"
    return "obese"
'''

NONLINEAR = '''def cubes(x: int, y: int, z: int) -> int:
    if x * x * x + y * y * y == z * z * z:
        if x > 0 and y > 0 and z > 0:
            return 1
        return 2
    if x * y == 36 and x + y == 13:
        return 3
    if x * x == 2 * y * y and x > 0:
        return 4
    return 0
'''

CASES = [
    ("is_pal %set --unroll 4", IS_PAL, "%set is_pal --unroll 4"),
    ("is_pal %set --unroll 8", IS_PAL, "%set is_pal --unroll 8"),
    ("count_char %set --unroll 6", COUNT_CHAR, "%set count_char --unroll 6"),
    ("classify %set (concat, in, startswith)", CLASSIFY, "%set classify"),
    ("classify %constraints", CLASSIFY, "%constraints classify"),
    ("is_pal %constraints", IS_PAL, "%constraints is_pal"),
    ("bmi %constraints (w*10000//(h*h))", BMI, "%constraints bmi"),
    ("bmi %set", BMI, "%set bmi"),
    ("cubes %constraints (x^3+y^3=z^3)", NONLINEAR, "%constraints cubes"),
    ("cubes %set", NONLINEAR, "%set cubes"),
]


def start(binary, specs):
    name = re.sub(r"[^a-z0-9]", "", os.path.basename(binary).lower()) + hashlib.md5(
        binary.encode()
    ).hexdigest()[:6]
    d = os.path.join(specs, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernel.json"), "w") as f:
        json.dump(
            {
                "argv": [os.path.abspath(binary), "--connection-file", "{connection_file}"],
                "display_name": name,
                "language": "python",
                "interrupt_mode": "message",
            },
            f,
        )
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    km = KernelManager(kernel_name=name, kernel_spec_manager=KernelSpecManager(kernel_dirs=[specs]))
    km.start_kernel(env=env)
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def run(kc, code, timeout=600):
    """Wall time and the text of every output of one cell."""
    t0 = time.perf_counter()
    msg_id = kc.execute(code)
    texts = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        t, c = msg["msg_type"], msg["content"]
        if t in ("display_data", "execute_result"):
            texts.append(c["data"].get("text/plain", ""))
        elif t == "stream":
            texts.append(c["text"])
        elif t == "error":
            texts.append(f"{c['ename']}: {c['evalue']}")
        elif t == "status" and c["execution_state"] == "idle":
            return time.perf_counter() - t0, "\n".join(texts)


WITNESS = re.compile(r"""(\b\w+=)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|-?[0-9][0-9.e+-]*|True|False)""")


def verdicts(text):
    """The output with witness values (`name=value`) masked: two solvers may pick different
    models, but paths, feasibility and leaves must agree."""
    masked = WITNESS.sub(r"\1?", text)
    # Column widths follow the witnesses' lengths.
    return re.sub(r"-{2,}", "--", re.sub(r" {2,}", " ", masked))


def summary(text):
    """What the verdicts look like: counts of feasible/infeasible/unknown words."""
    low = text.lower()
    return {w: len(re.findall(r"\b" + w + r"\b", low)) for w in ("feasible", "infeasible", "unknown", "unsat", "leaf", "leaves")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("builds", nargs="+")
    args = ap.parse_args()
    builds = [b.split("=", 1) for b in args.builds]
    specs = tempfile.mkdtemp(prefix="z3cmp-")
    kernels = {name: start(path, specs) for name, path in builds}
    try:
        for label, definition, command in CASES:
            if args.only and args.only not in label:
                continue
            outputs, masked = {}, {}
            for name, (_, kc) in kernels.items():
                run(kc, "%reset")
                run(kc, definition)
                times, text = [], ""
                for _ in range(args.runs):
                    t, text = run(kc, command)
                    times.append(t)
                outputs[name] = text
                masked[name] = verdicts(text)
                digest = hashlib.sha1(text.encode()).hexdigest()[:10]
                print(
                    json.dumps(
                        {
                            "case": label,
                            "build": name,
                            "best_s": round(min(times), 3),
                            "median_s": round(statistics.median(times), 3),
                            "output": digest,
                            "verdicts": hashlib.sha1(masked[name].encode()).hexdigest()[:10],
                            "words": summary(text),
                        }
                    ),
                    flush=True,
                )
            same = len(set(outputs.values())) == 1
            same_verdicts = len(set(masked.values())) == 1
            print(json.dumps({"case": label, "same_output": same, "same_verdicts": same_verdicts}), flush=True)
            if not same and os.environ.get("Z3CMP_SHOW"):
                for name, text in outputs.items():
                    print(f"--- {name}\n{text}\n", flush=True)
    finally:
        for km, kc in kernels.values():
            kc.stop_channels()
            km.shutdown_kernel(now=True)


if __name__ == "__main__":
    sys.exit(main())
