//! A deterministic fuzz test of the wire decoder and the gate: valid messages mutated byte-wise
//! and frame-wise (bytes flipped, inserted, cut; frames dropped, doubled, delimiters added;
//! signatures broken, or parts rewritten and signed again so the parser sees them), each fed to
//! `Signer::decode` and `Gate::admit`. Nothing may panic, the two must agree, whatever decodes
//! must survive re-encoding, and every kind of refusal must be reached.

use std::collections::BTreeMap;

use bytes::Bytes;
use serde_json::json;

use super::inbound::{Gate, Request};
use super::wire::{DELIMITER, Message, Signer, WireError};
use crate::symexec::check::Rng;

const CASES: usize = 100_000;
const SEED: u64 = 0x00C0_FFEE;

/// Bytes that make JSON and UTF-8 interesting when inserted.
const SPICE: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b":",
    b",",
    b"\\",
    b"\\u",
    b"\\ud800",
    b"0",
    b"-",
    b"1e999",
    b"null",
    b"true",
    b" ",
    b"\xff",
    b"\xc3",
    b"\xe2\x82",
    b"\x00",
    b"<IDS|MSG>",
];

/// Signatures that are not the MAC: empty, short, not hex, the wrong 32 bytes.
const BAD_SIGNATURES: &[&[u8]] = &[b"", b"00", b"zz", &[b'a'; 64], &[b'A'; 64]];

/// Parts that replace a whole signed part.
const WHOLE_PARTS: &[&[u8]] = &[
    b"", b"{}", b"[]", b"\"code\"", b"null", b"7", b"[1, {\"a\": 2}]", b"{\"code\": 7}",
    b"{\"code\": null}", b"{\"msg_id\": \"x\"}", b"{\"msg_type\": \"execute_request\"}",
    b"{\"msg_id\": 1, \"msg_type\": \"execute_request\"}", b"{\"code\": \"\xff\"}",
    b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]",
];

fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[(rng.next() % items.len() as u64) as usize]
}

fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.next() % n.max(1) as u64) as usize
}

/// Valid messages to start from.
fn seeds(signer: &Signer) -> Vec<Vec<Bytes>> {
    let request = |msg_type: &str, content| Message::orphan(msg_type, content, "client");
    let mut with_ids = request("execute_request", json!({"code": "6 * 7", "silent": false}));
    with_ids.identities = vec![Bytes::from_static(b"peer-1"), Bytes::from_static(b"peer-2")];
    with_ids.buffers = vec![Bytes::from_static(b"\x00\x01binary")];
    let reply = Message::child_of(
        &with_ids,
        "execute_reply",
        json!({"status": "ok", "execution_count": 1}),
        "kernel",
    );
    [
        request("kernel_info_request", json!({})),
        request("execute_request", json!({"code": "x = 'é'\nprint(x)"})),
        request(
            "history_request",
            json!({"hist_access_type": "search", "pattern": "6 *"}),
        ),
        request("comm_msg", json!({"comm_id": "c", "data": {}})),
        with_ids,
        reply,
    ]
    .iter()
    .map(|m| signer.encode(m))
    .collect()
}

/// Signs the four parts after the first delimiter again, if there are four.
fn resign(signer: &Signer, frames: &mut [Bytes]) {
    let Some(d) = frames.iter().position(|f| f.as_ref() == DELIMITER) else {
        return;
    };
    if frames.len() >= d + 6 {
        let parts: Vec<&[u8]> = frames[d + 2..d + 6].iter().map(|f| f.as_ref()).collect();
        frames[d + 1] = Bytes::from(signer.sign(&parts));
    }
}

/// The index of a signed part (header .. content), if the frames have one.
fn signed_part(rng: &mut Rng, frames: &[Bytes]) -> Option<usize> {
    let d = frames.iter().position(|f| f.as_ref() == DELIMITER)?;
    (frames.len() >= d + 6).then(|| d + 2 + below(rng, 4))
}

fn edit_bytes(rng: &mut Rng, frame: &Bytes) -> Bytes {
    let mut b = frame.to_vec();
    let at = below(rng, b.len() + 1);
    match rng.next() % 4 {
        0 if !b.is_empty() => {
            let i = below(rng, b.len());
            b[i] ^= 1 << (rng.next() % 8);
        }
        1 => {
            let spice = pick(rng, SPICE);
            b.splice(at..at, spice.iter().copied());
        }
        2 => b.truncate(at),
        _ if at < b.len() => {
            b.remove(at);
        }
        _ => {}
    }
    Bytes::from(b)
}

