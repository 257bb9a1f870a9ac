//! Snapshot tests of the CFG's text rendering: each program `tests/fixtures/cfg/NAME.py` in,
//! `NAME.txt` out (`UPDATE_EXPECT=1 cargo test --release --test cfg_snapshots` rewrites them).
//!
//! A fixture's first line says what to draw: `# view: TARGET [--blocks] [--calls]
//! [--exceptions]`, where
//! TARGET is a function's qualified name, `<module>` for the top-level code, or `*` for the
//! top-level code and then every function. Every graph drawn is also checked by `verify`.

use analysis_kernel::cfg::{
    Cfg, Options, basic_blocks, function_cfg_with, module_cfg_with, verify,
};
use analysis_kernel::python::lower_module;
use analysis_kernel::render::cfg::text;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cfg");

fn render(source: &str) -> String {
    let spec = source
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# view:"))
        .expect("a fixture starts with `# view: TARGET [--blocks] [--calls]`");
    let words: Vec<&str> = spec.split_whitespace().collect();
    let blocks = words.contains(&"--blocks");
    let calls = words.contains(&"--calls");
    let options = Options {
        all_exceptions: words.contains(&"--exceptions"),
    };
    let module = lower_module(source).expect("fixture parses");
    let mut graphs: Vec<(Cfg, &[_])> = Vec::new();
    match words[0] {
        "<module>" | "*" => graphs.push((
            module_cfg_with(&module, options).expect("cfg"),
            &module.body[..],
        )),
        name => {
            let f = module.function(name).expect("fixture defines the function");
            graphs.push((function_cfg_with(f, options).expect("cfg"), &f.body[..]));
        }
    }
    if words[0] == "*" {
        for f in module.functions() {
            graphs.push((function_cfg_with(f, options).expect("cfg"), &f.body[..]));
        }
    }
    let mut out = Vec::new();
    for (cfg, body) in graphs {
        verify(&cfg, body).unwrap_or_else(|e| panic!("{e}"));
        let shown = if blocks {
            let b = basic_blocks(&cfg).cfg;
            verify(&b, body).unwrap_or_else(|e| panic!("{e}"));
            b
        } else {
            cfg
        };
        out.push(text(&shown, calls));
    }
    out.join("\n")
}

fn check(name: &str) {
    let source = std::fs::read_to_string(format!("{DIR}/{name}.py")).expect("fixture exists");
    expect_test::expect_file![format!("fixtures/cfg/{name}.txt")].assert_eq(&render(&source));
}

macro_rules! fixtures {
    ($($name:ident),* $(,)?) => {
        $( #[test] fn $name() { check(stringify!($name)); } )*
        const LISTED: &[&str] = &[$(stringify!($name)),*];
    };
}

fixtures!(
    if_elif_else,
    if_without_else,
    while_else_break_continue,
    for_else_break,
    while_true_no_exit,
    while_true_with_break,
    unreachable_after_jumps,
    try_except_else_finally,
    try_handlers_by_type,
    finally_return_in_loop,
    break_in_try_in_for_else,
    nested_try_propagation,
    continue_through_finally,
    finally_overrides_return,
    match_with_guards,
    match_without_default,
    with_statement,
    simple_statements,
    raise_and_reraise,
    nested_functions,
    class_methods,
    lambdas_comprehensions,
    module_snippet,
    module_blocks,
    blocks_try,
    unsupported_statement,
    calls_tracking,
    all_exceptions,
);

#[test]
fn every_fixture_has_a_test() {
    let mut on_disk: Vec<String> = std::fs::read_dir(DIR)
        .expect("fixture directory")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".py").map(str::to_string))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = LISTED.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}
