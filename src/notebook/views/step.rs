//! `--step` on `%dataflow` and `%absint`: the worklist's progress in one output updated in
//! place. The figure after each worklist step is shown under one display id
//! (`update_display_data`), `%config step_delay_ms` apart, and the last update is the
//! command's own view, the same bundle as without `--step`. A second output keeps the steps
//! as a static strip for exported HTML: a `<details>` list with one SVG per step.
//!
//! The facts of a node before its first visit are that visit's old facts (the engine's
//! initial value); after it, the newest ones.

use std::time::Duration;

use serde_json::json;

use super::flow::{ShownFacts, view};
use crate::dataflow::analyses::Program;
use crate::dataflow::report::Report;
use crate::notebook::commands::OptionSpec;
use crate::notebook::output::{Bundle, CellError, Output, View};
use crate::notebook::session::{Ctx, Session};
use crate::render::graphviz::inline_svg;
use crate::render::html::escape;

/// `--step`, for `%dataflow` and `%absint`.
pub const STEP: OptionSpec = OptionSpec {
    name: "--step",
    values: 0,
    help: "show the worklist step by step in one output updated in place (%config step_delay_ms), ending with the final view; the HTML keeps every step's figure",
};

/// Steps drawn at most (each is a Graphviz layout); later steps go straight to the end.
pub const MAX_STEPS: usize = 60;

/// The report as it stood after worklist step `k` (0-based).
fn snapshot<F: Clone>(r: &Report<F>, k: usize) -> Report<F> {
    let mut s = r.clone();
    for (i, n) in s.nodes.iter_mut().enumerate() {
        let at = |t: &&crate::dataflow::report::FactStep<F>| t.node.index() == i;
        let last = r.trace[..=k.min(r.trace.len().saturating_sub(1))]
            .iter()
            .rfind(at);
        match (last, r.trace.iter().find(at)) {
            (Some(t), _) => {
                n.before = t.new_in.clone();
                n.after = t.new_out.clone();
            }
            (None, Some(t)) => {
                n.before = t.old_in.clone();
                n.after = t.old_out.clone();
            }
            (None, None) => {}
        }
    }
    s.iterations = (k + 1) as u64;
    s.trace.clear();
    s
}

/// Plays the steps of `traced` (a report with its worklist trace), then shows `last`.
pub fn play<F: ShownFacts + Clone>(
    program: &Program<'_>,
    traced: &Report<F>,
    last: &View,
    session: &Session,
    ctx: &mut Ctx<'_>,
) -> Result<(), CellError> {
    let shown = traced.trace.len().min(MAX_STEPS);
    let mut stepper = Stepper::new(session);
    for k in 0..shown {
        ctx.check_cancel()?;
        let step = view(program, &snapshot(traced, k), false, session, ctx)?;
        let t = &traced.trace[k];
        let line = program.cfg.node(t.node).lines.0;
        let caption = format!(
            "step {} of {}: node {} (line {line})",
            k + 1,
            traced.trace.len(),
            t.node.index()
        );
        stepper.step(&step, &caption, ctx)?;
    }
    let more = if traced.trace.len() > shown {
        format!(" (the first {shown} are drawn)")
    } else {
        String::new()
    };
    let summary = format!("The {} worklist steps{more}", traced.trace.len());
    stepper.finish(last, &summary, ctx);
    Ok(())
}

/// A stepped view's output: each step replaces the previous one under one display id,
/// `%config step_delay_ms` apart, and goes into the static strip exported HTML keeps.
pub(super) struct Stepper {
    id: String,
    delay: Duration,
    steps: usize,
    strip: String,
}

impl Stepper {
    pub fn new(session: &Session) -> Stepper {
        Stepper {
            id: format!("analysis-kernel-step-{}", uuid::Uuid::new_v4()),
            delay: Duration::from_millis(session.config.step_delay_ms),
            steps: 0,
            strip: String::new(),
        }
    }

    /// Shows `view` in place of the last step, adds it to the strip under `caption`, and
    /// waits the pace.
    pub fn step(&mut self, view: &View, caption: &str, ctx: &mut Ctx<'_>) -> Result<(), CellError> {
        ctx.check_cancel()?;
        self.show(view, ctx);
        self.strip.push_str(&format!(
            "<div class=\"analysis-kernel-step\"><p>{}</p>{}</div>",
            escape(caption),
            view.svg.as_deref().map(inline_svg).unwrap_or("")
        ));
        wait(self.delay, ctx)
    }

    /// Shows the command's own view as the last update, then the strip (a `<details>` list
    /// with one SVG per step) under `summary`.
    pub fn finish(mut self, last: &View, summary: &str, ctx: &mut Ctx<'_>) {
        self.show(last, ctx);
        let html = format!(
            "<details class=\"analysis-kernel-steps\"><summary>{}</summary>{}</details>",
            escape(summary),
            self.strip
        );
        ctx.sink.emit(Output::Display(
            Bundle::text(format!("{summary}: open them in the HTML."))
                .with("text/html", json!(html)),
        ));
    }

    fn show(&mut self, view: &View, ctx: &mut Ctx<'_>) {
        let (id, bundle) = (self.id.clone(), view.bundle());
        ctx.sink.emit(if self.steps == 0 {
            Output::DisplayId { id, bundle }
        } else {
            Output::Update { id, bundle }
        });
        self.steps += 1;
    }
}

/// Sleeps `delay`, polling the stop signal.
fn wait(delay: Duration, ctx: &Ctx<'_>) -> Result<(), CellError> {
    let end = std::time::Instant::now() + delay;
    while std::time::Instant::now() < end {
        ctx.check_cancel()?;
        std::thread::sleep(Duration::from_millis(10).min(delay));
    }
    Ok(())
}
