//! Grading many submissions: each in its own child process (this binary's `grade --one`), so
//! a submission that crashes, overflows or outlives its time takes only itself down; `jobs`
//! children at a time; `shard` picks this machine's part of a class.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::evaluate::SubmissionReport;
use super::spec::Spec;
use crate::cancel::Cancel;
use crate::child::{self, ChildError};

/// Seconds a child gets beyond the spec's time limit (start-up, the criteria's last step).
const GRACE_S: f64 = 15.0;

/// The `index`-th of `count` shards (0-based, as a Kubernetes Indexed Job numbers them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Parses `I/N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| format!("--shard takes I/N, got {text:?}"))?;
        let (index, count): (usize, usize) = match (i.trim().parse(), n.trim().parse()) {
            (Ok(i), Ok(n)) => (i, n),
            _ => return Err(format!("--shard takes whole numbers I/N, got {text:?}")),
        };
        if count == 0 || index >= count {
            return Err(format!("--shard I/N needs 0 <= I < N, got {text:?}"));
        }
        Ok(Shard { index, count })
    }

    /// This shard's submissions: every `count`-th of the sorted list, from `index`.
    pub fn select(self, mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
        paths.sort();
        paths
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.count == self.index)
            .map(|(_, p)| p)
            .collect()
    }
}

/// The names the submissions' outputs take in `--out DIR` (`<name>.results.json`,
/// `<name>.graded.ipynb`): the file's stem, or when two submissions share it, the parent
/// directory and file name (`alice_assignment.ipynb`), then a number, so none overwrites
/// another.
pub fn output_names(submissions: &[PathBuf]) -> Vec<String> {
    use std::collections::HashMap;
    let part = |p: Option<&std::ffi::OsStr>| p.map(|s| s.to_string_lossy().into_owned());
    let stems: Vec<String> = submissions
        .iter()
        .map(|p| part(p.file_stem()).unwrap_or_else(|| "submission".into()))
        .collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for s in &stems {
        *count.entry(s).or_default() += 1;
    }
    let mut seen = std::collections::HashSet::new();
    let mut names = Vec::with_capacity(submissions.len());
    for (path, stem) in submissions.iter().zip(&stems) {
        let mut name = if count[stem.as_str()] == 1 {
            stem.clone()
        } else {
            let file = part(path.file_name()).unwrap_or_else(|| stem.clone());
            match part(path.parent().and_then(|d| d.file_name())) {
                Some(dir) => format!("{dir}_{file}"),
                None => file,
            }
        };
        let base = name.clone();
        let mut n = 1;
        while !seen.insert(name.clone()) {
            n += 1;
            name = format!("{base}-{n}");
        }
        names.push(name);
    }
    names
}

/// Grades one submission in a child process running `exe grade --one SPEC SUBMISSION`;
/// with `notebook`, the executed notebook is written there (by the child, or here without
/// outputs when the child gave no result).
pub fn grade_in_child(
    exe: &Path,
    spec_path: &Path,
    spec: &Spec,
    submission: &Path,
    notebook: Option<&Path>,
) -> SubmissionReport {
    let report = run_child(exe, spec_path, spec, submission, notebook);
    if let (Some(out), Some(_)) = (notebook, &report.failure)
        && !out.exists()
        && let Err(e) = super::write_unrun_notebook(out, submission, &report)
    {
        eprintln!("analysis-kernel grade: {e}");
    }
    report
}

fn run_child(
    exe: &Path,
    spec_path: &Path,
    spec: &Spec,
    submission: &Path,
    notebook: Option<&Path>,
) -> SubmissionReport {
    let name = submission.display().to_string();
    let start = Instant::now();
    let mut command = Command::new(exe);
    command
        .arg("grade")
        .arg("--one")
        .arg(spec_path)
        .arg(submission);
    if let Some(out) = notebook {
        command.arg("--notebook").arg(out);
    }
    command.env("ANALYSIS_KERNEL_NO_CPYTHON", "1");
    let limit = Duration::from_secs_f64(spec.limits.time_limit_s + GRACE_S);
    let failed =
        |why: String| SubmissionReport::failed(&name, spec, &why, start.elapsed().as_secs_f64());
    match child::run(command, Vec::new(), limit, &Cancel::new()) {
        Ok(done) => {
            let stdout = String::from_utf8_lossy(&done.stdout);
            match stdout
                .lines()
                .last()
                .map(serde_json::from_str::<SubmissionReport>)
            {
                Some(Ok(report)) => report,
                _ => failed(format!(
                    "not graded: the grading process ended ({}) without a result{}",
                    done.status,
                    last_line(&done.stderr)
                )),
            }
        }
        Err(ChildError::Timeout(d)) => failed(format!(
            "not graded: the submission ran longer than {} s",
            d.as_secs_f64()
        )),
        Err(e) => failed(format!("not graded: the grading process failed: {e}")),
    }
}

