"""Every notebook under notebooks/ runs headless with nbclient and exports to self-contained HTML."""

import os
import pathlib

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter

from conftest import KERNEL_NAME, ROOT

NOTEBOOKS = sorted(pathlib.Path(ROOT, "notebooks").glob("*.ipynb"))


def execute(path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name=KERNEL_NAME, resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes_and_exports(path, tmp_path):
    nb = execute(path)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        expected = "raises-exception" in cell.metadata.get("tags", [])
        assert bool(errors) == expected, f"cell {cell.source[:60]!r}: errors {errors}"
    html, _ = HTMLExporter().from_notebook_node(nb)
    out = tmp_path / f"{path.stem}.html"
    out.write_text(html)
    assert "<svg" in html, "figures are inline SVG"
    assert 'src="http' not in html.split("<body")[-1].split("<script")[0], "no external images"


def test_tour_shows_every_promised_view():
    nb = execute(pathlib.Path(ROOT, "notebooks", "tour.ipynb"))
    mimes = {m for c in nb.cells if c.cell_type == "code" for o in c.outputs for m in o.get("data", {})}
    assert "application/vnd.analysis-kernel.dot+json" in mimes
    assert "image/svg+xml" in mimes
    enames = {o.ename for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"}
    assert {"SyntaxError", "UsageError"} <= enames


def test_outputs_are_deterministic():
    """Two runs of the tour give identical outputs, so exported HTML is stable."""
    path = pathlib.Path(ROOT, "notebooks", "tour.ipynb")
    first, second = execute(path), execute(path)
    strip = lambda nb: [[{k: v for k, v in o.items() if k != "execution_count"} for o in c.get("outputs", [])] for c in nb.cells]
    assert strip(first) == strip(second)
