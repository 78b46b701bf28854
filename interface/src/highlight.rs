//! Syntax colours for code, without a grammar engine: a small lexer per language family that
//! tells keywords, strings, comments, numbers, literals and type names apart, one line at a
//! time. What a line leaves open (a block comment, a string that goes on) is carried to the
//! next line as state, so a line's colours depend only on it and on the lines before — the same
//! rule the Markdown renderer streams by. A grammar engine (syntect) would colour more exactly,
//! but loading its grammars costs the interface's start-up far more than the few milliseconds
//! it has.

use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::Span;

/// A language family the lexer knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    /// Rust (fences `rust`, `rs`).
    Rust,
    /// Python (fences `python`, `py`, `pyi`, `python3`).
    Python,
    /// JavaScript and TypeScript (and JSX, TSX).
    Script,
    /// Go (fences `go`, `golang`).
    Go,
    /// C and C++, headers included (fences `c`, `h`, `cpp`, `c++`, `cc`, `hpp`, …).
    C,
    /// Java (and Kotlin reads well enough with it).
    Java,
    /// sh, bash, zsh.
    Shell,
    /// JSON, JSONC and JSON5 (fences `json`, `jsonc`, `json5`).
    Json,
    /// TOML (fence `toml`).
    Toml,
    /// YAML (fences `yaml`, `yml`).
    Yaml,
    /// A unified diff: whole lines coloured by their mark.
    Diff,
}

impl Lang {
    /// The language a fenced code block's info string names (its first word: `rust`, `py`,
    /// `console`…), if the lexer knows it.
    pub(crate) fn from_fence(info: &str) -> Option<Self> {
        let name = info
            .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        Self::named(name.strip_prefix('.').unwrap_or(&name))
    }

    /// The language of the file at `path`, by its extension or its name.
    pub(crate) fn from_path(path: &str) -> Option<Self> {
        let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
        match name.as_str() {
            ".bashrc" | ".zshrc" | ".profile" | ".bash_profile" => return Some(Self::Shell),
            "cargo.lock" => return Some(Self::Toml),
            _ => {}
        }
        let (_, extension) = name.rsplit_once('.')?;
        Self::named(extension)
    }

    /// The language a name or an extension stands for.
    fn named(name: &str) -> Option<Self> {
        Some(match name {
            "rust" | "rs" => Self::Rust,
            "python" | "py" | "pyi" | "python3" => Self::Python,
            "javascript" | "js" | "jsx" | "mjs" | "cjs" | "typescript" | "ts" | "tsx" | "mts"
            | "cts" => Self::Script,
            "go" | "golang" => Self::Go,
            "c" | "h" | "cpp" | "c++" | "cc" | "cxx" | "hpp" | "hh" | "hxx" => Self::C,
            "java" | "kotlin" | "kt" | "kts" => Self::Java,
            "sh" | "bash" | "zsh" | "shell" | "console" | "shellsession" => Self::Shell,
            "json" | "jsonc" | "json5" => Self::Json,
            "toml" => Self::Toml,
            "yaml" | "yml" => Self::Yaml,
            "diff" | "patch" => Self::Diff,
            _ => return None,
        })
    }

    /// The lexer's table for this family (a diff has none: it goes by whole lines).
    fn syntax(self) -> Option<&'static Syntax> {
        Some(match self {
            Self::Rust => &RUST,
            Self::Python => &PYTHON,
            Self::Script => &SCRIPT,
            Self::Go => &GO,
            Self::C => &C,
            Self::Java => &JAVA,
            Self::Shell => &SHELL,
            Self::Json => &JSON,
            Self::Toml => &TOML,
            Self::Yaml => &YAML,
            Self::Diff => return None,
        })
    }
}

/// What a piece of a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Nothing in particular: names, punctuation, spaces.
    Plain,
    /// A keyword of the language.
    Keyword,
    /// A type name (a built-in one, or a capitalized name where the language spells types so).
    Type,
    /// A string or a character literal.
    Str,
    /// A number, or a literal such as `true`, `null`, `None`.
    Number,
    /// A line or block comment, drawn dim and italic.
    Comment,
    /// A key in JSON, TOML or YAML; a variable in shell.
    Key,
    /// A table header in TOML, a preprocessor line in C, a diff's hunk header.
    Meta,
    /// A diff's added line.
    Inserted,
    /// A diff's removed line.
    Deleted,
}

