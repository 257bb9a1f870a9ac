//! The running kernel: five ZeroMQ sockets, a task per socket, and one engine thread that owns
//! the session (and so every Z3 context) and executes shell requests in order.
//!
//! Control requests (interrupt, shutdown, kernel_info) are served by their own task, so they
//! are answered while a cell runs.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use zeromq::{Socket, SocketRecv, SocketSend, ZmqMessage};

use super::history::{Entry, History};
use super::inbound::{Gate, Request, describe};
use super::progress::{self, Progress};
use super::wire::{ConnectionInfo, Message, PROTOCOL_VERSION, Signer};
use crate::cancel::Cancel;
use crate::notebook::{
    self, Bundle, CellError, Ctx, Output, OutputSink, SaveFile, SavePath, Session,
};
use crate::python::{Completeness, completeness};

/// Why the kernel could not start.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error("cannot read the connection file {path}: {message}")]
    ConnectionFile { path: String, message: String },
    #[error(transparent)]
    Wire(#[from] super::wire::WireError),
    #[error("cannot bind {endpoint}: {message}")]
    Bind { endpoint: String, message: String },
    #[error("cannot start the async runtime: {0}")]
    Runtime(String),
}

/// Options of a kernel process.
#[derive(Clone, Debug, Default)]
pub struct KernelOptions {
    /// Enables the test commands (`%__panic__`, `%__sleep__`).
    pub test_hooks: bool,
}

/// What every task needs to send messages.
#[derive(Clone)]
struct Outbox {
    session_id: String,
    iopub: UnboundedSender<Message>,
}

impl Outbox {
    fn publish(&self, parent: &Message, msg_type: &str, content: Value) {
        let mut msg = Message::child_of(parent, msg_type, content, &self.session_id);
        msg.identities = vec![Bytes::from(format!(
            "kernel.{}.{msg_type}",
            self.session_id
        ))];
        let _ = self.iopub.send(msg);
    }

    fn status(&self, parent: &Message, state: &str) {
        self.publish(parent, "status", json!({"execution_state": state}));
    }

    fn reply(&self, to: &UnboundedSender<Message>, parent: &Message, content: Value) {
        let msg_type = reply_type(parent.msg_type());
        let _ = to.send(Message::child_of(
            parent,
            &msg_type,
            content,
            &self.session_id,
        ));
    }
}

fn reply_type(request: &str) -> String {
    format!(
        "{}_reply",
        request.strip_suffix("_request").unwrap_or(request)
    )
}

/// Reads the connection file and serves until shutdown.
pub fn run(connection_file: &str, options: KernelOptions) -> Result<(), KernelError> {
    let text =
        std::fs::read_to_string(connection_file).map_err(|e| KernelError::ConnectionFile {
            path: connection_file.to_string(),
            message: e.to_string(),
        })?;
    let info: ConnectionInfo =
        serde_json::from_str(&text).map_err(|e| KernelError::ConnectionFile {
            path: connection_file.to_string(),
            message: e.to_string(),
        })?;
    let signer = Signer::new(&info.signature_scheme, &info.key)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| KernelError::Runtime(e.to_string()))?;
    runtime.block_on(serve(info, signer, options))
}

async fn bind<S: Socket>(socket: &mut S, endpoint: String) -> Result<(), KernelError> {
    socket
        .bind(&endpoint)
        .await
        .map(|_| ())
        .map_err(|e| KernelError::Bind {
            endpoint,
            message: e.to_string(),
        })
}

