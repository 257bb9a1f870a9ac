//! `%set`/`%check` coverage of everyday functions (issue 15): every top-level `def` of
//! `tests/fixtures/everyday/*.py` through `%set` and `%check`. `--report` prints one line
//! per function, then the figures (trees built, exact trees, `%check` precise, witnesses
//! that miss their leaf, median and worst `%set` time) and the refusals by construct;
//! `--no-check` skips `%check`. Without `--report`, only the figures. `--dir PATH` measures
//! the `.py` files of another folder (a held-out set) instead of the fixtures.
//! `%constraints NAME` runs on every function too (`--no-constraints` skips it): the share of
//! its edges decided (not "unknown") and its median and worst time; the report also counts,
//! per havoc construct, the functions whose tree it makes approximate.

#[path = "../../tests/common/everyday.rs"]
mod everyday;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let check = !args.iter().any(|a| a == "--no-check");
    let constraints = !args.iter().any(|a| a == "--no-constraints");
    let dir = args
        .iter()
        .position(|a| a == "--dir")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from)
        .unwrap_or_else(everyday::fixture_dir);
    let records = everyday::run_dir_with(&dir, check, constraints);
    let report = everyday::report(&records);
    if args.iter().any(|a| a == "--report") {
        print!("{report}");
    } else {
        let figures = report
            .split("\n\n")
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n\n");
        print!("{figures}");
    }
}