impl Kind {
    /// How this kind is drawn. Without colour (`NO_COLOR`) keywords stay bold and comments dim.
    pub(crate) fn style(self) -> Style {
        match self {
            Self::Plain => Style::new(),
            Self::Keyword => Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
            Self::Type => Style::new().fg(Color::Yellow),
            Self::Str => Style::new().fg(Color::Green),
            Self::Number => Style::new().fg(Color::Cyan),
            Self::Comment => Style::new().add_modifier(Modifier::DIM | Modifier::ITALIC),
            Self::Key => Style::new().fg(Color::Blue),
            Self::Meta => Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            Self::Inserted => Style::new().fg(Color::Green),
            Self::Deleted => Style::new().fg(Color::Red),
        }
    }
}

/// `pieces` (a [`Highlighter`]'s) as spans over `base`: a plain piece in `base`, any other in
/// its kind's style laid over it (an added line's green stays under a keyword's colour).
pub(crate) fn spans_over(pieces: Vec<(Kind, &str)>, base: Style) -> Vec<Span<'static>> {
    (pieces.into_iter())
        .map(|(kind, piece)| {
            let style = if kind == Kind::Plain {
                base
            } else {
                base.patch(kind.style())
            };
            Span::styled(piece.to_owned(), style)
        })
        .collect()
}

/// What a line left open for the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Carry {
    /// Nothing is open: the next line starts as plain code.
    #[default]
    None,
    /// A block comment, `depth` deep (Rust's nest).
    Comment { depth: u32 },
    /// A string opened by the family's `quotes[index]`.
    Str { index: usize },
}

/// Colours the lines of one piece of code, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Highlighter {
    lang: Option<Lang>,
    carry: Carry,
}

impl Highlighter {
    /// A highlighter for `lang` (`None`: every line plain).
    pub(crate) fn new(lang: Option<Lang>) -> Self {
        Self {
            lang,
            carry: Carry::None,
        }
    }

    /// Forgets what the lines before left open (a diff's new hunk starts somewhere unknown).
    pub(crate) fn reset(&mut self) {
        self.carry = Carry::None;
    }

    /// The pieces of `line` (one line, without its LF) with their kinds, in order; together
    /// they are the whole line, and none is empty. Whatever the line leaves open is kept for the next.
    pub(crate) fn line<'a>(&mut self, line: &'a str) -> Vec<(Kind, &'a str)> {
        if line.is_empty() {
            return Vec::new();
        }
        let Some(lang) = self.lang else {
            return vec![(Kind::Plain, line)];
        };
        // A diff has no lexer table: it goes by whole lines.
        let Some(syntax) = lang.syntax() else {
            return vec![(diff_kind(line), line)];
        };
        let mut lexer = Lexer {
            syntax,
            line,
            at: 0,
            pieces: Vec::new(),
        };
        self.carry = lexer.run(self.carry);
        lexer.pieces
    }
}

/// How a diff's line is coloured, by its first characters.
fn diff_kind(line: &str) -> Kind {
    if line.starts_with("+++") || line.starts_with("---") || line.starts_with("diff ") {
        Kind::Keyword
    } else if line.starts_with("@@") {
        Kind::Meta
    } else if line.starts_with('+') {
        Kind::Inserted
    } else if line.starts_with('-') {
        Kind::Deleted
    } else {
        Kind::Plain
    }
}

/// A way a string opens and closes.
#[derive(Debug)]
struct Quote {
    open: &'static str,
    close: &'static str,
    /// A backslash escapes the next character.
    escapes: bool,
    /// It may go on past the end of the line.
    multiline: bool,
}

