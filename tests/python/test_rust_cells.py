"""`%%rust` cells through the real kernel (evcxr): a sign domain and a liveness analysis
written in Rust and run by %absint, %lattice, %check-domain and %dataflow against the
built-ins, compile errors with the cell's line and column, a panic, an interrupt of
`loop {}`, and state kept across cells."""

import pathlib

import pytest
from jupyter_client.manager import start_new_kernel

from conftest import KERNEL_NAME, ROOT
from test_protocol import iopub_until_idle

MIME = "application/vnd.analysis-kernel.{}+json"
FIXTURES = pathlib.Path(ROOT, "tests", "fixtures", "rust")
# The first Rust cell starts evcxr and may build the prelude when the cache is cold.
SLOW = 600

F = """
def f(n, m):
    x = n * n
    y = -x
    if n > 0:
        z = x + n
    else:
        z = y - 1
    while m > 0:
        m = m - 1
    return z * m
"""


def run(kc, code, timeout=SLOW):
    msg_id = kc.execute(code)
    reply = kc.get_shell_msg(timeout=timeout)
    assert reply["parent_header"]["msg_id"] == msg_id
    return reply["content"], iopub_until_idle(kc, msg_id)


@pytest.fixture(scope="module")
def kernel():
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME, startup_timeout=60)
    try:
        yield km, kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def shown(msgs):
    """The bundles a front end ends up showing, without progress lines: each display_data,
    replaced by the last update_display_data of its display id."""
    bundles, ids, progress = [], {}, set()
    for m in msgs:
        display_id = m["content"].get("transient", {}).get("display_id")
        if m["msg_type"] == "display_data":
            if "analysis-kernel-progress" in m["content"]["data"].get("text/html", ""):
                progress.add(display_id)
            if display_id is not None:
                ids[display_id] = len(bundles)
            bundles.append(m["content"]["data"])
        elif m["msg_type"] == "update_display_data" and display_id in ids:
            bundles[ids[display_id]] = m["content"]["data"]
    return [bundles[i] for i in range(len(bundles)) if i not in {ids[p] for p in progress}]


def payload(msgs, kind):
    found = [b[MIME.format(kind)] for b in shown(msgs) if MIME.format(kind) in b]
    assert found, f"no {kind} display in {[m['msg_type'] for m in msgs]}"
    return found[-1]


def result_text(msgs):
    return "".join(m["content"]["data"].get("text/plain", "") for m in msgs
                   if m["msg_type"] == "execute_result")


def test_a_rust_domain_runs_like_the_builtin_sign(kernel):
    _, kc = kernel
    reply, _ = run(kc, F)
    assert reply["status"] == "ok", reply
    reply, msgs = run(kc, "%%rust\n" + (FIXTURES / "sign.rs").read_text())
    assert reply["status"] == "ok", (reply, msgs)
    reply, msgs = run(kc, "%absint rsign f")
    assert reply["status"] == "ok", reply
    mine = payload(msgs, "absint")
    reply, msgs = run(kc, "%absint sign f")
    assert reply["status"] == "ok", reply
    builtin = payload(msgs, "absint")
    assert mine["domain"] == "rsign" and builtin["domain"] == "sign"
    # The same engine with the same lattice and operators: the same value at every node
    # (the built-in's JSON lists the signs, the Rust domain's `show` writes them).
    shown = {(): "⊥", ("NEG",): "<0", ("ZERO",): "0", ("POS",): ">0", ("NEG", "ZERO"): "≤0",
             ("NEG", "POS"): "≠0", ("ZERO", "POS"): "≥0", ("NEG", "ZERO", "POS"): "⊤"}

    def as_text(state):
        return {k: shown[tuple(v)] for k, v in state.items()}
    assert [(n["in"], n["out"]) for n in mine["nodes"]] == \
        [(as_text(n["in"]), as_text(n["out"])) for n in builtin["nodes"]]
    # After the loop m is refined by its exit condition.
    assert any(n["in"].get("m") == "≤0" for n in mine["nodes"])
    # Listed with the domains cells defined.
    reply, msgs = run(kc, "%help absint")
    text = "".join(m["content"].get("text", "") + m["content"].get("data", {}).get("text/plain", "")
                   for m in msgs if m["msg_type"] in ("stream", "display_data"))
    assert "rsign" in text and "(Rust)" in text
    # %lattice draws its 8 elements; %check-domain finds it sound.
    reply, msgs = run(kc, "%lattice rsign")
    assert reply["status"] == "ok", reply
    assert len(payload(msgs, "lattice")["elements"]) == 8
    reply, msgs = run(kc, "%check-domain rsign --samples 4")
    assert reply["status"] == "ok", reply
    check = payload(msgs, "check-domain")
    assert check["sound"] is True
    # The report names the domain as registered, in the payload and the text.
    assert check["domain"] == "rsign", check["domain"]
    text = "".join(m["content"].get("data", {}).get("text/plain", "") for m in msgs
                   if m["msg_type"] == "display_data")
    assert "rsign: SOUND" in text and "rust:" not in text, text[:200]
    # The full check of domains written in cells: laws and monotonicity on its 8 elements.
    assert check["user"]["passed"] is True, check["user"]
    assert check["user"]["enumerated"] is True and len(check["user"]["window"]) == 8
    assert check["user"]["laws"] == [] and check["user"]["monotonicity"] == []
    assert check["user"]["user_calls"] > 0


