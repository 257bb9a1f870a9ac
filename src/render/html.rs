//! Small HTML helpers shared by the views: escaping and tables.

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The line under a figure explaining its marks (`body` is HTML).
pub fn legend(body: &str) -> String {
    format!(
        "<div class=\"analysis-kernel-legend\" style=\"font-size:smaller;color:#555;margin-top:4px\">{body}</div>"
    )
}

/// A small box styled with `style` around `label` (HTML), as legends show colours.
pub fn chip(style: &str, label: &str) -> String {
    format!(
        "<span style=\"display:inline-block;border:1px solid #888;padding:0 4px;margin:0 2px;{style}\">{label}</span>"
    )
}

/// A table with a header row; cells are escaped.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut html = String::from("<table class=\"analysis-kernel-table\">\n<thead><tr>");
    for h in headers {
        html.push_str(&format!("<th style=\"text-align:left\">{}</th>", escape(h)));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        html.push_str("<tr>");
        for cell in row {
            // A line break in a cell (one constraint per line, say) stays one in HTML.
            html.push_str(&format!(
                "<td style=\"text-align:left\">{}</td>",
                escape(cell).replace('\n', "<br>")
            ));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table>");
    html
}

/// Rows per page of [`paged_table`].
pub const PAGE_ROWS: usize = 200;

/// [`table`] up to [`PAGE_ROWS`] rows; longer, one page per [`PAGE_ROWS`] rows, the first open
/// and the others folded (`<details>`, which needs no script), each headed `{what} 1–200 of N`.
pub fn paged_table(headers: &[&str], rows: &[Vec<String>], what: &str) -> String {
    if rows.len() <= PAGE_ROWS {
        return table(headers, rows);
    }
    rows.chunks(PAGE_ROWS)
        .enumerate()
        .map(|(i, page)| {
            let (first, last) = (i * PAGE_ROWS + 1, i * PAGE_ROWS + page.len());
            let open = if i == 0 { " open" } else { "" };
            format!(
                "<details class=\"analysis-kernel-page\"{open}><summary>{} {first}\u{2013}{last} of {}</summary>{}</details>",
                escape(what),
                rows.len(),
                table(headers, page)
            )
        })
        .collect()
}

/// A plain-text table with aligned columns.
pub fn text_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .zip(&widths)
            // Padded by hand: `format!`'s width stops at 65,535 (a 100,000-digit constant).
            .map(|(c, w)| format!("{c}{}", " ".repeat(w.saturating_sub(c.chars().count()))))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = vec![line(headers.to_vec())];
    out.push(
        widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("  "),
    );
    for row in rows {
        out.push(line(row.iter().map(String::as_str).collect()));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_aligns() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
        let t = text_table(&["name", "x"], &[vec!["f".into(), "10".into()]]);
        assert_eq!(t, "name  x\n----  --\nf     10");
        assert!(
            table(&["a"], &[vec!["<".into()]]).contains("<td style=\"text-align:left\">&lt;</td>")
        );
    }

    #[test]
    fn long_tables_are_paged() {
        let rows: Vec<Vec<String>> = (0..450).map(|i| vec![i.to_string()]).collect();
        assert_eq!(
            paged_table(&["n"], &rows[..PAGE_ROWS], "rows"),
            table(&["n"], &rows[..PAGE_ROWS])
        );
        let paged = paged_table(&["n"], &rows, "rows");
        assert_eq!(paged.matches("<details").count(), 3);
        assert_eq!(paged.matches(" open>").count(), 1);
        assert!(paged.contains("<summary>rows 401\u{2013}450 of 450</summary>"));
        assert_eq!(paged.matches("<tr><td").count(), 450);
    }
}
