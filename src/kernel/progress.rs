//! The progress line of a long command: a `%` command still running after a second gets a
//! `display_data` with a `transient.display_id` that a ticker thread updates in place
//! (`update_display_data`) every half second. When the command shows its first figure the line
//! is blanked and the figure follows as an ordinary `display_data` (so a client that reads only
//! `display_data`, as tests and graders do, never misses a slow command's figure); if it shows
//! none, a last update says how it ended.
//!
//! The line says what the command has done so far when it counts its work (`crate::work`:
//! nodes explored, leaves, solver calls for `%set`/`%check`, concrete runs for `%check`),
//! else only the time.
//!
//! Every publication of the line happens under one lock, so the channel to iopub always
//! carries the line's `display_data` before any update of it.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::notebook::Bundle;

/// How long a command runs before its progress line appears.
pub const DELAY: Duration = Duration::from_secs(1);
/// How often the line is updated once shown.
pub const PERIOD: Duration = Duration::from_millis(500);

/// Publishes one iopub message (type, content) as a child of the running request.
pub type Publish = Arc<dyn Fn(&str, Value) + Send + Sync>;

struct State {
    label: String,
    started: Instant,
    /// The display id once the line is shown.
    shown: Option<String>,
    /// The command has shown a figure or finished: the ticker stops.
    done: bool,
}

/// The progress line of one running command.
pub struct Progress {
    state: Arc<(Mutex<State>, Condvar)>,
    publish: Publish,
    ticker: Option<JoinHandle<()>>,
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Progress {
    /// Starts the ticker for a command labelled `label`.
    pub fn start(label: &str, publish: Publish) -> Progress {
        crate::work::reset();
        let state = Arc::new((
            Mutex::new(State {
                label: label.to_string(),
                started: Instant::now(),
                shown: None,
                done: false,
            }),
            Condvar::new(),
        ));
        let (s, p) = (state.clone(), publish.clone());
        let ticker = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || tick(&s, &p))
            .ok();
        Progress {
            state,
            publish,
            ticker,
        }
    }

    /// The command shows its first figure: a line already shown is blanked (the figure is then
    /// published after it as usual), and the ticker stops.
    pub fn figure_shown(&mut self) {
        {
            let (m, cv) = &*self.state;
            let mut st = lock(m);
            let first = !st.done;
            st.done = true;
            cv.notify_all();
            if let (Some(id), true) = (&st.shown, first) {
                (self.publish)("update_display_data", content(&blank(), id));
            }
        }
        self.join();
    }

    /// The command ended (`ok`: without an error): a line still showing progress says so.
    pub fn finish(mut self, ok: bool) {
        {
            let (m, cv) = &*self.state;
            let mut st = lock(m);
            if !st.done {
                st.done = true;
                cv.notify_all();
                if let Some(id) = &st.shown {
                    let secs = st.started.elapsed().as_secs_f64();
                    let how = if ok { "finished" } else { "stopped" };
                    let work = crate::work::describe()
                        .map(|w| format!(" ({w})"))
                        .unwrap_or_default();
                    let text = format!("{}: {how} after {secs:.1} s{work}", st.label);
                    (self.publish)("update_display_data", content(&line(&text), id));
                }
            }
        }
        self.join();
    }

    fn join(&mut self) {
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        let (m, cv) = &*self.state;
        lock(m).done = true;
        cv.notify_all();
        self.join();
    }
}

/// The ticker: waits a second, shows the line, then updates it until the command is done.
fn tick(state: &(Mutex<State>, Condvar), publish: &Publish) {
    let (m, cv) = state;
    let mut st = lock(m);
    let mut wait = DELAY;
    loop {
        let (guard, timeout) = cv
            .wait_timeout_while(st, wait, |s| !s.done)
            .unwrap_or_else(|p| p.into_inner());
        st = guard;
        if st.done || !timeout.timed_out() {
            return;
        }
        let secs = st.started.elapsed().as_secs();
        let text = match crate::work::describe() {
            Some(work) => format!("{}: running ({secs} s)… {work}", st.label),
            None => format!("{}: running ({secs} s)…", st.label),
        };
        match &st.shown {
            None => {
                let id = format!("analysis-kernel-progress-{}", uuid::Uuid::new_v4());
                publish("display_data", content(&line(&text), &id));
                st.shown = Some(id);
            }
            Some(id) => publish("update_display_data", content(&line(&text), id)),
        }
        wait = PERIOD;
    }
}

/// The progress line as a bundle (plain text and HTML).
fn line(text: &str) -> Bundle {
    Bundle::text(text).with(
        "text/html",
        json!(format!(
            "<div class=\"analysis-kernel-progress\" style=\"color:#555;font-style:italic\">{}</div>",
            crate::render::html::escape(text)
        )),
    )
}

/// What a blanked progress line shows: nothing.
fn blank() -> Bundle {
    Bundle::text("").with("text/html", json!(""))
}

/// `display_data` / `update_display_data` content for `bundle` under display id `id`.
pub fn content(bundle: &Bundle, id: &str) -> Value {
    json!({"data": bundle.data, "metadata": bundle.metadata, "transient": {"display_id": id}})
}