fn mutate(rng: &mut Rng, signer: &Signer, frames: &mut Vec<Bytes>) {
    let n = frames.len();
    match rng.next() % 10 {
        0 | 1 if n > 0 => {
            let i = below(rng, n);
            frames[i] = edit_bytes(rng, &frames[i]);
        }
        2 if n > 0 => {
            frames.remove(below(rng, n));
        }
        3 if n > 0 => {
            let i = below(rng, n);
            frames.insert(i, frames[i].clone());
        }
        4 => frames.insert(below(rng, n + 1), Bytes::from_static(DELIMITER)),
        5 => {
            if let Some(d) = frames.iter().position(|f| f.as_ref() == DELIMITER)
                && d + 1 < n
            {
                let sig = pick(rng, BAD_SIGNATURES);
                frames[d + 1] = Bytes::copy_from_slice(sig);
            }
        }
        6..=8 => {
            if let Some(i) = signed_part(rng, frames) {
                frames[i] = edit_bytes(rng, &frames[i]);
                resign(signer, frames);
            }
        }
        _ => {
            if let Some(i) = signed_part(rng, frames) {
                frames[i] = Bytes::from_static(pick::<&[u8]>(rng, WHOLE_PARTS));
                resign(signer, frames);
            }
        }
    }
}

fn kind(e: &WireError) -> &'static str {
    match e {
        WireError::MissingDelimiter => "missing delimiter",
        WireError::TooFewParts(_) => "too few parts",
        WireError::BadSignature => "bad signature",
        WireError::Replayed => "replayed",
        WireError::UnsupportedScheme(_) => "unsupported scheme",
        WireError::Utf8 { .. } => "utf-8",
        WireError::Json { .. } => "json",
        WireError::NotAnObject { .. } => "not an object",
        WireError::MissingHeaderField(_) => "header field",
        WireError::BadField { .. } => "bad field",
    }
}

/// Checks one case; returns the name of its outcome.
fn check(signer: &Signer, gate: &Gate, frames: Vec<Bytes>) -> String {
    let decoded = signer.decode(frames.clone());
    let admitted = gate.admit(frames);
    if let Ok(m) = &decoded {
        assert_eq!(
            signer.decode(signer.encode(m)).as_ref(),
            Ok(m),
            "re-encoding"
        );
    }
    match (&decoded, &admitted) {
        (_, Err(d)) if d.error == WireError::Replayed => "drop: replayed".into(),
        (Ok(m), Ok(Request::Serve(served))) => {
            assert_eq!(m, served);
            "serve".into()
        }
        (Ok(m), Ok(Request::Refuse { message, error })) => {
            assert_eq!(m, message);
            format!("refuse: {}", kind(error))
        }
        (Err(e), Ok(Request::Refuse { message, error })) => {
            assert_eq!(e, error);
            assert!(message.msg_type().ends_with("_request"), "{message:?}");
            format!("refuse: {}", kind(error))
        }
        (Err(e), Err(d)) => {
            assert_eq!(e, &d.error);
            format!("drop: {}", kind(e))
        }
        (Ok(m), Err(d)) => panic!("{m:?} dropped although it decoded: {d}"),
        (Err(e), Ok(Request::Serve(m))) => panic!("{m:?} served although decoding failed: {e}"),
    }
}

#[test]
fn mutated_messages_never_panic_and_are_classified() {
    let started = std::time::Instant::now();
    let signer = Signer::new("hmac-sha256", "fuzz key").unwrap_or_else(|e| panic!("{e}"));
    let gate = Gate::new(signer.clone());
    let seeds = seeds(&signer);
    let mut rng = Rng::new(SEED);
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..CASES {
        let mut frames = pick(&mut rng, &seeds).clone();
        for _ in 0..1 + rng.next() % 3 {
            mutate(&mut rng, &signer, &mut frames);
        }
        *outcomes.entry(check(&signer, &gate, frames)).or_default() += 1;
    }
    eprintln!("{CASES} cases in {:?}: {outcomes:#?}", started.elapsed());
    let expected = [
        "serve",
        "drop: missing delimiter",
        "drop: too few parts",
        "drop: bad signature",
        "drop: replayed",
        "drop: utf-8",
        "drop: json",
        "drop: not an object",
        "drop: header field",
        "refuse: utf-8",
        "refuse: json",
        "refuse: not an object",
        "refuse: bad field",
    ];
    for outcome in expected {
        assert!(outcomes.contains_key(outcome), "never reached {outcome}");
    }
}
