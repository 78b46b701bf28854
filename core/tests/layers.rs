//! Core's layers, and the check that every import in core's product code points down them.
//!
//! [`LAYERS`] is the map of core: each module of `core/src` sits in one row, and a module may
//! use (`crate::…`) only the modules in rows below its own, or those before it in its own row
//! (a row reads left to right: the later modules build on the earlier). So no two modules
//! import each other, however indirectly, and a change low in the table is a change to the
//! vocabulary that everything above speaks, while a change high in it touches nothing below.
//!
//! The check reads core's source as text: every `crate::` path outside comments, strings and
//! `#[cfg(test)]` items (tests may drive a module from above: a flow's test uses the harness).
//! A failure names the file, the line, both modules and their rows.

#![allow(clippy::disallowed_methods)] // It reads core's own source, not the world.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One row of the table.
struct Layer {
    /// What the row holds.
    name: &'static str,
    /// Its modules (a top-level module, or one of its children that sits elsewhere), in the
    /// order in which they may use each other.
    modules: &'static [&'static str],
}

/// Core's rows, from the bottom up. What each is, and why it sits where it does:
///
/// - **wire types**: the frames and their JSON, what every client reads. They import
///   nothing, so the protocol can change only on purpose.
/// - **leaves**: pure helpers of one thing each that need nothing else of core: the retry
///   jitter's generator, a path resolved against cwd, what the processes luxe starts get of
///   its environment, the redaction of `.env` values, git's status output.
/// - **vocabulary**: what core and io say to each other. `effects` is `Input` and `Output`
///   and everything they carry (frames and messages through the redaction gate, HTTP
///   requests, diff sources, sites); `steps` is the commands a flow asks io to run, and how
///   they end; `output_order` is the order outputs leave core in, and `client_stdout` which
///   of them still leave once the client stopped reading.
/// - **domain helpers**: pure knowledge of one outside thing each (the model providers, MCP,
///   permissions, GitHub through gh, stacks of branches, guided reviews, the session file),
///   each a value or a flow over the vocabulary, none holding a session.
/// - **start-up**: what a session starts from: the settings files, and the config (the flags,
///   the environment's meaning, what `--issue` and `--worktree` prepare).
/// - **the session**: one session's machine and its feature machines (turns, tool runs,
///   reviews, GitHub, stacks), driven by actions and effects' results.
/// - **front doors**: `--rpc` (`luxe`), `--acp` (`acp`), and `machine`, the one trait
///   io's driver runs either by.
/// - **test drivers**: the checked drivers of the simulator, the properties and the fuzz
///   targets, built only for tests and with the `sim` feature (which luxe-sim, the tests and
///   the fuzz targets turn on, and the shipped binary does not); they drive the front doors
///   from above.
const LAYERS: &[Layer] = &[
    Layer {
        name: "wire types",
        modules: &["protocol"],
    },
    Layer {
        name: "leaves",
        modules: &["rng", "paths", "process_env", "redact", "git"],
    },
    Layer {
        name: "vocabulary",
        modules: &["effects", "steps", "output_order", "client_stdout"],
    },
    Layer {
        name: "domain helpers",
        modules: &[
            "model",
            "mcp",
            "permissions",
            "github",
            "stack",
            "guided_review",
            "store",
        ],
    },
    Layer {
        name: "start-up",
        modules: &["settings", "config"],
    },
    Layer {
        name: "the session",
        modules: &["session"],
    },
    Layer {
        name: "front doors",
        modules: &["luxe", "acp", "machine"],
    },
    Layer {
        name: "test drivers",
        modules: &["harness", "acp::checked", "mcp::fuzzing"],
    },
];

