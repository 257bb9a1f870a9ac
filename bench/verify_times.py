"""Times every `%verify`/`%equiv` cell of notebooks/verification.ipynb, per kernel binary.

Usage: .venv/bin/python bench/verify_times.py BINARY [BINARY ...]
Runs the notebook's cells in order in one kernel per binary (through jupyter_client) and
prints, per command cell, the wall time of each binary side by side and the verdict line.
"""

import json
import os
import re
import sys
import tempfile
import time

SPECS = tempfile.mkdtemp()
os.environ["JUPYTER_PATH"] = SPECS

from jupyter_client.manager import KernelManager  # noqa: E402


def cells(path="notebooks/verification.ipynb"):
    nb = json.load(open(path))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def verdict(text):
    # A command past a second first shows a progress line ("running (1 s)… 8 nodes, …"),
    # blanked before the result: keep what follows it.
    text = re.sub(r"%\w+ [^\n%]*: running \([^)]*\)…[^%\n]*", "", text)
    for line in text.splitlines():
        if re.search(r"verified|refuted|unknown|equivalent|distinguish", line, re.I):
            return line.strip()[:90]
    return text.strip().splitlines()[0][:90] if text.strip() else ""


def run(binary):
    name = "ak%d" % abs(hash(binary))
    spec = os.path.join(SPECS, "kernels", name)
    os.makedirs(spec, exist_ok=True)
    with open(os.path.join(spec, "kernel.json"), "w") as fh:
        json.dump({"argv": [binary, "--connection-file", "{connection_file}"],
                   "display_name": name, "language": "python"}, fh)
    km = KernelManager(kernel_name=name)
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    out = []
    try:
        for code in cells():
            texts = []

            def hook(msg):
                c = msg["content"]
                if msg["msg_type"] == "stream":
                    texts.append(c["text"])
                elif msg["msg_type"] in ("execute_result", "display_data"):
                    texts.append(c["data"].get("text/plain", ""))
                elif msg["msg_type"] == "error":
                    texts.append(c["ename"] + ": " + c["evalue"])

            start = time.perf_counter()
            kc.execute_interactive(code, timeout=300, output_hook=hook)
            elapsed = time.perf_counter() - start
            if code.startswith("%"):
                out.append((code.strip(), elapsed, verdict("".join(texts))))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return out


def main():
    runs = [run(b) for b in sys.argv[1:]]
    for rows in zip(*runs):
        print(rows[0][0])
        for b, (_, t, v) in zip(sys.argv[1:], rows):
            print(f"  {t:6.2f} s  {v}   [{b}]")


if __name__ == "__main__":
    main()
