//! Text made safe for the screen and folded to a width: whatever a tool or a model prints
//! (escape sequences, carriage returns, tabs, a 2 MB line) becomes cells a terminal shows as
//! they are, never as commands.

use unicode_width::UnicodeWidthChar;

/// Columns a tab takes.
const TAB: &str = "    ";

/// `line` (one line, without its LF) as it can be shown: what a terminal would leave after a
/// carriage return (the text after the last one), tabs as spaces, and every other control
/// character as its visible picture (`␛` for ESC), so nothing reaches the terminal as a
/// command.
pub(crate) fn visible(line: &str) -> String {
    let shown = match line.rsplit_once('\r') {
        Some((before, "")) => before.rsplit('\r').next().unwrap_or(before),
        Some((_, after)) => after,
        None => line,
    };
    let mut out = String::with_capacity(shown.len());
    for c in shown.chars() {
        match c {
            '\t' => out.push_str(TAB),
            '\u{0}'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?')),
            '\u{7f}' => out.push('\u{2421}'),
            '\u{80}'..='\u{9f}' => out.push('\u{fffd}'),
            other => out.push(other),
        }
    }
    out
}

/// The display width of `c` (0 for characters a terminal draws on the one before).
pub(crate) fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// The display width of `text`.
pub(crate) fn width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

/// `line` (already [`visible`]) folded to `width` columns: broken after the last space that
/// fits, else wherever the width runs out. Always at least one (possibly empty) row.
pub(crate) fn fold(line: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut used = 0;
    // Where the row may be broken: after its last space, and the width up to there.
    let mut last_space: Option<(usize, usize)> = None;
    for c in line.chars() {
        let w = char_width(c);
        if used + w > width && !row.is_empty() {
            match last_space.filter(|(at, _)| *at < row.len()) {
                // The space that does not fit begins the next row.
                _ if c == ' ' => {
                    rows.push(std::mem::take(&mut row));
                    used = 0;
                }
                Some((at, w_at)) => {
                    let rest = row.split_off(at);
                    rows.push(std::mem::take(&mut row));
                    row = rest;
                    used -= w_at;
                    // What follows the space may not leave room for `c` either.
                    if used + w > width {
                        rows.push(std::mem::take(&mut row));
                        used = 0;
                    }
                }
                None => {
                    rows.push(std::mem::take(&mut row));
                    used = 0;
                }
            }
            last_space = None;
        }
        row.push(c);
        used += w;
        if c == ' ' {
            last_space = Some((row.len(), used));
        }
    }
    rows.push(row);
    rows
}

/// `text` cut to `width` columns, with `…` when something was cut.
pub(crate) fn cut(text: &str, width: usize) -> String {
    if self::width(text) <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = char_width(c);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    #[test]
    fn escapes_and_controls_become_pictures_and_a_carriage_return_keeps_what_follows() {
        assert_eq!(visible("\u{1b}[2Jboom"), "\u{241b}[2Jboom");
        assert_eq!(visible("a\tb"), "a    b");
        assert_eq!(visible("10%\r50%\r100%"), "100%");
        assert_eq!(visible("done\r"), "done");
        assert_eq!(visible("\u{7}\u{7f}\u{9b}"), "\u{2407}\u{2421}\u{fffd}");
    }

    #[test]
    fn folding_breaks_after_spaces_and_inside_long_words() {
        assert_eq!(
            fold("hello brave new world", 11),
            ["hello brave", " new world"]
        );
        assert_eq!(fold("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(fold("", 5), [""]);
        assert_eq!(fold("日本語", 4), ["日本", "語"]);
    }

    quickcheck! {
        fn nothing_shown_is_a_control_character(line: String) -> bool {
            visible(&line).chars().all(|c| !c.is_control())
        }

        fn folded_rows_fit_and_keep_every_character(line: String, width: u8) -> bool {
            let line = visible(&line.replace('\n', " "));
            let width = usize::from(width % 40) + 2;
            let rows = fold(&line, width);
            rows.iter().all(|row| self::width(row) <= width)
                && rows.concat() == line
        }
    }
}
