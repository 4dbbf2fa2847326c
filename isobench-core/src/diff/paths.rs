//! Paths as a diff writes them: git's C-style quoting, `a/`/`b/` prefixes,
//! `/dev/null`, and the two paths of one header line told apart.

// ---------------------------------------------------------------------------------------
// Paths

/// Decodes a C-style quoted string (git's path quoting) at the start of `s`, returning
/// the decoded text and the quoted token's byte length, quotes included.
pub(super) fn unquote_prefix(s: &str) -> Option<(String, usize)> {
    let bytes = s.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                let text = String::from_utf8(out)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                return Some((text, i + 1));
            }
            b'\\' => {
                let esc = *bytes.get(i + 1)?;
                i += 2;
                let value = match esc {
                    b'a' => 7,
                    b'b' => 8,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 11,
                    b'f' => 12,
                    b'r' => b'\r',
                    b'"' | b'\\' => esc,
                    b'0'..=b'3' => {
                        let d1 = *bytes.get(i)?;
                        let d2 = *bytes.get(i + 1)?;
                        if !(b'0'..=b'7').contains(&d1) || !(b'0'..=b'7').contains(&d2) {
                            return None;
                        }
                        i += 2;
                        (esc - b'0') * 64 + (d1 - b'0') * 8 + (d2 - b'0')
                    }
                    _ => return None,
                };
                out.push(value);
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

/// A path token with git's quoting undone (unquoted tokens are returned as they are).
pub(super) fn decode(token: &str) -> String {
    match unquote_prefix(token) {
        Some((text, len)) if len == token.len() => text,
        _ => token.to_owned(),
    }
}

/// Drops the first path component (`a/`, `b/`), as `git apply -p1` does.
pub(super) fn strip_component(name: &str) -> &str {
    name.split_once('/').map_or(name, |(_, rest)| rest)
}

/// Does the (prefixed or not) path token name `name`?
pub(super) fn token_names(token: &str, name: &str) -> bool {
    let decoded = decode(token);
    decoded == name || strip_component(&decoded) == name
}

pub(super) fn is_dev_null(label: &str) -> bool {
    label == "/dev/null" || label.starts_with("/dev/null\t")
}

/// The path named by the text after `--- ` / `+++ ` (quoting undone, a tab-separated
/// timestamp dropped); `None` for `/dev/null`.
pub(super) fn label_path(label: &str) -> Option<String> {
    if is_dev_null(label) {
        return None;
    }
    Some(match unquote_prefix(label) {
        Some((text, _)) => text,
        None => label.split('\t').next().unwrap_or(label).to_owned(),
    })
}

/// Whether two path tokens are a plausible (old, new) pair.
pub(super) type Acceptor<'f> = &'f dyn Fn(&str, &str) -> bool;

/// Splits `rest` into two path tokens around `sep`; returns the separator's offset.
///
/// A quoted first token ends at its closing quote; a quoted last token starts at its
/// opening quote. Otherwise a unique separator is used, and with several candidates the
/// first one accepted by the earliest acceptor.
pub(super) fn split_pair(rest: &str, sep: &str, accept: &[Acceptor<'_>]) -> Option<usize> {
    if let Some((_, len)) = unquote_prefix(rest)
        && rest.get(len..).is_some_and(|t| t.starts_with(sep))
    {
        return Some(len);
    }
    let candidates: Vec<usize> = rest.match_indices(sep).map(|(p, _)| p).collect();
    let halves = |p: usize| rest.get(..p).zip(rest.get(p + sep.len()..));
    if rest.ends_with('"') {
        let quoted_tail = candidates.iter().copied().find(|&p| {
            halves(p).is_some_and(
                |(_, tail)| matches!(unquote_prefix(tail), Some((_, len)) if len == tail.len()),
            )
        });
        if quoted_tail.is_some() {
            return quoted_tail;
        }
    }
    if let [only] = candidates.as_slice() {
        return Some(*only);
    }
    accept.iter().find_map(|acc| {
        candidates
            .iter()
            .copied()
            .find(|&p| halves(p).is_some_and(|(a, b)| acc(a, b)))
    })
}

fn has_ab_prefix(token: &str) -> bool {
    let t = token.strip_prefix('"').unwrap_or(token);
    t.starts_with("a/") || t.starts_with("b/")
}

fn swap_ab_prefix(token: &str) -> String {
    let (quote, t) = match token.strip_prefix('"') {
        Some(t) => ("\"", t),
        None => ("", token),
    };
    if let Some(r) = t.strip_prefix("a/") {
        format!("{quote}b/{r}")
    } else if let Some(r) = t.strip_prefix("b/") {
        format!("{quote}a/{r}")
    } else {
        token.to_owned()
    }
}

/// The (old, new) path labels of the reversed diff. When every label is `/dev/null` or
/// has an `a/`/`b/` prefix, the prefixes stay on their sides (`a/` old, `b/` new);
/// otherwise (no or custom prefixes) the labels are exchanged verbatim.
pub(super) fn exchange(old: &str, new: &str) -> (String, String) {
    let prefixed = [old, new]
        .iter()
        .all(|t| is_dev_null(t) || has_ab_prefix(t));
    if prefixed {
        (swap_ab_prefix(new), swap_ab_prefix(old))
    } else {
        (new.to_owned(), old.to_owned())
    }
}
