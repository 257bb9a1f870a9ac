//! The cell fuzzer in CI: every reproducer in `tests/fixtures/reliability/` gives its expected
//! error (or none) with the session alive, then a few thousand generated cells run without a
//! panic. `cargo run --release --bin fuzz_cells` runs millions.

use std::path::Path;

use analysis_kernel::fuzz::{self, Generator, Verdict};
use analysis_kernel::python::{Completeness, SourceMap, completeness};

const CASES: usize = 3_000;
const SEED: u64 = 13;

fn fixtures() -> Vec<(String, String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reliability");
    let expected = std::fs::read_to_string(dir.join("expected.txt")).unwrap();
    expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, expect) = l.split_once(' ').unwrap();
            let template = std::fs::read_to_string(dir.join(name)).unwrap();
            (
                name.to_string(),
                fuzz::expand(&template),
                expect.to_string(),
            )
        })
        .collect()
}

fn corpus() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cells = Vec::new();
    let mut notebooks: Vec<_> = std::fs::read_dir(root.join("notebooks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ipynb"))
        .collect();
    notebooks.sort();
    for nb in notebooks {
        cells.extend(fuzz::notebook_cells(&std::fs::read_to_string(nb).unwrap()));
    }
    cells
}

#[test]
fn reproducers_give_their_errors_and_keep_the_session() {
    fuzz::on_big_stack(|| {
        let mut session = fuzz::session();
        assert_eq!(
            fuzz::run_cell(&mut session, "def keep(x):\n    return x\n"),
            Verdict::Ok
        );
        for (name, code, expect) in fixtures() {
            let verdict = fuzz::run_cell(&mut session, &code);
            let got = match &verdict {
                Verdict::Ok => "ok".to_string(),
                Verdict::Error { ename, line } => match line {
                    Some(l) => format!("{ename} {l}"),
                    None => ename.clone(),
                },
                Verdict::Panic(m) => panic!("{name}: panic {m}"),
            };
            if expect != "any" {
                assert_eq!(got, expect, "{name}");
            }
            assert!(
                session.function("keep").is_some(),
                "{name} lost definitions"
            );
        }
    });
}

#[test]
fn is_complete_of_ten_million_parens_is_invalid() {
    let code = "(".repeat(10_000_000);
    let answer = fuzz::on_big_stack(|| completeness(&code));
    assert_eq!(answer, Completeness::Invalid);
}

#[test]
fn generated_cells_never_panic() {
    let seeds: Vec<String> = fixtures().into_iter().map(|(_, code, _)| code).collect();
    let mut generator = Generator::new(SEED, corpus());
    let summary =
        fuzz::on_big_stack(|| fuzz::run(&mut generator, &seeds, seeds.len() + CASES, &|_| {}));
    assert_eq!(summary.cases, seeds.len() + CASES);
    assert!(
        summary.panics.is_empty(),
        "{} panics, first: {:?}",
        summary.panics.len(),
        summary.panics.first()
    );
}

/// Random sources over Python's punctuation and multi-byte characters.
fn unicode_source(rng: &mut analysis_kernel::symexec::check::Rng) -> String {
    const PIECES: &[&str] = &[
        "def f(x):\n",
        "    return x or ",
        "λ",
        "é",
        "𝔘",
        "\u{200b}",
        "(",
        ")",
        "'",
        "\"\"\"",
        "\n",
        "    ",
        "if ",
        ":",
        "1",
        " + ",
        "#",
        "\\",
        "\r\n",
        "x",
        "=",
        "f\"{",
        "}",
    ];
    let n = rng.bits() % 40;
    (0..n)
        .map(|_| PIECES[(rng.bits() % PIECES.len() as u64) as usize])
        .collect()
}

#[test]
fn positions_fall_on_char_boundaries() {
    let mut rng = analysis_kernel::symexec::check::Rng::new(SEED);
    for _ in 0..2_000 {
        let source = unicode_source(&mut rng);
        let map = SourceMap::new(&source);
        for offset in 0..=source.len() as u32 {
            let at = map.floor_char_boundary(offset.into());
            assert!(
                source.is_char_boundary(at.to_usize()),
                "{source:?} {offset}"
            );
            assert_eq!(map.line_column(offset.into()), map.line_column(at));
        }
        // Parsing, summaries and lowering compute spans from ruff's offsets: none may panic.
        let _ = analysis_kernel::python::parse_cell(&source);
        let _ = analysis_kernel::python::lower_module(&source);
    }
}
