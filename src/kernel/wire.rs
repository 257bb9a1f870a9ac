//! The Jupyter wire format (messaging protocol 5.4): framing of multipart messages and
//! HMAC-SHA256 signing and verification. Pure data in, data out; no sockets.

use bytes::Bytes;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::Sha256;

/// The frame that separates routing identities from the signed message.
pub const DELIMITER: &[u8] = b"<IDS|MSG>";
/// The protocol version this kernel speaks.
pub const PROTOCOL_VERSION: &str = "5.4";

/// The HMAC-SHA256 of a message's four signed parts.
pub type Digest = [u8; 32];

/// Why a multipart message was refused.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum WireError {
    #[error("no <IDS|MSG> delimiter")]
    MissingDelimiter,
    #[error("expected a signature and four message parts, got {0} frames after the delimiter")]
    TooFewParts(usize),
    #[error("bad signature")]
    BadSignature,
    #[error("replayed: a message with this signature was already received")]
    Replayed,
    #[error("unsupported signature scheme {0:?} (only hmac-sha256)")]
    UnsupportedScheme(String),
    #[error("the {part} is not valid UTF-8 (bad byte at offset {offset})")]
    Utf8 { part: &'static str, offset: usize },
    #[error("invalid JSON in the {part}: {message}")]
    Json { part: &'static str, message: String },
    #[error("the {part} is a JSON {found}, not an object")]
    NotAnObject {
        part: &'static str,
        found: &'static str,
    },
    #[error("header has no string field {0:?}")]
    MissingHeaderField(&'static str),
    #[error("{msg_type} needs a string field {field:?} in its content (found: {found})")]
    BadField {
        msg_type: String,
        field: &'static str,
        found: &'static str,
    },
}

/// The `<header>` of a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub msg_id: String,
    pub session: String,
    pub username: String,
    pub date: String,
    pub msg_type: String,
    pub version: String,
}

impl Header {
    pub fn new(msg_type: &str, session: &str) -> Self {
        Header {
            msg_id: uuid::Uuid::new_v4().to_string(),
            session: session.to_string(),
            username: "analysis-kernel".to_string(),
            date: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            msg_type: msg_type.to_string(),
            version: PROTOCOL_VERSION.to_string(),
        }
    }
}

/// A decoded message. The parent header is kept as JSON (it is `{}` when there is none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub identities: Vec<Bytes>,
    pub header: Header,
    pub parent_header: Value,
    pub metadata: Value,
    pub content: Value,
    pub buffers: Vec<Bytes>,
}

impl Message {
    /// A message of `msg_type` from this kernel's `session`, child of `parent`, routed back to
    /// the parent's sender.
    pub fn child_of(parent: &Message, msg_type: &str, content: Value, session: &str) -> Message {
        Message {
            identities: parent.identities.clone(),
            header: Header::new(msg_type, session),
            parent_header: serde_json::to_value(&parent.header).unwrap_or_else(|_| json!({})),
            metadata: json!({}),
            content,
            buffers: Vec::new(),
        }
    }

    /// A message with no parent (e.g. the `starting` status).
    pub fn orphan(msg_type: &str, content: Value, session: &str) -> Message {
        Message {
            identities: Vec::new(),
            header: Header::new(msg_type, session),
            parent_header: json!({}),
            metadata: json!({}),
            content,
            buffers: Vec::new(),
        }
    }

    pub fn msg_type(&self) -> &str {
        &self.header.msg_type
    }

    /// A string field of the content, or "" when absent.
    pub fn str_field(&self, name: &str) -> &str {
        self.content.get(name).and_then(Value::as_str).unwrap_or("")
    }

    pub fn bool_field(&self, name: &str, default: bool) -> bool {
        self.content
            .get(name)
            .and_then(Value::as_bool)
            .unwrap_or(default)
    }

    pub fn int_field(&self, name: &str) -> Option<i64> {
        self.content.get(name).and_then(Value::as_i64)
    }
}

/// Signs and verifies messages with the connection's key. An empty key disables signing, as
/// the protocol specifies.
#[derive(Clone)]
pub struct Signer {
    /// The MAC keyed once: each message clones it rather than hashing the key again.
    keyed: Option<Hmac<Sha256>>,
}

