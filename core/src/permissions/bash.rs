//! What a bash command line does, as far as permissions care.
//!
//! The `bash` tool runs `bash -c COMMAND`, so three questions decide how a command is treated:
//! may a prefix rule such as `bash(cargo test*)` allow it (only if it is one simple command, or
//! `cargo test; rm -rf ~` would match), does it name a `.env` secrets file, and may it publish
//! to GitHub. [`analyze`] answers them from the text alone with a small shell lexer. Whenever
//! the lexer is unsure it leans to the answer that asks the user: "not simple", "names a
//! secret", "may publish".
//!
//! This is a static look at one string, not a sandbox. It cannot see what a program builds at
//! run time (`python3 -c "open('.e'+'nv')"`), what a script file or a `curl | sh` contains,
//! what a variable holds (`cat $F`), or git and gh aliases defined in config files. Redaction
//! of secrets in tool output is the backstop for what slips through here.

use std::cell::Cell;

/// How deep we follow commands inside commands (`$( )`, backticks, `bash -c '…'`, here-docs
/// fed to a shell). Deeper text gets a cruder textual check, so the limit costs precision, not
/// safety; it also bounds the work on adversarial input.
const MAX_DEPTH: usize = 6;
/// Most words a brace expansion may produce before each group is over-approximated by `*`.
const MAX_BRACE_WORDS: usize = 64;
/// Longest word we brace-expand exactly (the search for groups is quadratic in the worst case);
/// longer words take the `*` over-approximation.
const MAX_BRACE_LEN: usize = 256;

/// What a command line does, as far as permissions care.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandAnalysis {
    /// One simple command: no `;`, `&&`, `||`, `|`, `&` (background), newline, `$( )`,
    /// backticks, `( )` subshells, `{ }` groups, process substitution `<( )`/`>( )`, here-docs
    /// or here-strings, and no output redirection to a file (`>`, `>>`, `&>`, `>|`, `<>`).
    /// fd duplications like `2>&1` and output to `/dev/null`, `/dev/stdout` or `/dev/stderr`
    /// are fine; so are `$VAR`/`${VAR}` expansions, input redirection, comments and trailing
    /// newlines. Only a simple command may be matched by a prefix rule such as
    /// `bash(cargo test*)`.
    pub simple: bool,
    /// Some word names a `.env` secrets file: after quote removal, a `=`- or `:`-separated
    /// part whose last path component is `.env` or `.env.*` (case-insensitively, except
    /// `.env.example` and `.env.sample`), or a glob or brace expansion that could produce
    /// such a name. As bash's globs skip dotfiles, a glob that does not start with `.` counts
    /// only when it matches `.env` itself and holds a letter (`*env` does, `*` and `*.rs` do
    /// not), unless `dotglob` or `GLOBIGNORE` appears in the line.
    pub names_env_file: bool,
    /// When the command may publish to GitHub: a short description such as `git push` or
    /// `gh pr merge`, else None.
    pub github_write: Option<String>,
}

/// Analyzes `command` as `bash -c` would parse it. Never panics, whatever the input.
///
/// Detection is best-effort: it sees words, globs, quotes, substitutions and commands nested
/// in `bash -c`/`eval`/`ssh` strings, but not names computed at run time
/// (`python3 -c "open('.e'+'nv')"`, `cat $F`) or the contents of scripts; redaction of tool
/// output is what catches those.
pub fn analyze(command: &str) -> CommandAnalysis {
    analyze_at(
        command,
        Ctx {
            depth: 0,
            dotglob: false,
        },
    )
}

/// Where a text is analyzed: how deep among nested texts, and whether globs may match
/// dotfiles there.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    depth: usize,
    /// `dotglob` or `GLOBIGNORE` appear in this text or an enclosing one, so `*` may match
    /// `.env`; without them bash's globs skip names starting with `.`.
    dotglob: bool,
}

impl Ctx {
    /// The context of a text nested in this one.
    fn deeper(self) -> Self {
        Self {
            depth: self.depth + 1,
            ..self
        }
    }

    /// For nested texts whose `.env` findings we do not use.
    fn at(depth: usize) -> Self {
        Self {
            depth,
            dotglob: false,
        }
    }

    fn entering(self, text: &str) -> Self {
        Self {
            dotglob: self.dotglob || text.contains("dotglob") || text.contains("GLOBIGNORE"),
            ..self
        }
    }
}

fn analyze_at(command: &str, ctx: Ctx) -> CommandAnalysis {
    if ctx.depth > MAX_DEPTH {
        return crude(command);
    }
    let src: Vec<char> = command.chars().collect();
    let mut lexer = Lexer::new(&src, ctx.entering(command));
    let mut top = Vec::new();
    let stopped = lexer.list(&mut top, None);
    lexer.finish(&top, stopped)
}

/// Analyzes the body of a here-doc with an unquoted delimiter: plain text in which `$( )` and
/// backticks still run, as in a double-quoted string.
fn analyze_expanding_text(text: &str, ctx: Ctx) -> CommandAnalysis {
    if ctx.depth > MAX_DEPTH {
        return crude(text);
    }
    let src: Vec<char> = text.chars().collect();
    let mut lexer = Lexer::new(&src, ctx.entering(text));
    let mut scratch = Word::default();
    let stopped = lexer.double(&mut scratch, None);
    lexer.finish(&[], stopped)
}

/// The textual fallback for text we do not parse (too deep): never simple, and the same
/// heuristics we use for code in other languages.
fn crude(text: &str) -> CommandAnalysis {
    CommandAnalysis {
        simple: false,
        names_env_file: text_names_env(text),
        github_write: text_github(text),
    }
}

/// One token of the command line.
enum Tok {
    Word(Word),
    /// `|` or `|&`: the next command reads this one's output.
    Pipe,
    /// Any other control operator: `;`, `&`, `&&`, `||`, newline, `(`, `)`, `;;`, `;&`.
    Sep,
    /// A redirection operator; the word after it (if any) is its target, not an argument.
    Redir(Redir),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Redir {
    /// `<`
    In,
    /// `>`, `>>`, `>|`, `&>`, `&>>`
    Out,
    /// `<&`
    DupIn,
    /// `>&`: a duplication when the target is an fd or `-`, else output to a file.
    DupOut,
    /// `<>` opens (and creates) the file for writing too.
    ReadWrite,
    /// `<<` or `<<-`, with the index of its body in `Lexer::bodies`.
    HereDoc(usize),
    /// `<<<`
    HereString,
}

/// One word after quote removal.
#[derive(Default)]
struct Word {
    /// Each character, and whether it was unquoted (so `*`, `?`, `[` and `{` are live).
    chars: Vec<(char, bool)>,
    /// The characters alone. Expansions (`$X`, `$(…)`) appear as their source text.
    text: String,
    /// Some quoting or escaping was used (a quoted here-doc delimiter stops expansion).
    quoted: bool,
    /// Part of the word is only known at run time.
    dynamic: bool,
    /// Already analyzed as code by a command that runs it; analyzing twice could multiply the
    /// work at every nesting level.
    recursed: Cell<bool>,
}

impl Word {
    fn live(&mut self, c: char) {
        self.chars.push((c, true));
        self.text.push(c);
    }

    fn quoted_char(&mut self, c: char) {
        self.chars.push((c, false));
        self.text.push(c);
        self.quoted = true;
    }

    fn expansion(&mut self, source: &[char]) {
        for &c in source {
            self.chars.push((c, false));
            self.text.push(c);
        }
        self.dynamic = true;
    }
}

/// A here-doc body, read at the newline after its operator.
#[derive(Default)]
struct Body {
    text: String,
    recursed: Cell<bool>,
}

/// A here-doc whose body starts at the next newline.
struct Pending {
    delimiter: String,
    strip_tabs: bool,
    expands: bool,
    index: usize,
}

/// Why lexing stopped early.
enum Stop {
    /// A quote, substitution or expansion opened at this position never closes.
    Unterminated(usize),
    /// Substitutions nest deeper than `MAX_DEPTH`.
    TooDeep,
}

/// What we found so far; nested analyses merge into it.
#[derive(Default)]
struct Findings {
    env: bool,
    github: Option<String>,
}

impl Findings {
    fn merge(&mut self, other: CommandAnalysis) {
        self.env |= other.names_env_file;
        self.github(other.github_write);
    }

