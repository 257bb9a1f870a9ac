//! The evcxr context of a session, on a thread of its own (evcxr's `eval` blocks until the
//! cell's process has run the code; its stdout must be drained meanwhile, which the waiting
//! kernel thread does). An interrupt kills the cell's process: evcxr starts a new one and the
//! Rust variables are lost (items and `use`s are kept).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Child;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use analysis_prelude::wire;

use crate::cancel::Cancel;

/// What a finished eval gave.
pub enum Outcome {
    /// evcxr's content blocks by MIME type.
    Done(HashMap<String, String>),
    /// evcxr's error.
    Failed(evcxr::Error),
}

/// What an interrupt stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The compilation of the cell (nothing of it ran).
    Build,
    /// The cell's process, while the cell ran (evcxr starts a new one).
    Process,
}

enum Job {
    Eval(String, Sender<Outcome>),
}

/// The evcxr context and the channels of its process.
pub struct Worker {
    jobs: Option<Sender<Job>>,
    stdout: Receiver<String>,
    stderr: Receiver<String>,
    child: Arc<Mutex<Child>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Why no context could be made.
#[derive(Debug, thiserror::Error)]
#[error("could not start the Rust context (evcxr): {0}")]
pub struct StartError(pub String);

/// The setup every context runs first: the prelude, and a panic hook that reports a panic of
/// the cell's code on evcxr's content channel (so the kernel sees it with the cell's output).
pub const SETUP: &str =
    "use analysis_prelude::prelude::*;\nanalysis_prelude::render::install_panic_hook();";

/// Options the kernel gives evcxr (cache, optimization).
fn configure(ctx: &mut evcxr::EvalContext) -> Result<(), StartError> {
    let mut state = ctx.state();
    // Cells compile fastest unoptimized; the prelude is small.
    state
        .set_opt_level("0")
        .map_err(|e| StartError(e.to_string()))?;
    state.set_offline_mode(true);
    let prelude = super::prelude_crate::dir().map_err(|e| StartError(e.to_string()))?;
    state
        .add_dep(
            "analysis-prelude",
            &format!("{{ path = {:?} }}", prelude.display().to_string()),
        )
        .map_err(|e| StartError(e.to_string()))?;
    ctx.eval_with_state(SETUP, state)
        .map(|_| ())
        .map_err(|e| StartError(e.to_string()))
}

/// The file naming the kernel that owns an evcxr directory.
const OWNER: &str = "analysis-kernel.pid";

/// evcxr's directories (`$TMPDIR/.tmpXXXX`, removed when its context drops) that no kernel
/// owns any more: a kernel that was killed leaves its directory behind (about 12 MB).
fn sweep_stale_dirs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(pid) = std::fs::read_to_string(path.join(OWNER)) else {
            continue;
        };
        let alive = pid
            .trim()
            .parse::<u32>()
            .is_ok_and(|p| std::path::Path::new(&format!("/proc/{p}")).exists());
        if !alive {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// evcxr's directories now (those with its crate `ctx`).
fn evcxr_dirs() -> std::collections::BTreeSet<PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            std::fs::read_to_string(p.join("Cargo.toml"))
                .is_ok_and(|t| t.contains("name = \"ctx\""))
        })
        .collect()
}

