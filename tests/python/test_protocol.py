"""Protocol behaviour beyond the conformance suite, driven by the real jupyter_client."""

import queue
import time

import pytest
import zmq
from jupyter_client.manager import start_new_kernel
from jupyter_client.session import Session

from conftest import KERNEL_NAME

TIMEOUT = 30


@pytest.fixture()
def kernel():
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME)
    try:
        yield km, kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def run(kc, code, **kwargs):
    """Executes `code`, returning (reply content, iopub messages of that request)."""
    msg_id = kc.execute(code, **kwargs)
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    assert reply["parent_header"]["msg_id"] == msg_id
    msgs = iopub_until_idle(kc, msg_id)
    return reply["content"], msgs


def iopub_until_idle(kc, msg_id):
    msgs = []
    while True:
        msg = kc.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        msgs.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return msgs


def test_execute_message_order(kernel):
    _, kc = kernel
    reply, msgs = run(kc, "%%dot\ndigraph { a -> b }")
    assert reply["status"] == "ok"
    kinds = [m["msg_type"] if m["msg_type"] != "status" else m["content"]["execution_state"] for m in msgs]
    assert kinds == ["busy", "execute_input", "display_data", "idle"]
    assert reply["execution_count"] == 1
    assert msgs[1]["content"]["execution_count"] == 1


def test_replies_carry_the_kernels_own_session(kernel):
    _, kc = kernel
    msg_id = kc.kernel_info()
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    assert reply["parent_header"]["msg_id"] == msg_id
    assert reply["header"]["session"] != kc.session.session
    assert reply["parent_header"]["session"] == kc.session.session


def test_silent_execution_publishes_nothing_and_keeps_the_count(kernel):
    _, kc = kernel
    run(kc, "%who")
    reply, msgs = run(kc, "%who", silent=True)
    assert reply["status"] == "ok"
    assert [m["msg_type"] for m in msgs] == ["status", "status"]
    reply, _ = run(kc, "%who")
    assert reply["execution_count"] == 2


def test_bad_signature_is_dropped(kernel):
    km, kc = kernel
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.connect(f"{km.transport}://{km.ip}:{km.shell_port}")
    try:
        forged = Session(key=b"not-the-key")
        forged.send(sock, "execute_request", {"code": "%who", "silent": False})
        assert sock.poll(1500) == 0, "a message with a bad signature was answered"
        good = Session(key=km.session.key)
        good.send(sock, "kernel_info_request", {})
        assert sock.poll(TIMEOUT * 1000) != 0
        _, reply = good.recv(sock)
        assert reply["msg_type"] == "kernel_info_reply"
    finally:
        sock.close(0)


def interrupt(km, kc, code, after, within=30):
    """Executes `code`, interrupts the kernel `after` seconds later, and checks that the cell
    ends with KeyboardInterrupt less than `within` seconds after the interrupt."""
    msg_id = kc.execute(code)
    time.sleep(after)
    started = time.time()
    km.interrupt_kernel()
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    assert reply["parent_header"]["msg_id"] == msg_id
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    assert time.time() - started < within


def test_interrupt_during_a_long_cell_keeps_state(kernel):
    km, kc = kernel
    run(kc, "def keep(x):\n    return x\n")
    # Well before the 60 s sleep would end: the interrupt cuts it short.
    interrupt(km, kc, "%__sleep__ 60", after=0.5)
    _, msgs = run(kc, "%who")
    text = "".join(m["content"].get("data", {}).get("text/plain", "") for m in msgs)
    assert "keep(x)" in text


def test_interrupt_stops_graphviz(kernel):
    km, kc = kernel
    edges = "\n".join(f"n{i} -> n{(i * 7 + 1) % 6000}; n{i} -> n{(i * 13 + 5) % 6000};" for i in range(6000))
    interrupt(km, kc, "%%dot\ndigraph {\n" + edges + "\n}", after=1.0)