/// One language family's lexical rules.
#[derive(Debug)]
struct Syntax {
    keywords: &'static [&'static str],
    /// Built-in type names.
    types: &'static [&'static str],
    /// Words drawn as literals (`true`, `None`, `nil`).
    literals: &'static [&'static str],
    line_comments: &'static [&'static str],
    block_comment: Option<(&'static str, &'static str)>,
    /// Block comments nest (Rust's).
    nesting: bool,
    /// Longer openings first (`"""` before `"`).
    quotes: &'static [Quote],
    /// `'x'` and `'\n'` are character literals, and a `'` that closes nothing (a Rust
    /// lifetime) is not a string.
    char_quotes: bool,
    /// A capitalized name is a type.
    capitalized_types: bool,
    /// A line comment opens only at a word's start (`#` in shell and YAML, not `$#` or `a#b`).
    comment_at_word_start: bool,
    /// `$name` and `${…}` are variables.
    variables: bool,
    /// A line's leading bare word before this character is a key (`=` in TOML, `:` in YAML).
    key_before: Option<char>,
    /// A string followed by `:` is a key (JSON).
    string_keys: bool,
    /// A line starting with `#` is a preprocessor directive (C).
    preprocessor: bool,
    /// A line starting with `[` is a table header (TOML).
    table_headers: bool,
}

/// A syntax with nothing set, for the tables below to fill in.
const NONE: Syntax = Syntax {
    keywords: &[],
    types: &[],
    literals: &[],
    line_comments: &[],
    block_comment: None,
    nesting: false,
    quotes: &[],
    char_quotes: false,
    capitalized_types: false,
    comment_at_word_start: false,
    variables: false,
    key_before: None,
    string_keys: false,
    preprocessor: false,
    table_headers: false,
};

/// A string that `mark` opens and closes: whether a backslash escapes, whether it may go on
/// past its line.
const fn quote(mark: &'static str, escapes: bool, multiline: bool) -> Quote {
    Quote {
        open: mark,
        close: mark,
        escapes,
        multiline,
    }
}

const RUST: Syntax = Syntax {
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
        "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "type",
        "unsafe", "use", "where", "while", "yield",
    ],
    types: &[
        "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
        "i64", "i128", "isize", "f32", "f64",
    ],
    literals: &["true", "false", "None", "Some", "Ok", "Err"],
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    nesting: true,
    quotes: &[
        Quote {
            open: "r#\"",
            close: "\"#",
            escapes: false,
            multiline: true,
        },
        quote("\"", true, true),
    ],
    char_quotes: true,
    capitalized_types: true,
    ..NONE
};

const PYTHON: Syntax = Syntax {
    keywords: &[
        "and", "as", "assert", "async", "await", "break", "case", "class", "continue", "def",
        "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
        "is", "lambda", "match", "nonlocal", "not", "or", "pass", "raise", "return", "try",
        "while", "with", "yield", "self",
    ],
    types: &[
        "int", "str", "float", "bool", "bytes", "list", "dict", "set", "tuple", "object",
    ],
    literals: &["True", "False", "None"],
    line_comments: &["#"],
    quotes: &[
        quote("\"\"\"", true, true),
        quote("'''", true, true),
        quote("\"", true, false),
        quote("'", true, false),
    ],
    capitalized_types: true,
    ..NONE
};

const SCRIPT: Syntax = Syntax {
    keywords: &[
        "abstract",
        "as",
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "declare",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "finally",
        "for",
        "from",
        "function",
        "get",
        "if",
        "implements",
        "import",
        "in",
        "instanceof",
        "interface",
        "keyof",
        "let",
        "namespace",
        "new",
        "of",
        "private",
        "protected",
        "public",
        "readonly",
        "return",
        "set",
        "static",
        "super",
        "switch",
        "this",
        "throw",
        "try",
        "type",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "yield",
    ],
    types: &[
        "string", "number", "boolean", "any", "unknown", "never", "object", "bigint", "symbol",
    ],
    literals: &["true", "false", "null", "undefined", "NaN"],
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &[
        quote("\"", true, false),
        quote("'", true, false),
        quote("`", true, true),
    ],
    capitalized_types: true,
    ..NONE
};

