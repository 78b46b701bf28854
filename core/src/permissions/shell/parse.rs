//! The shell grammar: parses one text with tree-sitter-bash and walks the whole tree, without
//! recursion, collecting every simple command wherever it sits (lists, pipelines, subshells,
//! groups, control flow, function bodies, command and process substitutions, assignments,
//! redirections, here-docs) with what feeds its standard input, and every word. Anything the
//! grammar could not parse marks the text as broken, which the caller treats as unknown.

use tree_sitter::{Node, Parser};

use super::words::{Word, build, is_word_kind};

/// What one text holds.
#[derive(Debug, Default)]
pub struct Script {
    /// Every simple command, in source order of their starts.
    pub commands: Vec<RawCommand>,
    /// Every word (for the `.env` and path checks).
    pub words: Vec<Word>,
    /// The grammar found an error or had to invent a missing token; bash may read the text
    /// differently.
    pub broken: bool,
    /// Bodies of backtick substitutions, whose escapes the grammar does not undo: analyzed as
    /// texts of their own.
    pub nested: Vec<String>,
    /// Names of the variables the text assigns (`X=1`, `export X=1`, `for X in`).
    pub assigned: Vec<String>,
}

/// One simple command as written: assignments, words, redirections.
#[derive(Debug, Default)]
pub struct RawCommand {
    /// Names assigned for this command only (`FOO=1 cmd`).
    pub assignments: Vec<String>,
    /// The command name and its arguments; empty for a bare assignment or redirection.
    pub words: Vec<Word>,
    /// What its standard input is.
    pub stdin: Stdin,
    /// Its output is redirected to a file (not `/dev/null` or a file descriptor).
    pub writes: bool,
}

/// Where a command reads its standard input from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Stdin {
    /// Whatever the shell's own input is.
    #[default]
    Inherited,
    /// An earlier command of a pipeline.
    Piped,
    /// A file (`< f`).
    File,
    /// Text written in the command line (a here-doc or here-string) with nothing computed.
    Text(String),
    /// Such text with expansions in it: known only at run time.
    Computed(String),
}

/// Parses `text`. Never panics; a text the parser gives up on is one broken script.
pub fn parse(text: &str) -> Script {
    let mut script = Script::default();
    // The parser sees only ASCII: tree-sitter-bash's scanner calls C's `isdigit` on code
    // points, which is undefined beyond 255. Every other byte becomes `x`, a word character,
    // as bash itself treats those bytes; the lengths are the same, so the nodes' offsets
    // still point into `text`. A NUL cannot reach bash at all (no process argument holds
    // one), so such a text is broken.
    let ascii: String = text
        .bytes()
        .map(|b| {
            if b.is_ascii() && b != 0 {
                char::from(b)
            } else {
                'x'
            }
        })
        .collect();
    script.broken = text.contains('\0');
    let mut parser = Parser::new();
    let tree = parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()
        .and_then(|()| parser.parse(&ascii, None));
    match tree {
        Some(tree) => Walk {
            src: text,
            script: &mut script,
            feeds: Vec::new(),
        }
        .run(tree.root_node()),
        None => script.broken = true,
    }
    script
}

/// Where the walk is: inside a word already recorded, and what feeds the commands here.
#[derive(Debug, Clone, Copy, Default)]
struct At {
    in_word: bool,
    /// Index into `Walk::feeds`: the input and output redirections of an enclosing
    /// redirected statement or pipeline.
    feed: Option<usize>,
}

struct Walk<'s, 'o> {
    src: &'s str,
    script: &'o mut Script,
    /// Redirection facts shared by the commands of a redirected group.
    feeds: Vec<(Stdin, bool)>,
}