def test_interrupt_stops_a_running_z3_query(kernel):
    km, kc = kernel
    # A query Z3 cannot settle (x^3 + y^3 = z^3 has no positive solution), with a timeout far
    # beyond the test's patience: only the interrupt can end it.
    run(kc, "%config z3_timeout_ms=600000")
    run(
        kc,
        "def cubes(x: int, y: int, z: int) -> int:\n"
        "    if x ** 3 + y ** 3 == z ** 3 and x > 0 and y > 0 and z > 0:\n"
        "        return 1\n"
        "    return 0\n",
    )
    interrupt(km, kc, "%constraints cubes", after=1.5, within=20)
    # The solver works again afterwards, and a timeout still gives "unknown", not a hang.
    run(kc, "%config z3_timeout_ms=300")
    reply, msgs = run(kc, "%constraints cubes")
    assert reply["status"] == "ok", reply
    mime = "application/vnd.analysis-kernel.constraints+json"
    # Progress displays may come first.
    payload = next(
        m["content"]["data"][mime]
        for m in msgs
        if m["msg_type"] == "display_data" and mime in m["content"]["data"]
    )
    verdicts = {e["feasible"] for e in payload["edges"]}
    assert "unknown" in verdicts, verdicts


def test_stop_on_error_aborts_queued_cells(kernel):
    _, kc = kernel
    first = kc.execute("%__sleep__ 0.5\n%no_such_command")
    second = kc.execute("%who")
    third = kc.execute("%who", stop_on_error=False)
    replies = {}
    for _ in range(3):
        r = kc.get_shell_msg(timeout=TIMEOUT)
        replies[r["parent_header"]["msg_id"]] = r["content"]
    assert replies[first]["status"] == "error"
    assert replies[second]["status"] == "aborted"
    assert replies[third]["status"] == "aborted"
    # Later cells run again.
    reply, _ = run(kc, "%who")
    assert reply["status"] == "ok"


def test_stop_on_error_false_does_not_abort(kernel):
    _, kc = kernel
    first = kc.execute("%__sleep__ 0.3\n%no_such_command", stop_on_error=False)
    second = kc.execute("%who")
    statuses = {}
    for _ in range(2):
        r = kc.get_shell_msg(timeout=TIMEOUT)
        statuses[r["parent_header"]["msg_id"]] = r["content"]["status"]
    assert statuses == {first: "error", second: "ok"}


def test_a_thousand_executes_in_a_row(kernel):
    _, kc = kernel
    for i in range(1000):
        kc.execute(f"def f{i % 10}(x):\n    return x\n" if i % 2 else "%who")
    counts = []
    for _ in range(1000):
        r = kc.get_shell_msg(timeout=TIMEOUT)
        assert r["content"]["status"] == "ok", r["content"]
        counts.append(r["content"]["execution_count"])
    assert counts == list(range(1, 1001))


def test_a_panic_becomes_an_error_reply(kernel):
    _, kc = kernel
    run(kc, "def survivor():\n    pass\n")
    reply, msgs = run(kc, "%__panic__")
    assert reply["status"] == "error"
    assert reply["ename"] == "InternalError"
    assert any(m["msg_type"] == "error" for m in msgs)
    reply, msgs = run(kc, "%who")
    assert reply["status"] == "ok"
    assert "survivor" in str(msgs)


def test_restart_via_shutdown(kernel):
    km, kc = kernel
    run(kc, "def before_restart():\n    pass\n")
    old_pid = km.provisioner.process.pid
    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=TIMEOUT)
    assert km.provisioner.process.pid != old_pid
    reply, msgs = run(kc, "%who")
    assert reply["status"] == "ok"
    assert reply["execution_count"] == 1
    assert "No functions defined" in str(msgs)


def test_shutdown_reply_and_exit(kernel):
    km, kc = kernel
    kc.shutdown()
    reply = kc.get_control_msg(timeout=TIMEOUT) if hasattr(kc, "get_control_msg") else None
    deadline = time.time() + 10
    while km.is_alive() and time.time() < deadline:
        time.sleep(0.05)
    assert not km.is_alive()
    if reply is not None:
        assert reply["content"]["status"] == "ok"


def test_kernel_info_on_control(kernel):
    _, kc = kernel
    msg = kc.session.msg("kernel_info_request", {})
    kc.control_channel.send(msg)
    reply = kc.get_control_msg(timeout=TIMEOUT)
    assert reply["msg_type"] == "kernel_info_reply"
    info = reply["content"]["language_info"]
    assert (info["name"], info["mimetype"], info["file_extension"]) == ("python", "text/x-python", ".py")
    assert info["pygments_lexer"] == "python" and info["codemirror_mode"] == "python"
    assert reply["content"]["protocol_version"] == "5.4"