impl Signer {
    pub fn new(scheme: &str, key: &str) -> Result<Signer, WireError> {
        if key.is_empty() {
            return Ok(Signer { keyed: None });
        }
        if scheme != "hmac-sha256" && !scheme.is_empty() {
            return Err(WireError::UnsupportedScheme(scheme.to_string()));
        }
        // HMAC accepts keys of any length, so this cannot fail.
        let keyed = <Hmac<Sha256> as Mac>::new_from_slice(key.as_bytes()).ok();
        Ok(Signer { keyed })
    }

    fn mac(&self, parts: &[&[u8]]) -> Option<Hmac<Sha256>> {
        let mut mac = self.keyed.clone()?;
        for p in parts {
            mac.update(p);
        }
        Some(mac)
    }

    /// The hex signature of the four signed parts ("" when signing is off).
    pub fn sign(&self, parts: &[&[u8]]) -> String {
        self.mac(parts)
            .map(|m| hex::encode(m.finalize().into_bytes()))
            .unwrap_or_default()
    }

    /// Constant-time check of a hex signature: the MAC it encodes (`None` when signing is
    /// off), or `BadSignature`.
    fn check(&self, parts: &[&[u8]], signature: &[u8]) -> Result<Option<Digest>, WireError> {
        let Some(mac) = self.mac(parts) else {
            return Ok(None);
        };
        let mut digest: Digest = [0; 32];
        hex::decode_to_slice(signature, &mut digest).map_err(|_| WireError::BadSignature)?;
        mac.verify_slice(&digest)
            .map(|()| Some(digest))
            .map_err(|_| WireError::BadSignature)
    }

    /// Constant-time check of a hex signature.
    pub fn verify(&self, parts: &[&[u8]], signature: &[u8]) -> bool {
        self.check(parts, signature).is_ok()
    }

    /// Frames a message: identities, delimiter, signature, header, parent, metadata, content, buffers.
    pub fn encode(&self, msg: &Message) -> Vec<Bytes> {
        let header = to_json_bytes(&serde_json::to_value(&msg.header).unwrap_or_default());
        let parent = to_json_bytes(&msg.parent_header);
        let metadata = to_json_bytes(&msg.metadata);
        let content = to_json_bytes(&msg.content);
        let signature = self.sign(&[&header, &parent, &metadata, &content]);
        let mut frames = msg.identities.clone();
        frames.push(Bytes::from_static(DELIMITER));
        frames.push(Bytes::from(signature));
        frames.extend([header, parent, metadata, content].map(Bytes::from));
        frames.extend(msg.buffers.iter().cloned());
        frames
    }

    /// Unframes and verifies a multipart message, leaving its parts unparsed.
    pub fn verify_frames(&self, mut frames: Vec<Bytes>) -> Result<Signed, WireError> {
        let delim = frames
            .iter()
            .position(|f| f.as_ref() == DELIMITER)
            .ok_or(WireError::MissingDelimiter)?;
        let after = frames.len() - delim - 1;
        if after < 5 {
            return Err(WireError::TooFewParts(after));
        }
        let buffers = frames.split_off(delim + 6);
        let parts = frames.split_off(delim + 2);
        let signature = frames.pop().unwrap_or_default();
        frames.truncate(delim);
        let parts: [Bytes; 4] = parts
            .try_into()
            .map_err(|_| WireError::TooFewParts(after))?;
        let digest = self.check(&parts.each_ref().map(|p| p.as_ref()), &signature)?;
        Ok(Signed {
            identities: frames,
            digest,
            parts,
            buffers,
        })
    }

    /// Unframes, verifies and parses a multipart message.
    pub fn decode(&self, frames: Vec<Bytes>) -> Result<Message, WireError> {
        self.verify_frames(frames)?.parse().map_err(|m| m.error)
    }
}

/// A multipart message whose signature checked out, its parts not yet parsed.
#[derive(Clone, Debug)]
pub struct Signed {
    pub identities: Vec<Bytes>,
    /// The verified MAC (`None` when signing is off).
    pub digest: Option<Digest>,
    /// Header, parent header, metadata, content.
    pub parts: [Bytes; 4],
    pub buffers: Vec<Bytes>,
}

