//! What a grading run writes: Gradescope's `results.json` per submission, a CSV and a
//! JSON-lines summary of every submission and criterion, and a text summary.

use serde_json::{Value as Json, json};

use super::evaluate::SubmissionReport;

/// Gradescope's `results.json` for one submission (score, tests with their visibility).
pub fn gradescope(r: &SubmissionReport) -> Json {
    let tests: Vec<Json> = r
        .criteria
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "score": c.score,
                "max_score": c.max_score,
                "status": if c.passed { "passed" } else { "failed" },
                "output": c.output,
                "visibility": c.visibility.name(),
            })
        })
        .collect();
    json!({
        "score": r.score(),
        "execution_time": r.seconds,
        "output": overview(r),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    })
}

/// The submission-level message: why it was not graded, or the errors its cells raised.
fn overview(r: &SubmissionReport) -> String {
    if let Some(why) = &r.failure {
        return why.clone();
    }
    if r.cell_errors.is_empty() {
        return "Every cell ran without an error.".to_string();
    }
    let mut text = format!("{} cells raised an error:", r.cell_errors.len());
    for (cell, error) in r.cell_errors.iter().take(10) {
        text.push_str(&format!("\n  cell {cell}: {error}"));
    }
    text
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One CSV row per submission and criterion, with a header.
pub fn csv(reports: &[SubmissionReport]) -> String {
    let mut out = String::from("submission,criterion,score,max_score,passed,output\n");
    for r in reports {
        for c in &r.criteria {
            out.push_str(&format!(
                "{},{},{},{},{},{}\n",
                csv_field(&r.submission),
                csv_field(&c.name),
                c.score,
                c.max_score,
                c.passed,
                csv_field(&c.output)
            ));
        }
    }
    out
}

/// One JSON line per submission (the whole report).
pub fn json_lines(reports: &[SubmissionReport]) -> String {
    reports
        .iter()
        .map(|r| serde_json::to_string(r).unwrap_or_default() + "\n")
        .collect()
}

/// A line per submission and an indented line per criterion.
pub fn text(r: &SubmissionReport) -> String {
    let max: f64 = r.criteria.iter().map(|c| c.max_score).sum();
    let mut out = format!(
        "{}: {}/{} ({:.2} s)\n",
        r.submission,
        r.score(),
        max,
        r.seconds
    );
    if let Some(why) = &r.failure {
        out.push_str(&format!("  {why}\n"));
    }
    for c in &r.criteria {
        let first = c.output.lines().next().unwrap_or("");
        out.push_str(&format!(
            "  [{}] {} ({}/{}): {first}\n",
            if c.passed { "x" } else { " " },
            c.name,
            c.score,
            c.max_score
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::evaluate::CriterionResult;
    use crate::grade::spec::Visibility;

    fn report() -> SubmissionReport {
        SubmissionReport {
            submission: "a,b.ipynb".into(),
            criteria: vec![
                CriterionResult {
                    name: "defined".into(),
                    score: 1.0,
                    max_score: 1.0,
                    passed: true,
                    output: "f(x) is defined".into(),
                    visibility: Visibility::Visible,
                },
                CriterionResult {
                    name: "tests".into(),
                    score: 0.0,
                    max_score: 2.0,
                    passed: false,
                    output: "a test failed: AssertionError: \"x\"".into(),
                    visibility: Visibility::AfterPublished,
                },
            ],
            cell_errors: vec![(2, "NameError: name 'y' is not defined".into())],
            failure: None,
            seconds: 0.5,
        }
    }

    #[test]
    fn gradescope_results_have_its_fields() {
        let j = gradescope(&report());
        assert_eq!(j["score"], 1.0);
        assert_eq!(j["tests"][1]["visibility"], "after_published");
        assert_eq!(j["tests"][1]["max_score"], 2.0);
        assert_eq!(j["tests"][1]["status"], "failed");
        assert!(j["output"].as_str().unwrap().contains("cell 2: NameError"));
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        expect_test::expect![[r#"
            submission,criterion,score,max_score,passed,output
            "a,b.ipynb",defined,1,1,true,f(x) is defined
            "a,b.ipynb",tests,0,2,false,"a test failed: AssertionError: ""x"""
        "#]]
        .assert_eq(&csv(&[report()]));
    }
}
