//! Whether a `sed` script runs shell commands: GNU sed's `e` command and the `e` flag of `s`.
//! The scanner knows sed's command syntax well enough to skip patterns, replacements, text
//! and file names; anything it does not understand counts as running a command.

/// Whether `script` may run a shell command (or is not understood).
pub fn executes(script: &str) -> bool {
    scan(&script.chars().collect::<Vec<_>>()).is_none()
}

/// Walks the script; None at an `e` or anything not understood.
fn scan(s: &[char]) -> Option<()> {
    let mut i = 0;
    loop {
        while s
            .get(i)
            .is_some_and(|c| c.is_whitespace() || matches!(c, ';' | '}'))
        {
            i += 1;
        }
        let Some(&c) = s.get(i) else {
            return Some(());
        };
        if c == '#' {
            i = line_end(s, i);
            continue;
        }
        i = address(s, i)?;
        if s.get(i) == Some(&',') {
            i = address(s, i + 1)?;
        }
        while s.get(i).is_some_and(|c| c.is_whitespace() || *c == '!') {
            i += 1;
        }
        let command = *s.get(i)?;
        i += 1;
        i = match command {
            '{' => i,
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F'
            | 'l' | 'q' | 'Q' | 'L' => {
                // Some take a number: `q5`, `l 40`.
                while s.get(i).is_some_and(|c| c.is_ascii_digit() || *c == ' ') {
                    i += 1;
                }
                i
            }
            'a' | 'i' | 'c' => text_end(s, i),
            ':' | 'b' | 't' | 'T' | 'v' => label_end(s, i),
            'r' | 'R' | 'w' | 'W' => line_end(s, i),
            's' => substitute(s, i)?,
            'y' => {
                let delim = *s.get(i)?;
                let after = delimited(s, i + 1, delim)?;
                delimited(s, after, delim)?
            }
            _ => return None,
        };
    }
}

fn line_end(s: &[char], mut i: usize) -> usize {
    while s.get(i).is_some_and(|c| *c != '\n') {
        i += 1;
    }
    i
}

/// `a text`, with `\` continuing it onto the next line.
fn text_end(s: &[char], mut i: usize) -> usize {
    while let Some(&c) = s.get(i) {
        match c {
            '\\' => i += 2,
            '\n' => return i,
            _ => i += 1,
        }
    }
    i
}

fn label_end(s: &[char], mut i: usize) -> usize {
    while s.get(i).is_some_and(|c| !matches!(c, '\n' | ';' | '}')) {
        i += 1;
    }
    i
}

/// An optional address: a number, `$`, `first~step`, `+N`, `/re/` or `\cREc` with `I`/`M`.
fn address(s: &[char], mut i: usize) -> Option<usize> {
    match s.get(i) {
        Some('/') => i = delimited(s, i + 1, '/')?,
        Some('\\') => {
            let delim = *s.get(i + 1)?;
            i = delimited(s, i + 2, delim)?;
        }
        Some('$') => i += 1,
        Some(c) if c.is_ascii_digit() || matches!(c, '+' | '~') => {
            while s
                .get(i)
                .is_some_and(|c| c.is_ascii_digit() || matches!(c, '+' | '~'))
            {
                i += 1;
            }
            return Some(i);
        }
        _ => return Some(i),
    }
    while s.get(i).is_some_and(|c| matches!(c, 'I' | 'M')) {
        i += 1;
    }
    Some(i)
}

/// Up to the next unescaped `delim`; the index after it.
fn delimited(s: &[char], mut i: usize, delim: char) -> Option<usize> {
    loop {
        match *s.get(i)? {
            '\\' => i += 2,
            c if c == delim => return Some(i + 1),
            '\n' => return None,
            _ => i += 1,
        }
    }
}

/// `s/re/replacement/flags`: None when a flag is `e` or not known.
fn substitute(s: &[char], i: usize) -> Option<usize> {
    let delim = *s.get(i)?;
    if delim == '\n' || delim == '\\' {
        return None;
    }
    let after = delimited(s, i + 1, delim)?;
    let mut i = delimited(s, after, delim)?;
    while let Some(&c) = s.get(i) {
        match c {
            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => i += 1,
            c if c.is_ascii_digit() => i += 1,
            'w' => return Some(line_end(s, i)),
            ';' | '\n' | '}' | ' ' | '\t' => return Some(i),
            _ => return None,
        }
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::executes;

    #[test]
    fn finds_commands_and_flags_that_run_a_shell() {
        for script in [
            "1e git push",
            "e rm v",
            "s/x/git push/e",
            "s|a|b|ge",
            "/x/ e touch y",
            "$!{e ls\n}",
            "s/a/b/;e",
            "s/a/b",
            "k",
        ] {
            assert!(executes(script), "{script:?}");
        }
        for script in [
            "s/hello/world/",
            "s/e/E/g",
            "s,/usr/e,/opt,2",
            "/^e/d",
            "1,$p",
            "y/abc/xyz/",
            "a\\\nhello e",
            "i text with e",
            "10q",
            "s/a/b/w out.txt",
            ":loop\nN;b loop",
            "/start/,/end/{s/e/f/;p}",
            "# e comment",
            "",
        ] {
            assert!(!executes(script), "{script:?}");
        }
    }
}
