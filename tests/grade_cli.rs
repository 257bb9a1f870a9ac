//! `analysis-kernel grade` end to end: the example assignment's spec graded on a correct
//! submission, seeded wrong ones and hostile ones (tests/fixtures/grade/), plus a notebook
//! that is not JSON and one of 10,000 cells, two at a time, each in its own process.
//! Scores, messages and the Gradescope `results.json` fields are checked.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The expected score of each fixture, and a text its report must contain.
const EXPECTED: &[(&str, f64, &str)] = &[
    ("correct.py", 10.0, "all tests passed"),
    ("no_precondition.py", 9.0, "Hint: State it in the docstring"),
    (
        "three_conditions.py",
        6.0,
        "expected len([n for n in payload['nodes']",
    ),
    (
        "wrong_branch.py",
        7.0,
        "AssertionError: clamp(-1, 0, 3) should be 0",
    ),
    (
        "wrong_signature.py",
        // Its clamp is correct but unannotated: %set infers the parameters' types (issue
        // 15), so the symbolic-execution criterion passes; the signature one still fails.
        4.0,
        "defined as clamp(value, low, high)",
    ),
    ("endless_loop.py", 6.0, "StepBudgetExceeded"),
    ("deep_recursion.py", 2.0, "RecursionError"),
    ("huge_allocation.py", 0.0, "memory_mb is fixed here"),
    ("reads_files.py", 2.0, "open() is not supported"),
    ("assignment.ipynb", 10.0, "all tests passed"),
    (
        "not_json.ipynb",
        0.0,
        "not graded: the notebook is not valid JSON",
    ),
    ("many_cells.ipynb", 10.0, "all tests passed"),
];

fn notebook(cells: &[String]) -> String {
    let cells: Vec<Json> = cells
        .iter()
        .map(|c| serde_json::json!({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, "source": c}))
        .collect();
    serde_json::json!({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells})
        .to_string()
}

#[test]
fn grades_the_example_assignment_and_survives_hostile_submissions() {
    let dir = std::env::temp_dir().join(format!("analysis-kernel-grade-{}", std::process::id()));
    let submissions = dir.join("submissions");
    std::fs::create_dir_all(&submissions).unwrap();
    let fixtures = root().join("tests/fixtures/grade");
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "py") {
            std::fs::copy(&path, submissions.join(path.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(
        root().join("notebooks/assignment.ipynb"),
        submissions.join("assignment.ipynb"),
    )
    .unwrap();
    std::fs::write(submissions.join("not_json.ipynb"), "{\"cells\": [").unwrap();
    let correct = std::fs::read_to_string(fixtures.join("correct.py")).unwrap();
    let mut cells = vec![correct.replace("# %%\n", "")];
    cells.extend((0..10_000).map(|i| format!("x{i} = {i}")));
    std::fs::write(submissions.join("many_cells.ipynb"), notebook(&cells)).unwrap();

    let out = dir.join("out");
    let paths: Vec<PathBuf> = EXPECTED
        .iter()
        .map(|(f, _, _)| submissions.join(f))
        .collect();
    let status = Command::new(env!("CARGO_BIN_EXE_analysis-kernel"))
        .arg("grade")
        .arg(root().join("notebooks/assignment.grade.toml"))
        .args(&paths)
        .args(["--jobs", "2", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1), "some submissions fail a criterion");

    let summary = std::fs::read_to_string(out.join("summary.jsonl")).unwrap();
    let reports: Vec<Json> = summary
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reports.len(), EXPECTED.len());
    for ((file, score, text), report) in EXPECTED.iter().zip(&reports) {
        assert!(report["submission"].as_str().unwrap().ends_with(file));
        let got: f64 = report["criteria"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["score"].as_f64().unwrap())
            .sum();
        let whole = report.to_string();
        assert_eq!(got, *score, "{file}: {whole}");
        assert!(
            whole.contains(text),
            "{file} does not say {text:?}: {whole}"
        );
    }
    assert!(!Path::new("/tmp/graded-submission-escaped").exists());

    // Gradescope's results.json: a score and tests with name, score, max_score, visibility.
    let results: Json = serde_json::from_str(
        &std::fs::read_to_string(out.join("wrong_branch.results.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(results["score"], 7.0);
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 6);
    for t in tests {
        for key in [
            "name",
            "score",
            "max_score",
            "output",
            "visibility",
            "status",
        ] {
            assert!(t.get(key).is_some(), "{key} missing in {t}");
        }
    }
    assert_eq!(tests[5]["visibility"], "after_published");
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(csv.starts_with("submission,criterion,score,max_score,passed,output\n"));
    for (file, _, _) in EXPECTED {
        assert!(
            csv.contains(&format!("{file},hidden tests,")),
            "{file} not in the CSV"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_command_lines_and_specs_exit_with_2() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_analysis-kernel"))
            .arg("grade")
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("grade needs a SPEC file"));
    let spec = root().join("notebooks/assignment.grade.toml");
    let spec = spec.to_str().unwrap();
    assert_eq!(run(&[spec]).status.code(), Some(2));
    assert_eq!(
        run(&[spec, "x.ipynb", "--shard", "2/2"]).status.code(),
        Some(2)
    );
    let bad = std::env::temp_dir().join(format!("bad-spec-{}.toml", std::process::id()));
    std::fs::write(
        &bad,
        "[[criterion]]\nname = \"a\"\nrun = \"cfg f\"\nexpect = \"True\"\n",
    )
    .unwrap();
    let out = run(&[bad.to_str().unwrap(), "x.ipynb"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`run` is a % command"));
    let _ = std::fs::remove_file(&bad);
}