    /// Keeps the first publishing command found: one is enough to ask.
    fn github(&mut self, found: Option<String>) {
        if self.github.is_none() {
            self.github = found;
        }
    }
}

struct Lexer<'s> {
    src: &'s [char],
    pos: usize,
    /// Nesting depth of this text among texts (`bash -c`, backticks, here-docs).
    depth: usize,
    /// Whether globs may match dotfiles here (see [`Ctx`]).
    dotglob: bool,
    /// `$( )` nesting inside this text, lexed in place.
    nest: usize,
    /// Where the trailing run of whitespace starts: a newline there ends nothing.
    trailing: usize,
    complex: bool,
    found: Findings,
    /// Token lists of `$( )` and `<( )`, with their depth, analyzed once lexing is done
    /// (a here-doc inside one may only be read after its closing parenthesis).
    nested: Vec<(Vec<Tok>, usize)>,
    bodies: Vec<Body>,
    pending: Vec<Pending>,
}

impl<'s> Lexer<'s> {
    fn new(src: &'s [char], ctx: Ctx) -> Self {
        let trailing = src
            .iter()
            .rposition(|c| !matches!(c, ' ' | '\t' | '\n'))
            .map_or(0, |i| i + 1);
        Self {
            src,
            pos: 0,
            depth: ctx.depth,
            dotglob: ctx.dotglob,
            nest: 0,
            trailing,
            complex: false,
            found: Findings::default(),
            nested: Vec::new(),
            bodies: Vec::new(),
            pending: Vec::new(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.src.get(self.pos).copied()
    }

    fn at(&self, ahead: usize) -> Option<char> {
        self.src.get(self.pos + ahead).copied()
    }

    fn source(&self, from: usize) -> &'s [char] {
        self.src.get(from..self.pos).unwrap_or_default()
    }

    /// The context of text at `depth`.
    fn ctx(&self, depth: usize) -> Ctx {
        Ctx {
            depth,
            dotglob: self.dotglob,
        }
    }

    /// The context of text nested one level below the current position.
    fn inner_ctx(&self) -> Ctx {
        self.ctx(self.depth + self.nest + 1)
    }

    /// Merges nested results and decides `simple` for the top-level tokens.
    fn finish(mut self, top: &[Tok], stopped: Result<(), Stop>) -> CommandAnalysis {
        let mut complex = self.complex;
        match stopped {
            Ok(()) => {}
            Err(Stop::Unterminated(at)) => {
                // bash would refuse the whole line, but judge the rest anyway: a missing quote
                // must not hide a `git push` from the question we ask.
                complex = true;
                let rest: String = self.src.get(at + 1..).unwrap_or_default().iter().collect();
                self.found
                    .merge(analyze_at(&rest, self.ctx(self.depth + 1)));
            }
            Err(Stop::TooDeep) => {
                complex = true;
                let all: String = self.src.iter().collect();
                self.found.merge(crude(&all));
            }
        }
        let nested = std::mem::take(&mut self.nested);
        for (tokens, depth) in &nested {
            let ctx = self.ctx(*depth);
            commands(tokens, &self.bodies, ctx, &mut self.found);
        }
        let ctx = self.ctx(self.depth);
        let one_simple = commands(top, &self.bodies, ctx, &mut self.found);
        CommandAnalysis {
            simple: !complex && one_simple,
            names_env_file: self.found.env,
            github_write: self.found.github,
        }
    }

    fn separator(&mut self, out: &mut Vec<Tok>, len: usize, tok: Tok) {
        self.pos += len;
        self.complex = true;
        out.push(tok);
    }

    fn push_word(&mut self, out: &mut Vec<Tok>, word: Word) {
        if !self.found.env && names_env(&word, self.dotglob) {
            self.found.env = true;
        }
        out.push(Tok::Word(word));
    }

    /// Lexes a list of commands up to the end, or up to the `)` that closes the `$(` or `<(`
    /// opened at `closing`.
    fn list(&mut self, out: &mut Vec<Tok>, closing: Option<usize>) -> Result<(), Stop> {
        let mut parens = 0usize;
        loop {
            let Some(c) = self.peek() else {
                return match closing {
                    Some(open) => Err(Stop::Unterminated(open)),
                    None => Ok(()),
                };
            };
            match c {
                ' ' | '\t' => self.pos += 1,
                '\\' if self.at(1) == Some('\n') => self.pos += 2,
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                '\n' => {
                    let trailing = closing.is_none() && self.nest == 0 && self.pos >= self.trailing;
                    if trailing && self.pending.is_empty() {
                        self.pos += 1;
                    } else {
                        self.separator(out, 1, Tok::Sep);
                        self.read_heredocs();
                    }
                }
                ')' if closing.is_some() && parens == 0 => {
                    self.pos += 1;
                    return Ok(());
                }
                '(' => {
                    parens += 1;
                    self.separator(out, 1, Tok::Sep);
                }
                ')' => {
                    parens = parens.saturating_sub(1);
                    self.separator(out, 1, Tok::Sep);
                }
                ';' => {
                    let len = match (self.at(1), self.at(2)) {
                        (Some(';'), Some('&')) => 3,
                        (Some(';' | '&'), _) => 2,
                        _ => 1,
                    };
                    self.separator(out, len, Tok::Sep);
                }
                '&' => match (self.at(1), self.at(2)) {
                    (Some('&'), _) => self.separator(out, 2, Tok::Sep),
                    (Some('>'), Some('>')) => self.redirect(out, 3, Redir::Out),
                    (Some('>'), _) => self.redirect(out, 2, Redir::Out),
                    _ => self.separator(out, 1, Tok::Sep),
                },
                '|' => match self.at(1) {
                    Some('|') => self.separator(out, 2, Tok::Sep),
                    Some('&') => self.separator(out, 2, Tok::Pipe),
                    _ => self.separator(out, 1, Tok::Pipe),
                },
                '<' if self.at(1) != Some('(') => match (self.at(1), self.at(2)) {
                    (Some('<'), Some('<')) => {
                        self.complex = true;
                        self.redirect(out, 3, Redir::HereString);
                    }
                    (Some('<'), Some('-')) => self.heredoc(out, 3, true)?,
                    (Some('<'), _) => self.heredoc(out, 2, false)?,
                    (Some('&'), _) => self.redirect(out, 2, Redir::DupIn),
                    (Some('>'), _) => {
                        self.complex = true;
                        self.redirect(out, 2, Redir::ReadWrite);
                    }
                    _ => self.redirect(out, 1, Redir::In),
                },
                '>' if self.at(1) != Some('(') => match self.at(1) {
                    Some('>' | '|') => self.redirect(out, 2, Redir::Out),
                    Some('&') => self.redirect(out, 2, Redir::DupOut),
                    _ => self.redirect(out, 1, Redir::Out),
                },
                _ => {
                    let word = self.word()?;
                    // `2>` and `0<`: digits glued to a redirection name its fd, not an argument.
                    let fd = !word.quoted
                        && !word.dynamic
                        && !word.text.is_empty()
                        && word.text.chars().all(|c| c.is_ascii_digit())
                        && matches!(self.peek(), Some('<' | '>'))
                        && self.at(1) != Some('(');
                    if !fd {
                        self.push_word(out, word);
                    }
                }
            }
        }
    }

    fn redirect(&mut self, out: &mut Vec<Tok>, len: usize, kind: Redir) {
        self.pos += len;
        out.push(Tok::Redir(kind));
    }

    /// `<<DELIM`: the delimiter is lexed now, because the body starts at the next newline.
    fn heredoc(&mut self, out: &mut Vec<Tok>, len: usize, strip_tabs: bool) -> Result<(), Stop> {
        self.complex = true;
        let index = self.bodies.len();
        self.bodies.push(Body::default());
        self.redirect(out, len, Redir::HereDoc(index));
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.pos += 1;
        }
        if self
            .peek()
            .is_some_and(|c| !matches!(c, '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'))
        {
            let word = self.word()?;
            self.pending.push(Pending {
                delimiter: word.text.clone(),
                strip_tabs,
                expands: !word.quoted,
                index,
            });
            self.push_word(out, word);
        }
        Ok(())
    }

    /// Reads the bodies of the here-docs opened on the line that just ended.
    fn read_heredocs(&mut self) {
        for pending in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            while self.pos < self.src.len() {
                let end = self.src[self.pos..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(self.src.len(), |i| self.pos + i);
                let line: String = self.source_between(self.pos, end).iter().collect();
                self.pos = (end + 1).min(self.src.len());
                let line = if pending.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    &line
                };
                if line == pending.delimiter {
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            if pending.expands {
                // `$( )` in an unquoted here-doc runs when the here-doc is read.
                let inner = analyze_expanding_text(&body, self.inner_ctx());
                self.found.merge(inner);
            }
            if let Some(slot) = self.bodies.get_mut(pending.index) {
                slot.text = body;
            }
        }
    }

    fn source_between(&self, from: usize, to: usize) -> &'s [char] {
        self.src.get(from..to).unwrap_or_default()
    }

