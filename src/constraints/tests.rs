//! End-to-end checks of the analysis on small functions.

use super::*;
use crate::cancel::Cancel;
use crate::python::lower_module;

fn run(source: &str, mode: Mode) -> Analysis {
    let module = lower_module(source).unwrap();
    let f = module.functions().next().unwrap();
    let options = Options {
        mode,
        path_limit: 64,
        timeout_ms: 5_000,
    };
    analyze(f, &options, &Cancel::new()).unwrap()
}

fn summary(a: &Analysis) -> String {
    let mut out = String::new();
    for p in &a.paths {
        let nodes: Vec<String> = a
            .dag
            .nodes(&p.edges)
            .iter()
            .map(|n| n.index().to_string())
            .collect();
        let cs: Vec<String> = p
            .constraints
            .iter()
            .filter(|c| c.kind != Kind::Internal)
            .map(|c| c.term.to_string())
            .collect();
        out.push_str(&format!(
            "path {} [{}] {:?} {:?} | {}\n",
            p.id,
            nodes.join(" "),
            p.feasible,
            p.witness.as_ref().map(|w| w
                .iter()
                .map(|(n, v)| format!("{n}={}", v.repr()))
                .collect::<Vec<_>>()),
            cs.join("; ")
        ));
    }
    for e in &a.edges {
        out.push_str(&format!(
            "edge {}->{} {:?} {:?}\n",
            e.source.index(),
            e.target.index(),
            e.kind.label(),
            e.feasible
        ));
    }
    for c in &a.conditions {
        out.push_str(&format!("cond L{} {} {:?}\n", c.line, c.test, c.verdict));
    }
    out
}

#[test]
fn debug_print() {
    let src = "def func(x: int, y: int) -> None:\n    '''\n    Preconditions:\n        - x > 5\n        - y > 10\n    '''\n    while x + y > 15:\n        x -= 1\n        y -= 1\n    print(x + y)\n";
    println!("{}", summary(&run(src, Mode::Precise)));
    println!("{}", summary(&run(src, Mode::Pyta)));
}
