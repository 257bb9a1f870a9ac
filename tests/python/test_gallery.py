"""The README's gallery: figures taken from the executed notebooks (cells tagged
`gallery-NAME`) and written to docs/gallery/NAME.svg, so the README shows what the tests ran."""

import pathlib

from conftest import ROOT

GALLERY = pathlib.Path(ROOT, "docs", "gallery")
EXPECTED = {"cfg", "constraints", "symbolic-tree", "absint"}


def test_gallery_figures_come_from_the_notebooks(exported):
    written = set()
    for e in exported.values():
        for cell in e.nb.cells:
            names = [t[len("gallery-"):] for t in cell.metadata.get("tags", []) if t.startswith("gallery-")]
            if not names:
                continue
            svgs = [o["data"]["image/svg+xml"] for o in cell.outputs if "image/svg+xml" in o.get("data", {})]
            assert len(svgs) == 1, f"gallery cell {cell.source!r} has {len(svgs)} figures"
            svg = svgs[0] if svgs[0].endswith("\n") else svgs[0] + "\n"
            assert svg.lstrip().startswith(("<?xml", "<svg", "<!DOCTYPE")), svg[:80]
            for name in names:
                GALLERY.mkdir(parents=True, exist_ok=True)
                target = GALLERY / f"{name}.svg"
                # Written only when it changed, so a clean checkout stays clean.
                if not target.exists() or target.read_text(encoding="utf-8") != svg:
                    target.write_text(svg, encoding="utf-8")
                written.add(name)
    assert written == EXPECTED
    readme = pathlib.Path(ROOT, "README.md").read_text(encoding="utf-8")
    for name in EXPECTED:
        assert f"docs/gallery/{name}.svg" in readme, f"the README does not show {name}"
