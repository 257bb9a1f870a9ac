//! Differential test of `%set`'s solver shortcuts (syntactic checks, constraint
//! independence, the cache of answers and implications, witnesses in independent parts):
//! on many generated programs over shared and independent integer inputs, the tree built
//! with the shortcuts is the tree built by asking Z3 about the whole path at every branch
//! (same nodes, statuses, shown path conditions, outcomes, the same branches pruned), and
//! every witness of the shortcut tree satisfies its leaf's path condition (checked by Z3).

use analysis_kernel::cancel::Cancel;
use analysis_kernel::python::{PyValue, lower_module};
use analysis_kernel::symbolic::{Check, CompareOp, Solver, Sort, Term, Var};
use analysis_kernel::symexec::{Options, Program, Tree, execute, parse_specs};

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const VARS: &[&str] = &["a", "b", "c", "d"];
const OPS: &[&str] = &[">", "<", "==", "!=", ">=", "<="];

fn condition(r: &mut Rng) -> String {
    let x = r.pick(VARS);
    let k = r.below(7) as i64 - 3;
    match r.below(6) {
        0 | 1 => format!("{x} {} {k}", r.pick(OPS)),
        2 => format!("{x} + {} {} {k}", r.pick(VARS), r.pick(OPS)),
        3 => format!("{x} {} {}", r.pick(OPS), r.pick(VARS)),
        4 => format!("not ({x} {} {k})", r.pick(OPS)),
        _ => format!(
            "{x} {} {k} and {} {} 0",
            r.pick(OPS),
            r.pick(VARS),
            r.pick(OPS)
        ),
    }
}

fn block(r: &mut Rng, depth: usize, indent: &str, out: &mut String) {
    let n = 1 + r.below(3);
    for _ in 0..n {
        match r.below(if depth > 0 { 8 } else { 5 }) {
            0 => out.push_str(&format!("{indent}y = y + {}\n", r.pick(VARS))),
            1 => out.push_str(&format!(
                "{indent}{} = {} - {}\n",
                r.pick(VARS),
                r.pick(VARS),
                r.below(3)
            )),
            2 => out.push_str(&format!("{indent}assert {}\n", condition(r))),
            3 => out.push_str(&format!(
                "{indent}y = y + 10 // ({} - {})\n",
                r.pick(VARS),
                r.below(3)
            )),
            4 => {
                let x = r.pick(VARS);
                out.push_str(&format!("{indent}while {x} > {}:\n", r.below(3)));
                out.push_str(&format!("{indent}    {x} = {x} - 1\n"));
            }
            _ => {
                out.push_str(&format!("{indent}if {}:\n", condition(r)));
                block(r, depth - 1, &format!("{indent}    "), out);
                if r.below(2) == 0 {
                    out.push_str(&format!("{indent}else:\n"));
                    block(r, depth - 1, &format!("{indent}    "), out);
                }
            }
        }
    }
}

fn program(seed: u64) -> String {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut src = String::from("y = 0\n");
    block(&mut r, 3, "", &mut src);
    src.push_str("return y\n");
    src
}

