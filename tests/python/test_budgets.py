"""The memory budget seen from a Jupyter client: a cell over `%config memory_mb` fails with
MemoryError, the kernel lives on with its variables, and its resident size stays under the budget."""

from test_protocol import kernel, run  # noqa: F401 (kernel is a fixture)

BUDGET_MB = 256


def vm_rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS line")


def result_text(msgs):
    return [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "execute_result"]


def test_memory_error_keeps_the_kernel_alive_and_under_budget(kernel):  # noqa: F811
    km, kc = kernel
    reply, _ = run(kc, f"%config memory_mb={BUDGET_MB}\nkept = 42")
    assert reply["status"] == "ok"
    reply, msgs = run(kc, "l = []\nwhile True:\n    l.append('b' * 1000000)")
    assert reply["status"] == "error"
    assert reply["ename"] == "MemoryError", reply
    assert "%config memory_mb" in reply["evalue"]
    assert any("Cell line 3" in line for line in reply["traceback"]), reply["traceback"]
    assert [m for m in msgs if m["msg_type"] == "error"]
    rss_kb = vm_rss_kb(km.provisioner.process.pid)
    assert rss_kb < BUDGET_MB * 1024, f"resident {rss_kb} kB over the {BUDGET_MB} MB budget"
    reply, msgs = run(kc, "(kept, len(l) > 10)")
    assert reply["status"] == "ok"
    assert result_text(msgs) == ["(42, True)"]
    reply, msgs = run(kc, "del l\n%config memory_mb=2048\n%who")
    assert reply["status"] == "ok"
