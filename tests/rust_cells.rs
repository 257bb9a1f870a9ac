//! `%%rust` in process: refused outside the kernel binary (evcxr re-executes the binary, which
//! only the kernel's `main` prepares), and the session's functions as the prelude reads them.
//! The cells themselves run through the real kernel in `tests/python/test_rust_cells.py`.

#[path = "common/cells.rs"]
mod cells;
use analysis_kernel::notebook::Session;
use analysis_kernel::rustcell::views::functions_text;
use analysis_prelude::{Analysis, Direction, Facts, Program, Stmt, solve};
use cells::run;

#[test]
fn rust_cells_are_refused_in_process() {
    let mut s = Session::new(false);
    let (r, _) = run(&mut s, "%%rust\nlet x = 1;\n");
    let e = r.unwrap_err();
    assert_eq!(e.ename, "UnsupportedError");
    assert!(e.evalue.contains("analysis-kernel binary"), "{}", e.evalue);
    let (r, _) = run(&mut s, "%%rust\n");
    assert_eq!(r.unwrap_err().ename, "UsageError");
    let (r, _) = run(&mut s, "%rust-reset");
    assert!(r.is_ok());
}

struct Live;

impl Analysis for Live {
    fn direction(&self) -> Direction {
        Direction::Backward
    }
    fn transfer(&self, stmt: &Stmt, live: &Facts) -> Facts {
        let mut out: Facts = live.difference(&stmt.targets).cloned().collect();
        out.extend(stmt.uses.iter().cloned());
        out
    }
}

#[test]
fn the_prelude_reads_the_sessions_functions() {
    let mut s = Session::new(false);
    let (r, _) = run(
        &mut s,
        "def f(a, b):\n    c = a + b\n    if c > 0:\n        d = c\n    else:\n        d = b\n    return d\n\ndef g():\n    return 1\n",
    );
    r.unwrap();
    let programs = Program::parse_all(&functions_text(&s)).unwrap();
    let names: Vec<&str> = programs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["f", "g"]);
    let f = &programs[0];
    assert_eq!(f.params, ["a", "b"]);
    assert_eq!(f.stmts[f.entry()].kind, "entry");
    assert_eq!(f.stmts[f.exit()].kind, "exit");
    let cond = f.stmts.iter().find(|s| s.kind == "condition").unwrap();
    assert_eq!(cond.text, "if c > 0:");
    let labels: Vec<&str> = f
        .edges
        .iter()
        .filter(|e| e.from == cond.node)
        .map(|e| e.label.as_str())
        .collect();
    assert!(
        labels.contains(&"True") && labels.contains(&"False"),
        "{labels:?}"
    );
    // Liveness by the prelude's solver: a and b are live at the first statement, c and b
    // after it.
    let first = f.successors(f.entry()).next().unwrap();
    let solution = solve(&Live, f);
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Facts>();
    assert_eq!(solution.before[&first], set(&["a", "b"]));
    assert_eq!(solution.after[&first], set(&["b", "c"]));
}