const GO: Syntax = Syntax {
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "fallthrough",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "map",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "type",
        "var",
    ],
    types: &[
        "any",
        "bool",
        "byte",
        "complex64",
        "complex128",
        "error",
        "float32",
        "float64",
        "int",
        "int8",
        "int16",
        "int32",
        "int64",
        "rune",
        "string",
        "uint",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "uintptr",
    ],
    literals: &["true", "false", "nil", "iota"],
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &[quote("\"", true, false), quote("`", false, true)],
    char_quotes: true,
    ..NONE
};

const C: Syntax = Syntax {
    keywords: &[
        "auto",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "constexpr",
        "continue",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "explicit",
        "extern",
        "for",
        "friend",
        "goto",
        "if",
        "inline",
        "namespace",
        "new",
        "noexcept",
        "operator",
        "override",
        "private",
        "protected",
        "public",
        "register",
        "restrict",
        "return",
        "sizeof",
        "static",
        "struct",
        "switch",
        "template",
        "this",
        "throw",
        "try",
        "typedef",
        "typename",
        "union",
        "using",
        "virtual",
        "volatile",
        "while",
    ],
    types: &[
        "bool", "char", "double", "float", "int", "long", "short", "signed", "unsigned", "void",
        "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
        "uint64_t",
    ],
    literals: &["true", "false", "NULL", "nullptr"],
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &[quote("\"", true, false)],
    char_quotes: true,
    preprocessor: true,
    ..NONE
};

const JAVA: Syntax = Syntax {
    keywords: &[
        "abstract",
        "assert",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "default",
        "do",
        "else",
        "enum",
        "extends",
        "final",
        "finally",
        "for",
        "fun",
        "goto",
        "if",
        "implements",
        "import",
        "instanceof",
        "interface",
        "native",
        "new",
        "package",
        "permits",
        "private",
        "protected",
        "public",
        "record",
        "return",
        "sealed",
        "static",
        "super",
        "switch",
        "synchronized",
        "this",
        "throw",
        "throws",
        "transient",
        "try",
        "val",
        "var",
        "volatile",
        "when",
        "while",
        "yield",
    ],
    types: &[
        "boolean", "byte", "char", "double", "float", "int", "long", "short", "void",
    ],
    literals: &["true", "false", "null"],
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &[quote("\"\"\"", true, true), quote("\"", true, false)],
    char_quotes: true,
    capitalized_types: true,
    ..NONE
};

const SHELL: Syntax = Syntax {
    keywords: &[
        "if", "then", "else", "elif", "fi", "case", "esac", "for", "while", "until", "do", "done",
        "in", "function", "select", "return", "exit", "local", "export", "readonly", "declare",
        "unset", "shift", "break", "continue", "time",
    ],
    literals: &["true", "false"],
    line_comments: &["#"],
    quotes: &[quote("\"", true, true), quote("'", false, true)],
    comment_at_word_start: true,
    variables: true,
    ..NONE
};

const JSON: Syntax = Syntax {
    literals: &["true", "false", "null"],
    quotes: &[quote("\"", true, false)],
    string_keys: true,
    ..NONE
};

const TOML: Syntax = Syntax {
    literals: &["true", "false", "inf", "nan"],
    line_comments: &["#"],
    quotes: &[
        quote("\"\"\"", true, true),
        quote("'''", false, true),
        quote("\"", true, false),
        quote("'", false, false),
    ],
    key_before: Some('='),
    table_headers: true,
    ..NONE
};

const YAML: Syntax = Syntax {
    literals: &["true", "false", "null", "yes", "no", "on", "off", "~"],
    line_comments: &["#"],
    quotes: &[quote("\"", true, false), quote("'", false, false)],
    comment_at_word_start: true,
    key_before: Some(':'),
    ..NONE
};

/// One line's lexing: pieces pushed in order, `at` the byte where the next piece begins.
struct Lexer<'a> {
    syntax: &'static Syntax,
    line: &'a str,
    at: usize,
    pieces: Vec<(Kind, &'a str)>,
}