impl<'s> Walk<'s, '_> {
    fn text(&self, node: Node<'_>) -> &'s str {
        self.src.get(node.byte_range()).unwrap_or_default()
    }

    fn run(&mut self, root: Node<'_>) {
        let mut stack = vec![(root, At::default())];
        while let Some((node, at)) = stack.pop() {
            let range = node.byte_range();
            let whole_chars =
                self.src.is_char_boundary(range.start) && self.src.is_char_boundary(range.end);
            if node.is_error() || node.is_missing() || !whole_chars {
                self.script.broken = true;
            }
            let kind = node.kind();
            let mut child_at = at;
            if is_word_kind(kind) && !at.in_word {
                self.script.words.push(build(node, self.src));
                child_at.in_word = true;
            }
            match kind {
                "comment" | "heredoc_start" | "heredoc_end" => continue,
                "command_substitution" if self.text(node).starts_with('`') => {
                    self.script.nested.push(unescape_backticks(self.text(node)));
                    continue;
                }
                "command" | "declaration_command" | "unset_command" => {
                    // Bash ends a command at a newline; one between a command's own parts
                    // (`ls⏎\rm v` read as `ls` with arguments) is the grammar reading the text
                    // differently than bash would.
                    if splits_a_line(node, self.src) {
                        self.script.broken = true;
                    }
                    self.command(node, at);
                }
                "variable_assignment" => {
                    if let Some(name) = node.child_by_field_name("name") {
                        self.script.assigned.push(self.text(name).to_owned());
                    }
                }
                // Bash ends an unquoted word at a newline; a word holding one means the grammar
                // read the text differently than bash would.
                "word" | "file_redirect" | "herestring_redirect"
                    if bare_newline(self.text(node)) =>
                {
                    self.script.broken = true
                }
                // `${x@P}` expands the value as a prompt string, running any `$( )` in it.
                "expansion" if self.text(node).contains("@P") => self.script.broken = true,
                "for_statement" => {
                    if let Some(name) = node.child_by_field_name("variable") {
                        self.script.assigned.push(self.text(name).to_owned());
                    }
                }
                "redirected_statement" => {
                    let (stdin, writes) = self.redirects(node, "redirect");
                    self.feeds.push((stdin, writes));
                    child_at.feed = Some(self.feeds.len() - 1);
                }
                _ => {}
            }
            // Every command of a pipeline but the first reads the one before it.
            let piped = kind == "pipeline";
            let mut cursor = node.walk();
            let mut entries = Vec::with_capacity(node.child_count());
            for child in node.children(&mut cursor) {
                let mut at = child_at;
                if piped && child.is_named() && !entries.is_empty() {
                    self.feeds.push((Stdin::Piped, false));
                    at.feed = Some(self.feeds.len() - 1);
                }
                entries.push((child, at));
            }
            stack.extend(entries.into_iter().rev());
        }
    }

    fn command(&mut self, node: Node<'_>, at: At) {
        let mut cmd = RawCommand::default();
        if let Some((stdin, writes)) = at.feed.and_then(|i| self.feeds.get(i)) {
            cmd.stdin = stdin.clone();
            cmd.writes = *writes;
        }
        let (stdin, writes) = self.redirects(node, "redirect");
        if stdin != Stdin::Inherited {
            cmd.stdin = stdin;
        }
        cmd.writes |= writes;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => {
                    if let Some(name) = child.child_by_field_name("name") {
                        cmd.assignments.push(self.text(name).to_owned());
                    }
                    if !cmd.words.is_empty() {
                        // `export X=1`: an argument of a declaration command.
                        cmd.words.push(Word::plain(self.text(child)));
                    }
                }
                "command_name" => match child.named_child(0) {
                    Some(word) => cmd.words.push(build(word, self.src)),
                    None => self.script.broken = true,
                },
                "declare" | "typeset" | "export" | "readonly" | "local" | "unset" | "unsetenv" => {
                    cmd.words.push(Word::plain(child.kind()))
                }
                kind if is_word_kind(kind) => cmd.words.push(build(child, self.src)),
                _ => {}
            }
        }
        self.script.commands.push(cmd);
    }

    /// The input and output redirections among `node`'s children named `field`.
    fn redirects(&mut self, node: Node<'_>, field: &str) -> (Stdin, bool) {
        let mut stdin = Stdin::Inherited;
        let mut writes = false;
        let mut cursor = node.walk();
        let redirects: Vec<Node<'_>> = node.children_by_field_name(field, &mut cursor).collect();
        for redirect in redirects {
            match redirect.kind() {
                "file_redirect" => {
                    let op = operator(redirect, self.src);
                    let target = redirect
                        .child_by_field_name("destination")
                        .map(|d| build(d, self.src))
                        .unwrap_or_default();
                    match op.as_str() {
                        "<" => stdin = Stdin::File,
                        "<&" | "<&-" | ">&-" => {}
                        ">&" if is_fd(&target) => {}
                        _ => writes |= !is_sink(&target),
                    }
                }
                "heredoc_redirect" => {
                    let start = redirect
                        .children(&mut redirect.walk())
                        .find(|c| c.kind() == "heredoc_start")
                        .map(|c| self.text(c))
                        .unwrap_or_default();
                    let quoted = start.contains(['\'', '"', '\\']);
                    let mut body_cursor = redirect.walk();
                    let body = redirect
                        .children(&mut body_cursor)
                        .find(|c| c.kind() == "heredoc_body");
                    let mut text = body.map(|b| self.text(b).to_owned()).unwrap_or_default();
                    if operator(redirect, self.src).contains("<<-") {
                        // Bash strips the tabs that start each line of a `<<-` body.
                        text = text
                            .split('\n')
                            .map(|line| line.trim_start_matches('\t'))
                            .collect::<Vec<_>>()
                            .join("\n");
                    }
                    let computed = !quoted
                        && body.is_some_and(|b| {
                            b.children(&mut b.walk())
                                .any(|c| c.is_named() && c.kind() != "heredoc_content")
                        });
                    stdin = if computed {
                        Stdin::Computed(text)
                    } else {
                        Stdin::Text(text)
                    };
                }
                "herestring_redirect" => {
                    let word = redirect
                        .named_child(0)
                        .map(|w| build(w, self.src))
                        .unwrap_or_default();
                    stdin = if word.dynamic() {
                        Stdin::Computed(word.text)
                    } else {
                        Stdin::Text(format!("{}\n", word.text))
                    };
                }
                _ => {}
            }
        }
        (stdin, writes)
    }
}

