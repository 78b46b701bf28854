//! The values of a dotenv file, read as the dotenv tools read them.
//!
//! Not the `dotenvy` crate: its parser expands `$VAR` from the process environment while it
//! parses (core reads no environment), and it reads neither `KEY: value` lines nor the other
//! dialects' readings of a line, which redaction needs.

use std::collections::{BTreeMap, BTreeSet};

use super::forms::is_weak;

/// The UTF-8 byte order mark some editors put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The secret values of a dotenv file (all of it: the caller passes the whole file):
/// `KEY=value`, `KEY: value`, `export KEY=value`, `KEY="quoted value"`
/// (with \n, \", \\ escapes), `KEY='literal'`, `KEY=value # comment`, multi-line double-quoted
/// values, blank lines and `#` comments, after a UTF-8 byte order mark if there is one; lines
/// that do not parse are skipped; bytes that are not UTF-8 are read as U+FFFD. Values too weak to
/// be secrets are left out so redaction does not mangle ordinary output: empty, shorter than 6
/// characters, or a common word (true/false/yes/no/on/off/null/none/localhost/development/
/// production/test, case-insensitive), or only digits shorter than 8.
///
/// Dotenv dialects differ, and a value the application reads differently from us would not be
/// redacted, so where they disagree both readings are kept: an unquoted `KEY=password#1` yields
/// `password#1` (python-dotenv: only ` #` starts a comment) and `password` (node dotenv: any `#`
/// does), and a line dotenvy reads its own way is read that way too: quoted parts joined to
/// the rest (`KEY=abc"def"` is `abcdef`), `\$` and `\ ` escapes, and `$VAR` / `${VAR}`
/// expanded from the keys above it in the file (one it does not define counts as empty: the
/// process environment is not known). `\r`, `\t` are also unescaped in double quotes, single-
/// and backtick-quoted values are literal and may span lines too, and `KEY = value` is
/// accepted. Values come back in file order without duplicates.
pub fn secret_values(dotenv: impl AsRef<[u8]>) -> Vec<String> {
    let bytes = dotenv.as_ref();
    let dotenv = String::from_utf8_lossy(bytes.strip_prefix(BOM).unwrap_or(bytes));
    // CRLF files: `lines` strips "\r\n"; a '\r' that ends the text without a '\n' is stripped here.
    let lines: Vec<&str> = dotenv
        .lines()
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    let mut found: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    // Each key's value as dotenvy has it, for its `$KEY` expansions.
    let mut defined: BTreeMap<&str, String> = BTreeMap::new();
    let mut next = 0;
    while let Some(line) = lines.get(next) {
        next += 1;
        let Some((key, raw)) = assignment(line) else {
            continue;
        };
        let value = raw.trim_start();
        let dotenvy = dotenvy_value(value.trim_end(), &defined);
        let mut candidates = match value.chars().next() {
            Some(quote @ ('"' | '\'' | '`')) => {
                let following = lines.get(next..).unwrap_or_default();
                match quoted(&value[quote.len_utf8()..], quote, following) {
                    Some((value, used)) => {
                        next += used;
                        vec![value]
                    }
                    // An unterminated quote: skip just this line, so one broken entry does not
                    // swallow the secrets after it.
                    None => continue,
                }
            }
            _ => unquoted(raw),
        };
        if let Some(value) = dotenvy.or_else(|| candidates.first().cloned()) {
            defined.insert(key, value.clone());
            candidates.push(value);
        }
        for candidate in candidates {
            if !is_weak(&candidate) && seen.insert(candidate.clone()) {
                found.push(candidate);
            }
        }
    }
    found
}

/// The key of a `[export ]KEY=value` line and the text after its `=` (or `:`, node's and
/// Ruby's dotenv), or `None` for blank lines, comments and lines that are not assignments.
fn assignment(line: &str) -> Option<(&str, &str)> {
    let line = line.trim_start();
    if line.starts_with('#') {
        return None;
    }
    // `export KEY=v`, but a key named `export` (`export=v`) is still a key.
    let line = match line.strip_prefix("export") {
        Some(rest) if rest.starts_with([' ', '\t']) => rest.trim_start(),
        _ => line,
    };
    let key = line
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        .count();
    if key == 0 {
        return None;
    }
    let (key, rest) = line.split_at(key);
    let rest = rest.trim_start();
    let value = rest.strip_prefix('=').or_else(|| rest.strip_prefix(':'))?;
    Some((key, value))
}