#[test]
fn every_import_points_down_the_layers() {
    let src = source_dir();
    let root = Root::read(&src);
    let mut wrong = Vec::new();
    for (file, module) in product_files(&src) {
        let Some(from) = place(&module) else {
            wrong.push(format!("{}: in no row of LAYERS", shown(&file)));
            continue;
        };
        let code = read_code(&file);
        for (line, path) in crate_paths(&code) {
            let Some(path) = root.resolve(&path) else {
                wrong.push(format!(
                    "{}:{line}: `crate::{}` names no module of core",
                    shown(&file),
                    path.join("::")
                ));
                continue;
            };
            let Some(to) = place(&path) else {
                wrong.push(format!(
                    "{}:{line}: `crate::{}` is in no row of LAYERS",
                    shown(&file),
                    path.join("::")
                ));
                continue;
            };
            if to.module != from.module && to.order > from.order {
                wrong.push(format!(
                    "{}:{line}: `{}` ({}) uses `crate::{}`, which is `{}` ({}): an import \
                     must point down the layers",
                    shown(&file),
                    from.module,
                    from.layer,
                    path.join("::"),
                    to.module,
                    to.layer,
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against core's layers (the table is LAYERS in core/tests/layers.rs):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_module_of_the_table_exists_and_every_module_has_a_row() {
    let src = source_dir();
    let root = Root::read(&src);
    for layer in LAYERS {
        for module in layer.modules {
            let path: Vec<&str> = module.split("::").collect();
            let base = src.join(path.join("/"));
            assert!(
                base.with_extension("rs").is_file() || base.join("mod.rs").is_file(),
                "LAYERS names `{module}` ({}), which core/src does not have",
                layer.name
            );
        }
    }
    for module in &root.modules {
        assert!(
            place(std::slice::from_ref(module)).is_some(),
            "core/src/lib.rs declares `{module}`, which is in no row of LAYERS"
        );
    }
}

#[test]
fn the_reading_sees_code_only() {
    let code = code_only(concat!(
        "use crate::a::{b, c::{d, self}};\n",
        "// crate::comment\n",
        "/* crate::block /* nested */ crate::still */ let s = \"crate::string {\";\n",
        "let r = r#\"crate::raw\"#; let c = '{'; fn f<'a>(x: &'a u8) { crate::e::f(x) }\n",
        "#[cfg(test)]\nmod tests { use crate::tested; }\n",
        "#[cfg(test)]\n#[derive(Debug)]\nstruct Helper([u8; 2]);\n",
        "#[cfg(test)]\nmod more_tests;\n",
        "crate::Root; mod kept;\n",
    ));
    let paths: Vec<(usize, String)> = crate_paths(&code)
        .into_iter()
        .map(|(line, path)| (line, path.join("::")))
        .collect();
    assert_eq!(
        paths,
        [
            (1, "a::b".to_owned()),
            (1, "a::c::d".to_owned()),
            (1, "a::c".to_owned()),
            (4, "e::f".to_owned()),
            (12, "Root".to_owned()),
        ]
    );
    assert_eq!(declared_modules(&code), ["kept"]);
}

/// Where a module sits in the table.
struct Place {
    /// The table's entry for it (its longest prefix there).
    module: &'static str,
    /// Its row's name.
    layer: &'static str,
    /// Its position in the whole table, read bottom row first, each row left to right.
    order: usize,
}

/// The place of the module at `path` (a file's module path, or the path an import names).
fn place(path: &[impl AsRef<str>]) -> Option<Place> {
    let mut order = 0;
    let mut best: Option<(usize, Place)> = None;
    for layer in LAYERS {
        for module in layer.modules {
            let parts: Vec<&str> = module.split("::").collect();
            let matches =
                parts.len() <= path.len() && parts.iter().zip(path).all(|(a, b)| *a == b.as_ref());
            if matches && best.as_ref().is_none_or(|(len, _)| parts.len() > *len) {
                let place = Place {
                    module,
                    layer: layer.name,
                    order,
                };
                best = Some((parts.len(), place));
            }
            order += 1;
        }
    }
    best.map(|(_, place)| place)
}

/// What `core/src/lib.rs` says: its modules, and the names it re-exports from them.
struct Root {
    modules: Vec<String>,
    reexports: BTreeMap<String, String>,
}

impl Root {
    fn read(src: &Path) -> Self {
        let code = read_code(&src.join("lib.rs"));
        let mut modules = Vec::new();
        let mut reexports = BTreeMap::new();
        for statement in code.split(';') {
            let words: Vec<&str> = statement.split_whitespace().collect();
            match words.as_slice() {
                [.., "mod", name] => modules.push((*name).to_owned()),
                ["pub", "use", tree @ ..] => {
                    for (_, path) in use_tree(&tree.concat(), 0, &[]).0 {
                        if let [module, .., name] = path.as_slice() {
                            reexports.insert(name.clone(), module.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        Self { modules, reexports }
    }

    /// `path` with a re-exported name at its head replaced by its module; `None` when its head
    /// is neither a module nor a re-export.
    fn resolve(&self, path: &[String]) -> Option<Vec<String>> {
        let head = path.first()?;
        if self.modules.contains(head) {
            return Some(path.to_vec());
        }
        let module = self.reexports.get(head)?;
        Some(
            std::iter::once(module.clone())
                .chain(path.iter().cloned())
                .collect(),
        )
    }
}

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn shown(file: &Path) -> String {
    let core = Path::new(env!("CARGO_MANIFEST_DIR"));
    let relative = file.strip_prefix(core).unwrap_or(file);
    format!("core/{}", relative.display())
}

/// A file's code as [`code_only`] leaves it.
fn read_code(file: &Path) -> String {
    code_only(&std::fs::read_to_string(file).unwrap())
}

/// Every file of `src` that is product code, with its module path (`lib.rs` excluded: it only
/// declares and re-exports). A module declared under `#[cfg(test)]` is left out with its
/// children.
fn product_files(src: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let mut files = Vec::new();
    let mut pending = vec![(src.join("lib.rs"), Vec::<String>::new())];
    while let Some((file, module)) = pending.pop() {
        for child in declared_modules(&read_code(&file)) {
            let Some(child_file) = module_file(src, &file, &child) else {
                continue; // An inline module: its code is its parent's.
            };
            let mut path = module.clone();
            path.push(child);
            pending.push((child_file, path));
        }
        if !module.is_empty() {
            files.push((file, module));
        }
    }
    files.sort();
    files
}

/// The modules `code` declares with `mod name;` (test modules are blanked already).
fn declared_modules(code: &str) -> Vec<String> {
    code.split(';')
        .filter_map(
            |statement| match statement.split_whitespace().collect::<Vec<_>>()[..] {
                [.., "mod", name] => Some(name.to_owned()),
                _ => None,
            },
        )
        .collect()
}

/// The file of module `name` declared in `parent`.
fn module_file(src: &Path, parent: &Path, name: &str) -> Option<PathBuf> {
    let owns_dir = parent == src.join("lib.rs") || parent.ends_with("mod.rs");
    let dir = if owns_dir {
        parent.parent()?.to_path_buf()
    } else {
        parent.with_extension("")
    };
    let flat = dir.join(format!("{name}.rs"));
    let nested = dir.join(name).join("mod.rs");
    [flat, nested].into_iter().find(|file| file.is_file())
}

/// `text` reduced to what the compiler sees of it outside tests: comments, string and char
/// literals, and `#[cfg(test)]` items replaced by spaces (newlines kept, so lines keep their
/// numbers).
fn code_only(text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    blank_comments_and_literals(&mut chars);
    let attribute: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + attribute.len() <= chars.len() {
        if chars[i..i + attribute.len()] == attribute[..] {
            let end = item_end(&chars, i + attribute.len());
            blank(&mut chars, i, end);
            i = end;
        } else {
            i += 1;
        }
    }
    chars.into_iter().collect()
}

/// Where the item starting at `from` (after an attribute) ends: after its `;`, or after the
/// block that closes it, whichever comes first outside brackets.
fn item_end(chars: &[char], from: usize) -> usize {
    let mut depth = 0usize;
    for (i, c) in chars.iter().enumerate().skip(from) {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            ';' if depth == 0 => return i + 1,
            _ => {}
        }
    }
    chars.len()
}

fn blank(chars: &mut [char], from: usize, to: usize) {
    for c in &mut chars[from..to] {
        if *c != '\n' {
            *c = ' ';
        }
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Blanks comments (nested block comments too), strings (raw and byte ones too) and char
/// literals; lifetimes stay.
fn blank_comments_and_literals(chars: &mut [char]) {
    let mut i = 0;
    while i < chars.len() {
        let next = chars.get(i + 1).copied();
        match chars[i] {
            '/' if next == Some('/') => {
                let end = (i..chars.len())
                    .find(|&j| chars[j] == '\n')
                    .unwrap_or(chars.len());
                blank(chars, i, end);
                i = end;
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                let mut j = i;
                while j < chars.len() {
                    if chars[j] == '/' && chars.get(j + 1) == Some(&'*') {
                        depth += 1;
                        j += 2;
                    } else if chars[j] == '*' && chars.get(j + 1) == Some(&'/') {
                        depth -= 1;
                        j += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                blank(chars, i, j);
                i = j;
            }
            '"' => {
                let mut j = i + 1;
                while j < chars.len() && chars[j] != '"' {
                    j += if chars[j] == '\\' { 2 } else { 1 };
                }
                let end = (j + 1).min(chars.len());
                blank(chars, i, end);
                i = end;
            }
            '\'' => {
                let end = if next == Some('\\') {
                    (i + 2..chars.len())
                        .find(|&j| chars[j] == '\'')
                        .map(|j| j + 1)
                } else {
                    (chars.get(i + 2) == Some(&'\'')).then_some(i + 3)
                };
                match end {
                    Some(end) => {
                        blank(chars, i, end);
                        i = end;
                    }
                    None => i += 1, // A lifetime.
                }
            }
            c if is_ident(c) => {
                let start = i;
                while i < chars.len() && is_ident(chars[i]) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                if (word == "r" || word == "br") && matches!(chars.get(i), Some('"' | '#')) {
                    let hashes = (i..chars.len()).take_while(|&j| chars[j] == '#').count();
                    let open = i + hashes;
                    if chars.get(open) == Some(&'"') {
                        let close: Vec<char> = std::iter::once('"')
                            .chain(std::iter::repeat_n('#', hashes))
                            .collect();
                        let end = (open + 1..chars.len())
                            .find(|&j| chars[j..].starts_with(&close))
                            .map_or(chars.len(), |j| j + close.len());
                        blank(chars, start, end);
                        i = end;
                    }
                }
            }
            _ => i += 1,
        }
    }
}

/// Every path `code` names under `crate::`, with its line: `crate::a::{b, c}` is `a::b` and
/// `a::c`.
fn crate_paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut paths = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(is_ident) {
            continue; // `luxe_crate::`, not this crate.
        }
        let start = at + "crate::".len();
        for (offset, path) in use_tree(&code[start..], 0, &[]).0 {
            paths.push((line_of(start + offset), path));
        }
    }
    paths
}

/// The paths of the use tree at `text[from..]` under `prefix`, each with the offset where it
/// is named, and where the tree ends.
fn use_tree(text: &str, from: usize, prefix: &[String]) -> (Vec<(usize, Vec<String>)>, usize) {
    let bytes = text.as_bytes();
    let skip_space = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut i = skip_space(from);
    if bytes.get(i) == Some(&b'{') {
        let mut paths = Vec::new();
        i += 1;
        loop {
            i = skip_space(i);
            match bytes.get(i) {
                None => return (paths, i),
                Some(b'}') => return (paths, i + 1),
                Some(b',') => i += 1,
                Some(_) => {
                    let (inner, end) = use_tree(text, i, prefix);
                    paths.extend(inner);
                    // Past a rename (`as name`) to the next item.
                    i = end;
                    while i < bytes.len() && !matches!(bytes[i], b',' | b'}') {
                        i += 1;
                    }
                }
            }
        }
    }
    let start = i;
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
        i += 1;
    }
    let word = &text[start..i];
    let mut path = prefix.to_vec();
    if !word.is_empty() && word != "self" {
        path.push(word.to_owned());
    }
    if text[i..].starts_with("::") && !word.is_empty() {
        return use_tree(text, i + 2, &path);
    }
    if path.is_empty() {
        return (Vec::new(), i);
    }
    (vec![(start, path)], i)
}