def test_a_rust_analysis_runs_like_the_builtin_liveness(kernel):
    _, kc = kernel
    run(kc, F)
    reply, msgs = run(kc, "%%rust\n" + (FIXTURES / "live.rs").read_text())
    assert reply["status"] == "ok", (reply, msgs)
    reply, msgs = run(kc, "%dataflow rlive f")
    assert reply["status"] == "ok", reply
    mine = payload(msgs, "dataflow")
    reply, msgs = run(kc, "%dataflow live f")
    builtin = payload(msgs, "dataflow")
    # The built-in names each live variable with the lines of the uses it reaches (m@L9).
    def names(facts):
        return sorted({f.split("@")[0] for f in facts})
    assert [(n["in"], n["out"]) for n in mine["nodes"]] == \
        [(names(n["in"]), names(n["out"])) for n in builtin["nodes"]]
    # In the cell: the prelude's own engine on the session's f, shown as a table.
    reply, msgs = run(kc, "%%rust\nlet f = function(\"f\").unwrap();\n"
                          "let s = solve(&Live, &f);\nshow(&s.table(&f));\nshow(&f);\ns.before.len()")
    assert reply["status"] == "ok", (reply, msgs)
    displays = shown(msgs)
    assert len(displays) == 2 and "<table>" in displays[0]["text/html"], displays
    assert "<svg" in displays[1]["text/html"]
    nodes = len(payload(msgs := run(kc, "%dataflow live f")[1], "dataflow")["nodes"])
    assert result_text(run(kc, "%%rust\ns.before.len()")[1]) == str(nodes)


def test_a_compile_error_points_at_the_cell_line_and_column(kernel):
    _, kc = kernel
    reply, _ = run(kc, '%%rust\nlet a = 1;\nlet x: i32 = "a";\n')
    assert reply["status"] == "error"
    assert reply["ename"] == "RustCompileError"
    assert "mismatched types" in reply["evalue"]
    assert "(cell line 3, column 14)" in reply["evalue"], reply["evalue"]
    assert any("Cell line 3, column 14" in t for t in reply["traceback"])


def test_a_panic_is_an_error_and_the_kernel_lives(kernel):
    _, kc = kernel
    reply, _ = run(kc, "%%rust\nlet kept = 7;\n")
    assert reply["status"] == "ok", reply
    reply, _ = run(kc, '%%rust\nlet v: Vec<i32> = Vec::new();\nif v.is_empty() { panic!("boom {}", 6 * 7); }\n')
    assert reply["status"] == "error"
    assert reply["ename"] == "RustPanic"
    assert "boom 42" in reply["evalue"]
    reply, msgs = run(kc, "%%rust\nkept + 1")
    assert reply["status"] == "ok", reply
    assert result_text(msgs) == "8"


def test_state_is_kept_across_cells(kernel):
    _, kc = kernel
    reply, _ = run(kc, "%%rust\nlet mut counter = 40;\nfn twice(x: i32) -> i32 { 2 * x }\n")
    assert reply["status"] == "ok", reply
    reply, _ = run(kc, "%%rust\ncounter += 1;\n")
    assert reply["status"] == "ok", reply
    reply, msgs = run(kc, "%%rust\ntwice(counter) - counter + 1")
    assert reply["status"] == "ok", reply
    assert result_text(msgs) == "42"


def test_interrupt_stops_an_endless_loop(kernel):
    km, kc = kernel
    run(kc, "%%rust\nfn still_here() -> u8 { 5 }\n")
    msg_id = kc.execute("%%rust\nloop { std::hint::black_box(0); }\n")
    import time
    time.sleep(8)
    km.interrupt_kernel()
    reply = kc.get_shell_msg(timeout=120)
    assert reply["parent_header"]["msg_id"] == msg_id
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    iopub_until_idle(kc, msg_id)
    # The process was replaced: items stay, and the next cell runs.
    reply, msgs = run(kc, "%%rust\nstill_here()")
    assert reply["status"] == "ok", reply
    assert result_text(msgs) == "5"


def test_interrupt_stops_a_long_compilation(kernel):
    km, kc = kernel
    run(kc, "%%rust\nfn compiled_before() -> u8 { 7 }\n")
    # Const evaluation of 10^8 steps keeps rustc busy for minutes.
    slow = (
        "%%rust\n#[allow(long_running_const_eval)]\n"
        "const SLOW: u64 = { let mut i = 0u64; let mut x = 0u64; "
        "while i < 100_000_000 { x = x.wrapping_add(i); i += 1; } x };\nSLOW\n"
    )
    msg_id = kc.execute(slow)
    import subprocess
    import time
    # Interrupt once rustc compiles the cell (evcxr first analyses it, which under load takes
    # seconds; an interrupt then stops the cell's process, as for a running cell).
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        busy = subprocess.run(["pgrep", "-f", "crate-name ctx"], capture_output=True)
        if busy.returncode == 0:
            break
        time.sleep(0.2)
    time.sleep(1)
    km.interrupt_kernel()
    started = time.monotonic()
    reply = kc.get_shell_msg(timeout=120)
    assert time.monotonic() - started < 30, "the compilation was not stopped"
    assert reply["parent_header"]["msg_id"] == msg_id
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    assert "compiled" in reply["content"]["evalue"]
    iopub_until_idle(kc, msg_id)
    # Nothing was lost: the process was not replaced, and the next cell runs.
    reply, msgs = run(kc, "%%rust\ncompiled_before()")
    assert reply["status"] == "ok", reply
    assert result_text(msgs) == "7"


def test_reset_drops_the_context_and_the_registrations(kernel):
    _, kc = kernel
    run(kc, F)
    reply, _ = run(kc, "%%rust\n" + (FIXTURES / "sign.rs").read_text())
    assert reply["status"] == "ok", reply
    reply, msgs = run(kc, "%rust-reset")
    assert reply["status"] == "ok", reply
    reply, _ = run(kc, "%absint rsign f")
    assert reply["status"] == "error"
    reply, _ = run(kc, "%%rust\ncounter")
    assert reply["status"] == "error" and reply["ename"] == "RustCompileError"
