"""Domains written in cells through the real kernel: registration, completion, %absint and
%check-domain on a user domain, the step budget stopping a runaway user method, and the
grading criterion of the assignment in notebooks/your_own_analysis.ipynb."""

import pytest
from jupyter_client.manager import start_new_kernel

from conftest import KERNEL_NAME
from test_protocol import interrupt, run

MIME = "application/vnd.analysis-kernel.{}+json"

PARITY = '''
from analysis import Domain, domain

@domain("cellparity")
class P(Domain):
    bottom, top = "bot", "top"
    def leq(self, a, b):
        return a == "bot" or b == "top" or a == b
    def join(self, a, b):
        return b if self.leq(a, b) else a if self.leq(b, a) else "top"
    def abstract(self, n):
        return "even" if n % 2 == 0 else "odd"
    def add(self, a, b):
        if "top" in (a, b):
            return "top"
        return "even" if a == b else "odd"
'''


@pytest.fixture()
def kc():
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME)
    try:
        yield kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def payload(msgs, kind):
    found = [m["content"]["data"][MIME.format(kind)] for m in msgs
             if m["msg_type"] == "display_data" and MIME.format(kind) in m["content"]["data"]]
    assert found, f"no {kind} display"
    return found[-1]


def test_a_user_domain_through_the_kernel(kc):
    reply, _ = run(kc, PARITY)
    assert reply["status"] == "ok", reply
    reply, msgs = run(kc, "def f(n):\n    x = n + n\n    y = x + 1\n    return y\n")
    assert reply["status"] == "ok"
    reply, msgs = run(kc, "%absint cellparity f")
    assert reply["status"] == "ok", reply
    p = payload(msgs, "absint")
    assert p["domain"] == "cellparity"
    ret = [n for n in p["nodes"] if n["lines"] == [4, 4]][0]
    # n + n is unknown to this domain: n is ⊤; the element as JSON, with its text beside it.
    assert ret["in"]["y"] == {"value": "top", "text": "top"}
    reply, msgs = run(kc, "%check-domain cellparity --samples 4")
    assert reply["status"] == "ok", reply
    check = payload(msgs, "check-domain")
    assert check["domain"] == "cellparity"
    assert check["user"]["passed"] is True, check
    # Completion offers the user's domain beside the built-ins.
    msg_id = kc.complete("%absint cell", 12)
    reply = kc.get_shell_msg(timeout=30)
    assert "cellparity" in reply["content"]["matches"]


def test_the_step_budget_stops_a_runaway_user_method(kc):
    reply, _ = run(kc, PARITY + '''
class Loops(P):
    def join(self, a, b):
        while True:
            pass
''')
    assert reply["status"] == "ok", reply
    reply, _ = run(kc, "%config step_budget=200000\n%domain loops Loops")
    assert reply["status"] == "ok", reply
    reply, _ = run(kc, "%%absint loops\ndef g(n):\n    x = 0\n    while n > 0:\n        x = x + 1\n        n = n + 1\n    return x\n")
    assert reply["status"] == "error"
    assert reply["ename"] == "StepBudgetExceeded"
    assert "in your join(" in reply["evalue"] and "called by the engine at node" in reply["evalue"]
    # The kernel keeps working afterwards.
    reply, _ = run(kc, "1 + 1")
    assert reply["status"] == "ok"


def test_an_interrupt_stops_a_user_method():
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME)
    try:
        reply, _ = run(kc, PARITY + '''
class Spins(P):
    def join(self, a, b):
        while True:
            pass
''')
        assert reply["status"] == "ok", reply
        reply, _ = run(kc, "%config step_budget=100000000000\n%domain spins Spins")
        assert reply["status"] == "ok", reply
        interrupt(km, kc, "%%absint spins\ndef g(n):\n    x = 0\n    while n > 0:\n        x = x + 1\n    return x\n", after=1.0)
        # The session still works, with the same interpreter and registry.
        reply, _ = run(kc, "%%absint cellparity\ndef g(n):\n    return n + 1\n")
        assert reply["status"] == "ok", reply
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


SIGN = {"NEG": "-", "ZERO": "0", "POS": "+"}
NAMES = {"⊥": "", "<0": "-", "0": "0", ">0": "+", "≤0": "-0", "≥0": "0+", "≠0": "-+", "⊤": "-0+"}


def test_the_assignment_grading_criterion(exported):
    """Sound (its %check-domain passes) and at least as precise as the built-in sign domain at
    every node of the graded function."""
    nb = exported["your_own_analysis"].nb
    displays = [o["data"] for c in nb.cells if c.cell_type == "code" for o in c.outputs
                if o.output_type == "display_data"]
    checks = [d[MIME.format("check-domain")] for d in displays if MIME.format("check-domain") in d]
    student_check = [c for c in checks if c.get("domain") == "student_sign"][-1]
    assert student_check["sound"] and student_check["user"]["passed"]
    runs = [d[MIME.format("absint")] for d in displays if MIME.format("absint") in d]
    student = [r for r in runs if r["domain"] == "student_sign"][-1]
    reference = [r for r in runs if r["domain"] == "sign"][-1]
    assert len(student["nodes"]) == len(reference["nodes"])
    compared = 0
    for s, r in zip(student["nodes"], reference["nodes"]):
        for side in ("in", "out"):
            if not isinstance(s[side], dict) or not isinstance(r[side], dict):
                assert s[side] == r[side]
                continue
            for var, value in r[side].items():
                ref = {SIGN[a] for a in value}
                mine = set(NAMES[s[side][var]["text"]])
                assert mine <= ref, (var, s[side][var], value)
                compared += 1
    assert compared > 20
