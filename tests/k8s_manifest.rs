//! The Kubernetes Indexed Job (grading/k8s/grade-job.yaml) validated offline against the
//! Kubernetes API schema with `kubernetes-validate` (PyPI; it ships the schemas, so no
//! network), strictly (unknown fields refused); broken copies must fail; and its shard count
//! must be its completion count, so the pods together grade every submission once.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Python environment with the test tools: `.venv`, or `ANALYSIS_KERNEL_VENV`.
fn venv() -> PathBuf {
    let venv = std::env::var_os("ANALYSIS_KERNEL_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".venv"));
    assert!(
        venv.join("bin/kubernetes-validate").exists(),
        "{} has no kubernetes-validate: run ./install.sh",
        venv.display()
    );
    venv
}

fn validates(manifest: &Path) -> (bool, String) {
    let out = Command::new(venv().join("bin/kubernetes-validate"))
        .args(["--strict", "--kubernetes-version", "1.37.0"])
        .arg(manifest)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn indexed_job_manifest_is_a_valid_job() {
    let manifest = root().join("grading/k8s/grade-job.yaml");
    let (ok, text) = validates(&manifest);
    assert!(ok, "{text}");
    assert!(
        text.contains("passed for resource job/grade-assignment"),
        "{text}"
    );

    let yaml = std::fs::read_to_string(&manifest).unwrap();
    let dir = std::env::temp_dir().join(format!("analysis-kernel-k8s-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (from, to, why) in [
        (
            "  parallelism: 8",
            "  paralelism: 8",
            "'paralelism' was unexpected",
        ),
        (
            "  completions: 8",
            "  completions: eight",
            "'eight' is not of type 'integer'",
        ),
        (
            "      restartPolicy: Never",
            "      restartPolicy: [Never]",
            "is not of type 'string'",
        ),
    ] {
        assert!(yaml.contains(from), "{from}");
        let broken = dir.join("broken.yaml");
        std::fs::write(&broken, yaml.replacen(from, to, 1)).unwrap();
        let (ok, text) = validates(&broken);
        assert!(!ok && text.contains(why), "{to}: {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);

    // --shard $(JOB_COMPLETION_INDEX)/N with N = completions, in an Indexed Job.
    let check = "import sys, yaml\n\
        job = yaml.safe_load(open(sys.argv[1]))\n\
        spec = job['spec']\n\
        assert spec['completionMode'] == 'Indexed', spec\n\
        script = spec['template']['spec']['containers'][0]['args'][0]\n\
        n = spec['completions']\n\
        assert f'--shard $(JOB_COMPLETION_INDEX)/{n} ' in script, script\n\
        assert 'analysis-kernel grade ' in script\n\
        print(n)";
    let out = Command::new(venv().join("bin/python"))
        .args(["-c", check])
        .arg(&manifest)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "8");
}

#[test]
fn the_job_script_grades_each_shard_and_fails_only_when_the_grader_cannot_run() {
    // The container's script, run here with `analysis-kernel` on PATH, /data replaced by a
    // temporary directory and $(JOB_COMPLETION_INDEX) by each index in turn.
    let yaml = std::fs::read_to_string(root().join("grading/k8s/grade-job.yaml")).unwrap();
    let start = yaml.find("            - |\n").unwrap() + "            - |\n".len();
    let end = yaml[start..].find("          env:").unwrap() + start;
    let script: String = yaml[start..end]
        .lines()
        .map(|l| l.strip_prefix("              ").unwrap_or(l).to_string() + "\n")
        .collect();
    let data =
        std::env::temp_dir().join(format!("analysis-kernel-k8s-data-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(data.join("spec")).unwrap();
    std::fs::create_dir_all(data.join("submissions")).unwrap();
    std::fs::copy(
        root().join("notebooks/assignment.grade.toml"),
        data.join("spec/grade.toml"),
    )
    .unwrap();
    let fixtures = root().join("tests/fixtures/grade");
    for f in ["correct.py", "wrong_branch.py", "wrong_signature.py"] {
        std::fs::copy(fixtures.join(f), data.join("submissions").join(f)).unwrap();
    }
    std::fs::copy(
        root().join("notebooks/assignment.ipynb"),
        data.join("submissions/assignment.ipynb"),
    )
    .unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_analysis-kernel"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut graded = 0;
    for i in 0..8 {
        let script = script
            .replace("$(JOB_COMPLETION_INDEX)", &i.to_string())
            .replace("/data/", &format!("{}/", data.display()));
        let status = Command::new("/bin/sh")
            .args(["-c", &script])
            .env("PATH", &path)
            .status()
            .unwrap();
        assert!(status.success(), "shard {i}");
        let summary = data.join(format!("results/shard-{i}/summary.jsonl"));
        graded += std::fs::read_to_string(summary).map_or(0, |s| s.lines().count());
    }
    assert_eq!(graded, 4, "every submission graded once");
    // A broken spec: exit status 2, so the pod fails.
    std::fs::write(data.join("spec/grade.toml"), "[[criterion]]\nname = 1\n").unwrap();
    let script = script
        .replace("$(JOB_COMPLETION_INDEX)", "0")
        .replace("/data/", &format!("{}/", data.display()));
    let status = Command::new("/bin/sh")
        .args(["-c", &script])
        .env("PATH", &path)
        .status()
        .unwrap();
    assert!(!status.success());
    let _ = std::fs::remove_dir_all(&data);
}
