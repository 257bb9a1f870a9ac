//! The Gradescope autograder (grading/gradescope/) in a simulated `/autograder` layout under a
//! temporary directory (`AUTOGRADER_ROOT`): package.sh assembles the uploaded files, setup.sh
//! installs the kernel, run_autograder grades what is in `submission/` and writes
//! `results/results.json`, which is validated against Gradescope's documented format
//! (tests/fixtures/grade/gradescope-results.schema.json) with `jsonschema` from `.venv`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(command: &mut Command) -> String {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{command:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Validates `files` against the schema; whether each is valid, in order.
fn validate(files: &[&Path]) -> Vec<bool> {
    let python = root().join(".venv/bin/python");
    assert!(python.exists(), "run ./install.sh first: it makes .venv");
    let fixtures = root().join("tests/fixtures/grade");
    let out = Command::new(python)
        .arg(fixtures.join("validate_json.py"))
        .arg(fixtures.join("gradescope-results.schema.json"))
        .args(files)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().count() == files.len(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout.lines().map(|l| l.ends_with(": valid")).collect()
}

/// Runs run_autograder on the submission files given as (name, contents); results.json.
fn autograde(ag: &Path, files: &[(&str, &[u8])]) -> Json {
    let submission = ag.join("submission");
    let _ = std::fs::remove_dir_all(&submission);
    let _ = std::fs::remove_dir_all(ag.join("results"));
    std::fs::create_dir_all(&submission).unwrap();
    for (name, contents) in files {
        std::fs::write(submission.join(name), contents).unwrap();
    }
    run(Command::new(ag.join("run_autograder"))
        .current_dir(ag)
        .env("AUTOGRADER_ROOT", ag));
    let path = ag.join("results/results.json");
    assert_eq!(validate(&[&path]), [true]);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn autograder_in_a_simulated_gradescope_layout() {
    let ag =
        std::env::temp_dir().join(format!("analysis-kernel-autograder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&ag);
    let scripts = root().join("grading/gradescope");
    // What the instructor uploads, unpacked where Gradescope unpacks it.
    run(Command::new(scripts.join("package.sh"))
        .arg(ag.join("source"))
        .arg(root().join("notebooks/assignment.grade.toml"))
        .env("ANALYSIS_KERNEL_BIN", env!("CARGO_BIN_EXE_analysis-kernel")));
    // The image build: setup.sh from the source directory, run_autograder copied to the root.
    let setup = run(Command::new("bash")
        .arg(ag.join("source/setup.sh"))
        .current_dir(ag.join("source"))
        .env("AUTOGRADER_ROOT", &ag));
    assert!(setup.contains("6 criteria, 10 points"), "{setup}");
    assert!(ag.join("bin/analysis-kernel").exists());
    std::fs::copy(ag.join("source/run_autograder"), ag.join("run_autograder")).unwrap();

    let fixtures = root().join("tests/fixtures/grade");
    let notebook = std::fs::read(root().join("notebooks/assignment.ipynb")).unwrap();
    let results = autograde(
        &ag,
        &[("assignment.ipynb", &notebook), ("notes.txt", b"hi")],
    );
    assert_eq!(results["score"], 10.0);
    assert_eq!(results["tests"].as_array().unwrap().len(), 6);
    assert!(ag.join("results/feedback/assignment.graded.ipynb").exists());

    let wrong = std::fs::read(fixtures.join("wrong_branch.py")).unwrap();
    let results = autograde(&ag, &[("answer.py", &wrong)]);
    assert_eq!(results["score"], 7.0);
    assert_eq!(results["tests"][5]["status"], "failed");
    assert_eq!(results["tests"][5]["visibility"], "after_published");
    assert!(
        results["tests"][5]["output"]
            .as_str()
            .unwrap()
            .contains("clamp(-1, 0, 3) should be 0")
    );

    let results = autograde(&ag, &[("answer.ipynb", b"{not json")]);
    assert_eq!(results["score"], 0.0);
    assert!(
        results["output"]
            .as_str()
            .unwrap()
            .contains("the notebook is not valid JSON")
    );

    let results = autograde(&ag, &[("answer.pdf", b"%PDF")]);
    assert_eq!(results["score"], 0);
    assert_eq!(
        results["output"],
        "No notebook (.ipynb) or Python file (.py) was submitted."
    );
    let _ = std::fs::remove_dir_all(&ag);
}

#[test]
fn the_schema_refuses_what_gradescope_would_not_read() {
    let dir = std::env::temp_dir().join(format!("analysis-kernel-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (r#"{"score": 1, "tests": []}"#, true),
        (
            r#"{"tests": [{"name": "a", "score": 1, "max_score": 1}]}"#,
            true,
        ),
        (r#"{"tests": [{"name": "a"}]}"#, false),
        (r#"{"score": 1, "visibility": "public"}"#, false),
        (
            r#"{"score": 1, "tests": [{"score": 1, "status": "ok"}]}"#,
            false,
        ),
        (r#"{"score": "1"}"#, false),
        (r#"{"score": 1, "test": []}"#, false),
    ];
    let paths: Vec<PathBuf> = cases
        .iter()
        .enumerate()
        .map(|(i, (text, _))| {
            let p = dir.join(format!("{i}.json"));
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect();
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let want: Vec<bool> = cases.iter().map(|(_, ok)| *ok).collect();
    assert_eq!(validate(&refs), want);
    let _ = std::fs::remove_dir_all(&dir);
}