async fn serve(
    info: ConnectionInfo,
    signer: Signer,
    options: KernelOptions,
) -> Result<(), KernelError> {
    let session_id = uuid::Uuid::new_v4().to_string();
    let mut shell = zeromq::RouterSocket::new();
    let mut control = zeromq::RouterSocket::new();
    let mut stdin = zeromq::RouterSocket::new();
    let mut iopub = zeromq::PubSocket::new();
    let mut heartbeat = zeromq::RepSocket::new();
    bind(&mut shell, info.endpoint(info.shell_port)).await?;
    bind(&mut control, info.endpoint(info.control_port)).await?;
    bind(&mut stdin, info.endpoint(info.stdin_port)).await?;
    bind(&mut iopub, info.endpoint(info.iopub_port)).await?;
    bind(&mut heartbeat, info.endpoint(info.hb_port)).await?;

    let (iopub_tx, iopub_rx) = unbounded_channel::<Message>();
    let (shell_tx, shell_rx) = unbounded_channel::<Message>();
    let outbox = Outbox {
        session_id,
        iopub: iopub_tx,
    };
    let cancel = Cancel::new();

    tokio::spawn(publish_loop(iopub, iopub_rx, signer.clone()));
    tokio::spawn(heartbeat_loop(heartbeat));
    let (shell_send, shell_recv) = shell.split();
    tokio::spawn(send_loop(shell_send, shell_rx, signer.clone()));

    outbox.publish(
        &Message::orphan("status", json!({}), &outbox.session_id),
        "status",
        json!({"execution_state": "starting"}),
    );

    let (engine_tx, engine_rx) = std_mpsc::channel::<Request>();
    let engine = Engine {
        session: Session::new(options.test_hooks),
        history: History::default(),
        execution_count: 0,
        outbox: outbox.clone(),
        shell: shell_tx,
        cancel: cancel.clone(),
        queue: engine_rx,
    };
    std::thread::Builder::new()
        .name("engine".into())
        .stack_size(crate::python::depth::STACK_SIZE)
        .spawn(move || engine.run())
        .map_err(|e| KernelError::Runtime(e.to_string()))?;
    let gate = Gate::new(signer.clone());
    tokio::spawn(shell_read_loop(shell_recv, gate.clone(), engine_tx));

    tokio::spawn(exit_with_parent());
    // `stdin` is bound so clients can connect; this kernel never asks for input.
    let _stdin = stdin;
    control_loop(control, gate, signer, outbox, cancel).await;
    Ok(())
}

async fn publish_loop(
    mut socket: zeromq::PubSocket,
    mut rx: UnboundedReceiver<Message>,
    signer: Signer,
) {
    while let Some(msg) = rx.recv().await {
        if let Some(frames) = to_zmq(&signer, &msg) {
            if let Err(e) = socket.send(frames).await {
                eprintln!("analysis-kernel: iopub send failed: {e}");
            }
        }
    }
}

async fn send_loop<S: SocketSend>(
    mut socket: S,
    mut rx: UnboundedReceiver<Message>,
    signer: Signer,
) {
    while let Some(msg) = rx.recv().await {
        if let Some(frames) = to_zmq(&signer, &msg) {
            if let Err(e) = socket.send(frames).await {
                eprintln!("analysis-kernel: send failed: {e}");
            }
        }
    }
}

fn to_zmq(signer: &Signer, msg: &Message) -> Option<ZmqMessage> {
    ZmqMessage::try_from(signer.encode(msg)).ok()
}

/// Ends the process when the client that started it (`JPY_PARENT_PID`) is gone, so a crashed
/// front end leaves no orphan kernel behind. Only where `/proc` exists.
async fn exit_with_parent() {
    let Some(pid) = std::env::var("JPY_PARENT_PID")
        .ok()
        .and_then(|p| p.parse::<u32>().ok())
    else {
        return;
    };
    let proc_dir = std::path::PathBuf::from(format!("/proc/{pid}"));
    if !proc_dir.exists() {
        return;
    }
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        if !proc_dir.exists() {
            eprintln!("analysis-kernel: parent process {pid} is gone; exiting");
            std::process::exit(0);
        }
    }
}

/// Echoes every heartbeat ping back unchanged.
async fn heartbeat_loop(mut socket: zeromq::RepSocket) {
    loop {
        match socket.recv().await {
            Ok(ping) => {
                if socket.send(ping).await.is_err() {
                    break;
                }
            }
            Err(_) => break,
        }
    }
}

/// Reads the next request; messages that cannot be answered are logged to stderr and dropped.
async fn read_message<S: SocketRecv>(
    socket: &mut S,
    gate: &Gate,
    channel: &str,
) -> Option<Request> {
    loop {
        let frames = match socket.recv().await {
            Ok(f) => f,
            Err(e) => {
                eprintln!("analysis-kernel: {channel} socket closed: {e}");
                return None;
            }
        };
        match gate.admit(frames.into_vec()) {
            Ok(request) => {
                if let Request::Refuse { message, error } = &request {
                    let what = describe(message);
                    eprintln!(
                        "analysis-kernel: refused on {channel}: {what} (BadRequest): {error}"
                    );
                }
                return Some(request);
            }
            Err(dropped) => eprintln!("analysis-kernel: dropped on {channel}: {dropped}"),
        }
    }
}

