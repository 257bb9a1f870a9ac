//! The views the analysis and domain registries feed (`%help`, completion, `%dataflow`,
//! `%absint`, `%lattice`, `%check-domain`) on a fixed set of cells, written to one text dump.
//!
//! With `REGISTRY_DUMP=FILE` the dump is written to FILE, so that two builds can be compared
//! (the registry refactoring was checked this way: identical dumps before and after). Without
//! it the test still runs every cell and checks each one succeeds or fails as listed.

#[path = "common/cells.rs"]
mod cells;
use analysis_kernel::notebook::{Output, Session, complete};
use cells::run;

const DEFS: &str = r#"
def foo(x):
    y = 0

    while x >= 0:
        tmp = x
        if tmp % 2 == 0:
            y = x
        x -= 1


    return y

def loop():
    x = 8
    y = x
    z = 0
    while y > -1:
        x = x // y
        y = y - 2
        z = 5

def count(n: int):
    i = 0
    while i < 10:
        i = i + 1
    return n // i

def arith(a, b):
    c = a * 2
    d = c + 1
    e = -d
    if a % 2 == 0:
        f = a // 2
    else:
        f = a - 1
    t = (1, 2, 3)
    return t[b] + e % 4 + f
"#;

/// Cells that must succeed.
const OK: &[&str] = &[
    "%help",
    "%help dataflow",
    "%help absint",
    "%help lattice",
    "%help check-domain",
    "%lsmagic",
    "%dataflow reaching foo",
    "%dataflow reaching-definitions foo --trace",
    "%dataflow live foo",
    "%dataflow liveness loop --trace",
    "%dataflow available arith",
    "%dataflow very-busy arith --trace",
    "%dataflow def-use foo",
    "%dataflow def-use arith --trace",
    "%%dataflow live\nx = 1\nwhile x < 5:\n    x = x + 1\nprint(x)\n",
    "%absint zero loop",
    "%absint sign loop --trace",
    "%absint constant count",
    "%absint interval count --trace",
    "%absint zero arith",
    "%absint sign arith",
    "%absint constant arith",
    "%absint interval arith",
    "%absint interval foo --trace",
    "%%absint sign\nx = 3\ny = x - 5\nz = 10 // y\n",
    "%lattice sign",
    "%lattice zero",
    "%lattice interval",
    "%lattice interval --window -1 1",
    "%lattice powerset a b",
    "%lattice flat 1 2",
    "%lattice product sign zero",
    "%check-domain zero --samples 50 --seed 3",
    "%check-domain sign --samples 50 --seed 3",
    "%check-domain constant --samples 50 --seed 3",
    "%check-domain interval --samples 50 --seed 3",
    // Added with the parity domain (after the before/after comparison of the refactoring).
    "%absint parity arith",
    "%%absint parity --trace\nk = 2 * n\nm = k + 1\nq = k // 2\nr = m % 2\n",
    "%lattice parity",
    "%lattice product parity sign",
    "%check-domain parity --samples 50 --seed 3",
];

/// Cells that must fail (usage errors and the like).
const ERR: &[&str] = &[
    "%dataflow reach foo",
    "%dataflow nothing foo",
    "%absint intervl foo",
    "%absint nothing foo",
    "%absint",
    "%lattice",
    "%lattice nothing",
    "%lattice sign extra",
    "%check-domain",
    "%check-domain nothing",
    "%check-domain sign zero",
];

/// Completion requests (code, cursor at the end).
const COMPLETE: &[&str] = &[
    "%dataflow ",
    "%dataflow re",
    "%absint ",
    "%absint in",
    "%lattice ",
    "%check-domain ",
    "%check-domain s",
    "%he",
];

fn show(out: &[Output]) -> String {
    let mut s = String::new();
    for o in out {
        match o {
            Output::Display(b) => {
                let mut keys: Vec<&String> = b.data.keys().collect();
                keys.sort();
                for k in keys {
                    let v = &b.data[k];
                    let text = match v.as_str() {
                        Some(t) => t.to_string(),
                        None => serde_json::to_string_pretty(v).unwrap_or_default(),
                    };
                    s.push_str(&format!("--- {k}\n{text}\n"));
                }
            }
            other => s.push_str(&format!("--- {other:?}\n")),
        }
    }
    s
}

