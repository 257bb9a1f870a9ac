#!/usr/bin/env bash
# Assembles a Gradescope autograder for an assignment: the directory whose *contents* you zip
# and upload ("Configure Autograder" -> zip file):
#   grading/gradescope/package.sh OUT_DIR SPEC.toml      # then: cd OUT_DIR && zip -r ../autograder.zip .
# OUT_DIR gets setup.sh, run_autograder, the spec (as grade.toml), the kernel binary and the Z3
# library it links (lib/). The binary is this checkout's release build (./install.sh builds it)
# or $ANALYSIS_KERNEL_BIN; it must be built for the autograder image's architecture (x86_64
# Linux, glibc as old as the image's: build on the same Ubuntu release to be safe).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
[ $# -eq 2 ] || { echo "usage: $0 OUT_DIR SPEC.toml" >&2; exit 2; }
out="$1"
spec="$2"
bin="${ANALYSIS_KERNEL_BIN:-$repo/target/release/analysis-kernel}"
[ -x "$bin" ] || { echo "no kernel binary at $bin: run ./install.sh (or cargo build --release)" >&2; exit 1; }
[ -f "$spec" ] || { echo "no spec at $spec" >&2; exit 1; }
# The grader refuses a broken spec now rather than on every student's submission.
"$bin" grade --check-spec "$spec" >/dev/null
libz3="$(ldd "$bin" | awk '/libz3/ {print $3; exit}')"
[ -n "$libz3" ] && [ -f "$libz3" ] || { echo "cannot find the libz3 that $bin links" >&2; exit 1; }
mkdir -p "$out/lib"
cp "$here/setup.sh" "$here/run_autograder" "$out/"
chmod +x "$out/setup.sh" "$out/run_autograder"
cp "$spec" "$out/grade.toml"
cp "$bin" "$out/analysis-kernel"
cp -L "$libz3" "$out/lib/$(basename "$libz3")"
echo "autograder files in $out: zip its contents (cd $out && zip -r ../autograder.zip .)"