/// `$VAR` expansion while dotenvy reads a value.
#[derive(PartialEq)]
enum Expanding {
    No,
    /// `$NAME`, up to the first character that is not alphanumeric.
    Bare,
    /// `${NAME}`.
    Braced,
}

/// One line's value as dotenvy 0.15 reads it (its `parse_value`, with `defined` for the
/// environment), or `None` where dotenvy refuses the line.
fn dotenvy_value(input: &str, defined: &BTreeMap<&str, String>) -> Option<String> {
    let (mut strong, mut weak, mut escaped, mut ending) = (false, false, false, false);
    let mut expanding = Expanding::No;
    let mut name = String::new();
    let mut out = String::new();
    let expand = |name: &mut String, out: &mut String| {
        if let Some(value) = defined.get(name.as_str()) {
            out.push_str(value);
        }
        name.clear();
    };
    for c in input.chars() {
        if ending {
            match c {
                ' ' | '\t' => continue,
                '#' => break,
                _ => return None,
            }
        } else if escaped {
            match c {
                '\\' | '\'' | '"' | '$' | ' ' => out.push(c),
                'n' => out.push('\n'),
                _ => return None,
            }
            escaped = false;
        } else if strong {
            if c == '\'' {
                strong = false;
            } else {
                out.push(c);
            }
        } else if expanding != Expanding::No {
            if c.is_alphanumeric() {
                name.push(c);
            } else if expanding == Expanding::Braced {
                if c == '}' {
                    expanding = Expanding::No;
                    expand(&mut name, &mut out);
                } else {
                    name.push(c);
                }
            } else if c == '{' && name.is_empty() {
                expanding = Expanding::Braced;
            } else {
                expand(&mut name, &mut out);
                if c != '$' {
                    expanding = Expanding::No;
                    out.push(c);
                }
            }
        } else if c == '$' {
            expanding = Expanding::Bare;
        } else if weak {
            match c {
                '"' => weak = false,
                '\\' => escaped = true,
                _ => out.push(c),
            }
        } else {
            match c {
                '\'' => strong = true,
                '"' => weak = true,
                '\\' => escaped = true,
                ' ' | '\t' => ending = true,
                _ => out.push(c),
            }
        }
    }
    if expanding == Expanding::Braced || strong || weak {
        return None;
    }
    expand(&mut name, &mut out);
    Some(out)
}

/// A quoted value that starts in `first` (just after the opening `quote`) and may go on over
/// `following` lines: the value and how many of `following` it used, or `None` if it never
/// closes. Only double quotes have escapes; an unknown escape is kept as written.
fn quoted(first: &str, quote: char, following: &[&str]) -> Option<(String, usize)> {
    let mut value = String::new();
    let mut text = first;
    let mut used = 0;
    loop {
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == quote {
                // Whatever follows the closing quote (a comment, stray text) is not the value.
                return Some((value, used));
            }
            if c == '\\' && quote == '"' {
                match chars.next() {
                    Some('n') => value.push('\n'),
                    Some('r') => value.push('\r'),
                    Some('t') => value.push('\t'),
                    Some(escaped @ ('"' | '\\')) => value.push(escaped),
                    Some(other) => {
                        value.push('\\');
                        value.push(other);
                    }
                    None => value.push('\\'),
                }
                continue;
            }
            value.push(c);
        }
        text = following.get(used)?;
        used += 1;
        value.push('\n');
    }
}