/// Whether a newline that no backslash escapes lies between two of `node`'s children.
fn splits_a_line(node: Node<'_>, src: &str) -> bool {
    let mut cursor = node.walk();
    let mut end = None;
    for child in node.children(&mut cursor) {
        if let Some(end) = end
            && bare_newline(src.get(end..child.start_byte()).unwrap_or_default())
        {
            return true;
        }
        end = Some(child.end_byte());
    }
    false
}

/// Whether `text` holds a newline that no backslash escapes.
fn bare_newline(text: &str) -> bool {
    let mut escaped = false;
    for c in text.chars() {
        if c == '\n' && !escaped {
            return true;
        }
        escaped = c == '\\' && !escaped;
    }
    false
}

/// The operator of a file redirection, such as `>>` or `<&`.
fn operator(redirect: Node<'_>, src: &str) -> String {
    let mut cursor = redirect.walk();
    redirect
        .children(&mut cursor)
        .filter(|c| !c.is_named())
        .filter_map(|c| src.get(c.byte_range()))
        .collect()
}

fn is_fd(target: &Word) -> bool {
    target.literal().is_some_and(|t| {
        let digits = t.strip_suffix('-').unwrap_or(t);
        t == "-" || (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()))
    })
}

/// Output that goes nowhere a later command could read.
fn is_sink(target: &Word) -> bool {
    matches!(
        target.literal(),
        Some("/dev/null" | "/dev/stdout" | "/dev/stderr")
    )
}

/// The text inside `` `…` ``: backslashes escape `` ` ``, `\` and `$` there.
fn unescape_backticks(source: &str) -> String {
    let inner = source.strip_prefix('`').unwrap_or(source);
    let inner = inner.strip_suffix('`').unwrap_or(inner);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(escaped @ ('`' | '\\' | '$'))) => {
                out.push(escaped);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}
