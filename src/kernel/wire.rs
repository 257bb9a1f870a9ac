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

/// Why a multipart message was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WireError {
    #[error("no <IDS|MSG> delimiter")]
    MissingDelimiter,
    #[error("expected a signature and four message parts, got {0} frames after the delimiter")]
    TooFewParts(usize),
    #[error("bad signature")]
    BadSignature,
    #[error("unsupported signature scheme {0:?} (only hmac-sha256)")]
    UnsupportedScheme(String),
    #[error("invalid JSON in the {part}: {message}")]
    Json { part: &'static str, message: String },
    #[error("header has no string field {0:?}")]
    MissingHeaderField(&'static str),
}

/// The `<header>` of a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq)]
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
    key: Option<Vec<u8>>,
}

impl Signer {
    pub fn new(scheme: &str, key: &str) -> Result<Signer, WireError> {
        if key.is_empty() {
            return Ok(Signer { key: None });
        }
        if scheme != "hmac-sha256" && !scheme.is_empty() {
            return Err(WireError::UnsupportedScheme(scheme.to_string()));
        }
        Ok(Signer {
            key: Some(key.as_bytes().to_vec()),
        })
    }

    fn mac(&self, parts: &[&[u8]]) -> Option<Hmac<Sha256>> {
        let key = self.key.as_ref()?;
        // HMAC accepts keys of any length, so this cannot fail.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).ok()?;
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

    /// Constant-time check of a hex signature.
    pub fn verify(&self, parts: &[&[u8]], signature: &[u8]) -> bool {
        match self.mac(parts) {
            None => true,
            Some(mac) => match hex::decode(signature) {
                Ok(sig) => mac.verify_slice(&sig).is_ok(),
                Err(_) => false,
            },
        }
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

    /// Unframes and verifies a multipart message.
    pub fn decode(&self, frames: Vec<Bytes>) -> Result<Message, WireError> {
        let delim = frames
            .iter()
            .position(|f| f.as_ref() == DELIMITER)
            .ok_or(WireError::MissingDelimiter)?;
        let after = &frames[delim + 1..];
        if after.len() < 5 {
            return Err(WireError::TooFewParts(after.len()));
        }
        let signed: [&[u8]; 4] = [&after[1], &after[2], &after[3], &after[4]];
        if !self.verify(&signed, &after[0]) {
            return Err(WireError::BadSignature);
        }
        let header_value = parse_json(&after[1], "header")?;
        let header = parse_header(&header_value)?;
        Ok(Message {
            identities: frames[..delim].to_vec(),
            header,
            parent_header: parse_json(&after[2], "parent header")?,
            metadata: parse_json(&after[3], "metadata")?,
            content: parse_json(&after[4], "content")?,
            buffers: after[5..].to_vec(),
        })
    }
}

fn to_json_bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_else(|_| b"{}".to_vec())
}

fn parse_json(bytes: &[u8], part: &'static str) -> Result<Value, WireError> {
    serde_json::from_slice(bytes).map_err(|e| WireError::Json {
        part,
        message: e.to_string(),
    })
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
        assert_eq!(
            signer.decode(vec![Bytes::from_static(b"x")]),
            Err(WireError::MissingDelimiter)
        );
        assert_eq!(
            signer.decode(vec![Bytes::from_static(DELIMITER), Bytes::from_static(b"")]),
            Err(WireError::TooFewParts(1))
        );
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