def test_comm_open_to_unknown_target_is_closed(kernel):
    _, kc = kernel
    msg = kc.session.msg("comm_open", {"comm_id": "c1", "target_name": "nobody", "data": {}})
    kc.shell_channel.send(msg)
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        m = kc.get_iopub_msg(timeout=TIMEOUT)
        if m["msg_type"] == "comm_close":
            assert m["content"]["comm_id"] == "c1"
            break
    else:
        pytest.fail("no comm_close")
    kc.comm_info()
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    assert reply["content"] == {"status": "ok", "comms": {}}


def test_heartbeat_echoes(kernel):
    km, _ = kernel
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.REQ)
    sock.connect(f"{km.transport}://{km.ip}:{km.hb_port}")
    try:
        sock.send(b"ping-1234")
        assert sock.poll(5000) != 0
        assert sock.recv() == b"ping-1234"
    finally:
        sock.close(0)


def test_syntax_error_has_line_and_caret(kernel):
    _, kc = kernel
    reply, msgs = run(kc, "def ok():\n    pass\n\ndef broken(:\n    pass\n")
    assert reply["status"] == "error"
    assert reply["ename"] == "SyntaxError"
    tb = reply["traceback"]
    assert "line 4" in tb[0]
    assert tb[1].strip() == "def broken(:"
    assert tb[2].index("^") == tb[1].index("(:") + 1


def test_is_complete_reports_indent(kernel):
    _, kc = kernel
    kc.is_complete("def f(x):")
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    assert reply["content"] == {"status": "incomplete", "indent": "    "}


def test_inspect_a_defined_function(kernel):
    _, kc = kernel
    run(kc, "def area(w: int, h: int) -> int:\n    '''The area of a w by h rectangle.'''\n    return w * h\n")
    kc.inspect("area(2, 3)", 2)
    content = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    assert content["found"]
    text = content["data"]["text/plain"]
    assert "area(w: int, h: int) -> int" in text and "rectangle" in text
    kc.complete("%who\nar", 7)
    content = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    assert content["matches"] == ["area"]
    assert (content["cursor_start"], content["cursor_end"]) == (5, 7)


def test_inspect_a_class_and_a_variable(kernel):
    _, kc = kernel
    run(kc, 'class Box:\n    "Holds one thing."\n    def __init__(self, item, size=1):\n        self.item = item\n\nb = Box("pen")\n')
    kc.inspect("Box", 3, 1)
    content = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    text = content["data"]["text/plain"]
    assert content["found"] and "Init signature: Box(item, size=1)" in text, text
    assert "class Box:" in text and "Type:           type" in text, text
    kc.inspect("b", 1)
    text = kc.get_shell_msg(timeout=TIMEOUT)["content"]["data"]["text/plain"]
    assert text.startswith("Type:        Box\n") and "Holds one thing." in text, text
    reply, msgs = run(kc, "b?")
    shown = [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "display_data"]
    assert shown == [text], msgs


def test_python_runtime_error_names_the_exception_and_line(kernel):
    _, kc = kernel
    reply, msgs = run(kc, "def f(x):\n    return 10 // x\n\nprint('before')\nf(0)\n")
    assert reply["status"] == "error"
    assert reply["ename"] == "ZeroDivisionError"
    assert reply["evalue"] == "integer division or modulo by zero"
    tb = "\n".join(reply["traceback"])
    assert "line 5" in tb and "line 2" in tb, tb
    streams = [m["content"]["text"] for m in msgs if m["msg_type"] == "stream"]
    assert "".join(streams) == "before\n"
    errors = [m for m in msgs if m["msg_type"] == "error"]
    assert [e["content"]["ename"] for e in errors] == ["ZeroDivisionError"]


def test_interrupt_stops_an_infinite_python_loop(kernel):
    km, kc = kernel
    # Only the interrupt can end this loop: the step budget is out of its reach.
    run(kc, "%config step_budget=1000000000000000")
    run(kc, "n = 41")
    interrupt(km, kc, "while True:\n    n = n + 1\n", after=0.5)
    # The session lives on, with the globals the loop left behind.
    reply, msgs = run(kc, "n > 41")
    results = [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "execute_result"]
    assert results == ["True"]


def test_the_step_budget_stops_a_runaway_cell(kernel):
    _, kc = kernel
    reply, _ = run(kc, "%config step_budget=1000")
    assert reply["status"] == "ok"
    reply, _ = run(kc, "i = 0\nwhile i >= 0:\n    i += 1\n")
    assert reply["status"] == "error"
    assert "1000" in reply["evalue"] or "budget" in reply["evalue"], reply
    reply, _ = run(kc, "print(i)")
    assert reply["status"] == "ok"
