use analysis_kernel::cancel::Cancel;
use analysis_kernel::notebook::{Output, Session};
#[test]
fn scratch() {
    let src = std::fs::read_to_string("/tmp/scratch/cells.txt").unwrap();
    let mut session = Session::new(false);
    session.skip_layout = true;
    for cell in src.split("\n#%%\n") {
        let t = std::time::Instant::now();
        let (r, out) = session.run_cell(cell, &Cancel::new());
        println!(
            ">>> {} [{:?}] {:?}",
            cell.lines().next().unwrap_or(""),
            t.elapsed(),
            r.as_ref().err()
        );
        for o in &out {
            match o {
                Output::Display(b) => {
                    if let Some(t) = b.data.get("text/plain") {
                        println!("{}", t.as_str().unwrap_or(""));
                    }
                    if std::env::var("JSON").is_ok() {
                        for (k, v) in &b.data {
                            if k.contains("json") {
                                println!("{v}");
                            }
                        }
                    }
                }
                Output::Stdout(s) => print!("{s}"),
                _ => {}
            }
        }
    }
}