impl<'a> Lexer<'a> {
    /// Lexes the whole line, starting inside whatever `carry` says is open; returns what the
    /// line leaves open.
    fn run(&mut self, carry: Carry) -> Carry {
        let open = match carry {
            Carry::None => Carry::None,
            Carry::Comment { depth } => self.block_comment(self.at, depth),
            Carry::Str { index } => self.string(self.at, index, 0),
        };
        if open != Carry::None {
            return open;
        }
        self.line_start();
        while self.at < self.line.len() {
            let carry = self.token();
            if carry != Carry::None {
                return carry;
            }
        }
        Carry::None
    }

    /// What only a line's start can hold: a C directive, a TOML table header, a TOML or YAML
    /// key.
    fn line_start(&mut self) {
        let rest = &self.line[self.at..];
        let trimmed = rest.trim_start();
        let indent = rest.len() - trimmed.len();
        let header = if self.syntax.preprocessor && trimmed.starts_with('#') {
            // `#`, the spaces after it and the directive's name.
            let after = &trimmed[1..];
            let spaces = after.len() - after.trim_start().len();
            let name = after[spaces..]
                .find(|c: char| !c.is_alphanumeric())
                .unwrap_or(after.len() - spaces);
            Some(1 + spaces + name)
        } else if self.syntax.table_headers && trimmed.starts_with('[') {
            Some(trimmed.find(']').map_or(trimmed.len(), |at| at + 1))
        } else {
            None
        };
        if let Some(len) = header {
            self.push(Kind::Plain, self.at + indent);
            self.push(Kind::Meta, self.at + len);
            return;
        }
        let Some(separator) = self.syntax.key_before else {
            return;
        };
        // YAML's list marks come before a key.
        let marks = trimmed.len() - trimmed.trim_start_matches(['-', ' ']).len();
        let word = &trimmed[marks..];
        let key_len = word
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .unwrap_or(word.len());
        let after = word[key_len..].trim_start_matches(' ');
        if key_len > 0 && after.starts_with(separator) {
            let key = self.at + indent + marks;
            self.push(Kind::Plain, key);
            self.push(Kind::Key, key + key_len);
        }
    }

    /// Lexes one token at `at`; returns what it leaves open at the line's end.
    fn token(&mut self) -> Carry {
        let syntax = self.syntax;
        let rest = &self.line[self.at..];
        let start = self.at;
        let Some(c) = rest.chars().next() else {
            return Carry::None;
        };
        if c.is_whitespace() {
            let end = rest
                .find(|c: char| !c.is_whitespace())
                .unwrap_or(rest.len());
            self.push(Kind::Plain, start + end);
            return Carry::None;
        }
        let word_start = self.line[..start]
            .chars()
            .next_back()
            .is_none_or(char::is_whitespace);
        if syntax
            .line_comments
            .iter()
            .any(|mark| rest.starts_with(mark))
            && (!syntax.comment_at_word_start || word_start)
        {
            self.push(Kind::Comment, self.line.len());
            return Carry::None;
        }
        if let Some((open, _)) = syntax.block_comment
            && rest.starts_with(open)
        {
            return self.block_comment(start + open.len(), 1);
        }
        if let Some(index) = syntax.quotes.iter().position(|q| rest.starts_with(q.open)) {
            return self.string(start, index, syntax.quotes[index].open.len());
        }
        if c == '\'' && syntax.char_quotes {
            self.char_literal(start);
            return Carry::None;
        }
        if c == '$' && syntax.variables {
            self.variable(start);
            return Carry::None;
        }
        if c.is_ascii_digit() {
            self.number(start);
            return Carry::None;
        }
        if c.is_alphabetic() || c == '_' {
            self.word(start);
            return Carry::None;
        }
        self.push(Kind::Plain, start + c.len_utf8());
        Carry::None
    }

    /// A block comment from `from` (after its opening, `depth` deep); what stays open.
    fn block_comment(&mut self, from: usize, mut depth: u32) -> Carry {
        let Some((open, close)) = self.syntax.block_comment else {
            return Carry::None;
        };
        let mut at = from;
        while at < self.line.len() {
            let rest = &self.line[at..];
            if rest.starts_with(close) {
                depth -= 1;
                at += close.len();
                if depth == 0 {
                    self.push(Kind::Comment, at);
                    return Carry::None;
                }
            } else if self.syntax.nesting && rest.starts_with(open) {
                depth += 1;
                at += open.len();
            } else {
                at += rest.chars().next().map_or(1, char::len_utf8);
            }
        }
        self.push(Kind::Comment, self.line.len());
        Carry::Comment { depth }
    }