async fn shell_read_loop(
    mut socket: zeromq::RouterRecvHalf,
    gate: Gate,
    engine: std_mpsc::Sender<Request>,
) {
    while let Some(request) = read_message(&mut socket, &gate, "shell").await {
        if engine.send(request).is_err() {
            break;
        }
    }
}

/// Serves the control channel: interrupt, shutdown, and the requests that need no session.
async fn control_loop(
    socket: zeromq::RouterSocket,
    gate: Gate,
    signer: Signer,
    outbox: Outbox,
    cancel: Cancel,
) {
    let (mut send, mut recv) = socket.split();
    while let Some(request) = read_message(&mut recv, &gate, "control").await {
        let msg = request.message();
        outbox.status(msg, "busy");
        let mut shutdown = None;
        let content = request.refusal().unwrap_or_else(|| match msg.msg_type() {
            "kernel_info_request" => kernel_info(),
            "interrupt_request" => {
                cancel.cancel();
                json!({"status": "ok"})
            }
            "shutdown_request" => {
                let restart = msg.bool_field("restart", false);
                shutdown = Some(restart);
                json!({"status": "ok", "restart": restart})
            }
            "is_complete_request" => is_complete(msg.str_field("code")),
            "comm_info_request" => json!({"status": "ok", "comms": {}}),
            other => {
                json!({"status": "error", "ename": "UnknownRequest", "evalue": format!("{other} is not served on the control channel"), "traceback": []})
            }
        });
        let reply = Message::child_of(
            msg,
            &reply_type(msg.msg_type()),
            content,
            &outbox.session_id,
        );
        if let Some(frames) = to_zmq(&signer, &reply) {
            let _ = send.send(frames).await;
        }
        outbox.status(msg, "idle");
        if shutdown.is_some() {
            cancel.cancel();
            // Let iopub flush the idle status before the process ends.
            tokio::time::sleep(Duration::from_millis(50)).await;
            std::process::exit(0);
        }
    }
}

fn kernel_info() -> Value {
    json!({
        "status": "ok",
        "protocol_version": PROTOCOL_VERSION,
        "implementation": "analysis-kernel",
        "implementation_version": env!("CARGO_PKG_VERSION"),
        "language_info": {
            "name": "python",
            "version": "3.12",
            "mimetype": "text/x-python",
            "file_extension": ".py",
            "pygments_lexer": "python",
            "codemirror_mode": "python",
            "nbconvert_exporter": "python",
        },
        "banner": format!("analysis-kernel {}: program-analysis views of Python (type %help)", env!("CARGO_PKG_VERSION")),
        "help_links": [],
        "debugger": false,
    })
}

/// Answers `is_complete_request` on a thread with the parser's stack (it is also served on
/// the control task, a tokio worker with a small stack).
fn is_complete(code: &str) -> Value {
    let answer = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("is_complete".into())
            .stack_size(crate::python::depth::STACK_SIZE)
            .spawn_scoped(scope, || completeness(code))
            .ok()
            .and_then(|t| t.join().ok())
    });
    match answer.unwrap_or(Completeness::Invalid) {
        Completeness::Complete => json!({"status": "complete"}),
        Completeness::Incomplete(indent) => json!({"status": "incomplete", "indent": indent}),
        Completeness::Invalid => json!({"status": "invalid"}),
    }
}

/// Owns the session and runs shell requests one at a time.
struct Engine {
    session: Session,
    history: History,
    execution_count: u64,
    outbox: Outbox,
    shell: UnboundedSender<Message>,
    cancel: Cancel,
    queue: std_mpsc::Receiver<Request>,
}

impl Engine {
    fn run(mut self) {
        while let Ok(request) = self.queue.recv() {
            let msg = request.message();
            self.outbox.status(msg, "busy");
            self.handle(&request);
            self.outbox.status(msg, "idle");
        }
    }

    /// Answers every request already queued with an `aborted` reply (after a failed cell).
    fn abort_queued(&mut self) {
        while let Ok(request) = self.queue.try_recv() {
            let msg = request.message();
            self.outbox.status(msg, "busy");
            let mut content = json!({"status": "aborted"});
            if msg.msg_type() == "execute_request" {
                content["execution_count"] = json!(self.execution_count);
            }
            self.outbox.reply(&self.shell, msg, content);
            self.outbox.status(msg, "idle");
        }
    }

