//! Children of the kernel die with it: a parent that runs a long child through
//! `analysis_kernel::child` is SIGKILLed, and the child must be gone.
//!
//! The parent is this test binary run again on `helper_runs_a_long_child` (which does nothing
//! unless `AK_CHILD_HELPER_PIDFILE` is set).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use analysis_kernel::cancel::Cancel;
use analysis_kernel::child;

const PIDFILE: &str = "AK_CHILD_HELPER_PIDFILE";

#[test]
fn helper_runs_a_long_child() {
    let Some(pidfile) = std::env::var_os(PIDFILE) else {
        return;
    };
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("echo $$ > \"$0.tmp\" && mv \"$0.tmp\" \"$0\" && exec sleep 600")
        .arg(pidfile);
    // Blocks until this process is killed.
    let _ = child::run(
        command,
        Vec::new(),
        Duration::from_secs(600),
        &Cancel::new(),
    );
}

/// Whether `pid` is still a live process (a zombie waiting for its reaper counts as dead).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// Polls `ok` every 20 ms for up to two minutes (a bound against hanging, not a timing check).
fn eventually(mut ok: impl FnMut() -> bool) -> bool {
    for _ in 0..6000 {
        if ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn read_pid(path: &Path) -> Option<u32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[test]
fn a_child_dies_when_its_parent_is_killed() {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("analysis-kernel-child-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pidfile = dir.join("child.pid");
    let _ = std::fs::remove_file(&pidfile);
    let mut parent = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "helper_runs_a_long_child", "--test-threads=1"])
        .env(PIDFILE, &pidfile)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let started = eventually(|| read_pid(&pidfile).is_some());
    let Some(pid) = read_pid(&pidfile).filter(|_| started) else {
        let _ = parent.kill();
        let _ = parent.wait();
        panic!("the helper never started its child");
    };
    assert!(alive(pid), "the child should run while its parent does");
    parent.kill().unwrap(); // SIGKILL: no destructor, no cleanup code runs
    parent.wait().unwrap();
    assert!(
        eventually(|| !alive(pid)),
        "child {pid} outlived its SIGKILLed parent"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
