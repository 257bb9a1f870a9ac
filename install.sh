#!/usr/bin/env bash
# Sets up analysis-kernel on a fresh Debian machine and runs the tour notebook:
#   system packages -> Python client tools and Z3 wheel in .venv -> release build -> kernelspec
#   -> tour.html
# Safe to run again: every step skips what is already done.
set -euo pipefail
cd "$(dirname "$0")"
say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# 1. System packages: Graphviz (figures), a C compiler (the linker, and mimalloc's sources),
#    venv, and headless Chromium with a font for the tests' browser check of the exported
#    pages. Z3 is not one of them: libz3 comes from PyPI's z3-solver wheel (step 2).
need=()
for pkg in graphviz gcc chromium fonts-dejavu-core; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
python3 -m venv --help >/dev/null 2>&1 || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  say "installing system packages: ${need[*]}"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "Missing packages: ${need[*]}. Install them as root (apt-get install ${need[*]}) and run ./install.sh again." >&2
    exit 1
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v cargo >/dev/null || { echo "cargo (Rust 1.95 or newer) is needed: https://rustup.rs" >&2; exit 1; }

# 2. Python client tools (Jupyter client, nbclient, nbconvert, test tools; nbgrader, jsonschema
#    and kubernetes-validate for the grading integrations' tests) in .venv.
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  python3 -m venv .venv
fi
stamp=.venv/.requirements-installed
if ! cmp -s requirements-dev.txt "$stamp" 2>/dev/null; then
  say "installing Python client tools into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r requirements-dev.txt
  cp requirements-dev.txt "$stamp"
fi

# 2b. Z3: the libz3 of PyPI's z3-solver wheel (pinned in requirements-z3.txt; a runtime
#     library of the kernel, not a test tool). `.z3` is a fixed symlink to the wheel's package
#     directory: .cargo/config.toml points z3-sys at .z3/lib and build.rs gives every binary
#     an rpath to it, so neither the build nor Jupyter needs LD_LIBRARY_PATH.
z3stamp=.venv/.requirements-z3-installed
if ! cmp -s requirements-z3.txt "$z3stamp" 2>/dev/null; then
  say "installing the Z3 library (z3-solver wheel) into .venv"
  .venv/bin/python -m pip install -q -r requirements-z3.txt
  cp requirements-z3.txt "$z3stamp"
fi
z3dir=$(.venv/bin/python -c 'import os, sysconfig; print(os.path.relpath(os.path.join(sysconfig.get_paths()["purelib"], "z3")))')
[ -f "$z3dir/lib/libz3.so" ] || { echo "the z3-solver wheel has no $z3dir/lib/libz3.so" >&2; exit 1; }
ln -sfn "$z3dir" .z3

# 3. The kernel.
say "building the kernel (release)"
cargo build --release --locked

# 3b. `%%rust` cells: start evcxr once and run a cell against the prelude, so that a missing
#     rustc/cargo or a broken evcxr shows now rather than in a notebook (the prelude has no
#     dependencies: each session builds it in about a second; see ARCHITECTURE.md).
say "checking %%rust cells (evcxr)"
./target/release/analysis-kernel warm-rust

# 4. Kernelspec, for the user and for .venv's Jupyter.
./target/release/analysis-kernel install --user
./target/release/analysis-kernel install --prefix .venv

# 5. The tour, executed headless and exported to HTML.
say "executing notebooks/tour.ipynb -> tour.html"
.venv/bin/jupyter nbconvert --to html --execute --ExecutePreprocessor.kernel_name=analysis \
  --TemplateExporter.extra_template_basedirs=kernel/nbconvert --template analysis \
  --output-dir . --output tour notebooks/tour.ipynb
say "done: open tour.html, or start JupyterLab with .venv/bin/jupyter lab and pick \"Program Analysis (Python)\""
