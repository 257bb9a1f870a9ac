"""CrossHair side by side with `%verify`/`%equiv` on notebooks/verification.ipynb.

Usage: python3 bench/crosshair_compare.py CROSSHAIR_BIN [--timeout S]
  (CROSSHAIR_BIN: `crosshair` from a venv of your own, e.g.
   python3 -m venv /tmp/ch && /tmp/ch/bin/pip install crosshair-tool)

Writes the notebook's function cells to one module, with the PythonTA docstring contracts
rewritten in CrossHair's PEP 316 form (`pre: e` / `post: e`, `$return_value` -> `__return__`),
then for each `%verify f` runs `crosshair check --analysis_kind=PEP316 module.f` and for each
`%equiv f g` runs `crosshair diffbehavior module.f module.g`, printing the wall time and the
first lines CrossHair reports. `# invariant:` comments mean nothing to CrossHair, and the
notebook's `assert` (midpoint) is not a leading assert, so `--analysis_kind=asserts` skips it.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

HEADS = {"precondition": "pre", "preconditions": "pre", "postcondition": "post", "postconditions": "post"}


def pep316(source):
    """The PythonTA `Preconditions:`/`Postconditions:` sections as PEP 316 lines."""
    out = []
    kind = None
    for line in source.splitlines():
        m = re.match(r"^(\s*)(?:\"\"\")?\s*(Preconditions?|Postconditions?):\s*(.*?)(\"\"\")?$", line)
        if m:
            indent, head, rest, close = m.groups()
            kind = HEADS[head.lower()]
            prefix = indent + ('"""' if line.strip().startswith('"""') else "")
            if rest:
                out.append(f"{prefix}{kind}: {rest.replace('$return_value', '__return__')}")
                kind = None
            elif prefix.strip():
                out.append(prefix)
            if close:
                out.append(indent + '"""')
            continue
        item = re.match(r"^(\s*)-\s+(.*)$", line)
        if kind and item:
            out.append(f"{item.group(1)}{kind}: {item.group(2).replace('$return_value', '__return__')}")
            continue
        if not line.strip():
            kind = None
        out.append(line)
    return "\n".join(out)


def main():
    crosshair = sys.argv[1]
    timeout = sys.argv[sys.argv.index("--timeout") + 1] if "--timeout" in sys.argv else None
    nb = json.load(open("notebooks/verification.ipynb"))
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    work = tempfile.mkdtemp()
    with open(os.path.join(work, "nbfuncs.py"), "w") as fh:
        fh.write("\n\n".join(pep316(c) for c in cells if not c.startswith("%")) + "\n")
    for c in cells:
        if not c.startswith(("%verify", "%equiv")):
            continue
        words = c.split()
        if words[0] == "%verify":
            cmd = [crosshair, "check", "--analysis_kind=PEP316", f"nbfuncs.{words[1]}"]
            if timeout:
                cmd.append(f"--per_condition_timeout={timeout}")
        else:
            cmd = [crosshair, "diffbehavior", f"nbfuncs.{words[1]}", f"nbfuncs.{words[2]}"]
            if "--returns-only" not in words:
                cmd.append("--exception_equivalence=SAME_TYPE")
            if timeout:
                cmd.append(f"--max_uninteresting_iterations={int(float(timeout) * 10)}")
        start = time.perf_counter()
        run = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=600)
        elapsed = time.perf_counter() - start
        text = (run.stdout + run.stderr).strip()
        lines = [l for l in text.splitlines() if l.strip()]
        shown = " | ".join(lines[:3])[:200] if lines else "(nothing reported)"
        print(f"{c.strip():48s} {elapsed:6.2f} s  exit {run.returncode}  {shown}")
    print(f"(module: {work}/nbfuncs.py)")


if __name__ == "__main__":
    main()
