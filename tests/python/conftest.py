"""Shared set-up of the Python client tests: the kernel under test is the one install.sh built."""

import json
import os
import pathlib
import sys
import time

import pytest

# The kernel's test commands (%__panic__, %__sleep__) are enabled only under this variable.
os.environ["ANALYSIS_KERNEL_TEST_HOOKS"] = "1"
KERNEL_NAME = os.environ.get("ANALYSIS_KERNEL_NAME", "analysis")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

NOTEBOOKS = sorted(pathlib.Path(ROOT, "notebooks").glob("*.ipynb"))
# Where the executed notebooks' HTML, screenshots and timings go (kept for inspection).
EXPORT_DIR = pathlib.Path(ROOT, "target", "notebook-html")
# JupyterLab's export template without scripts (see its index.html.j2).
TEMPLATES = pathlib.Path(ROOT, "kernel", "nbconvert")


def execute(path):
    """Runs the notebook at `path` headless in the kernel under test."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name=KERNEL_NAME, resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    return nb


def export_html(nb):
    """The self-contained HTML page of an executed notebook, as install.sh writes tour.html."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="analysis", extra_template_basedirs=[str(TEMPLATES)])
    html, _ = exporter.from_notebook_node(nb)
    return html


class Exported:
    """An executed notebook and its exported HTML page."""

    def __init__(self, path, nb, html_path, seconds):
        self.path, self.nb, self.html_path, self.seconds = path, nb, html_path, seconds


@pytest.fixture(scope="session")
def exported():
    """Every notebook executed once and exported, by stem; timings go to timings.json."""
    EXPORT_DIR.mkdir(parents=True, exist_ok=True)
    result, timings = {}, {}
    for path in NOTEBOOKS:
        started = time.perf_counter()
        nb = execute(path)
        html = export_html(nb)
        seconds = time.perf_counter() - started
        html_path = EXPORT_DIR / f"{path.stem}.html"
        html_path.write_text(html, encoding="utf-8")
        result[path.stem] = Exported(path, nb, html_path, seconds)
        timings[path.stem] = {"execute_and_export_seconds": round(seconds, 2), "html_bytes": len(html.encode())}
    (EXPORT_DIR / "timings.json").write_text(json.dumps(timings, indent=2) + "\n")
    return result
