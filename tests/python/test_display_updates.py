"""update_display_data, clear_output and the progress line of long commands, through the
real jupyter_client."""

import pytest
from jupyter_client.manager import start_new_kernel

from conftest import KERNEL_NAME
from test_protocol import run


@pytest.fixture()
def kernel():
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME)
    try:
        yield km, kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def outputs(msgs):
    return [m for m in msgs if m["msg_type"] not in ("status", "execute_input")]


def test_clear_output_carries_wait(kernel):
    _, kc = kernel
    reply, msgs = run(kc, "print('a')\n%clear --wait\nprint('b')")
    assert reply["status"] == "ok"
    kinds = [(m["msg_type"], m["content"].get("wait")) for m in outputs(msgs)]
    assert kinds == [("stream", None), ("clear_output", True), ("stream", None)]
    _, msgs = run(kc, "%clear")
    assert [(m["msg_type"], m["content"]["wait"]) for m in outputs(msgs)] == [("clear_output", False)]
    reply, _ = run(kc, "%clear now")
    assert reply["status"] == "error" and reply["ename"] == "UsageError"


def test_a_long_command_shows_progress_blanked_before_its_result(kernel):
    _, kc = kernel
    reply, msgs = run(kc, "%__slow__ 3")
    assert reply["status"] == "ok"
    out = outputs(msgs)
    first = out[0]
    assert first["msg_type"] == "display_data"
    display_id = first["content"]["transient"]["display_id"]
    assert "%__slow__ 3: running" in first["content"]["data"]["text/plain"]
    updates, result = out[1:-1], out[-1]
    assert updates, "no update of the progress line"
    assert all(m["msg_type"] == "update_display_data" for m in updates)
    assert all(m["content"]["transient"]["display_id"] == display_id for m in updates)
    # The last update blanks the line; the result follows as an ordinary display_data.
    assert updates[-1]["content"]["data"] == {"text/plain": "", "text/html": ""}
    assert all("running" in m["content"]["data"]["text/plain"] for m in updates[:-1])
    assert result["msg_type"] == "display_data"
    assert result["content"]["data"]["text/plain"] == "slow command done"
    assert result["content"]["transient"] == {}


def test_a_quick_command_shows_no_progress(kernel):
    _, kc = kernel
    _, msgs = run(kc, "%__slow__ 0")
    out = outputs(msgs)
    assert [m["msg_type"] for m in out] == ["display_data"]
    assert out[0]["content"]["transient"] == {}


def test_a_failing_long_command_ends_its_progress_line(kernel):
    _, kc = kernel
    reply, msgs = run(kc, "%__sleep__ 2\n")
    assert reply["status"] == "ok"
    out = outputs(msgs)
    assert out[0]["msg_type"] == "display_data"
    last = out[-1]
    assert last["msg_type"] == "update_display_data"
    assert "%__sleep__ 2: finished after" in last["content"]["data"]["text/plain"]


def test_run_draws_the_run_through_the_kernel(kernel):
    _, kc = kernel
    reply, _ = run(kc, "def average(n):\n    total = 0\n    i = 0\n    while i < n:\n        total = total + i\n        i = i + 1\n    return total // i\n")
    assert reply["status"] == "ok"
    reply, msgs = run(kc, "%run average(4)")
    assert reply["status"] == "ok"
    [shown] = [m for m in msgs if m["msg_type"] == "display_data"]
    data = shown["content"]["data"]
    assert "<svg" in data["image/svg+xml"]
    payload = data["application/vnd.analysis-kernel.run+json"]
    assert payload["result"] == "1" and payload["unmatched"] == []
    assert payload["activations"] == [{"function": "average", "lines": [2, 3, 4, 5, 6, 4, 5, 6, 4, 5, 6, 4, 5, 6, 4, 7], "raised": False}]
    assert data["text/plain"].startswith("average(4) returned 1")


AVERAGE = "def average(n):\n    total = 0\n    i = 0\n    while i < n:\n        total = total + i\n        i = i + 1\n    return total // i\n"


@pytest.mark.parametrize("command", ["%dataflow reaching average", "%absint interval average", "%dataflow live average"])
def test_stepping_updates_one_output_and_ends_with_the_plain_view(kernel, command):
    _, kc = kernel
    run(kc, AVERAGE)
    run(kc, "%config step_delay_ms=0")
    _, plain = run(kc, command)
    [plain_view] = [m for m in plain if m["msg_type"] == "display_data"]
    reply, msgs = run(kc, command + " --step")
    assert reply["status"] == "ok"
    first = next(m for m in msgs if m["msg_type"] == "display_data" and "analysis-kernel-step" in m["content"]["transient"].get("display_id", ""))
    display_id = first["content"]["transient"]["display_id"]
    steps = [first] + [m for m in msgs if m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id]
    assert len(steps) >= 5, "the worklist has several steps"
    # Steps arrive in order: each figure's title counts the node visits so far.
    visits = [int(__import__("re").search(r"(\d+) node visits", s["content"]["data"]["text/plain"]).group(1)) for s in steps]
    assert visits[:-1] == list(range(1, len(steps))), visits
    assert steps[-1]["content"]["data"] == plain_view["content"]["data"]
    strip = [m for m in msgs if m["msg_type"] in ("display_data", "update_display_data") and "<details" in m["content"]["data"].get("text/html", "")]
    assert strip and strip[-1]["content"]["data"]["text/html"].count("<svg") == len(steps) - 1


CLASSIFY = "def classify(x: int, y: int) -> str:\n    if x > 2 * y:\n        return 'big'\n    elif x < 0:\n        return 'negative'\n    return 'small'\n"


def test_set_steps_the_exploration_and_ends_with_the_plain_tree(kernel):
    _, kc = kernel
    run(kc, CLASSIFY)
    run(kc, "%config step_delay_ms=0")
    _, plain = run(kc, "%set classify")
    [plain_view] = [m for m in plain if m["msg_type"] == "display_data"]
    reply, msgs = run(kc, "%set classify --step")
    assert reply["status"] == "ok"
    first = next(m for m in msgs if m["msg_type"] == "display_data" and "analysis-kernel-step" in m["content"]["transient"].get("display_id", ""))
    display_id = first["content"]["transient"]["display_id"]
    steps = [first] + [m for m in msgs if m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id]
    mime = "application/vnd.analysis-kernel.set+json"
    total = len(plain_view["content"]["data"][mime]["nodes"])
    assert total >= 5
    # Steps arrive in order: one more node each, the tree's nodes in the order they were added.
    counts = [len(s["content"]["data"][mime]["nodes"]) for s in steps]
    assert counts == list(range(1, total + 1)) + [total], counts
    assert steps[-1]["content"]["data"] == plain_view["content"]["data"]
    strip = [m for m in msgs if m["msg_type"] == "display_data" and "<details" in m["content"]["data"].get("text/html", "")]
    assert strip and strip[-1]["content"]["data"]["text/html"].count("<svg") == total