fn last_line(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .map(|l| format!(": {l}"))
        .unwrap_or_default()
}

/// Grades `submissions` with `jobs` children at a time; reports in the submissions' order.
/// With `notebooks`, each executed notebook is written into that directory.
/// `progress` is told of each report as it arrives.
pub fn grade_all(
    exe: &Path,
    spec_path: &Path,
    spec: &Spec,
    submissions: &[PathBuf],
    jobs: usize,
    notebooks: Option<&Path>,
    progress: &(dyn Fn(&SubmissionReport) + Sync),
) -> Vec<SubmissionReport> {
    let names = output_names(submissions);
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<SubmissionReport>>> = Mutex::new(vec![None; submissions.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, submissions.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(path) = submissions.get(i) else {
                        break;
                    };
                    let notebook =
                        notebooks.map(|dir| dir.join(format!("{}.graded.ipynb", names[i])));
                    let report = grade_in_child(exe, spec_path, spec, path, notebook.as_deref());
                    progress(&report);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(report);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .zip(submissions)
        .map(|(r, p)| {
            r.unwrap_or_else(|| {
                SubmissionReport::failed(&p.display().to_string(), spec, "not graded", 0.0)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_a_class_without_overlap() {
        let paths: Vec<PathBuf> = (0..10)
            .map(|i| PathBuf::from(format!("s{i}.ipynb")))
            .collect();
        let mut seen = Vec::new();
        for i in 0..3 {
            seen.extend(
                Shard::parse(&format!("{i}/3"))
                    .unwrap()
                    .select(paths.clone()),
            );
        }
        seen.sort();
        let mut all = paths.clone();
        all.sort();
        assert_eq!(seen, all);
        assert!(Shard::parse("3/3").is_err());
        assert!(Shard::parse("1").is_err());
        assert!(Shard::parse("a/b").is_err());
    }

    #[test]
    fn a_lost_child_still_gives_a_report_and_a_notebook() {
        // `false` stands for a grading process that died without a result.
        let dir = std::env::temp_dir().join(format!("grade-lost-child-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let submission = dir.join("s.py");
        std::fs::write(&submission, "x = 1\n# %%\nprint(x)\n").unwrap();
        let spec = Spec::parse("[[criterion]]\nname = \"f\"\nfunction = \"f\"\n").unwrap();
        let out = dir.join("s.graded.ipynb");
        let report = grade_in_child(
            Path::new("/bin/false"),
            Path::new("spec.toml"),
            &spec,
            &submission,
            Some(&out),
        );
        let why = report.failure.clone().unwrap();
        assert!(
            why.starts_with("not graded: the grading process ended"),
            "{why}"
        );
        assert_eq!(report.score(), 0.0);
        let nb: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let cells = nb["cells"].as_array().unwrap();
        assert_eq!(cells[0]["source"], "x = 1\n");
        assert_eq!(cells[1]["outputs"], serde_json::json!([]));
        assert!(cells[2]["source"].as_str().unwrap().contains(&why));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn output_names_never_collide() {
        let paths: Vec<PathBuf> = ["a/x.py", "a/x.ipynb", "b/x.ipynb", "y.ipynb", "c/x.ipynb"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(
            output_names(&paths),
            ["a_x.py", "a_x.ipynb", "b_x.ipynb", "y", "c_x.ipynb"]
        );
        let same: Vec<PathBuf> = ["s.py", "s.py"].iter().map(PathBuf::from).collect();
        assert_eq!(output_names(&same), ["s.py", "s.py-2"]);
    }
}
