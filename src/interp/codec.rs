//! The codecs of `str.encode`, `bytes.decode` and `str(b, encoding)`: UTF-8, ASCII and
//! Latin-1 with the `strict`, `ignore` and `replace` error handlers, raising
//! `UnicodeEncodeError`/`UnicodeDecodeError` with CPython's ranges, reasons and messages.
//! Other encodings and handlers are refused by name.

use super::exc::{ExcClass, ExcKind, ExcObject, R, Unwind};
use super::value::Value;
use std::rc::Rc;

/// The codecs implemented here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Codec {
    Utf8,
    Ascii,
    Latin1,
}

impl Codec {
    /// The name CPython's codec reports in its errors.
    fn name(self) -> &'static str {
        match self {
            Codec::Utf8 => "utf-8",
            Codec::Ascii => "ascii",
            Codec::Latin1 => "latin-1",
        }
    }

    /// The codec of an encoding name, by CPython's aliases (case, `-` and `_` ignored).
    pub fn named(encoding: &str) -> R<Codec> {
        let norm: String = encoding
            .trim()
            .to_ascii_lowercase()
            .chars()
            .map(|c| if c == '-' || c == ' ' { '_' } else { c })
            .collect();
        Ok(match norm.as_str() {
            "utf_8" | "utf8" | "u8" | "utf" | "utf8_ucs2" | "utf8_ucs4" => Codec::Utf8,
            "ascii" | "us_ascii" | "646" | "us" | "ansi_x3.4_1968" | "ansi_x3_4_1968"
            | "ansi_x3.4_1986" | "cp367" | "csascii" | "ibm367" | "iso646_us"
            | "iso_646.irv_1991" | "iso_ir_6" => Codec::Ascii,
            "latin_1" | "latin1" | "latin" | "l1" | "iso8859_1" | "iso_8859_1" | "8859"
            | "cp819" | "csisolatin1" | "ibm819" | "iso8859" | "iso_8859_1_1987" | "iso_ir_100" => {
                Codec::Latin1
            }
            _ => {
                return Err(Unwind::unsupported(format!(
                    "the encoding '{encoding}' (only utf-8, ascii and latin-1 are implemented)"
                )));
            }
        })
    }
}

/// What to do with an unencodable character or an undecodable byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handler {
    Strict,
    Ignore,
    Replace,
}

/// The handler named `errors`, asked for only when an error occurs (as CPython does).
fn handler(errors: &str) -> R<Handler> {
    match errors {
        "strict" => Ok(Handler::Strict),
        "ignore" => Ok(Handler::Ignore),
        "replace" => Ok(Handler::Replace),
        other => Err(Unwind::unsupported(format!(
            "the error handler errors='{other}' (only strict, ignore and replace are implemented)"
        ))),
    }
}

/// `text.encode(encoding, errors)`.
pub(crate) fn encode(text: &str, codec: Codec, errors: &str) -> R<Vec<u8>> {
    let limit: u32 = match codec {
        Codec::Utf8 => return Ok(text.as_bytes().to_vec()),
        Codec::Ascii => 128,
        Codec::Latin1 => 256,
    };
    if text.is_ascii() {
        return Ok(text.as_bytes().to_vec());
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i] as u32;
        if c < limit {
            out.push(c as u8);
            i += 1;
            continue;
        }
        // CPython reports the whole run of unencodable characters.
        let mut end = i + 1;
        while end < chars.len() && chars[end] as u32 >= limit {
            end += 1;
        }
        match handler(errors)? {
            Handler::Strict => {
                let reason = format!("ordinal not in range({limit})");
                return Err(unicode_error(
                    ExcKind::UnicodeEncodeError,
                    codec,
                    Value::str(text),
                    i,
                    end,
                    &reason,
                ));
            }
            Handler::Ignore => {}
            Handler::Replace => out.extend(std::iter::repeat_n(b'?', end - i)),
        }
        i = end;
    }
    Ok(out)
}