/// A signed message that cannot be served as sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    /// The message, with `{}` for its unreadable parts, when its header is readable (it has
    /// a `msg_id` and a `msg_type`), so its sender can be answered.
    pub request: Option<Box<Message>>,
    pub error: WireError,
}

const PART_NAMES: [&str; 4] = ["header", "parent header", "metadata", "content"];

impl Signed {
    /// Parses the four parts, each of which must be a JSON object.
    pub fn parse(self) -> Result<Message, Malformed> {
        let [header, parent, metadata, content] = self.parts;
        let header = parse_object(&header, PART_NAMES[0])
            .and_then(|h| parse_header(&h))
            .map_err(|error| Malformed {
                request: None,
                error,
            })?;
        let mut first_error = None;
        let mut object = |bytes: &[u8], part| {
            parse_object(bytes, part).unwrap_or_else(|e| {
                first_error.get_or_insert(e);
                json!({})
            })
        };
        let message = Message {
            parent_header: object(&parent, PART_NAMES[1]),
            metadata: object(&metadata, PART_NAMES[2]),
            content: object(&content, PART_NAMES[3]),
            identities: self.identities,
            header,
            buffers: self.buffers,
        };
        match first_error {
            None => Ok(message),
            Some(error) => Err(Malformed {
                request: Some(Box::new(message)),
                error,
            }),
        }
    }
}

fn to_json_bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_else(|_| b"{}".to_vec())
}

/// A JSON object from UTF-8 bytes.
fn parse_object(bytes: &[u8], part: &'static str) -> Result<Value, WireError> {
    let text = std::str::from_utf8(bytes).map_err(|e| WireError::Utf8 {
        part,
        offset: e.valid_up_to(),
    })?;
    let value: Value = serde_json::from_str(text).map_err(|e| WireError::Json {
        part,
        message: e.to_string(),
    })?;
    if value.is_object() {
        Ok(value)
    } else {
        Err(WireError::NotAnObject {
            part,
            found: json_kind(&value),
        })
    }
}

/// The JSON name of a value's type, for error messages.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Reads a header leniently: clients differ in which optional fields they send.
fn parse_header(v: &Value) -> Result<Header, WireError> {
    let field = |name: &'static str, required: bool| -> Result<String, WireError> {
        match v.get(name).and_then(Value::as_str) {
            Some(s) => Ok(s.to_string()),
            None if required => Err(WireError::MissingHeaderField(name)),
            None => Ok(String::new()),
        }
    };
    Ok(Header {
        msg_id: field("msg_id", true)?,
        session: field("session", false)?,
        username: field("username", false)?,
        date: field("date", false)?,
        msg_type: field("msg_type", true)?,
        version: field("version", false)?,
    })
}

