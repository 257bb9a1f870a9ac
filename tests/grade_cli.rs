//! `analysis-kernel grade` end to end: the example assignment's spec graded on a correct
//! submission, seeded wrong ones and hostile or broken ones (tests/fixtures/grade/), plus
//! notebooks that are empty or not JSON and one of 10,000 cells, two at a time, each in its
//! own process. Scores, messages, the Gradescope `results.json` fields, the executed
//! notebooks with feedback (validated by nbformat) and the exit codes are checked.

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
        // Its clamp is correct but unannotated: %set and %constraints infer the parameters'
        // types (issue 15), so the symbolic-execution criterion passes and its stated
        // precondition `low <= high` is read; the signature one still fails.
        5.0,
        "defined as clamp(value, low, high)",
    ),
    ("endless_loop.py", 6.0, "StepBudgetExceeded"),
    ("deep_recursion.py", 2.0, "RecursionError"),
    ("huge_allocation.py", 0.0, "memory_mb is fixed here"),
    (
        "reads_files.py",
        2.0,
        "open() (cells run in a sandbox: no file",
    ),
    ("assignment.ipynb", 10.0, "all tests passed"),
    (
        "not_json.ipynb",
        0.0,
        "not graded: the notebook is not valid JSON",
    ),
    ("many_cells.ipynb", 10.0, "all tests passed"),
    (
        "imports_os.py",
        10.0,
        "ImportError: module 'subprocess' is not available in the sandbox",
    ),
    (
        "prints_megabytes.py",
        10.0,
        "StepBudgetExceeded: the program ran more than 1000000 steps",
    ),
    (
        "raises_at_import.py",
        1.0,
        "clamp() is written but not defined: the cell that defines it raised an error first",
    ),
    ("empty.py", 0.0, "no function clamp() is defined"),
    (
        "empty.ipynb",
        0.0,
        "not graded: the notebook is not valid JSON: EOF while parsing",
    ),
    ("mixed_cells.ipynb", 10.0, "all tests passed"),
];

/// Checks every notebook under `dir` with nbformat's validator (from `.venv`).
fn validate_notebooks(dir: &Path) {
    let python = root().join(".venv/bin/python");
    assert!(python.exists(), "run ./install.sh first: it makes .venv");
    let out = Command::new(python)
        .arg("-c")
        .arg(
            "import glob, sys, nbformat\n\
             paths = sorted(glob.glob(sys.argv[1] + '/*.graded.ipynb'))\n\
             for p in paths:\n    nbformat.validate(nbformat.read(p, as_version=4))\n\
             print(len(paths))",
        )
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        EXPECTED.len().to_string()
    );
}

fn read_json(path: &Path) -> Json {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

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
        if path.extension().is_some_and(|e| e == "py" || e == "ipynb") {
            std::fs::copy(&path, submissions.join(path.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(
        root().join("notebooks/assignment.ipynb"),
        submissions.join("assignment.ipynb"),
    )
    .unwrap();
    std::fs::write(submissions.join("not_json.ipynb"), "{\"cells\": [").unwrap();
    std::fs::write(submissions.join("empty.ipynb"), "").unwrap();
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

    // The executed notebooks: valid nbformat, the student's cells with the outputs they gave
    // here (stale saved outputs replaced), then a feedback cell per criterion.
    validate_notebooks(&out);
    let nb = read_json(&out.join("mixed_cells.graded.ipynb"));
    let cells = nb["cells"].as_array().unwrap();
    let kinds: Vec<&str> = cells
        .iter()
        .map(|c| c["cell_type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds[..6],
        ["markdown", "raw", "code", "markdown", "code", "code"]
    );
    assert_eq!(kinds.len(), 6 + 1 + 6, "{kinds:?}");
    let defined = cells[2]["outputs"].as_array().unwrap();
    assert_eq!(defined.len(), 1, "stale error kept: {defined:?}");
    assert_eq!(defined[0]["output_type"], "display_data");
    assert_eq!(cells[4]["outputs"][0]["output_type"], "display_data");
    assert!(!nb.to_string().contains("faked"));
    assert_eq!(
        cells[5]["outputs"][0]["text"], "clamp(5, 0, 3) = 3\n",
        "{}",
        cells[5]
    );
    assert_eq!(cells[6]["source"], "## Grade: 10 / 10\n");
    assert_eq!(
        cells[12]["source"],
        "### hidden tests: 3 / 3 (passed)\n\n> all tests passed\n"
    );
    let nb = read_json(&out.join("prints_megabytes.graded.ipynb"));
    let first = nb["cells"][0]["outputs"].as_array().unwrap();
    assert_eq!(first[0]["text"].as_str().unwrap().len(), 64 * 1024);
    assert!(
        first[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("[the grader cut ")
    );
    assert_eq!(first[2]["ename"], "StepBudgetExceeded");
    let nb = read_json(&out.join("not_json.graded.ipynb"));
    assert!(
        nb["cells"][0]["source"]
            .as_str()
            .unwrap()
            .contains("not graded: the notebook is not valid JSON")
    );
    let nb = read_json(&out.join("wrong_branch.graded.ipynb"));
    assert!(
        nb.to_string()
            .contains("(failed)\\n\\n> a test failed: AssertionError")
    );

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
fn exit_code_is_0_when_every_criterion_passes() {
    let status = Command::new(env!("CARGO_BIN_EXE_analysis-kernel"))
        .arg("grade")
        .arg(root().join("notebooks/assignment.grade.toml"))
        .arg(root().join("notebooks/assignment.ipynb"))
        .arg(root().join("tests/fixtures/grade/correct.py"))
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
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
