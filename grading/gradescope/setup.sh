#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image; the uploaded zip is
# unpacked in $AUTOGRADER_ROOT/source (AUTOGRADER_ROOT is /autograder on Gradescope; a test
# points it at a temporary directory). It installs the kernel binary and its Z3 library under
# $AUTOGRADER_ROOT/bin and /lib and checks that the binary starts. Nothing else is needed:
# grading uses no Python, Jupyter or Graphviz.
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
src="$root/source"
mkdir -p "$root/bin" "$root/lib"
install -m 0755 "$src/analysis-kernel" "$root/bin/analysis-kernel"
cp "$src"/lib/libz3.so* "$root/lib/"
LD_LIBRARY_PATH="$root/lib" "$root/bin/analysis-kernel" --version
LD_LIBRARY_PATH="$root/lib" "$root/bin/analysis-kernel" grade --check-spec "$src/grade.toml"