    /// A string opened by `quotes[index]` at `start` (its opening `skip` bytes long, 0 when
    /// it goes on from the line before); what stays open.
    fn string(&mut self, start: usize, index: usize, skip: usize) -> Carry {
        let quote = &self.syntax.quotes[index];
        let mut at = start + skip;
        while at < self.line.len() {
            let rest = &self.line[at..];
            if quote.escapes && rest.starts_with('\\') {
                at += 1 + rest[1..].chars().next().map_or(0, char::len_utf8);
            } else if rest.starts_with(quote.close) {
                self.push(Kind::Str, at + quote.close.len());
                self.key_if_followed_by_colon();
                return Carry::None;
            } else {
                at += rest.chars().next().map_or(1, char::len_utf8);
            }
        }
        self.push(Kind::Str, self.line.len());
        if quote.multiline {
            Carry::Str { index }
        } else {
            Carry::None
        }
    }

    /// In JSON, the string just pushed is a key when a `:` follows it.
    fn key_if_followed_by_colon(&mut self) {
        if self.syntax.string_keys
            && self.line[self.at..].trim_start().starts_with(':')
            && let Some(last) = self.pieces.last_mut()
        {
            last.0 = Kind::Key;
        }
    }

    /// `'x'` or `'\n'` is a character; a `'` that closes nothing so soon is a lifetime or a
    /// label, drawn with its name as a type.
    fn char_literal(&mut self, start: usize) {
        let rest = &self.line[start + 1..];
        let mut chars = rest.char_indices();
        let body = match chars.next() {
            // An escape is short (`\u{10FFFF}` the longest): a quote further on is another's.
            Some((_, '\\')) => chars
                .take(10)
                .take_while(|(_, c)| *c != '\'')
                .last()
                .map(|(at, c)| at + c.len_utf8()),
            Some((_, c)) if c != '\'' => Some(c.len_utf8()),
            _ => None,
        };
        match body {
            Some(len) if rest[len..].starts_with('\'') => {
                self.push(Kind::Str, start + 1 + len + 1);
            }
            _ => {
                // A lifetime: the quote and its name.
                let name = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                self.push(Kind::Type, start + 1 + name);
            }
        }
    }

