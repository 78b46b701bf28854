//! Words as the shell sees them after quote removal: built from the parser's word nodes, each
//! character marked unquoted (so `*`, `?`, `[` and `{` are live) or not, and parts only known
//! at run time (`$X`, `$(…)`) kept as their source text and marked dynamic.

use tree_sitter::Node;

/// One word after quote removal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    /// Each character, and whether it was unquoted.
    pub chars: Vec<(char, bool)>,
    /// Whether each character comes from an expansion (parallel to `chars`).
    pub computed: Vec<bool>,
    /// The characters alone; expansions appear as their source text.
    pub text: String,
    /// Some quoting or escaping was used.
    pub quoted: bool,
}

impl Word {
    /// A word of plain text, as if it had been written unquoted.
    pub fn plain(text: &str) -> Self {
        let mut word = Self::default();
        for c in text.chars() {
            word.push(c, true, false);
        }
        word
    }

    /// Whether part of the word is only known at run time.
    pub fn dynamic(&self) -> bool {
        self.computed.contains(&true)
    }

    /// The word's text when it is fully known.
    pub fn literal(&self) -> Option<&str> {
        (!self.dynamic()).then_some(self.text.as_str())
    }

    fn push(&mut self, c: char, live: bool, computed: bool) {
        self.chars.push((c, live));
        self.computed.push(computed);
        self.text.push(c);
    }

    fn live(&mut self, c: char) {
        self.push(c, true, false);
    }

    fn quoted_char(&mut self, c: char) {
        self.push(c, false, false);
        self.quoted = true;
    }

    fn expansion(&mut self, source: &str) {
        for c in source.chars() {
            self.push(c, false, true);
        }
    }
}

/// Node kinds that are (parts of) words.
pub fn is_word_kind(kind: &str) -> bool {
    matches!(
        kind,
        "word"
            | "number"
            | "string"
            | "raw_string"
            | "ansi_c_string"
            | "translated_string"
            | "concatenation"
            | "simple_expansion"
            | "expansion"
            | "command_substitution"
            | "process_substitution"
            | "arithmetic_expansion"
            | "brace_expression"
            | "extglob_pattern"
            | "regex"
            | "array"
    )
}

/// The word a word node stands for.
pub fn build(node: Node<'_>, src: &str) -> Word {
    let mut word = Word::default();
    add(node, src, &mut word);
    word
}

fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or_default()
}

fn add(node: Node<'_>, src: &str, word: &mut Word) {
    let source = text(node, src);
    match node.kind() {
        "word" | "number" | "brace_expression" | "extglob_pattern" | "regex" => {
            unquoted(source, word)
        }
        "raw_string" => {
            let inner = source.strip_prefix('\'').unwrap_or(source);
            let inner = inner.strip_suffix('\'').unwrap_or(inner);
            word.quoted = true;
            inner.chars().for_each(|c| word.quoted_char(c));
        }
        "ansi_c_string" => {
            let inner = source.strip_prefix("$'").unwrap_or(source);
            ansi_c(inner.strip_suffix('\'').unwrap_or(inner), word);
        }
        "string" | "translated_string" => double_quoted(node, src, word),
        "concatenation" => {
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                add(child, src, word);
            }
        }
        // Expansions, substitutions, and anything the grammar calls something else: only
        // known at run time.
        _ => word.expansion(source),
    }
}

/// Unquoted text: `\c` is a quoted `c`, `\` and a newline vanish.
fn unquoted(source: &str, word: &mut Word) {
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some('\n')) => {
                chars.next();
            }
            ('\\', Some(escaped)) => {
                word.quoted_char(escaped);
                chars.next();
            }
            _ => word.live(c),
        }
    }
}

/// `"…"` (or `$"…"`): its literal parts unescaped, its expansions dynamic. The text between
/// child nodes is read from the source too, so nothing the grammar skips is lost.
fn double_quoted(node: Node<'_>, src: &str, word: &mut Word) {
    word.quoted = true;
    let range = node.byte_range();
    let open = match src.get(range.clone()) {
        Some(s) if s.starts_with("$\"") => 2,
        Some(s) if s.starts_with('"') => 1,
        _ => 0,
    };
    let mut at = range.start + open;
    let end = if src
        .get(range.clone())
        .is_some_and(|s| s.len() > open && s.ends_with('"'))
    {
        range.end - 1
    } else {
        range.end
    };
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        let r = child.byte_range();
        if r.start < at || r.end > end || !child.is_named() {
            continue;
        }
        literal_in_double(src.get(at..r.start).unwrap_or_default(), word);
        match child.kind() {
            "string_content" => literal_in_double(text(child, src), word),
            "string" | "translated_string" => double_quoted(child, src, word),
            _ => word.expansion(text(child, src)),
        }
        at = r.end;
    }
    literal_in_double(src.get(at..end).unwrap_or_default(), word);
}

/// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline.
fn literal_in_double(source: &str, word: &mut Word) {
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some('\n')) => {
                chars.next();
            }
            ('\\', Some(escaped @ ('$' | '`' | '"' | '\\'))) => {
                word.quoted_char(escaped);
                chars.next();
            }
            _ => word.quoted_char(c),
        }
    }
}

/// `$'…'`: ANSI-C escapes decoded, so `$'\x2eenv'` is `.env`.
fn ansi_c(inner: &str, word: &mut Word) {
    word.quoted = true;
    let chars: Vec<char> = inner.chars().collect();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c != '\\' {
            word.quoted_char(c);
            continue;
        }
        let Some(&e) = chars.get(i) else {
            word.quoted_char('\\');
            break;
        };
        i += 1;
        let decoded = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(e),
            'x' => code_point(&chars, &mut i, 16, 2),
            'u' => code_point(&chars, &mut i, 16, 4),
            'U' => code_point(&chars, &mut i, 16, 8),
            '0'..='7' => {
                i -= 1;
                code_point(&chars, &mut i, 8, 3)
            }
            'c' => chars.get(i).map(|&c| {
                i += 1;
                char::from_u32(u32::from(c) & 0x1f).unwrap_or(c)
            }),
            _ => None,
        };
        match decoded {
            Some(c) => word.quoted_char(c),
            None => {
                word.quoted_char('\\');
                word.quoted_char(e);
            }
        }
    }
}

/// Up to `max` digits in `radix` as a character; None (nothing consumed) without digits.
fn code_point(chars: &[char], i: &mut usize, radix: u32, max: usize) -> Option<char> {
    let mut value = 0u32;
    let mut count = 0;
    while count < max {
        let Some(digit) = chars.get(*i).and_then(|c| c.to_digit(radix)) else {
            break;
        };
        value = value.wrapping_mul(radix).wrapping_add(digit);
        *i += 1;
        count += 1;
    }
    (count > 0).then(|| char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER))
}
