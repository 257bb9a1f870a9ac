//! Cleans Graphviz's SVG before it reaches a notebook or an exported page: links whose URL is
//! not http(s), mailto, a fragment or relative (`href="javascript:…"` in any case, with
//! whitespace or character references) lose the attribute, as do `on…` event handlers and
//! any other attribute naming a script URL; `<?xml-stylesheet?>` references are dropped.

/// URL schemes a link may keep.
const SAFE_SCHEMES: &[&str] = &["http", "https", "mailto"];

/// The SVG without script URLs, event handlers or stylesheet references.
pub fn sanitize(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        rest = &rest[open..];
        let (end, keep) = if rest.starts_with("<!--") {
            (rest.find("-->").map_or(rest.len(), |i| i + 3), true)
        } else if rest.starts_with("<?") {
            let end = rest.find("?>").map_or(rest.len(), |i| i + 2);
            (end, !rest[..end].starts_with("<?xml-stylesheet"))
        } else if rest.starts_with("<!") || rest.starts_with("</") {
            (rest.find('>').map_or(rest.len(), |i| i + 1), true)
        } else {
            let end = tag_end(rest);
            out.push_str(&clean_tag(&rest[..end]));
            rest = &rest[end..];
            continue;
        };
        if keep {
            out.push_str(&rest[..end]);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The length of the start tag at the beginning of `s` (through its `>`, quotes respected).
fn tag_end(s: &str) -> usize {
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => return i + 1,
            _ => {}
        }
    }
    s.len()
}

/// A start tag without its unsafe attributes.
fn clean_tag(tag: &str) -> String {
    let name_end = tag[1..]
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .map_or(tag.len(), |i| i + 1);
    let mut out = String::from(&tag[..name_end]);
    let mut rest = &tag[name_end..];
    loop {
        let trimmed = rest.trim_start();
        let space = &rest[..rest.len() - trimmed.len()];
        let Some((name, value, len)) = attribute(trimmed) else {
            out.push_str(rest);
            return out;
        };
        if safe_attribute(name, value) {
            out.push_str(space);
            out.push_str(&trimmed[..len]);
        }
        rest = &trimmed[len..];
    }
}

/// `name="value"` (or `'value'`) at the start of `s`: the name, the raw value, and its length.
fn attribute(s: &str) -> Option<(&str, &str, usize)> {
    let name_len = s.find(|c: char| c == '=' || c.is_whitespace() || c == '>' || c == '/')?;
    if name_len == 0 {
        return None;
    }
    let after = s[name_len..].trim_start();
    let after = after.strip_prefix('=')?.trim_start();
    let quote = after.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let close = after[1..].find(quote)?;
    let value = &after[1..1 + close];
    let len = s.len() - after.len() + close + 2;
    Some((&s[..name_len], value, len))
}

fn safe_attribute(name: &str, value: &str) -> bool {
    let local = name.rsplit(':').next().unwrap_or(name).to_ascii_lowercase();
    if local.starts_with("on") {
        return false;
    }
    let url = normalized(value);
    if matches!(local.as_str(), "href" | "src") {
        return match scheme(&url) {
            Some(s) => SAFE_SCHEMES.contains(&s.as_str()),
            None => true,
        };
    }
    !["javascript:", "vbscript:", "data:"]
        .iter()
        .any(|s| url.starts_with(s))
}

/// The URL as a browser reads it: character references decoded, ASCII whitespace and control
/// characters removed, lower case. An undecodable reference leaves `&` (never a safe scheme).
fn normalized(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        match rest
            .find(';')
            .and_then(|semi| Some((decode(&rest[1..semi])?, semi)))
        {
            Some((c, semi)) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out.chars()
        .filter(|c| !(c.is_ascii_whitespace() || c.is_control()))
        .collect::<String>()
        .to_lowercase()
}

/// A character reference's text between `&` and `;`: numeric, or a name HTML pages decode.
fn decode(reference: &str) -> Option<char> {
    if let Some(num) = reference.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code);
    }
    Some(match reference.to_ascii_lowercase().as_str() {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "colon" => ':',
        "tab" => '\t',
        "newline" => '\n',
        "nbsp" => ' ',
        _ => return None,
    })
}

/// The scheme of a normalized URL: what precedes the first `:` that comes before any `/?#`.
/// A `&` left by an unknown reference makes the scheme unknowable: `Some("&")`.
fn scheme(url: &str) -> Option<String> {
    let end = url.find([':', '/', '?', '#'])?;
    if url.as_bytes()[end] != b':' {
        return None;
    }
    let s = &url[..end];
    Some(if s.contains('&') {
        "&".into()
    } else {
        s.into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_urls_are_dropped_in_every_disguise() {
        for href in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            " java\tscript:alert(1)",
            "&#106;avascript:alert(1)",
            "&#x6A;avascript&#58;alert(1)",
            "javascript&colon;alert(1)",
            "java&Tab;script:alert(1)",
            "jav&#x09;ascript:alert(1)",
            "java&unknown;script:alert(1)",
            "vbscript:x",
            "data:text/html,<script>",
            "file:///etc/passwd",
        ] {
            let svg =
                format!("<g><a xlink:href=\"{href}\" xlink:title=\"t\">\n<text>x</text></a></g>");
            let clean = sanitize(&svg);
            assert_eq!(
                clean, "<g><a xlink:title=\"t\">\n<text>x</text></a></g>",
                "{href}"
            );
        }
    }

    #[test]
    fn ordinary_links_and_markup_stay() {
        let svg = "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<!-- a&#45;&gt;b -->\n<svg width=\"8pt\"><a href=\"https://x.org/?a=1&amp;b=2\" target=\"_blank\"><a xlink:href=\"#n1\"/><a href=\"docs/page.html\"/></a></svg>\n";
        assert_eq!(sanitize(svg), svg);
    }

    #[test]
    fn handlers_script_values_and_stylesheets_go() {
        let svg = "<?xml version=\"1.0\"?>\n<?xml-stylesheet href=\"file:///etc/passwd\" type=\"text/css\"?>\n<svg onload=\"x()\"><g id=\"a\" class='JavaScript:x'/></svg>";
        assert_eq!(
            sanitize(svg),
            "<?xml version=\"1.0\"?>\n\n<svg><g id=\"a\"/></svg>"
        );
    }
}
