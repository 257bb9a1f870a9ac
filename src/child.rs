//! The one way the kernel runs a child process (`dot`, the `python3` oracle): stdin written
//! on a thread, stdout and stderr drained on threads, a time limit, `Cancel` polled, the child
//! killed (with its whole process group) and reaped on interrupt or timeout. When the child
//! exits, whatever it left running in its group is killed too.
//!
//! Children die with the kernel: each starts in its own process group with
//! `PR_SET_PDEATHSIG(SIGKILL)` (Linux), so a kernel killed by its front end (even by
//! `SIGKILL`) leaves no `dot` or `python3` behind.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::cancel::{Cancel, Stopped};

/// What a finished child left: its exit status and everything it wrote.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Why a child did not finish.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChildError {
    #[error("{0} was not found on PATH")]
    NotFound(String),
    #[error("took longer than {} s", .0.as_secs_f64())]
    Timeout(Duration),
    #[error("interrupted")]
    Stopped(#[from] Stopped),
    #[error("{0}")]
    Io(String),
}

/// Runs `command` with `input` on its stdin until it exits, `limit` passes or `cancel` is set.
/// The command's stdio is replaced by pipes.
pub fn run(
    mut command: Command,
    input: Vec<u8>,
    limit: Duration,
    cancel: &Cancel,
) -> Result<Finished, ChildError> {
    let program = command.get_program().to_string_lossy().into_owned();
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    die_with_this_thread(&mut command);
    let mut child = command.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ChildError::NotFound(program),
        _ => ChildError::Io(format!("cannot start {program}: {e}")),
    })?;
    let group = child.id();
    // Pipes are fed and drained on threads, so a large input or output cannot deadlock. The
    // writer is not joined: a child that never reads must not hold us up.
    if let Some(mut stdin) = child.stdin.take() {
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let (tx, rx) = mpsc::channel::<(bool, Vec<u8>)>();
    drain(child.stdout.take(), true, tx.clone());
    drain(child.stderr.take(), false, tx);
    let start = Instant::now();
    let stopped = |start: Instant| {
        if cancel.is_cancelled() {
            Some(ChildError::Stopped(cancel.stopped()))
        } else if start.elapsed() > limit {
            Some(ChildError::Timeout(limit))
        } else {
            None
        }
    };
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                kill_group(group);
                let _ = child.wait();
                return Err(ChildError::Io(e.to_string()));
            }
        }
        if let Some(e) = stopped(start) {
            kill_group(group);
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(10));
    };
    // The child is reaped; anything it started in its group goes too, so the pipes close.
    kill_group(group);
    let (mut stdout, mut stderr) = (None, None);
    while stdout.is_none() || stderr.is_none() {
        match rx.recv_timeout(Duration::from_millis(10)) {
            Ok((true, bytes)) => stdout = Some(bytes),
            Ok((false, bytes)) => stderr = Some(bytes),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // A process that left the group still holds a pipe open.
                if let Some(e) = stopped(start) {
                    return Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    Ok(Finished {
        status,
        stdout: stdout.unwrap_or_default(),
        stderr: stderr.unwrap_or_default(),
    })
}

/// Reads `pipe` to its end on a thread and sends the bytes, tagged `is_stdout`.
fn drain<R: Read + Send + 'static>(
    pipe: Option<R>,
    is_stdout: bool,
    tx: mpsc::Sender<(bool, Vec<u8>)>,
) {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut buf);
        }
        let _ = tx.send((is_stdout, buf));
    });
}

/// Puts the child in its own process group, and on Linux asks for `SIGKILL` when its parent
/// goes. `PR_SET_PDEATHSIG` fires when the *thread* that spawned the child ends, not only the
/// process: `run` waits for the child on the spawning thread, so the two coincide.
#[cfg(unix)]
fn die_with_this_thread(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    #[cfg(target_os = "linux")]
    {
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: only async-signal-safe calls (prctl, getppid, _exit) run between fork and exec.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have died before prctl: then nobody would send the signal.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
}

#[cfg(not(unix))]
fn die_with_this_thread(_: &mut Command) {}

/// Kills the process group `pgid` (the child and whatever it started), ignoring a group gone.
#[cfg(unix)]
fn kill_group(pgid: u32) {
    if let Ok(pgid) = libc::pid_t::try_from(pgid) {
        // SAFETY: kill has no memory-safety preconditions; a negative pid names a group.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(_: u32) {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Stop;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        c
    }

    #[test]
    fn feeds_stdin_and_collects_both_streams() {
        let out = run(
            sh("cat; echo oops >&2; exit 3"),
            b"hello".to_vec(),
            Duration::from_secs(60),
            &Cancel::new(),
        )
        .unwrap();
        assert_eq!(out.stdout, b"hello");
        assert_eq!(out.stderr, b"oops\n");
        assert_eq!(out.status.code(), Some(3));
    }

    #[test]
    fn a_missing_program_is_not_found() {
        let err = run(
            Command::new("no-such-program-analysis-kernel"),
            Vec::new(),
            Duration::from_secs(60),
            &Cancel::new(),
        )
        .unwrap_err();
        assert_eq!(
            err,
            ChildError::NotFound("no-such-program-analysis-kernel".into())
        );
    }

    #[test]
    fn cancellation_kills_the_child_and_its_group() {
        let cancel = Cancel::new();
        cancel.cancel();
        // The grandchild holds stdout open: only killing the group lets the call return.
        let err = run(
            sh("sleep 600 & sleep 600"),
            Vec::new(),
            Duration::from_secs(600),
            &cancel,
        )
        .unwrap_err();
        assert_eq!(err, ChildError::Stopped(Stopped(Stop::Interrupted)));
    }

    #[test]
    fn a_time_limit_stops_the_child() {
        let err = run(
            sh("sleep 600"),
            Vec::new(),
            Duration::from_millis(50),
            &Cancel::new(),
        )
        .unwrap_err();
        assert_eq!(err, ChildError::Timeout(Duration::from_millis(50)));
    }
}
