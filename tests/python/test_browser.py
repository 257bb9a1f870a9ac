"""The exported notebooks in a real browser: headless Chromium lays every page out, each SVG
figure gets a non-zero size, and the console stays free of errors."""

import json
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import EXPORT_DIR, NOTEBOOKS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--metrics-recording-only",
    "--no-first-run",
    "--no-default-browser-check",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
]
# Installed before the page's own content: records script errors, failed loads and console
# errors and warnings.
PROBE_HEAD = """<script>
window.__problems = [];
addEventListener("error", e => __problems.push("error: " + (e.message || (e.target && (e.target.src || e.target.href)) || e.type)), true);
for (const level of ["error", "warn"]) {
  const original = console[level];
  console[level] = (...args) => { __problems.push(level + ": " + args.join(" ")); original.apply(console, args); };
}
</script>"""
# Runs after the page is parsed: measures every outermost SVG and reports into the DOM.
PROBE_TAIL = """<script>
const svgs = Array.from(document.querySelectorAll("svg")).filter(s => !s.parentElement.closest("svg"));
const sizes = svgs.map(s => { const r = s.getBoundingClientRect(); return [r.width, r.height]; });
const report = document.createElement("pre");
report.id = "analysis-kernel-probe";
report.textContent = JSON.stringify({sizes, problems: window.__problems});
document.body.appendChild(report);
</script>"""


def chromium(args, tmp_path, timeout=120):
    if CHROMIUM is None:
        pytest.fail("chromium is not installed: ./install.sh installs it (apt-get install chromium)")
    profile = tmp_path / "profile"
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=timeout,
    )


def console_problems(stderr):
    """Console messages Chromium logged for the page at error level or as uncaught errors."""
    lines = [l for l in stderr.splitlines() if ":CONSOLE" in l]
    return [l for l in lines if re.search(r"Uncaught|Error|Failed to load", l)]


@pytest.mark.parametrize("stem", [p.stem for p in NOTEBOOKS])
def test_exported_page_renders_in_chromium(stem, exported, tmp_path):
    page = exported[stem].html_path
    html = page.read_text(encoding="utf-8")
    probed = html.replace("<head>", "<head>" + PROBE_HEAD, 1).replace("</body>", PROBE_TAIL + "</body>", 1)
    probe_page = tmp_path / f"{stem}.probe.html"
    probe_page.write_text(probed, encoding="utf-8")

    run = chromium(["--virtual-time-budget=5000", "--dump-dom", probe_page.as_uri()], tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    found = re.search(r'<pre id="analysis-kernel-probe">(.*?)</pre>', run.stdout, re.S)
    assert found, "the probe did not run"
    report = json.loads(found.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"'))
    assert report["problems"] == [], report["problems"]
    assert console_problems(run.stderr) == []
    expected = html.count("<svg")
    assert len(report["sizes"]) >= 1
    assert len(report["sizes"]) <= expected
    empty = [s for s in report["sizes"] if not (s[0] > 0 and s[1] > 0)]
    assert empty == [], f"{len(empty)} of {len(report['sizes'])} figures have no size"

    # A screenshot of the unmodified page, kept next to it for people to look at.
    shot = EXPORT_DIR / f"{stem}.png"
    run = chromium(["--window-size=1280,2400", f"--screenshot={shot}", page.as_uri()], tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert console_problems(run.stderr) == []
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