fn tree(src: &str, shortcuts: bool, keep_unsat: bool) -> Tree {
    let module = lower_module(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    let words: Vec<String> = VARS.iter().map(|v| format!("{v}:int")).collect();
    let given = parse_specs(&words).unwrap();
    let program = Program::snippet(&module, [], &given).unwrap();
    let options = Options {
        unroll: 2,
        node_limit: 3_000,
        keep_unsat,
        shortcuts,
        ..Options::default()
    };
    execute(&program, &options, &Cancel::new()).unwrap_or_else(|e| panic!("{src}\n{e}"))
}

/// The tree without witnesses: what the verdicts decide.
fn shape(t: &Tree) -> Vec<String> {
    let mut out: Vec<String> = t
        .nodes
        .iter()
        .map(|n| {
            let pc: Vec<String> = n.path_condition.iter().map(|c| c.to_string()).collect();
            format!(
                "{} <- {:?} [{}] {} {{{}}} undecided={}",
                n.id,
                n.parent,
                n.status.name(),
                n.statement,
                pc.join(", "),
                n.undecided
            )
        })
        .collect();
    for l in &t.leaves {
        out.push(format!(
            "leaf {} {} {} witness={}",
            l.node,
            l.outcome,
            l.path_condition,
            l.witness.is_some()
        ));
    }
    out.push(format!(
        "pruned={} truncated={} unexplored={}",
        t.stats.pruned, t.truncated, t.unexplored
    ));
    out
}

/// Whether every witness of `t` satisfies its leaf's path condition.
fn witnesses_hold(t: &Tree) -> Result<(), String> {
    for l in &t.leaves {
        let Some(w) = t.witness(l) else { continue };
        let mut solver = Solver::new(5_000);
        solver
            .assert(&l.path_condition)
            .map_err(|e| e.to_string())?;
        for (name, value) in &w {
            let PyValue::Int(i) = value else {
                return Err(format!("{name} = {value:?} is not an int"));
            };
            let var = Term::input(Var::input(name.clone()), &Sort::Int).map_err(|e| e.0)?;
            let eq = Term::compare(CompareOp::Eq, var, Term::int(i.clone())).map_err(|e| e.0)?;
            solver.assert(&eq).map_err(|e| e.to_string())?;
        }
        if !matches!(solver.check(), Check::Sat(_)) {
            return Err(format!(
                "the witness {w:?} does not satisfy {}",
                l.path_condition
            ));
        }
    }
    Ok(())
}

#[test]
fn shortcuts_decide_every_branch_as_z3_on_the_whole_path() {
    let mut compared = 0;
    let mut nodes = 0;
    let mut calls = (0, 0);
    for seed in 1..=150u64 {
        let src = program(seed);
        let keep_unsat = seed % 3 == 0;
        let plain = tree(&src, false, keep_unsat);
        let fast = tree(&src, true, keep_unsat);
        assert_eq!(shape(&plain), shape(&fast), "seed {seed}, program:\n{src}");
        witnesses_hold(&fast).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
        // A branch over variables of two independent parts is not decided by the
        // witness (no single model covers it), so one program may ask more often; in all,
        // the shortcuts ask less.
        calls.0 += plain.solver_calls();
        calls.1 += fast.solver_calls();
        compared += 1;
        nodes += plain.nodes.len();
    }
    assert_eq!(compared, 150);
    // The generated programs are not trivial.
    assert!(nodes > 150 * 10, "{nodes} nodes in all");
    assert!(
        calls.1 < calls.0,
        "solver calls with and without shortcuts: {calls:?}"
    );
}

#[test]
fn independent_ifs_need_few_solver_calls() {
    let mut src = String::from("y = 0\n");
    let mut inputs = Vec::new();
    for i in 0..8 {
        src.push_str(&format!("if x{i} > 0:\n    y = y + {}\n", 1 << i));
        inputs.push(format!("x{i}:int"));
    }
    let module = lower_module(&src).unwrap();
    let given = parse_specs(&inputs).unwrap();
    let program = Program::snippet(&module, [], &given).unwrap();
    let run = |shortcuts| {
        let options = Options {
            node_limit: 100_000,
            shortcuts,
            ..Options::default()
        };
        execute(&program, &options, &Cancel::new()).unwrap()
    };
    let (plain, fast) = (run(false), run(true));
    assert_eq!(shape(&plain), shape(&fast));
    assert_eq!(fast.leaves.len(), 256);
    // One question per input and outcome, then the cache answers.
    assert!(fast.solver_calls() <= 20, "{:?}", fast.stats);
    assert!(plain.solver_calls() >= 255, "{:?}", plain.stats);
    witnesses_hold(&fast).unwrap();
}
