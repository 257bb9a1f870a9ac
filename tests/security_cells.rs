//! What a hostile cell cannot do, through the cell language: `%%dot` attributes that read
//! files, script links in figures, `--save` paths out of the notebook's folder, and `%check`
//! with the CPython oracle turned off or an unbounded run count.

#[path = "common/cells.rs"]
mod cells;
use analysis_kernel::notebook::{Output, Session};
use cells::{display, run};

#[test]
fn dot_refuses_file_attributes_with_their_line() {
    let mut s = Session::default();
    let e = run(
        &mut s,
        "\n%%dot\ndigraph {\n  a -> b\n  b [\"shape\"=box, \"ima\" + \"ge\"=\"/etc/hostname\"]\n}\n",
    )
    .0
    .unwrap_err();
    assert_eq!(e.ename, "DotError");
    assert!(
        e.evalue.contains("attribute image") && e.evalue.contains("cell line 5"),
        "{}",
        e.evalue
    );
    assert!(e.traceback[0].contains("Cell line 5"), "{:?}", e.traceback);
    let e = run(
        &mut s,
        "%%dot\ndigraph { a [label=<<TABLE><TR><TD><IMG SRC=\"/etc/x.png\"/></TD></TR></TABLE>>] }",
    )
    .0
    .unwrap_err();
    assert!(e.evalue.contains("<IMG>"), "{}", e.evalue);
}

#[test]
fn script_links_never_reach_the_outputs() {
    let mut s = Session::default();
    let (r, out) = run(
        &mut s,
        "%%dot\ndigraph { a [href=\"javascript:alert(document.cookie)\"]; b [URL=\"https://example.org\"] }",
    );
    r.unwrap();
    let data = display(&out);
    for mime in ["text/html", "image/svg+xml"] {
        let text = data[mime].as_str().unwrap();
        assert!(!text.contains("javascript:"), "{mime}: {text}");
        assert!(text.contains("https://example.org"), "{mime}: {text}");
    }
}

#[test]
fn save_paths_are_refused_before_any_work() {
    let mut s = Session::default();
    // The DOT is invalid: a UsageError (not a DotError) shows the path was refused first.
    for target in ["../../../../etc/x.txt", "/tmp/x.svg", "x.exe"] {
        let (r, out) = run(&mut s, &format!("%%dot --save {target}\ndigraph {{ -- }}"));
        let e = r.unwrap_err();
        assert_eq!(e.ename, "UsageError", "{target}: {}", e.evalue);
        assert!(e.evalue.contains(target), "{}", e.evalue);
        assert!(out.is_empty(), "{out:?}");
    }
    let (r, out) = run(&mut s, "%who --save w.txt --force");
    r.unwrap();
    assert!(matches!(&out[0], Output::File { path, .. } if path == "w.txt"));
}

#[test]
fn check_without_the_cpython_oracle_says_so() {
    let mut s = Session::default();
    run(
        &mut s,
        "def sign(x: int) -> int:\n    if x < 0:\n        return -1\n    return 1\n",
    )
    .0
    .unwrap();
    run(&mut s, "%config cpython_oracle=0").0.unwrap();
    let (r, out) = run(&mut s, "%check sign --runs 20");
    r.unwrap();
    let data = display(&out);
    let payload = &data["application/vnd.analysis-kernel.check+json"];
    assert_eq!(payload["oracle"], "interpreter");
    assert_eq!(payload["exhaustive"], true);
    let text = data["text/plain"].as_str().unwrap();
    assert!(text.contains("cpython_oracle=0"), "{text}");
    assert!(run(&mut s, "%config cpython_oracle=2").0.is_err());
    run(&mut s, "%config cpython_oracle=1").0.unwrap();
    let (_, out) = run(&mut s, "%check sign --runs 20");
    let payload = &display(&out)["application/vnd.analysis-kernel.check+json"];
    assert_eq!(payload["oracle"], "cpython");
}

/// A run count past what `%config check_runs` allows is refused before any work: it once
/// grew the kernel to 22 GB.
#[test]
fn check_refuses_a_run_count_past_the_limit() {
    let mut s = Session::default();
    run(&mut s, "def f(x: int) -> int:\n    return x\n")
        .0
        .unwrap();
    let e = run(&mut s, "%check f --runs 2020202020").0.unwrap_err();
    assert_eq!(e.ename, "UsageError");
    assert!(e.evalue.contains("from 0 to 1000000"), "{}", e.evalue);
    run(&mut s, "%check f --runs 3").0.unwrap();
}
