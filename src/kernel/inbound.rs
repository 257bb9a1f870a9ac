//! What the kernel does with each multipart message it reads: verify the signature, refuse a
//! replay, parse the parts, check the fields the handlers read. A request is served, answered
//! with a `BadRequest` error (signed and addressed, but not servable as sent), or dropped with
//! a reason for the log (no signature, a replay, no readable header, or not a request).

use std::fmt;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use serde_json::{Value, json};

use super::replay::Digests;
use super::wire::{Malformed, Message, Signer, WireError, json_kind};

/// A request read from a socket.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Well formed: serve it.
    Serve(Message),
    /// Signed and addressed, but malformed: answer it with [`Request::error_content`].
    Refuse { message: Message, error: WireError },
}

impl Request {
    pub fn message(&self) -> &Message {
        match self {
            Request::Serve(m) | Request::Refuse { message: m, .. } => m,
        }
    }

    /// The reply content of a refused request (`None` for one to serve).
    pub fn refusal(&self) -> Option<Value> {
        match self {
            Request::Serve(_) => None,
            Request::Refuse { error, .. } => Some(Request::error_content(error)),
        }
    }

    /// The reply content that refuses a malformed request.
    pub fn error_content(error: &WireError) -> Value {
        json!({"status": "error", "ename": "BadRequest", "evalue": error.to_string(), "traceback": []})
    }
}

/// A message that is not answered, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Dropped {
    /// What it was: its type and id when its header could be read, else its frame count.
    pub what: String,
    pub error: WireError,
}

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}: {}", self.what, self.error)
    }
}

/// The string fields of a request's content that its handler reads and the protocol requires.
const REQUIRED_STRINGS: &[(&str, &str)] = &[
    ("execute_request", "code"),
    ("complete_request", "code"),
    ("inspect_request", "code"),
    ("is_complete_request", "code"),
];

/// Verifies, checks for replays and parses; shared by the shell and control readers, which
/// share one history of signatures (a request replayed on the other channel is a replay too).
#[derive(Clone)]
pub struct Gate {
    signer: Signer,
    seen: Arc<Mutex<Digests>>,
}

impl Gate {
    pub fn new(signer: Signer) -> Gate {
        Gate {
            signer,
            seen: Arc::default(),
        }
    }

    /// Decides what to do with one multipart message.
    pub fn admit(&self, frames: Vec<Bytes>) -> Result<Request, Dropped> {
        let frame_count = frames.len();
        let unnamed = |error| Dropped {
            what: format!("a message of {frame_count} frames"),
            error,
        };
        let signed = self.signer.verify_frames(frames).map_err(unnamed)?;
        let digest = signed.digest;
        let parsed = signed.parse();
        let readable = match &parsed {
            Ok(m) => Some(m),
            Err(malformed) => malformed.request.as_deref(),
        };
        let named = |error| match readable {
            Some(m) => Dropped {
                what: describe(m),
                error,
            },
            None => unnamed(error),
        };
        if let Some(digest) = digest {
            // A poisoned lock only means another reader panicked mid-insert; the set is intact.
            let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
            if !seen.insert(digest) {
                return Err(named(WireError::Replayed));
            }
        }
        let (message, error) = match parsed {
            Ok(message) => match missing_field(&message) {
                None => return Ok(Request::Serve(message)),
                Some(error) => (message, error),
            },
            Err(Malformed {
                request: Some(message),
                error,
            }) => (*message, error),
            Err(Malformed {
                request: None,
                error,
            }) => return Err(unnamed(error)),
        };
        if message.msg_type().ends_with("_request") {
            Ok(Request::Refuse { message, error })
        } else {
            // Comm messages and the like take no reply.
            Err(Dropped {
                what: describe(&message),
                error,
            })
        }
    }
}

/// A message's type and id for the log: quoted and escaped, at most [`LOGGED_CHARS`] of each,
/// since both come from the sender.
pub fn describe(m: &Message) -> String {
    let short = |s: &str| {
        let cut: String = s.chars().take(LOGGED_CHARS).collect();
        let more = if cut.len() < s.len() { "…" } else { "" };
        format!("{cut:?}{more}")
    };
    format!("{} {}", short(&m.header.msg_type), short(&m.header.msg_id))
}