/// The readings of an unquoted value (see [`secret_values`]): up to a `#` that follows
/// whitespace, and up to any `#`.
fn unquoted(raw: &str) -> Vec<String> {
    let comment = raw
        .char_indices()
        .zip(raw.chars().skip(1))
        .find(|((_, c), next)| c.is_whitespace() && *next == '#')
        .map_or(raw.len(), |((at, _), _)| at);
    let value = raw[..comment].trim();
    let mut readings = vec![value.to_owned()];
    if let Some((before, _)) = value.split_once('#') {
        readings.push(before.trim_end().to_owned());
    }
    readings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| (*v).to_owned()).collect()
    }

    #[test]
    fn plain_and_exported_values() {
        let env =
            "API_KEY=sk-live-123456\nexport DB_PASSWORD=hunter22\nexport\tTOKEN=tab-exported\n";
        assert_eq!(
            secret_values(env),
            owned(&["sk-live-123456", "hunter22", "tab-exported"])
        );
    }

    #[test]
    fn a_key_named_export() {
        assert_eq!(
            secret_values("export=not-a-keyword"),
            owned(&["not-a-keyword"])
        );
    }

    #[test]
    fn double_quoted_values_unescape() {
        let env = r#"A="quoted value"
B="line1\nline2"
C="say \"hi\" now"
D="back\\slash"
E="tab\there \q kept"
"#;
        assert_eq!(
            secret_values(env),
            owned(&[
                "quoted value",
                "line1\nline2",
                "say \"hi\" now",
                "back\\slash",
                "tab\there \\q kept",
            ])
        );
    }

    #[test]
    fn single_and_backtick_quoted_values_are_literal() {
        let env = "A='lit\\n $HOME \"x\"'\nB=`back tick`\n";
        assert_eq!(
            secret_values(env),
            owned(&["lit\\n $HOME \"x\"", "back tick"])
        );
    }

    #[test]
    fn comments_after_values() {
        let env =
            "A=value123 # a comment\nB=\"quoted # kept\" # comment\nC='single#' #c\nD=pass#word\n";
        // `pass#word`: both dialects' readings; `pass` is too short to be kept.
        assert_eq!(
            secret_values(env),
            owned(&["value123", "quoted # kept", "single#", "pass#word"])
        );
        assert_eq!(
            secret_values("E=longpass#tail"),
            owned(&["longpass#tail", "longpass"])
        );
        assert_eq!(secret_values("F= # only a comment"), Vec::<String>::new());
    }

    #[test]
    fn multi_line_quoted_values() {
        let env = "KEY=\"-----BEGIN KEY-----\nMIIEabc\n-----END KEY-----\"\nNEXT=after-it\n";
        assert_eq!(
            secret_values(env),
            owned(&[
                "-----BEGIN KEY-----\nMIIEabc\n-----END KEY-----",
                "after-it"
            ])
        );
        assert_eq!(
            secret_values("S='first line\nsecond line'"),
            owned(&["first line\nsecond line"])
        );
    }

    #[test]
    fn blank_lines_and_comments() {
        let env = "\n# COMMENTED=secret-value\n   # indented=comment-value\n\nREAL=real-value\n\n";
        assert_eq!(secret_values(env), owned(&["real-value"]));
    }

    #[test]
    fn weak_values_are_skipped() {
        let env = "\
EMPTY=
QUOTED_EMPTY=\"\"
SHORT=abcde
SPACES=\"        \"
FLAG=TRUE
MODE=Production
ENV=development
HOST=localhost
IP=127.0.0.1
NONE=None
PORT=3000
LONG_PORT=8080808
PIN=12345678
SIX=abcdef
";
        assert_eq!(secret_values(env), owned(&["12345678", "abcdef"]));
    }

    #[test]
    fn crlf_line_endings() {
        let env = "A=crlf-value\r\nexport B=\"quoted crlf\"\r\nC=\"multi\r\nline\"\r\n# note\r\nD=last-value\r";
        assert_eq!(
            secret_values(env),
            owned(&["crlf-value", "quoted crlf", "multi\nline", "last-value"])
        );
    }

    #[test]
    fn garbage_lines_are_skipped() {
        let env = "\
this is not a line of a dotenv file
=no-key-here
bad key=with-space
ключ=non-ascii-key
UNCLOSED=\"never closed
GOOD=still-found
ALSO_UNCLOSED='open
";
        assert_eq!(secret_values(env), owned(&["still-found"]));
    }

    #[test]
    fn values_containing_equals_and_spaces_around_it() {
        let env = "A=abc=def==\nB = spaced-value\nC=postgres://u:p@h/db?x=1\n";
        assert_eq!(
            secret_values(env),
            owned(&["abc=def==", "spaced-value", "postgres://u:p@h/db?x=1"])
        );
    }

    #[test]
    fn values_are_deduplicated_in_file_order() {
        let env = "A=same-secret\nB=other-secret\nC=\"same-secret\"\n";
        assert_eq!(secret_values(env), owned(&["same-secret", "other-secret"]));
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_key() {
        let env = b"\xEF\xBB\xBFAPI_KEY=sk-bom-123456\nB=second-value\n";
        assert_eq!(
            secret_values(env),
            owned(&["sk-bom-123456", "second-value"])
        );
    }

    #[test]
    fn colon_assignments() {
        let env = "API_KEY: sk-colon-1234\nexport TOKEN:tight-colon\nURL: https://u:p@h/x\n";
        assert_eq!(
            secret_values(env),
            owned(&["sk-colon-1234", "tight-colon", "https://u:p@h/x"])
        );
        // `=` comes first where both are there: the value keeps its colons.
        assert_eq!(secret_values("A=b:c:d:e:f"), owned(&["b:c:d:e:f"]));
    }

    #[test]
    fn the_whole_file_is_read() {
        let mut env = "PAD=".to_owned() + &"x".repeat(2 * 1024 * 1024) + "\n";
        env.push_str("LATE=late-secret-value\n");
        assert!(secret_values(&env).contains(&"late-secret-value".to_owned()));
    }

    #[test]
    fn invalid_utf8_does_not_stop_the_file() {
        let env = b"A=\xff\xfebroken-bytes\nB=after-broken\n";
        assert!(secret_values(env).contains(&"after-broken".to_owned()));
    }

    #[test]
    fn lines_dotenvy_reads_its_own_way() {
        let env = "A=abc\"def ghi\"\nB=\"joined\"-tail\nC=back\\ slash-space\nD=\"a\\$dollar-value\"\nE=${A}-and-$B\n";
        let values = secret_values(env);
        for value in [
            "abcdef ghi",
            "joined-tail",
            "back slash-space",
            "a$dollar-value",
        ] {
            assert!(values.contains(&value.to_owned()), "{value}: {values:?}");
        }
        assert!(
            values.contains(&"abcdef ghi-and-joined-tail".to_owned()),
            "{values:?}"
        );
        // dotenvy refuses `k=v w`: no reading of its own, node's and python's stay.
        assert_eq!(
            secret_values("K=several words here"),
            owned(&["several words here"])
        );
    }

    /// Maps bytes onto assignment lines `KEY<sep>value`, values from a small alphabet.
    fn lines(entries: &[(u8, Vec<u8>)], separator: &str) -> String {
        entries
            .iter()
            .map(|(key, value)| {
                let value: String = value.iter().map(|b| (b'a' + b % 6) as char).collect();
                format!("KEY_{key}{separator}{value}secret\n")
            })
            .collect()
    }

    quickcheck::quickcheck! {
        fn a_byte_order_mark_changes_nothing(text: String) -> bool {
            let marked = [BOM, text.as_bytes()].concat();
            secret_values(marked) == secret_values(text.trim_start_matches('\u{feff}'))
        }

        fn colon_lines_read_as_equals_lines(entries: Vec<(u8, Vec<u8>)>) -> bool {
            let equals = secret_values(lines(&entries, "="));
            equals == secret_values(lines(&entries, ": "))
                && equals == secret_values(lines(&entries, ":"))
                && lines(&entries, "=").lines().all(|line| {
                    line.split_once('=').is_some_and(|(_, value)| equals.iter().any(|v| v == value))
                })
        }
    }
}
