//! The function context git prints after a hunk's `@@`, with its default rule (no userdiff
//! driver): the nearest line above the hunk, in the old file, that starts with an ASCII letter,
//! `_` or `$` (xdiff's `def_ff`), cut to 80 bytes (the size of xdiff's `func_line` buffer),
//! stripped of trailing whitespace (git's `isspace`: space, `\t`, `\n`, `\r`), and then cut
//! before its first byte that does not start a valid UTF-8 character (git's `sane_truncate_line`,
//! which also stops at U+FFFE and U+FFFF): a character the 80 bytes split is dropped whole, and a
//! Latin-1 line ends at its first accent.

/// The bytes git keeps of a function line.
const MAX_BYTES: usize = 80;

/// Finds function lines for hunks in increasing order, scanning each old line at most once:
/// like xdiff, a search stops where the previous one started and otherwise keeps its answer.
pub struct FuncLines<'a> {
    lines: &'a [&'a [u8]],
    searched_below: usize,
    found: String,
}

impl<'a> FuncLines<'a> {
    /// A finder over the old side's lines.
    pub fn new(lines: &'a [&'a [u8]]) -> Self {
        Self {
            lines,
            searched_below: 0,
            found: String::new(),
        }
    }

    /// The header of a hunk whose first old line (0-based, context included) is `start`. Calls
    /// must come with increasing `start`.
    pub fn above(&mut self, start: usize) -> String {
        let hit = self.lines[self.searched_below..start]
            .iter()
            .rposition(|line| starts_a_function(line));
        if let Some(offset) = hit {
            let line = self.lines[self.searched_below + offset];
            let kept = &line[..line.len().min(MAX_BYTES)];
            let end = kept
                .iter()
                .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                .map_or(0, |last| last + 1);
            self.found = valid_prefix(&kept[..end]).to_owned();
        }
        self.searched_below = start;
        self.found.clone()
    }
}

/// The longest prefix of `bytes` that git's UTF-8 reader accepts.
fn valid_prefix(bytes: &[u8]) -> &str {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        // Up to `valid_up_to` the bytes are UTF-8: the conversion cannot fail.
        Err(error) => std::str::from_utf8(&bytes[..error.valid_up_to()]).unwrap_or_default(),
    };
    let end = text.find(['\u{fffe}', '\u{ffff}']).unwrap_or(text.len());
    &text[..end]
}

fn starts_a_function(line: &[u8]) -> bool {
    line.first()
        .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guided_review::lines::split;

    #[test]
    fn the_nearest_line_above_that_starts_with_a_letter() {
        let lines = split(b"fn a() {\n    x\n}\n\n_b:\n  y\n$c \t\r\n  z\n");
        let mut finder = FuncLines::new(&lines);
        assert_eq!(finder.above(0), "");
        assert_eq!(finder.above(2), "fn a() {");
        assert_eq!(finder.above(5), "_b:");
        assert_eq!(finder.above(8), "$c");
    }

    #[test]
    fn a_later_hunk_with_nothing_new_above_keeps_the_last_answer() {
        let lines = split(b"int f(void)\n{\n  a;\n  b;\n  c;\n}\n");
        let mut finder = FuncLines::new(&lines);
        assert_eq!(finder.above(2), "int f(void)");
        assert_eq!(finder.above(4), "int f(void)");
    }

    #[test]
    fn a_character_cut_by_the_80_bytes_or_not_utf8_ends_the_header() {
        let split_e = format!("f{}é(x)\n  a\n", "x".repeat(78));
        let whole_e = format!("f{}é(x)\n  a\n", "x".repeat(77));
        let latin1 = b"int caf\xe9 (void)\n  a\n".to_vec();
        let nonchar = "fn a\u{fffe}b\n  a\n";
        for (text, header) in [
            (split_e.as_bytes(), format!("f{}", "x".repeat(78))),
            (whole_e.as_bytes(), format!("f{}é", "x".repeat(77))),
            (&latin1, "int caf".to_owned()),
            (nonchar.as_bytes(), "fn a".to_owned()),
        ] {
            let lines = split(text);
            assert_eq!(FuncLines::new(&lines).above(1), header);
        }
    }

    #[test]
    fn long_lines_are_cut_to_80_bytes_then_trimmed() {
        let long = format!("{}{}\n", "a".repeat(79), " tail");
        let spaced = format!("{}{}x\n", "b".repeat(70), " ".repeat(10));
        let text = format!("{long}  body\n{spaced}  body\n");
        let lines = split(text.as_bytes());
        let mut finder = FuncLines::new(&lines);
        assert_eq!(finder.above(1), "a".repeat(79));
        assert_eq!(finder.above(3), "b".repeat(70));
    }
}
