//! The assignment variant of `notebooks/your_own_analysis.ipynb` graded by
//! `notebooks/your_own_analysis.grade.toml`: the notebook's own solution gets every point; a
//! student domain that is sound but less precise than the reference loses the precision
//! criterion; an unsound one loses both.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value as Json;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The notebook with `from` replaced by `to` in the cell defining `student_sign`.
fn variant(nb: &Json, from: &str, to: &str) -> Json {
    let mut nb = nb.clone();
    let mut replaced = 0;
    for cell in nb["cells"].as_array_mut().unwrap() {
        let source: String = match &cell["source"] {
            Json::Array(lines) => lines.iter().filter_map(Json::as_str).collect(),
            Json::String(s) => s.clone(),
            _ => continue,
        };
        if source.contains("@domain(\"student_sign\")") && source.contains(from) {
            cell["source"] = Json::String(source.replacen(from, to, 1));
            replaced += 1;
        }
    }
    assert_eq!(replaced, 1, "{from:?} is not in the student's cell");
    nb
}

#[test]
fn the_user_domain_assignment_is_graded_on_soundness_and_precision() {
    let dir =
        std::env::temp_dir().join(format!("analysis-kernel-grade-user-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let nb: Json = serde_json::from_str(
        &std::fs::read_to_string(root().join("notebooks/your_own_analysis.ipynb")).unwrap(),
    )
    .unwrap();
    let submissions = [
        ("solution.ipynb", nb.clone(), [2.0, 3.0]),
        (
            // Sound, but never refines a branch: `b > 0` leaves b at ⊤ where sign has >0.
            "imprecise.ipynb",
            variant(
                &nb,
                "    def refine(self, op, a, b):\n",
                "    def refine(self, op, a, b):\n        return a\n\n    def unused(self, op, a, b):\n",
            ),
            [2.0, 0.0],
        ),
        (
            "unsound.ipynb",
            variant(
                &nb,
                "return frozenset(\"-\" if n < 0 else \"0\" if n == 0 else \"+\")",
                "return frozenset(\"+\")",
            ),
            [0.0, 0.0],
        ),
    ];
    let mut paths = Vec::new();
    for (name, nb, _) in &submissions {
        let path = dir.join(name);
        std::fs::write(&path, nb.to_string()).unwrap();
        paths.push(path);
    }
    let out = dir.join("out");
    let status = Command::new(env!("CARGO_BIN_EXE_analysis-kernel"))
        .arg("grade")
        .arg(root().join("notebooks/your_own_analysis.grade.toml"))
        .args(&paths)
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1), "two submissions lose points");
    let summary = std::fs::read_to_string(out.join("summary.jsonl")).unwrap();
    let reports: Vec<Json> = summary
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reports.len(), submissions.len());
    for ((name, _, want), report) in submissions.iter().zip(&reports) {
        assert!(report["submission"].as_str().unwrap().ends_with(name));
        let got: Vec<f64> = report["criteria"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["score"].as_f64().unwrap())
            .collect();
        assert_eq!(got, want, "{name}: {report}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
