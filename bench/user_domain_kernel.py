"""`%check-domain` and `%absint` with the user interval domain, end to end through the real
kernel (jupyter_client), for one or more kernel binaries side by side (e.g. main's build and
this branch's).

Usage: .venv/bin/python bench/user_domain_kernel.py BINARY... [--runs 3]
Prints one JSON line per binary and measure (median wall time of the cell, in ms).
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from jupyter_client.manager import KernelManager

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def work_function():
    # The 50-statement function of src/bin/bench_user_domain.rs.
    body = ["a = 0", "b = 10", "c = n % 7"]
    for i in range(8):
        body.append(f"a = a + {i} * b")
        body.append(f"b = b - {i + 1}")
        body.append(f"if c > {i}:\n        c = c - 1\n    else:\n        c = c + 2")
    body.append("i = 0")
    body.append("while i < 100:\n        i = i + 1\n        a = a + i\n        if a > 1000:\n            a = a // 2")
    body.append("j = 50")
    body.append("while j > 0:\n        j = j - 3\n        b = b * 2 % 97")
    body.append("d = a - b + c * j")
    body.append("return d // (c + 1)")
    return "def work(n):\n    " + "\n    ".join(body) + "\n"


def kernel(binary, home):
    spec = os.path.join(home, "kernels", "bench")
    os.makedirs(spec, exist_ok=True)
    with open(os.path.join(spec, "kernel.json"), "w") as f:
        json.dump({"argv": [binary, "--connection-file", "{connection_file}"],
                   "display_name": "bench", "language": "python"}, f)
    os.environ["JUPYTER_PATH"] = home
    km = KernelManager(kernel_name="bench")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def run(kc, code):
    payloads = []

    def hook(msg):
        if msg["msg_type"] == "display_data":
            for k, v in msg["content"]["data"].items():
                if k.endswith("+json"):
                    payloads.append(v)

    start = time.perf_counter()
    reply = kc.execute_interactive(code, timeout=600, output_hook=hook)
    elapsed = time.perf_counter() - start
    assert reply["content"]["status"] == "ok", reply["content"]
    return elapsed, payloads


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    interval = open(os.path.join(ROOT, "tests/fixtures/user_analyses/interval.py")).read()
    for binary in args.binaries:
        with tempfile.TemporaryDirectory() as home:
            km, kc = kernel(binary, home)
            try:
                run(kc, interval)
                run(kc, work_function())
                for cmd in ["%check-domain uinterval", "%check-domain interval",
                            "%absint uinterval work", "%absint interval work"]:
                    times, last = [], []
                    for _ in range(args.runs):
                        t, last = run(kc, cmd)
                        times.append(t)
                    user = (last[-1].get("user") or {}) if last else {}
                    row = {"binary": binary, "command": cmd, "runs": args.runs,
                           "median_ms": round(statistics.median(times) * 1000, 1),
                           "min_ms": round(min(times) * 1000, 1)}
                    for key in ("user_calls", "memo_hits", "user_calls_by_method"):
                        if key in user:
                            row[key] = user[key]
                        elif last and key in last[-1]:
                            row[key] = last[-1][key]
                    if last and "cases" in last[-1]:
                        row["cases"] = last[-1]["cases"]
                        row["samples"] = last[-1]["samples"]
                        row["abstract_values"] = last[-1]["abstract_values"]
                    print(json.dumps(row, ensure_ascii=False), flush=True)
            finally:
                kc.stop_channels()
                km.shutdown_kernel(now=True)


if __name__ == "__main__":
    sys.exit(main())
