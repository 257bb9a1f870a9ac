//! `analysis-kernel grade SPEC SUBMISSION… [--jobs N] [--shard I/N] [--out DIR]
//! [--gradescope FILE]`, `grade --check-spec SPEC`, and `grade --one SPEC SUBMISSION
//! [--notebook FILE]`, the child's form.
//!
//! Exit codes: 0 every criterion of every submission passed; 1 some failed; 2 the command
//! line or the spec is wrong, or an output could not be written.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Shard, Spec, SubmissionReport, grade_all, grade_file, report};

pub const USAGE: &str = "\
  analysis-kernel grade SPEC.toml SUBMISSION... [--jobs N] [--shard I/N] [--out DIR]
                        [--gradescope FILE]
                                             grade notebooks (.ipynb) or .py files headless
  analysis-kernel grade --check-spec SPEC.toml
                                             check a grading spec (exit 0 or 2)";

/// What the command line asks for.
struct Args {
    spec: PathBuf,
    submissions: Vec<PathBuf>,
    jobs: usize,
    shard: Option<Shard>,
    out: Option<PathBuf>,
    gradescope: Option<PathBuf>,
    one: bool,
    /// `--one`'s executed notebook.
    notebook: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut positional = Vec::new();
    let mut parsed = Args {
        spec: PathBuf::new(),
        submissions: Vec::new(),
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        shard: None,
        out: None,
        gradescope: None,
        one: false,
        notebook: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--jobs" => {
                parsed.jobs = value("--jobs")?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or("--jobs takes a whole number > 0")?
            }
            "--shard" => parsed.shard = Some(Shard::parse(&value("--shard")?)?),
            "--out" => parsed.out = Some(value("--out")?.into()),
            "--gradescope" => parsed.gradescope = Some(value("--gradescope")?.into()),
            "--one" => parsed.one = true,
            "--notebook" => parsed.notebook = Some(value("--notebook")?.into()),
            other if other.starts_with("--") => return Err(format!("unknown option {other}")),
            other => positional.push(PathBuf::from(other)),
        }
    }
    let mut positional = positional.into_iter();
    parsed.spec = positional.next().ok_or("grade needs a SPEC file")?;
    parsed.submissions = positional.collect();
    if parsed.submissions.is_empty() {
        return Err("grade needs at least one SUBMISSION".into());
    }
    if parsed.gradescope.is_some() && parsed.submissions.len() != 1 {
        return Err(
            "--gradescope writes one submission's results.json: give one SUBMISSION".into(),
        );
    }
    Ok(parsed)
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `grade --check-spec SPEC`: parses the spec and names its criteria.
fn check_spec(path: &str) -> u8 {
    match std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|t| Spec::parse(&t).map_err(|e| e.to_string()))
    {
        Ok(spec) => {
            println!(
                "{path}: {} criteria, {} points",
                spec.criteria.len(),
                spec.max_score()
            );
            0
        }
        Err(e) => {
            eprintln!("analysis-kernel grade: {path}: {e}");
            2
        }
    }
}

/// Runs the `grade` command; the process's exit code.
pub fn run(args: &[String]) -> u8 {
    if let [flag, path] = args
        && flag == "--check-spec"
    {
        return check_spec(path);
    }
    let args = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("analysis-kernel grade: {e}\nUsage:\n{USAGE}");
            return 2;
        }
    };
    let spec = match std::fs::read_to_string(&args.spec)
        .map_err(|e| e.to_string())
        .and_then(|t| Spec::parse(&t).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("analysis-kernel grade: {}: {e}", args.spec.display());
            return 2;
        }
    };
    if args.one {
        // The child: grade in this process, the report as the last line of stdout.
        crate::symexec::check::forbid_cpython();
        let report = grade_file(&spec, &args.submissions[0], args.notebook.as_deref());
        println!("{}", serde_json::to_string(&report).unwrap_or_default());
        return 0;
    }
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("analysis-kernel grade: cannot find this program: {e}");
            return 2;
        }
    };
    let submissions = match args.shard {
        Some(shard) => shard.select(args.submissions.clone()),
        None => args.submissions.clone(),
    };
    // A closed stdout (`| head`) must not stop the grading.
    let print = |r: &SubmissionReport| {
        use std::io::Write;
        let _ = write!(std::io::stdout(), "{}", report::text(r));
    };
    let reports = grade_all(
        &exe,
        &args.spec,
        &spec,
        &submissions,
        args.jobs,
        args.out.as_deref(),
        &print,
    );
    if let Err(e) = write_outputs(&args, &reports) {
        eprintln!("analysis-kernel grade: cannot write {e}");
        return 2;
    }
    let all_passed = reports.iter().all(|r| r.criteria.iter().all(|c| c.passed));
    let _ = writeln!(
        std::io::stdout(),
        "graded {} submissions: {} with every criterion passed",
        reports.len(),
        reports
            .iter()
            .filter(|r| r.criteria.iter().all(|c| c.passed))
            .count()
    );
    if all_passed { 0 } else { 1 }
}

fn write_outputs(args: &Args, reports: &[SubmissionReport]) -> Result<(), String> {
    let pretty = |j| serde_json::to_string_pretty(&j).unwrap_or_default() + "\n";
    if let (Some(path), [r]) = (&args.gradescope, reports) {
        write(path, &pretty(report::gradescope(r)))?;
    }
    if let Some(dir) = &args.out {
        write(&dir.join("summary.csv"), &report::csv(reports))?;
        write(&dir.join("summary.jsonl"), &report::json_lines(reports))?;
        let paths: Vec<PathBuf> = reports
            .iter()
            .map(|r| PathBuf::from(&r.submission))
            .collect();
        for (r, name) in reports.iter().zip(super::batch::output_names(&paths)) {
            write(
                &dir.join(format!("{name}.results.json")),
                &pretty(report::gradescope(r)),
            )?;
        }
    }
    Ok(())
}
