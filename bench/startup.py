"""Kernel start-up and cell latency, measured with the real jupyter_client.

Usage: .venv/bin/python bench/startup.py [--runs 20]
Prints, for analysis-kernel and ipykernel: median time from process start to kernel_info_reply,
and the median end-to-end latency of a %%dot cell (analysis-kernel only).
"""

import argparse
import statistics
import sys
import time

from jupyter_client.manager import KernelManager


def time_to_kernel_info(kernel_name):
    km = KernelManager(kernel_name=kernel_name)
    start = time.perf_counter()
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        while True:
            kc.kernel_info()
            try:
                reply = kc.get_shell_msg(timeout=0.05)
            except Exception:
                continue
            if reply["msg_type"] == "kernel_info_reply":
                return time.perf_counter() - start, km, kc
    except BaseException:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        raise


def cell_latency(kc, code, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        reply = kc.execute_interactive(code, timeout=60, output_hook=lambda m: None)
        times.append(time.perf_counter() - start)
        assert reply["content"]["status"] == "ok", reply["content"]
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--kernel", default="analysis")
    args = parser.parse_args()
    results = {}
    for name in (args.kernel, "python3"):
        samples = []
        for _ in range(args.runs):
            t, km, kc = time_to_kernel_info(name)
            samples.append(t)
            kc.stop_channels()
            km.shutdown_kernel(now=True)
        results[name] = statistics.median(samples)
        print(f"{name:>10}: start -> kernel_info_reply median {results[name] * 1000:.1f} ms "
              f"(min {min(samples) * 1000:.1f}, max {max(samples) * 1000:.1f}, n={len(samples)})")
    print(f"ratio ipykernel / analysis-kernel: {results['python3'] / results[args.kernel]:.1f}x")
    _, km, kc = time_to_kernel_info(args.kernel)
    try:
        dot = "%%dot\ndigraph { rankdir=LR; a -> b -> c; b -> d; d -> a }"
        print(f"%%dot cell end-to-end: median {cell_latency(kc, dot, args.runs) * 1000:.1f} ms")
        print(f"%who cell end-to-end: median {cell_latency(kc, '%who', args.runs) * 1000:.1f} ms")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    sys.exit(main())