    /// `$name`, `${…}`, `$1`, `$?`.
    fn variable(&mut self, start: usize) {
        let rest = &self.line[start + 1..];
        let len = if rest.starts_with('{') {
            rest.find('}').map_or(rest.len(), |at| at + 1)
        } else if rest.starts_with(|c: char| c.is_ascii_digit() || "?#@*$!-".contains(c)) {
            1
        } else {
            rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len())
        };
        let kind = if len == 0 { Kind::Plain } else { Kind::Key };
        self.push(kind, start + 1 + len);
    }

    /// A number: digits, letters (`0x1f`, `10u32`, `1e9`), `_`, and a `.` before a digit.
    fn number(&mut self, start: usize) {
        let bytes = self.line.as_bytes();
        let mut at = start;
        while at < bytes.len() {
            let b = bytes[at];
            let decimal = b == b'.' && bytes.get(at + 1).is_some_and(u8::is_ascii_digit);
            if b.is_ascii_alphanumeric() || b == b'_' || decimal {
                at += 1;
            } else {
                break;
            }
        }
        self.push(Kind::Number, at);
    }

    /// A name: a keyword, a type, a literal, or plain.
    fn word(&mut self, start: usize) {
        let rest = &self.line[start..];
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let word = &rest[..len];
        let syntax = self.syntax;
        let kind = if syntax.keywords.contains(&word) {
            Kind::Keyword
        } else if syntax.literals.contains(&word) {
            Kind::Number
        } else if syntax.types.contains(&word)
            || (syntax.capitalized_types && word.starts_with(|c: char| c.is_uppercase()))
        {
            Kind::Type
        } else {
            Kind::Plain
        };
        self.push(kind, start + len);
    }

    /// Pushes the line from `at` to `end` as one piece of `kind` (joined to the last piece
    /// when that is of the same kind).
    fn push(&mut self, kind: Kind, end: usize) {
        if end <= self.at {
            return;
        }
        match self.pieces.last_mut() {
            // The last piece ends where this one begins.
            Some((last, text)) if *last == kind => {
                *text = &self.line[self.at - text.len()..end];
            }
            _ => self.pieces.push((kind, &self.line[self.at..end])),
        }
        self.at = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    /// The pieces of each line of `code` in `lang`, as `kind:text` words for short asserts
    /// (plain pieces left out).
    fn marked(lang: Lang, code: &str) -> Vec<String> {
        let mut highlighter = Highlighter::new(Some(lang));
        code.split('\n')
            .flat_map(|line| highlighter.line(line))
            .filter(|(kind, _)| *kind != Kind::Plain)
            .map(|(kind, text)| format!("{kind:?}:{text}"))
            .collect()
    }

    #[test]
    fn languages_are_known_by_fence_names_and_by_paths() {
        assert_eq!(Lang::from_fence("rust,ignore"), Some(Lang::Rust));
        assert_eq!(Lang::from_fence("TS"), Some(Lang::Script));
        assert_eq!(Lang::from_fence("py title=\"x\""), Some(Lang::Python));
        assert_eq!(Lang::from_fence("console"), Some(Lang::Shell));
        assert_eq!(Lang::from_fence("brainfuck"), None);
        assert_eq!(Lang::from_fence(""), None);
        assert_eq!(Lang::from_path("src/main.rs"), Some(Lang::Rust));
        assert_eq!(Lang::from_path("a/b/App.TSX"), Some(Lang::Script));
        assert_eq!(Lang::from_path("include/x.hpp"), Some(Lang::C));
        assert_eq!(Lang::from_path("Cargo.toml"), Some(Lang::Toml));
        assert_eq!(Lang::from_path(".github/ci.yml"), Some(Lang::Yaml));
        assert_eq!(Lang::from_path("home/.bashrc"), Some(Lang::Shell));
        assert_eq!(Lang::from_path("README"), None);
        assert_eq!(Lang::from_path("notes.txt"), None);
    }

    #[test]
    fn rust_keywords_types_strings_chars_lifetimes_numbers_and_comments() {
        assert_eq!(
            marked(
                Lang::Rust,
                "pub fn f<'a>(x: &'a str) -> Option<u32> { let c = '\\n'; Some(0x1f + 1.5) } // hi"
            ),
            [
                "Keyword:pub",
                "Keyword:fn",
                "Type:'a",
                "Type:'a",
                "Type:str",
                "Type:Option",
                "Type:u32",
                "Keyword:let",
                "Str:'\\n'",
                "Number:Some",
                "Number:0x1f",
                "Number:1.5",
                "Comment:// hi",
            ]
        );
        assert_eq!(
            marked(Lang::Rust, r##"let s = "a \" b"; let r = r#"x"y"#;"##),
            [
                "Keyword:let",
                "Str:\"a \\\" b\"",
                "Keyword:let",
                "Str:r#\"x\"y\"#"
            ]
        );
        assert_eq!(marked(Lang::Rust, "0..10"), ["Number:0", "Number:10"]);
    }

    #[test]
    fn block_comments_and_multiline_strings_carry_to_the_next_lines() {
        assert_eq!(
            marked(Lang::Rust, "a /* one\n/* nested */ still\nend */ fn"),
            [
                "Comment:/* one",
                "Comment:/* nested */ still",
                "Comment:end */",
                "Keyword:fn"
            ]
        );
        assert_eq!(
            marked(Lang::C, "x /* one /* two */ int"),
            ["Comment:/* one /* two */", "Type:int"],
            "C's comments do not nest"
        );
        assert_eq!(
            marked(Lang::Python, "s = \"\"\"doc\nif # not code\n\"\"\" if"),
            [
                "Str:\"\"\"doc",
                "Str:if # not code",
                "Str:\"\"\"",
                "Keyword:if"
            ]
        );
        assert_eq!(
            marked(Lang::Script, "const t = `a\n${b}` // c"),
            ["Keyword:const", "Str:`a", "Str:${b}`", "Comment:// c"]
        );
        assert_eq!(
            marked(Lang::Python, "x = 'open\nif"),
            ["Str:'open", "Keyword:if"],
            "a one-line string ends with its line"
        );
    }

    #[test]
    fn shell_comments_begin_words_and_variables_stand_out() {
        assert_eq!(
            marked(
                Lang::Shell,
                "if [ $# -gt 0 ]; then echo \"${HOME}\" a#b $x; fi # done"
            ),
            [
                "Keyword:if",
                "Key:$#",
                "Number:0",
                "Keyword:then",
                "Str:\"${HOME}\"",
                "Key:$x",
                "Keyword:fi",
                "Comment:# done"
            ]
        );
    }

    #[test]
    fn data_formats_mark_their_keys() {
        assert_eq!(
            marked(Lang::Json, r#"{"name": "luxe", "n": 3, "ok": true}"#),
            [
                "Key:\"name\"",
                "Str:\"luxe\"",
                "Key:\"n\"",
                "Number:3",
                "Key:\"ok\"",
                "Number:true"
            ]
        );
        assert_eq!(
            marked(
                Lang::Toml,
                "[package]\nname = \"luxe\" # the name\nedition.workspace = true"
            ),
            [
                "Meta:[package]",
                "Key:name",
                "Str:\"luxe\"",
                "Comment:# the name",
                "Key:edition.workspace",
                "Number:true"
            ]
        );
        assert_eq!(
            marked(
                Lang::Yaml,
                "jobs:\n  - name: test # why\n    run: cargo test"
            ),
            ["Key:jobs", "Key:name", "Comment:# why", "Key:run"]
        );
    }

    #[test]
    fn c_directives_go_and_java() {
        assert_eq!(
            marked(Lang::C, "#include <stdio.h>\nint main(void) { return 0; }"),
            [
                "Meta:#include",
                "Type:int",
                "Type:void",
                "Keyword:return",
                "Number:0"
            ]
        );
        assert_eq!(
            marked(Lang::Go, "func f() error { s := `raw\\` ; return nil }"),
            [
                "Keyword:func",
                "Type:error",
                "Str:`raw\\`",
                "Keyword:return",
                "Number:nil"
            ]
        );
        assert_eq!(
            marked(Lang::Java, "public final String s = \"\"\"\ntext\"\"\";"),
            [
                "Keyword:public",
                "Keyword:final",
                "Type:String",
                "Str:\"\"\"",
                "Str:text\"\"\""
            ]
        );
    }

    #[test]
    fn a_diff_goes_by_whole_lines() {
        assert_eq!(
            marked(
                Lang::Diff,
                "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same"
            ),
            [
                "Keyword:--- a/x",
                "Keyword:+++ b/x",
                "Meta:@@ -1 +1 @@",
                "Deleted:-old",
                "Inserted:+new"
            ]
        );
    }

    #[test]
    fn an_unknown_language_is_plain() {
        let mut plain = Highlighter::new(None);
        assert_eq!(plain.line("fn x /*"), [(Kind::Plain, "fn x /*")]);
    }

    quickcheck! {
        fn the_pieces_are_the_whole_line_in_every_language(lines: Vec<String>) -> bool {
            let langs = [
                Lang::Rust, Lang::Python, Lang::Script, Lang::Go, Lang::C, Lang::Java,
                Lang::Shell, Lang::Json, Lang::Toml, Lang::Yaml, Lang::Diff,
            ];
            langs.iter().all(|lang| {
                let mut highlighter = Highlighter::new(Some(*lang));
                lines.iter().all(|line| {
                    let line = line.replace('\n', " ");
                    let pieces = highlighter.line(&line);
                    pieces.iter().map(|(_, text)| *text).collect::<String>() == line
                        && pieces.iter().all(|(_, text)| !text.is_empty())
                })
            })
        }
    }
}
