"""The executed tour opened in a real JupyterLab, rendered by headless Chromium: every figure of
the kernel's outputs is drawn as SVG in the notebook panel, and one screenshot is kept.

JupyterLab sanitizes the HTML of untrusted outputs, which removes inline SVG; a notebook the user
executed is trusted, and so is this one once signed (as `jupyter trust` does)."""

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request

import nbformat
import pytest

from conftest import EXPORT_DIR
from test_browser import chromium

TOKEN = "analysis-kernel-test"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def lab(tmp_path):
    """A JupyterLab server on a free port, serving `tmp_path/root`, with its own data dir."""
    root = tmp_path / "root"
    root.mkdir()
    env = dict(os.environ, JUPYTER_DATA_DIR=str(tmp_path / "data"), JUPYTER_CONFIG_DIR=str(tmp_path / "config"))
    port = free_port()
    log = open(tmp_path / "lab.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--allow-root", "--no-browser", f"--port={port}",
         f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root}", "--LabApp.news_url=None"],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.time() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={TOKEN}", timeout=5):
                    break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    pytest.fail("JupyterLab did not start: " + (tmp_path / "lab.log").read_text()[-2000:])
                time.sleep(0.5)
        yield root, port, env
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def test_tour_figures_render_in_jupyterlab(exported, lab, tmp_path):
    root, port, env = lab
    nb = exported["tour"].nb
    path = root / "tour.ipynb"
    nbformat.write(nb, str(path))
    subprocess.run([sys.executable, "-m", "jupyter", "trust", str(path)], env=env, check=True, capture_output=True)
    figures = sum(1 for c in nb.cells if c.cell_type == "code" for o in c.outputs if "<svg" in o.get("data", {}).get("text/html", ""))
    assert figures >= 6

    url = f"http://127.0.0.1:{port}/lab/tree/tour.ipynb?token={TOKEN}"
    drawn = 0
    for budget in (30_000, 90_000):  # a slow machine gets a second, longer look
        run = chromium(["--window-size=1400,3000", f"--virtual-time-budget={budget}", "--dump-dom", url], tmp_path, timeout=240)
        assert run.returncode == 0, run.stderr[-2000:]
        drawn = len(re.findall(r'<g id="graph0" class="graph"', run.stdout))
        if drawn == figures:
            break
    assert drawn == figures, f"JupyterLab drew {drawn} of the tour's {figures} figures"

    shot = EXPORT_DIR / "jupyterlab-tour.png"
    run = chromium(["--window-size=1400,3000", "--virtual-time-budget=30000", f"--screenshot={shot}", url], tmp_path, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