impl Worker {
    /// Starts evcxr (its process is this binary, see `main`), with `env` for the process.
    pub fn start(env: Vec<(String, String)>, cancel: &Cancel) -> Result<Worker, StartError> {
        let (jobs, job_rx) = mpsc::channel::<Job>();
        let (ready_tx, ready_rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("evcxr".into())
            .spawn(move || {
                let exe = match std::env::current_exe() {
                    Ok(e) => e,
                    Err(e) => {
                        let _ = ready_tx.send(Err(StartError(e.to_string())));
                        return;
                    }
                };
                let mut command = std::process::Command::new(exe);
                command.envs(env);
                sweep_stale_dirs();
                let before = evcxr_dirs();
                let made = evcxr::EvalContext::with_subprocess_command(command);
                // Mark the directory evcxr just made as this kernel's (for the sweep).
                for dir in evcxr_dirs().difference(&before) {
                    if !dir.join(OWNER).exists() {
                        let _ = std::fs::write(dir.join(OWNER), std::process::id().to_string());
                    }
                }
                let (mut ctx, outputs) = match made {
                    Ok(c) => c,
                    Err(e) => {
                        let _ = ready_tx.send(Err(StartError(e.to_string())));
                        return;
                    }
                };
                let child = ctx.process_handle();
                // evcxr's channels are crossbeam's; bridge them to std ones at once, since
                // evcxr's eval waits until its stdout channel is empty.
                let (out_tx, out_rx) = mpsc::channel();
                let (err_tx, err_rx) = mpsc::channel();
                let (stdout, stderr) = (outputs.stdout, outputs.stderr);
                std::thread::spawn(move || {
                    while let Ok(line) = stdout.recv() {
                        if out_tx.send(line).is_err() {
                            return;
                        }
                    }
                });
                std::thread::spawn(move || {
                    while let Ok(line) = stderr.recv() {
                        if err_tx.send(line).is_err() {
                            return;
                        }
                    }
                });
                let setup = (out_rx, err_rx, child);
                if let Err(StartError(mut message)) = configure(&mut ctx) {
                    // What the process said on stderr explains it (a missing rustc, …).
                    while let Ok(line) = setup.1.recv_timeout(Duration::from_millis(200)) {
                        message.push('\n');
                        message.push_str(&line);
                    }
                    let _ = ready_tx.send(Err(StartError(message)));
                    return;
                }
                if ready_tx.send(Ok(setup)).is_err() {
                    return;
                }
                while let Ok(Job::Eval(code, reply)) = job_rx.recv() {
                    let outcome = match ctx.eval(&code) {
                        Ok(out) => Outcome::Done(out.content_by_mime_type),
                        Err(e) => {
                            if matches!(e, evcxr::Error::SubprocessTerminated(_)) {
                                // evcxr restarted the process: set it up again.
                                let _ = ctx.eval(SETUP);
                            }
                            Outcome::Failed(e)
                        }
                    };
                    if reply.send(outcome).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| StartError(e.to_string()))?;
        let mut interrupted = false;
        loop {
            match ready_rx.recv_timeout(Duration::from_millis(50)) {
                Ok(Ok((out_rx, err_rx, child))) => {
                    // What the setup printed is not the next cell's.
                    while out_rx.try_recv().is_ok() || err_rx.try_recv().is_ok() {}
                    return Ok(Worker {
                        jobs: Some(jobs),
                        stdout: out_rx,
                        stderr: err_rx,
                        child,
                        thread: Some(thread),
                    });
                }
                Ok(Err(_)) if interrupted => {
                    return Err(StartError("interrupted by the user while starting".into()));
                }
                Ok(Err(e)) => return Err(e),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(StartError("the evcxr thread ended".into()));
                }
                Err(RecvTimeoutError::Timeout) => {
                    // Starting compiles (evcxr's first cell, the prelude): an interrupt stops
                    // those builds, and evcxr then fails to start.
                    if cancel.is_cancelled() && !interrupted {
                        interrupted = true;
                        super::builds::kill_running();
                    }
                }
            }
        }
    }

    /// Evaluates `code`, passing output lines to `line` as they come. An interrupt stops the
    /// compilation if one is running, else kills the cell's process. Returns the outcome and
    /// what the interrupt stopped.
    pub fn eval(
        &mut self,
        code: &str,
        cancel: &Cancel,
        line: &mut dyn FnMut(bool, String),
    ) -> (Outcome, Option<Stopped>) {
        let (tx, rx) = mpsc::channel();
        let sent = self
            .jobs
            .as_ref()
            .map(|j| j.send(Job::Eval(code.to_string(), tx)).is_ok())
            .unwrap_or(false);
        if !sent {
            return (
                Outcome::Failed(evcxr::Error::Message("the Rust context has stopped".into())),
                None,
            );
        }
        let mut stopped = None;
        loop {
            self.drain(line);
            match rx.recv_timeout(Duration::from_millis(20)) {
                Ok(outcome) => {
                    std::thread::sleep(Duration::from_millis(5));
                    self.drain(line);
                    return (outcome, stopped);
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return (
                        Outcome::Failed(evcxr::Error::Message("the Rust context stopped".into())),
                        stopped,
                    );
                }
                Err(RecvTimeoutError::Timeout) => {
                    if cancel.is_cancelled() && stopped.is_none() {
                        stopped = Some(if super::builds::kill_running() > 0 {
                            Stopped::Build
                        } else {
                            if let Ok(mut child) = self.child.lock() {
                                let _ = child.kill();
                            }
                            Stopped::Process
                        });
                    }
                }
            }
        }
    }

    fn drain(&self, line: &mut dyn FnMut(bool, String)) {
        while let Ok(l) = self.stdout.try_recv() {
            line(false, l);
        }
        while let Ok(l) = self.stderr.try_recv() {
            line(true, l);
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Kill first: a cell may still loop; then evcxr's drop reaps the process.
        if let Ok(mut child) = self.child.lock() {
            let _ = child.kill();
        }
        self.jobs.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The environment of the cell's process: the registry socket and the functions file.
pub fn child_env(socket: &std::path::Path, functions: &std::path::Path) -> Vec<(String, String)> {
    vec![
        (wire::SOCKET_ENV.into(), socket.display().to_string()),
        (wire::FUNCTIONS_ENV.into(), functions.display().to_string()),
    ]
}

/// Starts a context and runs one cell against the prelude (`install.sh`'s check that Rust
/// cells work on this machine). Returns the seconds it took.
pub fn warm() -> Result<f64, String> {
    let started = std::time::Instant::now();
    let dir = std::env::temp_dir().join(format!("analysis-kernel-warm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let (socket, functions) = (dir.join("registry.sock"), dir.join("functions.txt"));
    std::fs::write(&functions, "").map_err(|e| e.to_string())?;
    let cancel = Cancel::new();
    let result = Worker::start(child_env(&socket, &functions), &cancel)
        .map_err(|e| e.to_string())
        .and_then(|mut w| {
            match w
                .eval("function(\"f\").is_err()", &cancel, &mut |err, line| {
                    if err {
                        eprintln!("{line}");
                    }
                })
                .0
            {
                Outcome::Done(_) => Ok(()),
                Outcome::Failed(e) => Err(e.to_string()),
            }
        });
    let _ = std::fs::remove_dir_all(&dir);
    result.map(|()| started.elapsed().as_secs_f64())
}
