//! Runs the Python client suite (tests/python: jupyter_kernel_test, protocol tests through
//! jupyter_client, notebooks through nbclient and nbconvert) against the kernel binary that
//! this `cargo test` just built. The Python tools come from `.venv`, made by `./install.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn python_client_suite() {
    let root = root();
    let python = root.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run ./install.sh first (it creates .venv with the Jupyter client tools)",
        python.display()
    );
    // A private kernelspec pointing at the binary under test, found first through JUPYTER_PATH.
    let prefix = std::env::temp_dir().join(format!("analysis-kernel-test-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_analysis-kernel"))
        .args(["install", "--prefix"])
        .arg(&prefix)
        .args(["--name", "analysis-under-test"])
        .status()
        .expect("run analysis-kernel install");
    assert!(status.success(), "installing the kernelspec failed");
    let jupyter_path = prefix.join("share/jupyter");
    let status = Command::new(&python)
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/python",
        ])
        .current_dir(&root)
        .env("JUPYTER_PATH", &jupyter_path)
        .env("ANALYSIS_KERNEL_NAME", "analysis-under-test")
        .env("ANALYSIS_KERNEL_BIN", env!("CARGO_BIN_EXE_analysis-kernel"))
        .status()
        .expect("run pytest");
    let _ = std::fs::remove_dir_all(&prefix);
    assert!(
        status.success(),
        "the Python client suite failed (see its output above)"
    );
}

#[test]
fn binary_reports_version_and_help() {
    let out = Command::new(env!("CARGO_BIN_EXE_analysis-kernel"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("analysis-kernel "));
    let out = Command::new(env!("CARGO_BIN_EXE_analysis-kernel"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--connection-file"));
    let out = Command::new(env!("CARGO_BIN_EXE_analysis-kernel"))
        .arg("--bogus")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let missing = Path::new("/nonexistent/connection.json");
    let out = Command::new(env!("CARGO_BIN_EXE_analysis-kernel"))
        .arg("--connection-file")
        .arg(missing)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the connection file"));
}