/// How much of a sender's string a log line shows.
const LOGGED_CHARS: usize = 80;

/// The first required string field that is absent or not a string.
fn missing_field(m: &Message) -> Option<WireError> {
    REQUIRED_STRINGS
        .iter()
        .filter(|(msg_type, _)| *msg_type == m.msg_type())
        .find_map(|&(_, field)| match m.content.get(field) {
            Some(Value::String(_)) => None,
            other => Some(WireError::BadField {
                msg_type: m.msg_type().to_string(),
                field,
                found: other.map_or("nothing", json_kind),
            }),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::wire::DELIMITER;

    const KEY: &str = "secret";

    fn signer() -> Signer {
        Signer::new("hmac-sha256", KEY).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Frames of a message whose four parts are given as raw bytes, correctly signed.
    fn frames(signer: &Signer, parts: [&[u8]; 4]) -> Vec<Bytes> {
        let mut f = vec![
            Bytes::from_static(b"peer"),
            Bytes::from_static(DELIMITER),
            Bytes::from(signer.sign(&parts)),
        ];
        f.extend(parts.map(Bytes::copy_from_slice));
        f
    }

    fn header(msg_type: &str) -> Vec<u8> {
        format!(r#"{{"msg_id":"m-{msg_type}","msg_type":"{msg_type}","session":"s"}}"#).into_bytes()
    }

    /// How each kind of message is classified: served, refused (an error reply) or dropped.
    #[derive(Debug, PartialEq)]
    enum Fate {
        Serve,
        Refuse(WireError),
        Drop(WireError),
    }

    fn fate(gate: &Gate, frames: Vec<Bytes>) -> Fate {
        match gate.admit(frames) {
            Ok(Request::Serve(_)) => Fate::Serve,
            Ok(Request::Refuse { error, .. }) => Fate::Refuse(error),
            Err(d) => Fate::Drop(d.error),
        }
    }

    #[test]
    fn classification() {
        let s = signer();
        let exec = header("execute_request");
        let (info, frob, comm) = (
            header("kernel_info_request"),
            header("frobnicate_request"),
            header("comm_msg"),
        );
        let json = |part: &'static str| WireError::Json {
            part,
            message: "EOF while parsing an object at line 1 column 1".into(),
        };
        let not_object = |part, found| WireError::NotAnObject { part, found };
        let bad_code = |found| WireError::BadField {
            msg_type: "execute_request".into(),
            field: "code",
            found,
        };
        let cases: Vec<([&[u8]; 4], Fate)> = vec![
            ([&exec, b"{}", b"{}", br#"{"code":"1"}"#], Fate::Serve),
            ([&info, b"{}", b"{}", b"{}"], Fate::Serve),
            ([&frob, b"{}", b"{}", b"{}"], Fate::Serve),
            ([b"{", b"{}", b"{}", b"{}"], Fate::Drop(json("header"))),
            (
                [&exec, b"{", b"{}", b"{}"],
                Fate::Refuse(json("parent header")),
            ),
            ([&exec, b"{}", b"{", b"{}"], Fate::Refuse(json("metadata"))),
            ([&exec, b"{}", b"{}", b"{"], Fate::Refuse(json("content"))),
            (
                [&exec, b"{}", b"{}", b"{\"code\":\"\xff\"}"],
                Fate::Refuse(WireError::Utf8 {
                    part: "content",
                    offset: 9,
                }),
            ),
            (
                [b"\xfe{}", b"{}", b"{}", b"{}"],
                Fate::Drop(WireError::Utf8 {
                    part: "header",
                    offset: 0,
                }),
            ),
            (
                [br#"{"msg_type":"execute_request"}"#, b"{}", b"{}", b"{}"],
                Fate::Drop(WireError::MissingHeaderField("msg_id")),
            ),
            (
                [br#"{"msg_id":"x"}"#, b"{}", b"{}", b"{}"],
                Fate::Drop(WireError::MissingHeaderField("msg_type")),
            ),
            (
                [br#"{"msg_id":7,"msg_type":"a"}"#, b"{}", b"{}", b"{}"],
                Fate::Drop(WireError::MissingHeaderField("msg_id")),
            ),
            (
                [b"[]", b"{}", b"{}", b"{}"],
                Fate::Drop(not_object("header", "array")),
            ),
            (
                [&exec, b"{}", b"{}", b"[\"1\"]"],
                Fate::Refuse(not_object("content", "array")),
            ),
            (
                [&exec, b"{}", b"{}", b"\"1\""],
                Fate::Refuse(not_object("content", "string")),
            ),
            (
                [&exec, b"null", b"{}", b"{}"],
                Fate::Refuse(not_object("parent header", "null")),
            ),
            (
                [&exec, b"{}", b"{}", b"{}"],
                Fate::Refuse(bad_code("nothing")),
            ),
            (
                [&exec, b"{}", b"{}", br#"{"code":7}"#],
                Fate::Refuse(bad_code("number")),
            ),
            (
                [&exec, b"{}", b"{}", br#"{"code":null}"#],
                Fate::Refuse(bad_code("null")),
            ),
            (
                [&comm, b"{}", b"{}", b"["],
                Fate::Drop(WireError::Json {
                    part: "content",
                    message: "EOF while parsing a list at line 1 column 1".into(),
                }),
            ),
        ];
        for (parts, expected) in cases {
            // A fresh gate each time: some cases share their parts, so their signatures.
            let gate = Gate::new(signer());
            assert_eq!(
                fate(&gate, frames(&s, parts)),
                expected,
                "{:?}",
                parts.map(String::from_utf8_lossy)
            );
        }
    }

    #[test]
    fn replays_are_dropped_on_either_channel() {
        let s = signer();
        let gate = Gate::new(signer());
        let control = gate.clone();
        let msg = frames(
            &s,
            [&header("execute_request"), b"{}", b"{}", br#"{"code":"1"}"#],
        );
        assert_eq!(fate(&gate, msg.clone()), Fate::Serve);
        let dropped = gate.admit(msg.clone());
        assert_eq!(
            dropped.as_ref().map_err(ToString::to_string),
            Err(format!(
                "\"execute_request\" \"m-execute_request\": {}",
                WireError::Replayed
            ))
        );
        assert_eq!(fate(&control, msg.clone()), Fate::Drop(WireError::Replayed));
        // The same MAC in upper-case hex verifies, and is still the same signature.
        let mut upper = msg;
        upper[2] = Bytes::from(String::from_utf8_lossy(&upper[2]).to_uppercase());
        assert_eq!(fate(&gate, upper), Fate::Drop(WireError::Replayed));
        // A malformed request is answered once, not on every replay.
        let bad = frames(&s, [&header("execute_request"), b"{}", b"{}", b"{"]);
        assert!(matches!(fate(&gate, bad.clone()), Fate::Refuse(_)));
        assert_eq!(fate(&gate, bad), Fate::Drop(WireError::Replayed));
    }

    #[test]
    fn log_lines_escape_and_shorten_what_the_sender_wrote() {
        let mut m = Message::orphan("x\ny\x1b[31m", json!({}), "s");
        m.header.msg_id = "a".repeat(1000);
        let expected = format!("\"x\\ny\\u{{1b}}[31m\" \"{}\"…", "a".repeat(80));
        assert_eq!(describe(&m), expected);
    }

    #[test]
    fn without_a_key_nothing_is_a_replay() {
        let unsigned = Signer::new("", "").unwrap_or_else(|e| panic!("{e}"));
        let gate = Gate::new(unsigned.clone());
        let msg = frames(
            &unsigned,
            [&header("kernel_info_request"), b"{}", b"{}", b"{}"],
        );
        assert_eq!(fate(&gate, msg.clone()), Fate::Serve);
        assert_eq!(fate(&gate, msg), Fate::Serve);
    }

    #[test]
    fn unsigned_and_unframed_messages_are_dropped_by_frame_count() {
        let gate = Gate::new(signer());
        let forged = frames(
            &Signer::new("", "").unwrap_or_else(|e| panic!("{e}")),
            [&header("kernel_info_request"), b"{}", b"{}", b"{}"],
        );
        let d = gate.admit(forged).err();
        assert_eq!(
            d.map(|d| d.to_string()),
            Some("a message of 7 frames: bad signature".to_string())
        );
        assert_eq!(
            fate(&gate, vec![Bytes::from_static(b"x")]),
            Fate::Drop(WireError::MissingDelimiter)
        );
    }
}
