//! Cells with classes through the cell language: the class runs in the interpreter
//! (instances, reprs as execute results, dataclasses, `with`), and the analyses still see
//! the cell's functions and methods.

#[path = "common/cells.rs"]
mod cells;
use analysis_kernel::notebook::{Output, Session};
use cells::{displays, run};

const DEFS: &str = "from dataclasses import dataclass\n\nclass Point:\n    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n    def norm1(self):\n        total = 0\n        for c in (self.x, self.y):\n            if c < 0:\n                c = -c\n            total += c\n        return total\n    def __repr__(self):\n        return f'Point({self.x}, {self.y})'\n\n@dataclass\nclass Box:\n    lo: int\n    hi: int = 10\n\ndef clamp(v: int, lo: int, hi: int) -> int:\n    if v < lo:\n        return lo\n    if v > hi:\n        return hi\n    return v\n";

fn session() -> Session {
    let mut s = Session::default();
    let (r, _) = run(&mut s, DEFS);
    r.expect("a cell with classes, a dataclass and a function runs");
    s
}

fn result_text(out: &[Output]) -> String {
    out.iter()
        .find_map(|o| match o {
            Output::Result(b) => b.data.get("text/plain").and_then(|v| v.as_str()),
            _ => None,
        })
        .unwrap_or("")
        .to_string()
}

fn stdout(out: &[Output]) -> String {
    out.iter()
        .filter_map(|o| match o {
            Output::Stdout(s) => Some(s.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn instances_print_and_persist_across_cells() {
    let mut s = session();
    let (r, out) = run(&mut s, "p = Point(3, -4)\np.norm1(), p, Box(1)");
    r.expect("runs");
    assert_eq!(result_text(&out), "(7, Point(3, -4), Box(lo=1, hi=10))");
    let (r, out) = run(&mut s, "class Plain:\n    pass\nPlain()");
    r.expect("runs");
    assert_eq!(result_text(&out), "<__main__.Plain object>");
    let (r, out) = run(&mut s, "print(p.x + clamp(20, 0, 5), [p])");
    r.expect("globals persist");
    assert_eq!(stdout(&out), "8 [Point(3, -4)]\n");
    let (r, _) = run(
        &mut s,
        "class Log:\n    def __enter__(self):\n        print('in')\n    def __exit__(self, *a):\n        print('out')\nwith Log():\n    print('body')",
    );
    r.expect("with statements run");
}

#[test]
fn errors_in_methods_name_the_method() {
    let mut s = session();
    let e = run(&mut s, "Point(1)").0.unwrap_err();
    assert_eq!(e.ename, "TypeError");
    assert_eq!(
        e.evalue,
        "Point.__init__() missing 1 required positional argument: 'y'"
    );
    let e = run(&mut s, "Point('a', 1).norm1()").0.unwrap_err();
    assert_eq!(e.ename, "TypeError");
    assert!(
        e.traceback.iter().any(|l| l.contains("in Point.norm1")),
        "{:?}",
        e.traceback
    );
}

#[test]
fn analyses_still_see_functions_and_methods_of_a_class_cell() {
    let mut s = session();
    let (r, out) = run(&mut s, "%cfg Point.norm1");
    r.expect("a method is an analysis target");
    let cfg = &displays(&out)[0]["application/vnd.analysis-kernel.cfg+json"];
    assert_eq!(cfg["function"], "Point.norm1");
    let (r, _) = run(&mut s, "%cfg clamp");
    r.expect("a function next to classes is still drawn");
    let (r, out) = run(&mut s, "%dataflow reaching clamp");
    r.expect("dataflow of a function next to classes");
    assert!(
        displays(&out)
            .iter()
            .any(|d| d.contains_key("application/vnd.analysis-kernel.dataflow+json"))
    );
    let (r, out) = run(&mut s, "%set clamp");
    r.expect("symbolic execution of a function next to classes");
    assert!(
        displays(&out)
            .iter()
            .any(|d| d.contains_key("application/vnd.analysis-kernel.set+json"))
    );
}
