"""First and later `%%rust` cells of a fresh kernel, end to end through the real jupyter_client.

Usage: .venv/bin/python bench/rust_cells.py [--kernel analysis] [--sessions 3] [--cells 10]
Prints one JSON line per session: the first `%%rust` cell (starts evcxr and loads the prelude),
the median and worst of the later cells (a small function, then a cell that uses it), and
the sign-domain cell of notebooks/rust_cells.ipynb.
"""

import argparse
import json
import os
import statistics
import sys
import time

from jupyter_client.manager import KernelManager

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(kc, code):
    start = time.perf_counter()
    reply = kc.execute_interactive(code, timeout=600, output_hook=lambda m: None)
    elapsed = time.perf_counter() - start
    assert reply["content"]["status"] == "ok", reply["content"]
    return elapsed


def notebook_cell(marker):
    nb = json.load(open(os.path.join(ROOT, "notebooks/rust_cells.ipynb")))
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and marker in source:
            return source
    raise SystemExit(f"no cell with {marker!r} in notebooks/rust_cells.ipynb")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel", default="analysis")
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--cells", type=int, default=10)
    args = parser.parse_args()
    sign = notebook_cell("struct Signs")
    for session in range(args.sessions):
        km = KernelManager(kernel_name=args.kernel)
        km.start_kernel()
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        try:
            first = run(kc, "%%rust\nlet answer: i64 = 6 * 7;\nanswer")
            later = []
            for i in range(args.cells):
                later.append(run(kc, f"%%rust\nfn twice_{i}(x: i64) -> i64 {{ 2 * x }}\ntwice_{i}(answer)"))
            sign_cell = run(kc, sign)
            row = {"session": session, "first_ms": round(first * 1000),
                   "later_median_ms": round(statistics.median(later) * 1000),
                   "later_max_ms": round(max(later) * 1000),
                   "sign_domain_cell_ms": round(sign_cell * 1000)}
            print(json.dumps(row), flush=True)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)


if __name__ == "__main__":
    sys.exit(main())
