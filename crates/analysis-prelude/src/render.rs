//! Views: what [`show`] displays in the notebook, through evcxr's rich-output channel
//! (`EVCXR_BEGIN_CONTENT mime` … `EVCXR_END_CONTENT` on stdout, read by the kernel).

use crate::analysis::{Facts, Solution};
use crate::program::Program;

/// Something a cell can display: plain text, and optionally HTML or a Graphviz graph (the
/// kernel lays out DOT with its own Graphviz, as `%cfg` does).
pub trait View {
    /// The text form (also what a text-only front end shows).
    fn text(&self) -> String;
    /// The HTML form, if any.
    fn html(&self) -> Option<String> {
        None
    }
    /// A Graphviz DOT graph, if the view is a graph.
    fn dot(&self) -> Option<String> {
        None
    }
}

/// The MIME type prefix of a view on evcxr's rich-output channel; the kernel turns each such
/// block into one display (text, HTML, and an SVG laid out from the DOT).
pub const VIEW_MIME: &str = "application/vnd.analysis-kernel.view.";

/// The block [`show`] prints for `view`: one evcxr content block whose MIME type carries the
/// view's sequence number `seq` (evcxr keeps one block per MIME type, and a cell may show
/// several views) and whose body is one line of tab-separated fields: text, HTML, DOT.
///
/// ```
/// use analysis_prelude::prelude::*;
/// let out = analysis_prelude::render::block(&Html::new("<b>hi</b>", "hi\nthere"), 3);
/// assert_eq!(out, "EVCXR_BEGIN_CONTENT application/vnd.analysis-kernel.view.3\n\
///                  hi\\nthere\t<b>hi</b>\t\nEVCXR_END_CONTENT\n");
/// ```
pub fn block(view: &dyn View, seq: usize) -> String {
    let fields = [
        view.text(),
        view.html().unwrap_or_default(),
        view.dot().unwrap_or_default(),
    ];
    format!(
        "EVCXR_BEGIN_CONTENT {VIEW_MIME}{seq}\n{}EVCXR_END_CONTENT\n",
        crate::wire::line(&fields)
    )
}

/// Displays `view` under the cell, as the `%` commands display theirs.
pub fn show(view: &dyn View) {
    use std::io::Write;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static SEQ: AtomicUsize = AtomicUsize::new(0);
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(block(view, seq).as_bytes());
    let _ = out.flush();
}

/// An HTML view with its text form.
pub struct Html {
    html: String,
    text: String,
}

impl Html {
    pub fn new(html: impl Into<String>, text: impl Into<String>) -> Self {
        Html {
            html: html.into(),
            text: text.into(),
        }
    }
}

impl View for Html {
    fn text(&self) -> String {
        self.text.clone()
    }
    fn html(&self) -> Option<String> {
        Some(self.html.clone())
    }
}

/// Escapes `&`, `<`, `>` and `"` for HTML.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A table of rows of cells (text is tab-separated, HTML a `<table>`).
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> Html {
    let mut html = String::from("<table><tr>");
    for h in headers {
        html.push_str(&format!("<th>{}</th>", escape(h)));
    }
    html.push_str("</tr>");
    let mut text = headers.join("\t");
    for r in rows {
        html.push_str("<tr>");
        for c in r {
            html.push_str(&format!("<td style=\"text-align:left\">{}</td>", escape(c)));
        }
        html.push_str("</tr>");
        text.push('\n');
        text.push_str(&r.join("\t"));
    }
    html.push_str("</table>");
    Html::new(html, text)
}

/// The CFG of a function, drawn by the kernel's Graphviz.
impl View for Program {
    fn text(&self) -> String {
        self.stmts
            .iter()
            .map(|s| {
                let succ: Vec<String> = self.successors(s.node).map(|n| n.to_string()).collect();
                format!("{}: {} -> {}", s.node, s.text, succ.join(", "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
    fn dot(&self) -> Option<String> {
        Some(self.to_dot())
    }
}

fn facts(f: Option<&Facts>) -> String {
    let v: Vec<&str> = f.into_iter().flatten().map(String::as_str).collect();
    format!("{{{}}}", v.join(", "))
}

impl Solution {
    /// A table of the facts before and after each node of `program`.
    pub fn table(&self, program: &Program) -> Html {
        let rows: Vec<Vec<String>> = program
            .stmts
            .iter()
            .map(|s| {
                vec![
                    s.node.to_string(),
                    s.line.to_string(),
                    s.text.clone(),
                    facts(self.before.get(&s.node)),
                    facts(self.after.get(&s.node)),
                ]
            })
            .collect();
        table(&["node", "line", "statement", "before", "after"], &rows)
    }
}

/// The name (prefix) of the threads that serve registered entries.
pub const SERVER_THREAD: &str = "analysis-prelude-server";

/// The MIME type of a panic report on evcxr's content channel.
pub const PANIC_MIME: &str = "application/vnd.analysis-kernel.panic";

/// Makes a panic of a cell's code report itself to the kernel (message and place) on evcxr's
/// content channel, so the cell fails with it; the kernel installs it in every context.
/// Panics in a registered entry's code are answered to the kernel by its server instead.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        // The servers of registered entries answer the kernel with their panics.
        // (The cell's own thread has no name here: evcxr's process runs cells through a
        // second copy of std, whose main thread was never named.)
        if std::thread::current()
            .name()
            .is_some_and(|n| n.starts_with(SERVER_THREAD))
        {
            return;
        }
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        let place = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_default();
        println!(
            "EVCXR_BEGIN_CONTENT {PANIC_MIME}\n{}EVCXR_END_CONTENT",
            crate::wire::line(&[message, place])
        );
    }));
}
