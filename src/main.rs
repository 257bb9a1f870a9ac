//! The `analysis-kernel` command: run as a Jupyter kernel, or install its kernelspec.

use std::path::PathBuf;
use std::process::ExitCode;

use analysis_kernel::kernel::install::{DEFAULT_NAME, Location, install};
use analysis_kernel::kernel::{KernelOptions, run};

const HELP: &str = "\
analysis-kernel: a Jupyter kernel for program-analysis notebooks

Usage:
  analysis-kernel --connection-file FILE     run as a kernel (what kernel.json starts)
  analysis-kernel install [--user | --sys-prefix | --prefix PATH] [--name NAME]
                                             write the kernelspec (default: --user, name 'analysis')
{GRADE}
  analysis-kernel warm-rust                  start evcxr and run one %%rust cell against the
                                             prelude (install.sh runs it as a check)
  analysis-kernel --version
  analysis-kernel --help

Environment:
  ANALYSIS_KERNEL_NO_CPYTHON=1   never run %check's functions in a python3 child process
                                 (for graders of untrusted notebooks; %config cannot undo it)
";

fn main() -> ExitCode {
    // evcxr runs `%%rust` cells in a child process that is this binary: it must take over
    // before anything else (and it compiles cells through this binary as a rustc wrapper).
    evcxr::runtime_hook();
    analysis_kernel::rustcell::enable();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--version" | "-V") => {
            println!("analysis-kernel {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some("--help" | "-h") | None => {
            print!(
                "{}",
                HELP.replace("{GRADE}", analysis_kernel::grade::cli::USAGE)
            );
            if args.is_empty() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        Some("install") => run_install(&args[1..]),
        Some("grade") => ExitCode::from(analysis_kernel::grade::cli::run(&args[1..])),
        Some("warm-rust") => match analysis_kernel::rustcell::worker::warm() {
            Ok(seconds) => {
                println!("Rust cells work (evcxr started and ran a cell in {seconds:.1} s)");
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        },
        Some("--connection-file" | "-f") => match args.get(1) {
            Some(file) => {
                // A grading harness running untrusted code turns the CPython oracle off for
                // good: no `%config` in a submission can turn it back on.
                if std::env::var_os("ANALYSIS_KERNEL_NO_CPYTHON")
                    .is_some_and(|v| !v.is_empty() && v != "0")
                {
                    analysis_kernel::symexec::check::forbid_cpython();
                }
                let options = KernelOptions {
                    test_hooks: std::env::var_os("ANALYSIS_KERNEL_TEST_HOOKS").is_some(),
                };
                match run(file, options) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => fail(&e.to_string()),
                }
            }
            None => fail("--connection-file needs a FILE"),
        },
        Some(other) => fail(&format!("unknown argument {other:?}; see --help")),
    }
}

fn run_install(args: &[String]) -> ExitCode {
    let mut location = Location::User;
    let mut name = DEFAULT_NAME.to_string();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--user" => location = Location::User,
            "--sys-prefix" => location = Location::SysPrefix,
            "--prefix" | "--name" => {
                let Some(value) = args.get(i + 1) else {
                    return fail(&format!("{} needs a value", args[i]));
                };
                if args[i] == "--prefix" {
                    location = Location::Prefix(PathBuf::from(value));
                } else {
                    name = value.clone();
                }
                i += 1;
            }
            other => return fail(&format!("unknown install option {other:?}; see --help")),
        }
        i += 1;
    }
    let exe = match std::env::current_exe().and_then(|p| p.canonicalize()) {
        Ok(p) => p,
        Err(e) => return fail(&format!("cannot find this executable's path: {e}")),
    };
    match install(&location, &name, &exe) {
        Ok(dir) => {
            println!("Installed kernelspec {name} in {}", dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("analysis-kernel: {message}");
    ExitCode::FAILURE
}