#[test]
fn registry_views_dump() {
    // The parity cells' text, checked here; the rest of the dump is compared between builds.
    let mut parity = Session::default();
    let (r, _) = run(
        &mut parity,
        "def halves(n):\n    k = 2 * n\n    m = k + 1\n    q = k // 2\n    r = m % 2\n    return q + r\n",
    );
    r.expect("definition");

    let (r, out) = run(&mut parity, "%absint parity halves");
    r.expect("%absint parity");
    let text = cells::display(&out)["text/plain"]
        .as_str()
        .unwrap_or("")
        .to_string();
    expect_test::expect![[r#"
        parity analysis of halves (7 node visits, widenings: 0, narrowing rounds: 1)

        node  lines  statement         IN                                   OUT
        ----  -----  ----------------  -----------------------------------  -----------------------------------
        0     L1     enter: halves(n)  k: ⊥, m: ⊥, n: ⊤, q: ⊥, r: ⊥         k: ⊥, m: ⊥, n: ⊤, q: ⊥, r: ⊥
        1     L2     k = 2 * n         k: ⊥, m: ⊥, n: ⊤, q: ⊥, r: ⊥         k: even, m: ⊥, n: ⊤, q: ⊥, r: ⊥
        2     L3     m = k + 1         k: even, m: ⊥, n: ⊤, q: ⊥, r: ⊥      k: even, m: odd, n: ⊤, q: ⊥, r: ⊥
        3     L4     q = k // 2        k: even, m: odd, n: ⊤, q: ⊥, r: ⊥    k: even, m: odd, n: ⊤, q: ⊤, r: ⊥
        4     L5     r = m % 2         k: even, m: odd, n: ⊤, q: ⊤, r: ⊥    k: even, m: odd, n: ⊤, q: ⊤, r: odd
        5     L6     return q + r      k: even, m: odd, n: ⊤, q: ⊤, r: odd  k: even, m: odd, n: ⊤, q: ⊤, r: odd
        6     L6     exit: halves(n)   k: even, m: odd, n: ⊤, q: ⊤, r: odd  k: even, m: odd, n: ⊤, q: ⊤, r: odd

        Warnings:
        - Possible division by zero in line 4
        - Possible division by zero in line 5"#]].assert_eq(&text);
    let mut session = Session::default();
    run(&mut session, DEFS).0.expect("definitions");
    let mut dump = String::new();
    for cell in OK {
        let (r, out) = run(&mut session, cell);
        if let Err(e) = &r {
            panic!("{cell}: {e:?}");
        }
        dump.push_str(&format!("=== {cell}\n{}", show(&out)));
    }
    for cell in ERR {
        let (r, out) = run(&mut session, cell);
        let Err(e) = r else {
            panic!("{cell}: expected an error")
        };
        dump.push_str(&format!(
            "=== {cell}\nerror {}: {}\n{}",
            e.ename,
            e.evalue,
            show(&out)
        ));
    }
    for code in COMPLETE {
        let c = complete(&session, code, code.len());
        dump.push_str(&format!("=== complete {code:?}\n{:?}\n", c.matches));
    }
    if let Ok(path) = std::env::var("REGISTRY_DUMP") {
        std::fs::write(&path, dump).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}

/// The README's command table lists what the registries hold, in their order.
#[test]
fn readme_lists_the_registries() {
    use analysis_kernel::dataflow::registry::{ANALYSES, DOMAIN_NAMES, LATTICE_KINDS};
    let readme = include_str!("../README.md");
    let row = |command: &str| -> &str {
        readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{command}")))
            .unwrap_or_else(|| panic!("no README row for {command}"))
    };
    let domains = format!("({})", DOMAIN_NAMES.join(", "));
    for command in ["%absint", "%check-domain"] {
        assert!(row(command).contains(&domains), "{command}: {domains}");
    }
    let names: Vec<&str> = ANALYSES.iter().map(|a| a.name).collect();
    let titles: Vec<&str> = ANALYSES.iter().map(|a| a.title).collect();
    let dataflow = row("%dataflow");
    assert!(
        dataflow.contains(&format!("({})", names.join(", "))),
        "{dataflow}"
    );
    assert!(dataflow.contains(&titles.join(", ")), "{dataflow}");
    let lattice = row("%lattice");
    for kind in LATTICE_KINDS {
        assert!(lattice.contains(&format!("`{kind}")), "{kind}: {lattice}");
    }
}