    /// Lexes one word: up to an unquoted blank or operator.
    fn word(&mut self) -> Result<Word, Stop> {
        let mut word = Word::default();
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' => break,
                '<' | '>' if self.at(1) == Some('(') => {
                    let start = self.pos;
                    self.pos += 2;
                    self.substitution(&mut word, start)?;
                }
                '<' | '>' => break,
                '\\' => match self.at(1) {
                    Some('\n') => self.pos += 2,
                    Some(escaped) => {
                        word.quoted_char(escaped);
                        self.pos += 2;
                    }
                    None => {
                        word.live('\\');
                        self.pos += 1;
                    }
                },
                '\'' => self.single(&mut word)?,
                '"' => {
                    let open = self.pos;
                    self.pos += 1;
                    self.double(&mut word, Some(open))?;
                }
                '$' => self.dollar(&mut word, false)?,
                '`' => self.backtick(&mut word)?,
                _ => {
                    word.live(c);
                    self.pos += 1;
                }
            }
        }
        Ok(word)
    }

    /// `'…'`: everything literal up to the next `'`.
    fn single(&mut self, word: &mut Word) -> Result<(), Stop> {
        let open = self.pos;
        self.pos += 1;
        word.quoted = true;
        loop {
            match self.peek() {
                None => return Err(Stop::Unterminated(open)),
                Some('\'') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(c) => {
                    word.quoted_char(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// `"…"` from just after the opening quote; with `open` None, a here-doc body that runs to
    /// the end of the text and in which `"` is an ordinary character.
    fn double(&mut self, word: &mut Word, open: Option<usize>) -> Result<(), Stop> {
        word.quoted = true;
        loop {
            match self.peek() {
                None => {
                    return match open {
                        Some(open) => Err(Stop::Unterminated(open)),
                        None => Ok(()),
                    };
                }
                Some('"') if open.is_some() => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => match self.at(1) {
                    Some('\n') => self.pos += 2,
                    Some(escaped @ ('$' | '`' | '"' | '\\')) => {
                        word.quoted_char(escaped);
                        self.pos += 2;
                    }
                    _ => {
                        word.quoted_char('\\');
                        self.pos += 1;
                    }
                },
                Some('$') => self.dollar(word, true)?,
                Some('`') => self.backtick(word)?,
                Some(c) => {
                    word.quoted_char(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// Everything that starts with `$`.
    fn dollar(&mut self, word: &mut Word, in_double: bool) -> Result<(), Stop> {
        let start = self.pos;
        match self.at(1) {
            Some('(') => {
                // `$(( ))` arithmetic lexes as a substitution holding a subshell: equally
                // not simple, and any `$( )` inside it is still found.
                self.pos += 2;
                self.substitution(word, start)
            }
            Some('{') => {
                self.pos += 2;
                self.balanced(word, start, '{', '}', in_double)?;
                // `${x@P}` expands a prompt string, which runs `$( )` found in the value.
                if word.text.contains("@P") {
                    self.complex = true;
                }
                Ok(())
            }
            Some('[') => {
                // `$[ ]`: old arithmetic; array subscripts in it can run commands.
                self.complex = true;
                self.pos += 2;
                self.balanced(word, start, '[', ']', in_double)
            }
            Some('\'') if !in_double => {
                self.pos += 2;
                self.ansi_c(word, start)
            }
            Some('"') if !in_double => {
                // `$"…"` is a translatable double-quoted string.
                self.pos += 2;
                self.double(word, Some(start))
            }
            Some(c) if c.is_ascii_digit() => {
                self.pos += 2;
                word.expansion(self.source(start));
                Ok(())
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                self.pos += 1;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.pos += 1;
                }
                word.expansion(self.source(start));
                Ok(())
            }
            Some('@' | '*' | '#' | '?' | '$' | '!' | '-') => {
                self.pos += 2;
                word.expansion(self.source(start));
                Ok(())
            }
            _ => {
                if in_double {
                    word.quoted_char('$');
                } else {
                    word.live('$');
                }
                self.pos += 1;
                Ok(())
            }
        }
    }

    /// `$(…)` or `<(…)`/`>(…)` from just after the parenthesis: the inner commands are lexed in
    /// place and analyzed when lexing is done.
    fn substitution(&mut self, word: &mut Word, start: usize) -> Result<(), Stop> {
        self.complex = true;
        self.nest += 1;
        if self.depth + self.nest > MAX_DEPTH {
            return Err(Stop::TooDeep);
        }
        let mut inner = Vec::new();
        let result = self.list(&mut inner, Some(start));
        self.nested.push((inner, self.depth + self.nest));
        self.nest -= 1;
        result?;
        word.expansion(self.source(start));
        Ok(())
    }

    /// `${…}` or `$[…]` from just after the opener, up to its matching closer. Substitutions
    /// inside still run, so they are lexed; the rest is kept as source text.
    fn balanced(
        &mut self,
        word: &mut Word,
        start: usize,
        open: char,
        close: char,
        in_double: bool,
    ) -> Result<(), Stop> {
        // `${a:-${b:-…}}` nests through here without a `$( )`: bound it the same way.
        self.nest += 1;
        if self.depth + self.nest > MAX_DEPTH {
            return Err(Stop::TooDeep);
        }
        let mut level = 1usize;
        let mut scratch = Word::default();
        loop {
            let Some(c) = self.peek() else {
                return Err(Stop::Unterminated(start));
            };
            match c {
                '\\' => self.pos = (self.pos + 2).min(self.src.len()),
                '\'' if !in_double => self.single(&mut scratch)?,
                '"' => {
                    let quote = self.pos;
                    self.pos += 1;
                    self.double(&mut scratch, Some(quote))?;
                }
                '$' => self.dollar(&mut scratch, in_double)?,
                '`' => self.backtick(&mut scratch)?,
                c if c == open => {
                    level += 1;
                    self.pos += 1;
                }
                c if c == close => {
                    level -= 1;
                    self.pos += 1;
                    if level == 0 {
                        break;
                    }
                }
                _ => self.pos += 1,
            }
        }
        self.nest -= 1;
        word.expansion(self.source(start));
        Ok(())
    }

    /// `` `…` ``: the old command substitution. Backslashes escape `` ` ``, `\` and `$` inside;
    /// the unescaped text is analyzed as a command line of its own.
    fn backtick(&mut self, word: &mut Word) -> Result<(), Stop> {
        let open = self.pos;
        self.pos += 1;
        self.complex = true;
        let mut inner = String::new();
        loop {
            match self.peek() {
                None => return Err(Stop::Unterminated(open)),
                Some('`') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') => match self.at(1) {
                    Some(escaped @ ('`' | '\\' | '$')) => {
                        inner.push(escaped);
                        self.pos += 2;
                    }
                    _ => {
                        inner.push('\\');
                        self.pos += 1;
                    }
                },
                Some(c) => {
                    inner.push(c);
                    self.pos += 1;
                }
            }
        }
        let analysis = analyze_at(&inner, self.inner_ctx());
        self.found.merge(analysis);
        word.expansion(self.source(open));
        Ok(())
    }

    /// `$'…'` from just after the quote: ANSI-C escapes decoded, so `$'\x2eenv'` is `.env`.
    fn ansi_c(&mut self, word: &mut Word, start: usize) -> Result<(), Stop> {
        word.quoted = true;
        loop {
            match self.peek() {
                None => return Err(Stop::Unterminated(start)),
                Some('\'') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    self.pos += 1;
                    self.ansi_escape(word);
                }
                Some(c) => {
                    word.quoted_char(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn ansi_escape(&mut self, word: &mut Word) {
        let Some(e) = self.peek() else {
            word.quoted_char('\\');
            return;
        };
        self.pos += 1;
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
            'x' => self.code_point(16, 2),
            'u' => self.code_point(16, 4),
            'U' => self.code_point(16, 8),
            '0'..='7' => {
                self.pos -= 1;
                self.code_point(8, 3)
            }
            'c' => self.peek().map(|c| {
                self.pos += 1;
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

    /// Up to `max` digits in `radix` as a character; None (nothing consumed) without digits.
    fn code_point(&mut self, radix: u32, max: usize) -> Option<char> {
        let mut value = 0u32;
        let mut count = 0;
        while count < max {
            let Some(digit) = self.peek().and_then(|c| c.to_digit(radix)) else {
                break;
            };
            value = value.wrapping_mul(radix).wrapping_add(digit);
            self.pos += 1;
            count += 1;
        }
        if count == 0 {
            return None;
        }
        Some(char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER))
    }
}

/// One simple command of a list: its words (redirection targets excluded) and what feeds its
/// standard input from the command line itself (here-doc bodies, here-strings).
#[derive(Default)]
struct Cmd<'t> {
    words: Vec<&'t Word>,
    feeds: Vec<Feed<'t>>,
}

enum Feed<'t> {
    Body(usize),
    Here(&'t Word),
}

/// Analyzes the commands in `tokens` for publishing and for code run through other programs;
/// returns whether the tokens are exactly one simple command with harmless redirections.
fn commands(tokens: &[Tok], bodies: &[Body], ctx: Ctx, found: &mut Findings) -> bool {
    let mut pipelines: Vec<Vec<Cmd<'_>>> = Vec::new();
    let mut pipeline: Vec<Cmd<'_>> = Vec::new();
    let mut cmd = Cmd::default();
    let mut redirects_ok = true;
    let mut separators = 0;
    let mut iter = tokens.iter().peekable();
    while let Some(tok) = iter.next() {
        match tok {
            Tok::Word(word) => cmd.words.push(word),
            Tok::Redir(kind) => {
                let target = match iter.peek() {
                    Some(Tok::Word(word)) => {
                        iter.next();
                        Some(word)
                    }
                    _ => None,
                };
                redirects_ok &= harmless_redirect(*kind, target);
                match (kind, target) {
                    (Redir::HereDoc(index), _) => cmd.feeds.push(Feed::Body(*index)),
                    (Redir::HereString, Some(word)) => cmd.feeds.push(Feed::Here(word)),
                    _ => {}
                }
            }
            Tok::Pipe => {
                separators += 1;
                pipeline.push(std::mem::take(&mut cmd));
            }
            Tok::Sep => {
                separators += 1;
                pipeline.push(std::mem::take(&mut cmd));
                pipelines.push(std::mem::take(&mut pipeline));
            }
        }
    }
    pipeline.push(cmd);
    pipelines.push(pipeline);

    for pipeline in &pipelines {
        for cmd in pipeline {
            command(cmd, bodies, ctx, found);
        }
        fed_to_runner(pipeline, bodies, ctx, found);
    }

    let first_word = pipelines
        .first()
        .and_then(|p| p.first())
        .and_then(|c| c.words.first());
    separators == 0 && redirects_ok && first_word.is_some_and(|w| !is_reserved(&w.text))
}

/// Whether a redirection keeps a command simple: input, fd duplication, and output that goes
/// nowhere a later command could read.
fn harmless_redirect(kind: Redir, target: Option<&Word>) -> bool {
    let Some(target) = target else {
        return false;
    };
    let sink = !target.dynamic
        && matches!(
            target.text.as_str(),
            "/dev/null" | "/dev/stdout" | "/dev/stderr"
        );
    let fd = !target.dynamic && {
        let digits = target.text.strip_suffix('-').unwrap_or(&target.text);
        target.text == "-" || (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()))
    };
    match kind {
        Redir::In | Redir::DupIn => true,
        Redir::Out => sink,
        Redir::DupOut => fd || sink,
        Redir::ReadWrite | Redir::HereDoc(_) | Redir::HereString => false,
    }
}

/// Words that make a command compound (or at least not a plain prefix-matchable one) when they
/// come first.
fn is_reserved(word: &str) -> bool {
    matches!(
        word,
        "!" | "{"
            | "}"
            | "[["
            | "]]"
            | "case"
            | "coproc"
            | "do"
            | "done"
            | "elif"
            | "else"
            | "esac"
            | "fi"
            | "for"
            | "function"
            | "if"
            | "in"
            | "select"
            | "then"
            | "time"
            | "until"
            | "while"
    )
}

/// How a program runs code given to it as arguments or on standard input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Runs {
    /// Shell syntax: analyzed recursively.
    Shell,
    /// Another language: only the textual heuristics apply.
    Code,
}

/// Whether `words[i]` names a program that runs code from its arguments or input.
fn runner(words: &[&Word], i: usize) -> Option<Runs> {
    let name = basename(&words.get(i)?.text);
    match name {
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish" | "eval" | "su"
        | "ssh" | "watch" | "script" | "flock" | "parallel" => Some(Runs::Shell),
        // `env -S "git push"` splits its argument into a command.
        "env"
            if words
                .get(i + 1..)
                .unwrap_or_default()
                .iter()
                .any(|w| w.text.starts_with("-S") || w.text.starts_with("--split-string")) =>
        {
            Some(Runs::Shell)
        }
        "node" | "nodejs" | "perl" | "ruby" | "php" | "deno" | "bun" | "lua" | "osascript" => {
            Some(Runs::Code)
        }
        n if n.starts_with("python") || n.starts_with("pypy") => Some(Runs::Code),
        _ => None,
    }
}

fn command(cmd: &Cmd<'_>, bodies: &[Body], ctx: Ctx, found: &mut Findings) {
    found.github(github_in(&cmd.words, ctx.depth));
    let first_runner = (0..cmd.words.len()).find_map(|i| runner(&cmd.words, i).map(|r| (i, r)));
    if let Some((i, runs)) = first_runner {
        for word in cmd.words.get(i + 1..).unwrap_or_default() {
            run_word(runs, word, ctx, found);
        }
        for feed in &cmd.feeds {
            run_feed(runs, feed, bodies, ctx, found);
        }
    }
}

/// `echo 'git push' | sh`: what earlier commands of a pipeline print may be code for a later
/// one.
fn fed_to_runner(pipeline: &[Cmd<'_>], bodies: &[Body], ctx: Ctx, found: &mut Findings) {
    // Commands before an earlier runner were handed to it already; starting after them keeps
    // `a | sh | sh | …` linear.
    let mut done = 0;
    for (k, cmd) in pipeline.iter().enumerate().skip(1) {
        let Some(runs) = (0..cmd.words.len()).find_map(|i| runner(&cmd.words, i)) else {
            continue;
        };
        for earlier in pipeline.get(done..k).unwrap_or_default() {
            for word in &earlier.words {
                run_word(runs, word, ctx, found);
            }
            for feed in &earlier.feeds {
                run_feed(runs, feed, bodies, ctx, found);
            }
        }
        done = k;
    }
}

fn run_word(runs: Runs, word: &Word, ctx: Ctx, found: &mut Findings) {
    if !word.recursed.replace(true) {
        run_text(runs, &word.text, ctx, found);
    }
}

fn run_feed(runs: Runs, feed: &Feed<'_>, bodies: &[Body], ctx: Ctx, found: &mut Findings) {
    match feed {
        Feed::Body(index) => {
            if let Some(body) = bodies.get(*index)
                && !body.recursed.replace(true)
            {
                run_text(runs, &body.text, ctx, found);
            }
        }
        Feed::Here(word) => run_word(runs, word, ctx, found),
    }
}

fn run_text(runs: Runs, text: &str, ctx: Ctx, found: &mut Findings) {
    match runs {
        Runs::Shell => found.merge(analyze_at(text, ctx.deeper())),
        Runs::Code => {
            found.github(text_github(text));
            found.env |= text_names_env(text);
        }
    }
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Finds `git push` or a writing `gh` command anywhere among a command's words. Looking at
/// every position, not just the first, covers wrappers we do not know (`sudo -u x`, `nice -n`,
/// `timeout 5`, `xargs -n1`) at the cost of flagging `echo git push`.
fn github_in(words: &[&Word], depth: usize) -> Option<String> {
    let mut via_xargs = false;
    for (i, word) in words.iter().enumerate() {
        let rest = words.get(i + 1..).unwrap_or_default();
        let found = match basename(&word.text) {
            "git" => git_write(rest, via_xargs, depth),
            "git-push" => Some("git push".to_owned()),
            "gh" => gh_write(rest, via_xargs),
            "xargs" | "parallel" => {
                via_xargs = true;
                None
            }
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

fn git_write(args: &[&Word], via_xargs: bool, depth: usize) -> Option<String> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if matches!(
            text,
            "-C" | "-c"
                | "--git-dir"
                | "--work-tree"
                | "--namespace"
                | "--super-prefix"
                | "--config-env"
        ) {
            let alias = if text == "-c" {
                args.get(i + 1).and_then(|kv| alias_write(&kv.text, depth))
            } else {
                None
            };
            if alias.is_some() {
                return alias;
            }
            i += 2;
        } else if text.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    let Some(sub) = args.get(i) else {
        // `… | xargs git`: the subcommand comes from input we cannot see.
        return via_xargs.then(|| "git with arguments from xargs".to_owned());
    };
    if sub.dynamic {
        return Some("git with a computed subcommand".to_owned());
    }
    let later = args.get(i + 1..).unwrap_or_default();
    match sub.text.as_str() {
        "push" => Some("git push".to_owned()),
        "subtree" | "lfs" if later.iter().any(|w| w.text == "push") => {
            Some(format!("git {} push", sub.text))
        }
        "rebase" => rebase_exec(later, depth),
        _ => None,
    }
}

/// `git -c alias.p=push p` or `git -c 'alias.p=!gh pr merge' p`.
fn alias_write(setting: &str, depth: usize) -> Option<String> {
    let (key, value) = setting.split_once('=')?;
    if !key.to_ascii_lowercase().starts_with("alias.") {
        return None;
    }
    if let Some(script) = value.strip_prefix('!') {
        return analyze_at(script, Ctx::at(depth + 1)).github_write;
    }
    value
        .split_whitespace()
        .any(|w| w == "push")
        .then(|| "git push through an alias".to_owned())
}

/// `git rebase --exec 'git push'` runs its argument as a shell command after each commit.
fn rebase_exec(args: &[&Word], depth: usize) -> Option<String> {
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        let text = word.text.as_str();
        let script = if text == "-x" || text == "--exec" {
            iter.next().map(|w| w.text.as_str())
        } else if let Some(script) = text.strip_prefix("--exec=") {
            Some(script)
        } else if text.starts_with("-x") {
            text.get(2..)
        } else {
            None
        };
        if let Some(found) = script.and_then(|s| analyze_at(s, Ctx::at(depth + 1)).github_write) {
            return Some(found);
        }
    }
    None
}

/// The subcommands of a `gh` command group that change something on GitHub. Besides the
/// common ones this includes `new`/`remove` aliases and rarer writers (`repo sync`,
/// `project item-add`): a name that is not a real alias just makes gh fail.
fn gh_writing_subcommands(group: &str) -> Option<&'static [&'static str]> {
    let subs: &'static [&'static str] = match group {
        "pr" => &[
            "create",
            "new",
            "merge",
            "edit",
            "comment",
            "review",
            "close",
            "reopen",
            "ready",
            "lock",
            "unlock",
            "update-branch",
            "revert",
        ],
        "issue" => &[
            "create", "new", "edit", "comment", "close", "reopen", "delete", "transfer", "pin",
            "unpin", "lock", "unlock", "develop",
        ],
        "release" => &["create", "new", "edit", "delete", "upload", "delete-asset"],
        "repo" => &[
            "create",
            "new",
            "delete",
            "edit",
            "fork",
            "rename",
            "archive",
            "unarchive",
            "sync",
        ],
        "gist" => &["create", "new", "edit", "delete", "rename"],
        "workflow" => &["run", "enable", "disable"],
        "run" => &["rerun", "cancel", "delete"],
        "label" => &["create", "edit", "delete", "clone"],
        "secret" | "variable" => &["set", "delete", "remove"],
        "cache" => &["delete"],
        "project" => &[
            "create",
            "edit",
            "delete",
            "close",
            "copy",
            "field-create",
            "field-delete",
            "item-add",
            "item-archive",
            "item-create",
            "item-delete",
            "item-edit",
            "link",
            "unlink",
            "mark-template",
        ],
        "ssh-key" | "gpg-key" => &["add", "delete"],
        _ => return None,
    };
    Some(subs)
}

fn gh_write(args: &[&Word], via_xargs: bool) -> Option<String> {
    // The next positional argument from `from`, skipping flags (and the values of the
    // persistent flags that take one).
    let positional = |from: usize| {
        let mut i = from;
        while let Some(word) = args.get(i) {
            match word.text.as_str() {
                "-R" | "--repo" | "--hostname" => i += 2,
                text if text.starts_with('-') => i += 1,
                _ => return Some(i),
            }
        }
        None
    };
    let from_xargs = || via_xargs.then(|| "gh with arguments from xargs".to_owned());
    let Some(g) = positional(0) else {
        return from_xargs();
    };
    let group = args.get(g)?;
    if group.dynamic {
        return Some("gh with a computed command".to_owned());
    }
    if group.text == "api" {
        return api_write(args.get(g + 1..).unwrap_or_default());
    }
    let writers = gh_writing_subcommands(&group.text)?;
    let Some(s) = positional(g + 1) else {
        return from_xargs();
    };
    let sub = args.get(s)?;
    if sub.dynamic {
        return Some(format!("gh {} with a computed subcommand", group.text));
    }
    if writers.contains(&sub.text.as_str()) {
        return Some(format!("gh {} {}", group.text, sub.text));
    }
    if group.text == "repo" && matches!(sub.text.as_str(), "deploy-key" | "autolink") {
        let action = args.get(positional(s + 1)?)?;
        if matches!(action.text.as_str(), "add" | "create" | "delete") {
            return Some(format!("gh repo {} {}", sub.text, action.text));
        }
    }
    None
}

/// Splits `--name=value` and glued short flags such as `-XPOST` or `-ftitle=x`.
fn split_flag(text: &str) -> (&str, Option<&str>) {
    if text.starts_with("--") {
        return match text.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (text, None),
        };
    }
    if let (Some(flag), Some(value)) = (text.get(..2), text.get(2..))
        && !value.is_empty()
        && matches!(flag, "-X" | "-f" | "-F" | "-H" | "-q" | "-t" | "-p")
    {
        return (flag, Some(value.strip_prefix('=').unwrap_or(value)));
    }
    (text, None)
}

/// `gh api`: writes with a method other than GET/HEAD, or with fields or `--input` and no
/// explicit method (gh then POSTs); `graphql` writes when its query is a mutation.
fn api_write(args: &[&Word]) -> Option<String> {
    let mut method: Option<(String, bool)> = None;
    let mut fields: Vec<(&str, bool)> = Vec::new();
    let mut input = false;
    let mut endpoint: Option<&str> = None;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let (flag, inline) = split_flag(&word.text);
        let takes_value = matches!(
            flag,
            "-X" | "--method"
                | "-f"
                | "-F"
                | "--field"
                | "--raw-field"
                | "--input"
                | "-H"
                | "--header"
                | "-q"
                | "--jq"
                | "-t"
                | "--template"
                | "--cache"
                | "-p"
                | "--preview"
                | "--hostname"
        );
        if !takes_value {
            if !word.text.starts_with('-') && endpoint.is_none() {
                endpoint = Some(&word.text);
            }
            continue;
        }
        let (value, dynamic) = match inline {
            Some(value) => (value, word.dynamic),
            None => {
                let next = args.get(i);
                i += 1;
                next.map_or(("", false), |w| (w.text.as_str(), w.dynamic))
            }
        };
        match flag {
            "-X" | "--method" => method = Some((value.to_ascii_uppercase(), dynamic)),
            "-f" | "--raw-field" => fields.push((value, dynamic)),
            // `-F key=@file` reads the value from a file we cannot see.
            "-F" | "--field" => fields.push((value, dynamic || value.contains("=@"))),
            "--input" => input = true,
            _ => {}
        }
    }
    if endpoint == Some("graphql") {
        let mutation = fields
            .iter()
            .any(|(v, _)| v.to_ascii_lowercase().contains("mutation"));
        let unseen = input || fields.iter().any(|&(_, dynamic)| dynamic);
        return (mutation || unseen).then(|| "gh api graphql mutation".to_owned());
    }
    match method {
        Some((_, true)) => Some("gh api with a computed method".to_owned()),
        Some((m, false)) if m == "GET" || m == "HEAD" => None,
        Some((m, false)) => Some(format!("gh api {m}")),
        None => (input || !fields.is_empty()).then(|| "gh api POST".to_owned()),
    }
}

/// A textual guess for code we do not parse as shell (Python strings, too-deep nesting):
/// `git` followed closely by `push`, or `gh` with a writing subcommand, as separate tokens.
fn text_github(text: &str) -> Option<String> {
    let tokens: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_')))
        .filter(|t| !t.is_empty())
        .collect();
    for (i, &token) in tokens.iter().enumerate() {
        let after = tokens
            .get(i + 1..(i + 9).min(tokens.len()))
            .unwrap_or_default();
        match token {
            "git" if after.contains(&"push") => return Some("git push".to_owned()),
            "gh" => {
                let mut positional = after.iter().filter(|t| !t.starts_with('-'));
                let (Some(&group), sub) = (positional.next(), positional.next()) else {
                    continue;
                };
                if group == "api" {
                    let writes = after.iter().any(|t| {
                        let lower = t.to_ascii_lowercase();
                        matches!(lower.as_str(), "post" | "put" | "patch" | "delete")
                            || matches!(*t, "-f" | "-F" | "--field" | "--raw-field" | "--input")
                            || lower.contains("mutation")
                    });
                    if writes {
                        return Some("gh api (writing)".to_owned());
                    }
                } else if let (Some(writers), Some(&sub)) = (gh_writing_subcommands(group), sub)
                    && writers.contains(&sub)
                {
                    return Some(format!("gh {group} {sub}"));
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether a file name (compared case-insensitively, for case-insensitive file systems) is a
/// `.env` secrets file.
fn is_env_name(name: &str) -> bool {
    super::is_env_file(&name.to_lowercase())
}

/// Whether a word names a `.env` file: its brace expansions, split at `=` and `:` (so
/// `--file=.env` and `PATH`-like lists count), judged by their last path component, plus the
/// textual check for names inside strings of code.
fn names_env(word: &Word, dotglob: bool) -> bool {
    let structured = brace_words(&word.chars).iter().any(|alt| {
        // The whole word too: a `:` may belong to a glob class such as `[[:alpha:]]`.
        std::iter::once(alt.as_slice())
            .chain(alt.split(|&(c, _)| c == '=' || c == ':'))
            .any(|part| {
                let name = match part.iter().rposition(|&(c, _)| c == '/') {
                    Some(slash) => part.get(slash + 1..).unwrap_or_default(),
                    None => part,
                };
                component_names_env(name, dotglob)
            })
    });
    structured || text_names_env(&word.text)
}

/// Splits text at characters that cannot be part of a plain file name in code or prose
/// (`open('.env')`, `cat .env` inside a `bash -c` string, `${x:-.env}`) and checks each
/// piece. Only literal names: `'.e'+'nv'` is beyond it.
fn text_names_env(text: &str) -> bool {
    text.split(|c: char| c.is_whitespace() || "'\"`()<>;,&|{}[]$!*?\\+".contains(c))
        .flat_map(|piece| piece.split(['=', ':']))
        .any(|part| is_env_name(basename(part).trim_start_matches('-')))
}

/// One path component after brace expansion: a glob if it has live glob characters, else a
/// literal name.
///
/// bash's globs match a leading `.` only literally unless `dotglob` is on, so `*.rs` and `*`
/// cannot reach `.env.rs` or `.env`. A glob that starts with `.` counts when it could match
/// any `.env` name; one that does not only when it matches `.env` itself and holds a letter
/// (`*env`, `?nv`: aimed at it, in case something else expands it), so that `ls *` and
/// `cat *.rs` stay allowed. With `dotglob` in sight every glob that could match counts.
fn component_names_env(name: &[(char, bool)], dotglob: bool) -> bool {
    if name
        .iter()
        .any(|&(c, live)| live && matches!(c, '*' | '?' | '['))
    {
        let (exact, any) = glob_may_match_env(name);
        if dotglob || name.first().is_some_and(|&(c, _)| c == '.') {
            any
        } else {
            exact && name.iter().any(|&(c, _)| c.is_alphabetic())
        }
    } else {
        let text: String = name.iter().map(|&(c, _)| c).collect();
        is_env_name(&text)
    }
}

/// Whether a glob could match `.env` itself, and whether it could match any `.env` file
/// name. It runs the glob against the automaton for `.env` optionally followed by `.` and
/// anything (case-insensitively), tracking which of its states are reachable; the
/// `.env.example`/`.env.sample` exceptions are ignored, which only errs towards asking.
fn glob_may_match_env(name: &[(char, bool)]) -> (bool, bool) {
    // State s < 5 needs NEEDED[s] next; state 4 (`.env`) accepts; state 5 (`.env.`…) accepts
    // and absorbs anything.
    const NEEDED: [char; 5] = ['.', 'e', 'n', 'v', '.'];
    let closes = next_close(name);
    let mut live = [true, false, false, false, false, false];
    let mut i = 0;
    while let Some(&(c, active)) = name.get(i) {
        let mut next = [false; 6];
        if active && c == '*' {
            // A run of any characters: every state from the lowest live one on is reachable.
            if let Some(low) = live.iter().position(|&l| l) {
                next.iter_mut().skip(low).for_each(|n| *n = true);
            }
            i += 1;
        } else {
            let class = if active && c == '?' {
                Some((Class::any(), i + 1))
            } else if active && c == '[' {
                parse_class(name, i, &closes)
            } else {
                None
            };
            for (state, _) in live.iter().enumerate().filter(|(_, l)| **l) {
                let fits = match (NEEDED.get(state), &class) {
                    (None, _) => true,
                    (Some(&needed), Some((class, _))) => class.matches(needed),
                    (Some(&needed), None) => c.to_ascii_lowercase() == needed,
                };
                if let (true, Some(slot)) = (fits, next.get_mut((state + 1).min(5))) {
                    *slot = true;
                }
            }
            i = class.map_or(i + 1, |(_, end)| end);
        }
        live = next;
        if !live.contains(&true) {
            return (false, false);
        }
    }
    (live[4], live[4] || live[5])
}

/// A bracket expression `[…]` (or `?`, as the class of everything).
struct Class {
    negated: bool,
    ranges: Vec<(char, char)>,
    /// Holds a named class such as `[:alpha:]`: treated as matching anything.
    named: bool,
}

impl Class {
    fn any() -> Self {
        Self {
            negated: true,
            ranges: Vec::new(),
            named: false,
        }
    }

    /// Whether the class matches `c` in either case.
    fn matches(&self, c: char) -> bool {
        self.named
            || [c.to_ascii_lowercase(), c.to_ascii_uppercase()]
                .iter()
                .any(|v| self.ranges.iter().any(|&(lo, hi)| lo <= *v && *v <= hi) != self.negated)
    }
}

/// For each index, the first `]` at or after it: keeps bracket parsing linear.
fn next_close(name: &[(char, bool)]) -> Vec<Option<usize>> {
    let mut closes = vec![None; name.len() + 1];
    for (k, &(c, _)) in name.iter().enumerate().rev() {
        let after = closes.get(k + 1).copied().flatten();
        if let Some(slot) = closes.get_mut(k) {
            *slot = if c == ']' { Some(k) } else { after };
        }
    }
    closes
}

/// Parses the bracket expression opening at `open`; returns it and the index after its `]`,
/// or None when there is no closing `]` (then `[` is literal, as in bash).
fn parse_class(
    name: &[(char, bool)],
    open: usize,
    closes: &[Option<usize>],
) -> Option<(Class, usize)> {
    let mut first = open + 1;
    let negated = matches!(name.get(first), Some(&('!' | '^', _)));
    if negated {
        first += 1;
    }
    name.get(first)?;
    // A `]` right after the opener is a member, so the closer is searched from one later.
    let mut end = closes.get(first + 1).copied().flatten()?;
    let mut members = name.get(first..end)?;
    let named = members.windows(2).any(|w| w[0].0 == '[' && w[1].0 == ':');
    if named {
        // The `]` we found ends `[:alpha:]`; the class ends at the next one.
        end = closes.get(end + 1).copied().flatten()?;
        members = name.get(first..end)?;
    }
    let mut ranges = Vec::new();
    let mut k = 0;
    while let Some(&(lo, _)) = members.get(k) {
        if let (Some(&('-', _)), Some(&(hi, _))) = (members.get(k + 1), members.get(k + 2)) {
            ranges.push((lo, hi));
            k += 3;
        } else {
            ranges.push((lo, lo));
            k += 1;
        }
    }
    Some((
        Class {
            negated,
            ranges,
            named,
        },
        end + 1,
    ))
}

type Chars = Vec<(char, bool)>;

/// The words brace expansion makes of `word`: exactly when small, else one word in which every
/// brace group is `*` (which matches whatever the group could have produced, and more).
fn brace_words(word: &[(char, bool)]) -> Vec<Chars> {
    if !word.iter().any(|&(c, live)| live && c == '{') {
        return vec![word.to_vec()];
    }
    let exact = (word.len() <= MAX_BRACE_LEN)
        .then(|| expand_exact(word))
        .flatten();
    exact.unwrap_or_else(|| vec![braces_as_stars(word)])
}

fn expand_exact(word: &[(char, bool)]) -> Option<Vec<Chars>> {
    let mut done = Vec::new();
    let mut todo = vec![word.to_vec()];
    while let Some(w) = todo.pop() {
        match first_group(&w)? {
            None => done.push(w),
            Some((open, close, alternatives)) => {
                for alternative in alternatives {
                    let mut next = w.get(..open).unwrap_or_default().to_vec();
                    next.extend(alternative);
                    next.extend_from_slice(w.get(close + 1..).unwrap_or_default());
                    todo.push(next);
                }
            }
        }
        if done.len() + todo.len() > MAX_BRACE_WORDS {
            return None;
        }
    }
    Some(done)
}

/// For each index holding a live `{`, the index of its matching live `}`.
fn brace_pairs(word: &[(char, bool)]) -> Vec<Option<usize>> {
    let mut pairs = vec![None; word.len()];
    let mut stack = Vec::new();
    for (i, &(c, live)) in word.iter().enumerate() {
        if live && c == '{' {
            stack.push(i);
        } else if live
            && c == '}'
            && let Some(slot) = stack.pop().and_then(|open| pairs.get_mut(open))
        {
            *slot = Some(i);
        }
    }
    pairs
}

type Group = (usize, usize, Vec<Chars>);

/// The first brace group that expands (`{a,b}` or `{a..c}`): Some(None) when there is none,
/// None when a sequence is too long to expand.
fn first_group(word: &[(char, bool)]) -> Option<Option<Group>> {
    let pairs = brace_pairs(word);
    for (open, close) in pairs
        .iter()
        .enumerate()
        .filter_map(|(open, close)| close.map(|close| (open, close)))
    {
        let inner = word.get(open + 1..close).unwrap_or_default();
        let alternatives = split_commas(inner);
        if alternatives.len() > 1 {
            return Some(Some((open, close, alternatives)));
        }
        if let Some(items) = sequence(inner) {
            return Some(Some((open, close, items?)));
        }
    }
    Some(None)
}

fn split_commas(inner: &[(char, bool)]) -> Vec<Chars> {
    let mut parts = vec![Vec::new()];
    let mut level = 0usize;
    for &(c, live) in inner {
        match (c, live) {
            ('{', true) => level += 1,
            ('}', true) => level = level.saturating_sub(1),
            (',', true) if level == 0 => {
                parts.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(part) = parts.last_mut() {
            part.push((c, live));
        }
    }
    parts
}

/// `{1..5}`, `{a..e}`, `{1..10..2}`: None when not a sequence, Some(None) when too long.
fn sequence(inner: &[(char, bool)]) -> Option<Option<Vec<Chars>>> {
    if inner.iter().any(|&(_, live)| !live) {
        return None;
    }
    let text: String = inner.iter().map(|&(c, _)| c).collect();
    let parts: Vec<&str> = text.split("..").collect();
    let (from, to, step) = match parts.as_slice() {
        [from, to] => (*from, *to, 1i64),
        [from, to, step] => (*from, *to, step.parse::<i64>().ok()?),
        _ => return None,
    };
    let step = i128::from(step).abs().max(1);
    let (lo, hi, chars) = match (from.parse::<i64>(), to.parse::<i64>()) {
        (Ok(a), Ok(b)) => (i128::from(a), i128::from(b), false),
        _ => {
            let (mut a, mut b) = (from.chars(), to.chars());
            match (a.next(), a.next(), b.next(), b.next()) {
                (Some(a), None, Some(b), None) => {
                    (i128::from(u32::from(a)), i128::from(u32::from(b)), true)
                }
                _ => return None,
            }
        }
    };
    let count = (hi - lo).abs() / step + 1;
    if count > MAX_BRACE_WORDS as i128 {
        return Some(None);
    }
    let direction = if hi >= lo { step } else { -step };
    let items = (0..count)
        .map(|n| {
            let value = lo + n * direction;
            if chars {
                u32::try_from(value)
                    .ok()
                    .and_then(char::from_u32)
                    .map(|c| vec![(c, true)])
                    .unwrap_or_default()
            } else {
                value.to_string().chars().map(|c| (c, true)).collect()
            }
        })
        .collect();
    Some(Some(items))
}

fn braces_as_stars(word: &[(char, bool)]) -> Chars {
    let pairs = brace_pairs(word);
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&item) = word.get(i) {
        match pairs.get(i).copied().flatten() {
            Some(close) => {
                out.push(('*', true));
                i = close + 1;
            }
            None => {
                out.push(item);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    /// (command, simple, names_env_file, github_write)
    const ROWS: &[(&str, bool, bool, Option<&str>)] = &[
        // Simple or not.
        ("cargo test", true, false, None),
        ("cargo test -p x 2>&1", true, false, None),
        ("cargo test; cat x", false, false, None),
        ("cargo test && rm -rf y", false, false, None),
        ("cargo test || true", false, false, None),
        ("cargo test | sh", false, false, None),
        ("cargo test |& tee", false, false, None),
        ("cargo test $(cat z)", false, false, None),
        ("cargo test `cat z`", false, false, None),
        ("cargo test \"$(cat z)\"", false, false, None),
        ("cargo test $((1+2))", false, false, None),
        ("cargo test > out", false, false, None),
        ("cargo test >> out", false, false, None),
        ("cargo test &> out", false, false, None),
        ("cargo test >| out", false, false, None),
        ("cargo test >& out", false, false, None),
        ("cargo test 2> err", false, false, None),
        ("cargo test <> f", false, false, None),
        ("cargo test 2>/dev/null", true, false, None),
        ("cargo test >/dev/null 2>&1", true, false, None),
        ("cargo test 2>&-", true, false, None),
        ("cargo test < input.txt", true, false, None),
        ("(cargo test)", false, false, None),
        ("{ cargo test; }", false, false, None),
        ("cargo test &", false, false, None),
        ("cargo test\nrm -rf y", false, false, None),
        ("cargo test\n", true, false, None),
        ("cargo test # ; rm -rf y", true, false, None),
        ("cargo test a#b", true, false, None),
        ("diff <(ls a) <(ls b)", false, false, None),
        ("tee >(cat)", false, false, None),
        ("cat <<EOF\nhi\nEOF", false, false, None),
        ("cat <<< hi", false, false, None),
        ("if true; then ls; fi", false, false, None),
        ("time cargo test", false, false, None),
        ("echo \"a;b\"", true, false, None),
        ("grep 'x|y' f", true, false, None),
        ("echo a\\;b", true, false, None),
        ("echo $HOME ${USER} \"$PWD\"", true, false, None),
        ("echo ${x@P}", false, false, None),
        ("FOO=1 cargo test", true, false, None),
        ("echo 'unterminated", false, false, None),
        ("echo \"unterminated", false, false, None),
        ("echo $(unterminated", false, false, None),
        ("echo ${unterminated", false, false, None),
        ("", false, false, None),
        ("# only a comment", false, false, None),
        // .env files.
        ("cat .env", true, true, None),
        ("cat ./sub/.env.local", true, true, None),
        ("cat .ENV", true, true, None),
        ("cat .Env.Production", true, true, None),
        ("cat .en?", true, true, None),
        ("cat .e*", true, true, None),
        ("cat *env", true, true, None),
        ("cat .env*", true, true, None),
        ("cat .[e]nv", true, true, None),
        ("cat .[!x]nv", true, true, None),
        ("cat .[a-z]nv", true, true, None),
        ("cat .[[:alpha:]]nv", true, true, None),
        ("cat .{env,x}", true, true, None),
        ("cat .{d..f}nv", true, true, None),
        ("cat .e''nv", true, true, None),
        ("cat \".env\"", true, true, None),
        ("cat .e\\nv", true, true, None),
        ("cat $'\\x2eenv'", true, true, None),
        ("cat $'.e\\156v'", true, true, None),
        ("source .env", true, true, None),
        (". .env", true, true, None),
        ("cat < .env", true, true, None),
        ("cat 0<.env", true, true, None),
        ("tool --file=.env", true, true, None),
        ("tool --files=a.txt:.env", true, true, None),
        ("cat $HOME/.env", true, true, None),
        ("cat \"${ROOT}\"/.env", true, true, None),
        ("echo $(cat .env)", false, true, None),
        ("bash -c 'cat .env'", true, true, None),
        (
            "python3 -c \"print(open('.env').read())\"",
            true,
            true,
            None,
        ),
        ("cat .env.example", true, false, None),
        ("cat .env.sample", true, false, None),
        ("cat .envrc", true, false, None),
        ("cat .en", true, false, None),
        ("cat env", true, false, None),
        ("cat '.e*'", true, false, None),
        ("cat *.rs", true, false, None),
        ("ls *", true, false, None),
        ("cat src/*.{rs,toml}", true, false, None),
        ("cat *.*", true, false, None),
        ("cat .*", true, true, None),
        ("cat .env.l*", true, true, None),
        ("cat ?env", true, true, None),
        ("cat ?nv", true, false, None),
        ("shopt -s dotglob; cat *", false, true, None),
        ("bash -O dotglob -c 'cat *.local'", true, true, None),
        ("cat .[x]nv", true, false, None),
        ("cat .{x,y}", true, false, None),
        (".env/bin/python -V", true, false, None),
        ("PATH=.env/bin:$PATH pip list", true, false, None),
        // Publishing to GitHub.
        ("git push", true, false, Some("git push")),
        ("FOO=1 git push origin main", true, false, Some("git push")),
        ("git -C x push", true, false, Some("git push")),
        (
            "git --git-dir=x -c a.b=c push -f",
            true,
            false,
            Some("git push"),
        ),
        ("/usr/bin/git push", true, false, Some("git push")),
        ("git pushy", true, false, None),
        ("git log --grep push", true, false, None),
        ("git status && git push", false, false, Some("git push")),
        ("cargo test; git push", false, false, Some("git push")),
        (
            "git subtree push --prefix d origin b",
            true,
            false,
            Some("git subtree push"),
        ),
        (
            "git $CMD",
            true,
            false,
            Some("git with a computed subcommand"),
        ),
        (
            "git -c alias.p=push p",
            true,
            false,
            Some("git push through an alias"),
        ),
        (
            "git -c 'alias.m=!gh pr merge 3' m",
            true,
            false,
            Some("gh pr merge"),
        ),
        (
            "git rebase -x 'git push' main",
            true,
            false,
            Some("git push"),
        ),
        ("gh pr create --fill", true, false, Some("gh pr create")),
        ("gh pr -R o/r merge 3", true, false, Some("gh pr merge")),
        ("gh pr view 3", true, false, None),
        ("gh pr list", true, false, None),
        (
            "gh issue comment 3 -b hi",
            true,
            false,
            Some("gh issue comment"),
        ),
        (
            "gh release upload v1 a.tgz",
            true,
            false,
            Some("gh release upload"),
        ),
        (
            "gh repo deploy-key add k.pub",
            true,
            false,
            Some("gh repo deploy-key add"),
        ),
        ("gh repo deploy-key list", true, false, None),
        ("gh secret set TOKEN", true, false, Some("gh secret set")),
        (
            "gh api repos/o/r/issues -f title=x",
            true,
            false,
            Some("gh api POST"),
        ),
        (
            "gh api repos/o/r/issues -ftitle=x",
            true,
            false,
            Some("gh api POST"),
        ),
        (
            "gh api repos/o/r/issues --input body.json",
            true,
            false,
            Some("gh api POST"),
        ),
        ("gh api -X GET repos/o/r", true, false, None),
        ("gh api -X GET search/issues -f q=x", true, false, None),
        ("gh api repos/o/r", true, false, None),
        ("gh api --paginate repos/o/r/issues", true, false, None),
        ("gh api --method=PATCH x", true, false, Some("gh api PATCH")),
        ("gh api -XPOST x", true, false, Some("gh api POST")),
        ("gh api -X delete x", true, false, Some("gh api DELETE")),
        ("gh api --method put x", true, false, Some("gh api PUT")),
        (
            "gh api graphql -f query='mutation { x }'",
            true,
            false,
            Some("gh api graphql mutation"),
        ),
        (
            "gh api graphql -f query='query { viewer { login } }'",
            true,
            false,
            None,
        ),
        (
            "gh api graphql -F query=@q.graphql",
            true,
            false,
            Some("gh api graphql mutation"),
        ),
        ("bash -c 'git push'", true, false, Some("git push")),
        (
            "sh -c \"cd x && gh pr merge 3\"",
            true,
            false,
            Some("gh pr merge"),
        ),
        (
            "bash -lc 'bash -c \"git push\"'",
            true,
            false,
            Some("git push"),
        ),
        ("eval 'git push'", true, false, Some("git push")),
        ("ssh host 'cd r && git push'", true, false, Some("git push")),
        ("echo $(gh pr merge 3)", false, false, Some("gh pr merge")),
        ("echo \"`git push`\"", false, false, Some("git push")),
        (
            "sudo gh release create v1",
            true,
            false,
            Some("gh release create"),
        ),
        (
            "sudo -u me env A=1 nice -n 5 command git push",
            true,
            false,
            Some("git push"),
        ),
        ("xargs git push", true, false, Some("git push")),
        (
            "echo push | xargs git",
            false,
            false,
            Some("git with arguments from xargs"),
        ),
        ("time git push", false, false, Some("git push")),
        ("echo 'git push' | sh", false, false, Some("git push")),
        ("bash <<EOF\ngit push\nEOF", false, false, Some("git push")),
        (
            "bash <<< 'gh pr merge 1'",
            false,
            false,
            Some("gh pr merge"),
        ),
        (
            "cat <<EOF\n$(git push)\nEOF",
            false,
            false,
            Some("git push"),
        ),
        ("cat <<'EOF'\n$(git push)\nEOF", false, false, None),
        ("cat <<EOF\ngit push\nEOF", false, false, None),
        (
            "python3 -c \"import subprocess; subprocess.run(['git', 'push'])\"",
            true,
            false,
            Some("git push"),
        ),
        ("git commit -m 'do not git push yet'", true, false, None),
        ("git push 'x", false, false, Some("git push")),
        ("echo 'x' \"git push", false, false, Some("git push")),
    ];

    #[test]
    fn table() {
        let mut failures = Vec::new();
        for &(command, simple, env, github) in ROWS {
            let got = analyze(command);
            let want = CommandAnalysis {
                simple,
                names_env_file: env,
                github_write: github.map(str::to_owned),
            };
            if got != want {
                failures.push(format!("{command:?}\n   got  {got:?}\n   want {want:?}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn deep_nesting_is_cut_off_safely() {
        let mut command = "git push".to_owned();
        for _ in 0..20 {
            command = format!("echo $({command})");
        }
        let got = analyze(&command);
        assert!(!got.simple);
        assert!(got.github_write.is_some());

        let mut command = "cat .env".to_owned();
        // Each level of quoting triples the quotes: ten levels are plenty.
        for _ in 0..10 {
            command = format!("bash -c {}", shell_quote(&command));
        }
        let got = analyze(&command);
        assert!(got.names_env_file);
    }

    #[test]
    fn large_inputs_stay_fast() {
        let words = "{a,b}".repeat(5000);
        assert!(!analyze(&format!("cat {words}")).names_env_file);
        let brackets = "[".repeat(50_000);
        assert!(!analyze(&format!("cat {brackets}")).names_env_file);
        let parens = "$(".repeat(50_000);
        assert!(!analyze(&parens).simple);
        let newlines = "\n".repeat(50_000);
        assert!(analyze(&format!("ls{newlines}")).simple);
    }

    fn shell_quote(s: &str) -> String {
        format!("'{}'", s.replace('\'', "'\\''"))
    }

    /// Strings built from shell syntax, so the properties meet quotes and operators often.
    fn shellish(seed: &[u8]) -> String {
        const PIECES: &[&str] = &[
            " ", "'", "\"", "\\", "$", "(", ")", "`", "{", "}", ";", "&", "|", "<", ">", "\n", "#",
            "*", "?", "[", "]", "=", ":", "/", "-", ",", "..", ".env", "git", "push", "gh", "pr",
            "api", "-X", "-f", "bash", "-c", "<<", "EOF", "a", "$(", "${", "$'", "$((", "2>&1",
            "!", "@P", "\t", "é",
        ];
        seed.iter()
            .map(|b| PIECES[usize::from(*b) % PIECES.len()])
            .collect()
    }

    quickcheck! {
        fn arbitrary_strings_never_panic(s: String) -> bool {
            let _ = analyze(&s);
            true
        }

        fn shellish_strings_never_panic(seed: Vec<u8>) -> bool {
            let _ = analyze(&shellish(&seed));
            true
        }

        // A trailing `\` escapes the `;`, and an open comment swallows it: bash itself then
        // runs one command, so those inputs are left out here and covered below.
        fn appending_a_command_is_never_simple(s: String, seed: Vec<u8>) -> bool {
            [s, shellish(&seed)].iter().all(|s| {
                s.contains('#') || s.ends_with('\\') || !analyze(&format!("{s}; x")).simple
            })
        }

        fn a_second_line_is_never_simple(s: String, seed: Vec<u8>) -> bool {
            [s, shellish(&seed)]
                .iter()
                .all(|s| !analyze(&format!("{s} \n; x")).simple)
        }

        fn single_quoted_text_is_inert(s: String, seed: Vec<u8>) -> bool {
            [s, shellish(&seed)].iter().all(|s| {
                let inner = s.replace('\'', "");
                analyze(&format!("echo '{inner}'")).simple
            })
        }
    }
}