    /// Serves one shell request.
    fn handle(&mut self, request: &Request) {
        let msg = match request {
            Request::Serve(msg) => msg,
            Request::Refuse { message, error } => {
                let mut content = Request::error_content(error);
                if message.msg_type() == "execute_request" {
                    content["execution_count"] = json!(self.execution_count);
                }
                self.outbox.reply(&self.shell, message, content);
                return;
            }
        };
        let content = match msg.msg_type() {
            "execute_request" => return self.execute(msg),
            "kernel_info_request" => kernel_info(),
            "is_complete_request" => is_complete(msg.str_field("code")),
            "complete_request" => {
                let code = msg.str_field("code");
                let cursor = cursor_pos(msg, code);
                let c = notebook::complete(&self.session, code, cursor);
                json!({"status": "ok", "matches": c.matches, "cursor_start": c.cursor_start, "cursor_end": c.cursor_end, "metadata": {}})
            }
            "inspect_request" => {
                let code = msg.str_field("code");
                let detail = msg.int_field("detail_level").unwrap_or(0).clamp(0, 1) as u8;
                match notebook::inspect(&mut self.session, code, cursor_pos(msg, code), detail) {
                    Some(b) => {
                        json!({"status": "ok", "found": true, "data": b.data, "metadata": b.metadata})
                    }
                    None => json!({"status": "ok", "found": false, "data": {}, "metadata": {}}),
                }
            }
            "history_request" => {
                json!({"status": "ok", "history": self.history.query(&msg.content)})
            }
            "comm_info_request" => json!({"status": "ok", "comms": {}}),
            "comm_open" => {
                // No comm targets exist: close the comm at once, as the protocol asks.
                let comm_id = msg.content.get("comm_id").cloned().unwrap_or(Value::Null);
                self.outbox
                    .publish(msg, "comm_close", json!({"comm_id": comm_id, "data": {}}));
                return;
            }
            "comm_msg" | "comm_close" => return,
            "shutdown_request" => {
                let restart = msg.bool_field("restart", false);
                self.outbox.reply(
                    &self.shell,
                    msg,
                    json!({"status": "ok", "restart": restart}),
                );
                self.outbox.status(msg, "idle");
                std::thread::sleep(Duration::from_millis(50));
                std::process::exit(0);
            }
            other => {
                eprintln!("analysis-kernel: unknown shell request {other}");
                json!({"status": "error", "ename": "UnknownRequest", "evalue": format!("{other} is not supported"), "traceback": []})
            }
        };
        self.outbox.reply(&self.shell, msg, content);
    }

    fn execute(&mut self, msg: &Message) {
        let code = msg.str_field("code").to_string();
        let silent = msg.bool_field("silent", false);
        let store_history = msg.bool_field("store_history", !silent) && !silent;
        if store_history {
            self.execution_count += 1;
        }
        let count = self.execution_count;
        if !silent {
            self.outbox.publish(
                msg,
                "execute_input",
                json!({"code": code, "execution_count": count}),
            );
        }
        self.cancel.reset();
        let mut sink = IopubSink {
            outbox: &self.outbox,
            parent: msg,
            silent,
            count,
            result_text: None,
            failed_save: None,
            progress: None,
            depth: 0,
        };
        let session = &mut self.session;
        let cancel = &self.cancel;
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            session.execute(
                &code,
                &mut Ctx {
                    sink: &mut sink,
                    cancel,
                },
            )
        }))
        .unwrap_or_else(|panic| Err(panic_error(panic)))
        .and(sink.failed_save.take().map_or(Ok(()), Err));
        let result_text = sink.result_text.take();
        if store_history {
            self.history.push(Entry {
                line: count,
                input: code,
                output: result_text,
            });
        }
        match outcome {
            Ok(()) => {
                self.outbox.reply(
                    &self.shell,
                    msg,
                    json!({"status": "ok", "execution_count": count, "payload": [], "user_expressions": {}}),
                );
            }
            Err(e) => {
                let error = json!({"ename": e.ename, "evalue": e.evalue, "traceback": e.traceback});
                self.outbox.publish(msg, "error", error.clone());
                let mut reply = error;
                reply["status"] = json!("error");
                reply["execution_count"] = json!(count);
                reply["payload"] = json!([]);
                reply["user_expressions"] = json!({});
                // Abort what was queued during the failed cell before replying, so a request
                // sent once the client has this reply is never aborted.
                if msg.bool_field("stop_on_error", true) {
                    self.abort_queued();
                }
                self.outbox.reply(&self.shell, msg, reply);
            }
        }
    }
}