/// `data.decode(encoding, errors)`.
pub(crate) fn decode(data: &[u8], codec: Codec, errors: &str) -> R<String> {
    match codec {
        Codec::Latin1 => Ok(data.iter().map(|b| *b as char).collect()),
        Codec::Ascii => {
            let mut out = String::with_capacity(data.len());
            for (i, b) in data.iter().enumerate() {
                if b.is_ascii() {
                    out.push(*b as char);
                    continue;
                }
                match handler(errors)? {
                    Handler::Strict => {
                        return Err(decode_error(
                            codec,
                            data,
                            i,
                            i + 1,
                            "ordinal not in range(128)",
                        ));
                    }
                    Handler::Ignore => {}
                    Handler::Replace => out.push('\u{fffd}'),
                }
            }
            Ok(out)
        }
        Codec::Utf8 => {
            let mut out = String::with_capacity(data.len());
            let mut pos = 0;
            loop {
                match std::str::from_utf8(&data[pos..]) {
                    Ok(rest) => {
                        out.push_str(rest);
                        return Ok(out);
                    }
                    Err(e) => {
                        let good = pos + e.valid_up_to();
                        out.push_str(std::str::from_utf8(&data[pos..good]).unwrap_or_default());
                        // Rust's error ranges are Unicode's maximal subparts, as CPython's.
                        let (end, reason) = match e.error_len() {
                            None => (data.len(), "unexpected end of data"),
                            Some(n) if n == 1 && !is_lead_byte(data[good]) => {
                                (good + 1, "invalid start byte")
                            }
                            Some(n) => (good + n, "invalid continuation byte"),
                        };
                        match handler(errors)? {
                            Handler::Strict => {
                                return Err(decode_error(codec, data, good, end, reason));
                            }
                            Handler::Ignore => {}
                            Handler::Replace => out.push('\u{fffd}'),
                        }
                        pos = end;
                    }
                }
            }
        }
    }
}

/// Whether `b` can start a multi-byte UTF-8 sequence.
fn is_lead_byte(b: u8) -> bool {
    (0xc2..=0xf4).contains(&b)
}

fn decode_error(codec: Codec, data: &[u8], start: usize, end: usize, reason: &str) -> Unwind {
    unicode_error(
        ExcKind::UnicodeDecodeError,
        codec,
        Value::Bytes(Rc::new(data.to_vec())),
        start,
        end,
        reason,
    )
}

/// The exception with CPython's five arguments `(encoding, object, start, end, reason)`.
fn unicode_error(
    kind: ExcKind,
    codec: Codec,
    object: Value,
    start: usize,
    end: usize,
    reason: &str,
) -> Unwind {
    Unwind::from_object(ExcObject::new(
        ExcClass::Builtin(kind),
        vec![
            Value::str(codec.name()),
            object,
            Value::Int(start as i64),
            Value::Int(end as i64),
            Value::str(reason),
        ],
    ))
}

/// `str(e)` for a `UnicodeEncodeError`/`UnicodeDecodeError` made with CPython's five
/// arguments; `None` for other exceptions (and other argument shapes).
pub(crate) fn unicode_error_str(e: &ExcObject) -> Option<String> {
    let decode = e
        .class
        .is_subclass_of(&ExcClass::Builtin(ExcKind::UnicodeDecodeError));
    let encode = e
        .class
        .is_subclass_of(&ExcClass::Builtin(ExcKind::UnicodeEncodeError));
    if !decode && !encode {
        return None;
    }
    let args = e.args();
    let [
        Value::Str(encoding),
        object,
        Value::Int(start),
        Value::Int(end),
        Value::Str(reason),
    ] = args.as_slice()
    else {
        return None;
    };
    let (encoding, reason, start, end) = (encoding.as_str(), reason.as_str(), *start, *end);
    if start < 0 || end <= start {
        return None;
    }
    Some(match object {
        Value::Bytes(data) if decode => match data.get(start as usize) {
            Some(b) if end == start + 1 => format!(
                "'{encoding}' codec can't decode byte 0x{b:02x} in position {start}: {reason}"
            ),
            _ => format!(
                "'{encoding}' codec can't decode bytes in position {start}-{}: {reason}",
                end - 1
            ),
        },
        Value::Str(text) if encode => match text.char_at(start as usize) {
            Some(c) if end == start + 1 => {
                let c = c as u32;
                let shown = if c <= 0xff {
                    format!("\\x{c:02x}")
                } else if c <= 0xffff {
                    format!("\\u{c:04x}")
                } else {
                    format!("\\U{c:08x}")
                };
                format!(
                    "'{encoding}' codec can't encode character '{shown}' in position {start}: {reason}"
                )
            }
            _ => format!(
                "'{encoding}' codec can't encode characters in position {start}-{}: {reason}",
                end - 1
            ),
        },
        _ => return None,
    })
}

/// The attributes `encoding`, `object`, `start`, `end`, `reason` of a Unicode error made
/// with five arguments.
pub(crate) fn unicode_error_attr(e: &ExcObject, name: &str) -> Option<Value> {
    if !e
        .class
        .is_subclass_of(&ExcClass::Builtin(ExcKind::UnicodeError))
    {
        return None;
    }
    let i = ["encoding", "object", "start", "end", "reason"]
        .iter()
        .position(|n| *n == name)?;
    let args = e.args.borrow();
    if args.len() != 5 {
        return None;
    }
    args.get(i).cloned()
}