/// The contents of a kernel's connection file.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct ConnectionInfo {
    pub ip: String,
    pub transport: String,
    pub shell_port: u16,
    pub iopub_port: u16,
    pub stdin_port: u16,
    pub control_port: u16,
    pub hb_port: u16,
    #[serde(default)]
    pub key: String,
    #[serde(default)]
    pub signature_scheme: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ConnectionInfo {
    pub fn endpoint(&self, port: u16) -> String {
        format!("{}://{}:{}", self.transport, self.ip, port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(session: &str) -> Message {
        let parent = Message::orphan("execute_request", json!({"code": "1"}), "client");
        let mut m = Message::child_of(&parent, "execute_reply", json!({"status": "ok"}), session);
        m.identities = vec![Bytes::from_static(b"peer-1")];
        m
    }

    #[test]
    fn encode_decode_round_trip() {
        let signer = Signer::new("hmac-sha256", "secret").unwrap();
        let msg = sample("kernel");
        let frames = signer.encode(&msg);
        assert_eq!(frames[0].as_ref(), b"peer-1");
        assert_eq!(frames[1].as_ref(), DELIMITER);
        assert_eq!(frames[2].len(), 64, "hex of a SHA-256 MAC");
        assert_eq!(signer.decode(frames).unwrap(), msg);
    }

    #[test]
    fn signature_is_hmac_sha256_of_the_four_parts() {
        // Reference from CPython: hmac.new(b"key", b"abcd", hashlib.sha256).hexdigest()
        let signer = Signer::new("hmac-sha256", "key").unwrap();
        let expected = "2a31ec0ee8d878c9eece9fb0df79b3b90b2256240163aa5ee50d176d3d1121f8";
        assert_eq!(signer.sign(&[b"a", b"b", b"c", b"d"]), expected);
        assert!(signer.verify(&[b"ab", b"cd"], expected.as_bytes()));
        assert!(!signer.verify(&[b"ab", b"ce"], expected.as_bytes()));
        assert!(!signer.verify(&[b"ab", b"cd"], b"not hex"));
    }

    #[test]
    fn tampered_or_unsigned_messages_are_refused() {
        let signer = Signer::new("hmac-sha256", "secret").unwrap();
        let mut frames = signer.encode(&sample("kernel"));
        frames[6] = Bytes::from_static(br#"{"status":"error"}"#);
        assert_eq!(signer.decode(frames), Err(WireError::BadSignature));

        let other = Signer::new("hmac-sha256", "other key").unwrap();
        assert_eq!(
            signer.decode(other.encode(&sample("k"))),
            Err(WireError::BadSignature)
        );

        let unsigned = Signer::new("", "").unwrap();
        assert_eq!(
            signer.decode(unsigned.encode(&sample("k"))),
            Err(WireError::BadSignature)
        );
        // With signing off, anything framed correctly is accepted.
        assert!(unsigned.decode(signer.encode(&sample("k"))).is_ok());
    }

    #[test]
    fn framing_errors() {
        let signer = Signer::new("hmac-sha256", "k").unwrap();
        let good = signer.encode(&sample("s"));
        let sig = String::from_utf8_lossy(&good[2]).to_string();
        let with = |i: usize, frame: &[u8]| {
            let mut f = good.clone();
            f[i] = Bytes::copy_from_slice(frame);
            f
        };
        let d = || Bytes::from_static(DELIMITER);
        let b = |s: &'static [u8]| Bytes::from_static(s);
        // (frames, expected error; None when the message decodes)
        let cases: Vec<(Vec<Bytes>, Option<WireError>)> = vec![
            (vec![], Some(WireError::MissingDelimiter)),
            (vec![b(b"x")], Some(WireError::MissingDelimiter)),
            (vec![d()], Some(WireError::TooFewParts(0))),
            (vec![d(), b(b"")], Some(WireError::TooFewParts(1))),
            (good[..6].to_vec(), Some(WireError::TooFewParts(4))),
            (good.clone(), None),
            (with(2, sig.to_uppercase().as_bytes()), None),
            (with(2, b""), Some(WireError::BadSignature)),
            (
                with(2, &sig.as_bytes()[..62]),
                Some(WireError::BadSignature),
            ),
            (
                with(2, format!("{sig}00").as_bytes()),
                Some(WireError::BadSignature),
            ),
            (with(2, b"not hex"), Some(WireError::BadSignature)),
            (with(0, DELIMITER), Some(WireError::BadSignature)),
            ([good.clone(), vec![b(b"buffer")]].concat(), None),
        ];
        for (frames, expected) in cases {
            let n = frames.len();
            assert_eq!(signer.decode(frames).err(), expected, "{n} frames");
        }
        assert!(matches!(
            Signer::new("hmac-md5", "k"),
            Err(WireError::UnsupportedScheme(_))
        ));
    }

    #[test]
    fn buffers_and_empty_parent_survive() {
        let signer = Signer::new("hmac-sha256", "k").unwrap();
        let mut msg = Message::orphan("status", json!({"execution_state": "idle"}), "s");
        msg.buffers = vec![Bytes::from_static(b"\x00\x01")];
        let back = signer.decode(signer.encode(&msg)).unwrap();
        assert_eq!(back.parent_header, json!({}));
        assert_eq!(back.buffers, msg.buffers);
    }
}