/// The protocol counts `cursor_pos` in Unicode code points; absent means the end of the code.
fn cursor_pos(msg: &Message, code: &str) -> usize {
    let len = code.chars().count();
    msg.int_field("cursor_pos")
        .map_or(len, |p| (p.max(0) as usize).min(len))
}

fn panic_error(panic: Box<dyn std::any::Any + Send>) -> CellError {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    CellError::new(
        "InternalError",
        format!(
            "the kernel hit a bug and recovered ({what}); your definitions are kept. Please report this cell."
        ),
    )
}

/// Sends a cell's outputs to iopub as they are produced; writes `--save` files.
struct IopubSink<'a> {
    outbox: &'a Outbox,
    parent: &'a Message,
    silent: bool,
    count: u64,
    result_text: Option<String>,
    /// A file emitted as an output that could not be written: the cell's error.
    failed_save: Option<CellError>,
    /// The progress line of the running `%` command.
    progress: Option<Progress>,
    /// How many commands are running (a command may run others, as `%time` runs a cell).
    depth: u32,
}

impl OutputSink for IopubSink<'_> {
    fn emit(&mut self, output: Output) {
        if let Output::File { path, contents } = output {
            // Files normally come through `save`; this one is written as a new file, and a
            // failure fails the cell when it ends.
            let written = SavePath::parse(&path)
                .map_err(|e| CellError::usage(format!("--save {path:?}: {e}")))
                .and_then(|path| {
                    self.save(SaveFile {
                        path,
                        contents,
                        overwrite: false,
                    })
                });
            if let Err(e) = written {
                self.failed_save.get_or_insert(e);
            }
            return;
        }
        if self.silent {
            return;
        }
        match output {
            Output::Stdout(text) => self.stream("stdout", &text),
            Output::Stderr(text) => self.stream("stderr", &text),
            Output::Display(b) => {
                if let Some(p) = self.progress.as_mut() {
                    p.figure_shown();
                }
                self.outbox
                    .publish(self.parent, "display_data", bundle_content(&b))
            }
            Output::DisplayId { id, bundle } => {
                self.outbox
                    .publish(self.parent, "display_data", progress::content(&bundle, &id))
            }
            Output::Update { id, bundle } => self.outbox.publish(
                self.parent,
                "update_display_data",
                progress::content(&bundle, &id),
            ),
            Output::Clear { wait } => {
                self.outbox
                    .publish(self.parent, "clear_output", json!({"wait": wait}))
            }
            Output::Result(b) => {
                self.result_text = b.plain_text().map(str::to_string);
                let mut content = bundle_content(&b);
                content["execution_count"] = json!(self.count);
                self.outbox.publish(self.parent, "execute_result", content);
            }
            Output::File { .. } => {}
        }
    }

    fn save(&mut self, file: SaveFile) -> Result<(), CellError> {
        super::save::write(&file).map(|_| ())
    }

    fn command_started(&mut self, label: &str) {
        self.depth += 1;
        if self.depth == 1 && !self.silent {
            let (outbox, parent) = (self.outbox.clone(), self.parent.clone());
            self.progress = Some(Progress::start(
                label,
                Arc::new(move |msg_type, content| outbox.publish(&parent, msg_type, content)),
            ));
        }
    }

    fn command_finished(&mut self, ok: bool) {
        self.depth = self.depth.saturating_sub(1);
        if self.depth == 0
            && let Some(p) = self.progress.take()
        {
            p.finish(ok);
        }
    }
}

impl IopubSink<'_> {
    fn stream(&self, name: &str, text: &str) {
        self.outbox
            .publish(self.parent, "stream", json!({"name": name, "text": text}));
    }
}

fn bundle_content(b: &Bundle) -> Value {
    json!({"data": b.data, "metadata": b.metadata, "transient": {}})
}
