//! Chapters: the hunks in the order a reviewer would read them, without asking a model.
//!
//! Every file gets a kind from its path (`super::file_kinds`) and the chapters come in this
//! order, each omitted when empty:
//!
//! 1. `Dependencies and build`: manifests, then the lock files they produce.
//! 2. `Configuration and CI`: dot-directories and dotfiles, tool settings.
//! 3. One chapter per module, modules being directories in path order, titled
//!    `dir: file, file, file and N more` (`top level` for the root). A module's tests follow
//!    its code in the same chapter: a test beside the code (`parse_test.go`) belongs to its
//!    directory; a test in a tests directory (`core/tests/review.rs`) belongs to a module under
//!    the directory that holds the tests directory (`core`), the first whose name or one of
//!    whose files' names is a word of the test's path after the tests directory (`review`),
//!    else the last of them; a root-level tests directory needs such a name match. Tests with
//!    no module make a chapter of their own, titled by their directory.
//!    Two neighbouring modules, one of them with at most 10 changed lines, make one chapter when
//!    they share a directory other than the root (`core/src` and `core/src/review`, titled by
//!    that directory) and stay within 400 lines together; a module over 400 lines is cut
//!    between files into parts of at most 400 lines (`dir (1/2): …`), tests last.
//! 4. `Documentation`: `docs/`, Markdown and other prose, READMEs, changelogs, licenses.
//!
//! Inside a chapter, hunks come file by file (code files by path, then tests by path) and in line
//! order within a file. The summary reads `+120 −30 in 3 files`, then the files added, deleted,
//! renamed, copied or binary (`(1 added, 1 binary)`), then for code the symbols named in its hunk
//! headers (`; touches build, count`, three at most) and `; with tests` when tests came along.
//! Hunks of a file missing from `files` land in a last chapter, `Other changes`, so that every
//! hunk is in exactly one chapter whatever the input.

use std::collections::{BTreeMap, BTreeSet};

use super::file_kinds::{FileKind, file_kind, is_lock_file, parent, stem, test_place};
use super::ids::chapter_id;
use crate::protocol::guided_review::{Chapter, FileStatus, Hunk, ReviewFile};

/// A module this small joins a related neighbour.
const TINY: u32 = 10;
/// A chapter grows no larger by merging, and a module larger than this is split.
const LARGE: u32 = 400;
/// Symbols named in a summary.
const SYMBOLS: usize = 3;
/// File names named in a title.
const NAMES: usize = 3;

/// The chapters of a review's files and hunks, in reading order.
pub fn chapters(files: &[ReviewFile], hunks: &[Hunk]) -> Vec<Chapter> {
    // Hunks come file by file: one look-up per file, not per hunk.
    let runs = || hunks.chunk_by(|a, b| a.file_id == b.file_id);
    let mut by_file: BTreeMap<&str, Vec<&Hunk>> = BTreeMap::new();
    for run in runs() {
        by_file.entry(&run[0].file_id).or_default().extend(run);
    }
    let mut seen = BTreeSet::new();
    let files: Vec<&ReviewFile> = files.iter().filter(|f| seen.insert(&f.id)).collect();
    let sorted = Sorted::new(&files);
    let write = Writer { by_file: &by_file };

    let mut chapters = Vec::new();
    chapters.extend(write.plain("Dependencies and build", &sorted.build));
    chapters.extend(write.plain("Configuration and CI", &sorted.config));
    for part in split(merge(sorted.modules)) {
        chapters.push(write.module(&part));
    }
    chapters.extend(write.plain("Documentation", &sorted.docs));

    let orphans: Vec<String> = runs()
        .filter(|run| !seen.contains(&run[0].file_id))
        .flatten()
        .map(|h| h.id.clone())
        .collect();
    if !orphans.is_empty() {
        chapters.push(Chapter {
            id: chapter_id(&orphans),
            title: "Other changes".to_owned(),
            summary: format!("{} hunks of files not listed", orphans.len()),
            hunk_ids: orphans,
        });
    }
    chapters
}

/// The files by kind, code and tests by module.
struct Sorted<'a> {
    build: Vec<&'a ReviewFile>,
    config: Vec<&'a ReviewFile>,
    docs: Vec<&'a ReviewFile>,
    modules: Vec<Module<'a>>,
}

/// A directory's code files and the tests that go with them.
#[derive(Default)]
struct Module<'a> {
    dir: String,
    code: Vec<&'a ReviewFile>,
    tests: Vec<&'a ReviewFile>,
    /// One part of how many, when split.
    part: Option<(usize, usize)>,
}

impl<'a> Sorted<'a> {
    fn new(files: &[&'a ReviewFile]) -> Self {
        let mut sorted = Sorted {
            build: Vec::new(),
            config: Vec::new(),
            docs: Vec::new(),
            modules: Vec::new(),
        };
        let mut modules: BTreeMap<String, Module> = BTreeMap::new();
        let mut placed_tests = Vec::new();
        for &file in files {
            let dir = parent(&file.path);
            match file_kind(&file.path) {
                FileKind::Build => sorted.build.push(file),
                FileKind::Config => sorted.config.push(file),
                FileKind::Docs => sorted.docs.push(file),
                FileKind::Code => module_at(&mut modules, dir).code.push(file),
                FileKind::Test => match test_place(&file.path) {
                    Some(place) => placed_tests.push((file, place)),
                    None => module_at(&mut modules, dir).tests.push(file),
                },
            }
        }
        // Tests in tests directories find their module once every module's code is known.
        for (file, (anchor, words)) in placed_tests {
            let dir = home(&modules, &anchor, &words).unwrap_or_else(|| parent(&file.path).into());
            module_at(&mut modules, &dir).tests.push(file);
        }
        sorted.modules = modules.into_values().collect();
        for module in &mut sorted.modules {
            module.sort();
        }
        // Manifests before the lock files they produce.
        sorted
            .build
            .sort_by_key(|f| (is_lock_file(&f.path), &f.path));
        for files in [&mut sorted.config, &mut sorted.docs] {
            files.sort_by_key(|f| &f.path);
        }
        sorted
    }
}

fn module_at<'m, 'a>(
    modules: &'m mut BTreeMap<String, Module<'a>>,
    dir: &str,
) -> &'m mut Module<'a> {
    modules.entry(dir.to_owned()).or_insert_with(|| Module {
        dir: dir.to_owned(),
        ..Module::default()
    })
}

/// The module a test in a tests directory goes with: among the modules with code under
/// `anchor`, the first named by one of `words`, else (except at the root) the last.
fn home(modules: &BTreeMap<String, Module>, anchor: &str, words: &[&str]) -> Option<String> {
    let candidates: Vec<&Module> = modules
        .values()
        .filter(|m| !m.code.is_empty())
        .filter(|m| {
            anchor.is_empty() || m.dir == anchor || m.dir.starts_with(&format!("{anchor}/"))
        })
        .collect();
    let named = candidates.iter().find(|m| {
        let dir_name = m.dir.rsplit('/').next().unwrap_or_default();
        let mut names = m.code.iter().map(|f| stem(&f.path)).chain([dir_name]);
        names.any(|name| words.contains(&name))
    });
    let fallback = candidates.last().filter(|_| !anchor.is_empty());
    named.or(fallback).map(|m| m.dir.clone())
}

impl Module<'_> {
    fn sort(&mut self) {
        self.code.sort_by_key(|f| &f.path);
        self.tests.sort_by_key(|f| &f.path);
    }

    fn files(&self) -> impl Iterator<Item = &ReviewFile> {
        self.code.iter().chain(&self.tests).copied()
    }

    fn size(&self) -> u32 {
        self.files().map(changed_lines).sum()
    }
}

fn changed_lines(file: &ReviewFile) -> u32 {
    file.additions + file.deletions
}

/// Tiny modules joined to a related neighbour.
fn merge(modules: Vec<Module>) -> Vec<Module> {
    let mut merged: Vec<Module> = Vec::new();
    for module in modules {
        if let Some(last) = merged.last_mut() {
            let common = common_dir(&last.dir, &module.dir);
            let (a, b) = (last.size(), module.size());
            if !common.is_empty() && a.min(b) <= TINY && a + b <= LARGE {
                last.dir = common;
                last.code.extend(module.code);
                last.tests.extend(module.tests);
                last.sort();
                continue;
            }
        }
        merged.push(module);
    }
    merged
}

/// Large modules cut between files.
fn split(modules: Vec<Module>) -> Vec<Module> {
    let mut parts = Vec::new();
    for module in modules {
        if module.size() <= LARGE {
            parts.push(module);
            continue;
        }
        let mut pieces: Vec<Module> = Vec::new();
        for (file, is_test) in module
            .code
            .iter()
            .map(|f| (*f, false))
            .chain(module.tests.iter().map(|f| (*f, true)))
        {
            let fits = pieces
                .last()
                .is_some_and(|p| p.size() + changed_lines(file) <= LARGE);
            if !fits {
                pieces.push(Module {
                    dir: module.dir.clone(),
                    ..Module::default()
                });
            }
            if let Some(piece) = pieces.last_mut() {
                match is_test {
                    true => piece.tests.push(file),
                    false => piece.code.push(file),
                }
            }
        }
        let count = pieces.len();
        for (n, mut piece) in pieces.into_iter().enumerate() {
            piece.part = (count > 1).then_some((n + 1, count));
            parts.push(piece);
        }
    }
    parts
}

/// The longest common directory of two directories (`""` for none).
fn common_dir(a: &str, b: &str) -> String {
    let common: Vec<&str> = a
        .split('/')
        .zip(b.split('/'))
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect();
    common.join("/")
}

/// Writes chapters from files.
struct Writer<'a> {
    by_file: &'a BTreeMap<&'a str, Vec<&'a Hunk>>,
}

impl Writer<'_> {
    /// A chapter of non-code files, or none when there are none.
    fn plain(&self, title: &str, files: &[&ReviewFile]) -> Option<Chapter> {
        (!files.is_empty()).then(|| self.chapter(title.to_owned(), files, false, false))
    }

    /// A module's chapter: `dir: file, file`, symbols and tests in the summary.
    fn module(&self, module: &Module) -> Chapter {
        let dir = if module.dir.is_empty() {
            "top level"
        } else {
            &module.dir
        };
        let part = module
            .part
            .map_or(String::new(), |(n, of)| format!(" ({n}/{of})"));
        let named = if module.code.is_empty() {
            &module.tests
        } else {
            &module.code
        };
        let prefix = format!("{}/", module.dir);
        let names: Vec<&str> = named
            .iter()
            .map(|f| f.path.strip_prefix(&prefix).unwrap_or(&f.path))
            .collect();
        let title = format!("{dir}{part}: {}", name_list(&names));
        let files: Vec<&ReviewFile> = module.files().collect();
        let with_tests = !module.code.is_empty() && !module.tests.is_empty();
        self.chapter(title, &files, true, with_tests)
    }

    fn chapter(&self, title: String, files: &[&ReviewFile], symbols: bool, tests: bool) -> Chapter {
        let hunks: Vec<&Hunk> = files
            .iter()
            .flat_map(|f| self.by_file.get(f.id.as_str()).into_iter().flatten())
            .copied()
            .collect();
        let hunk_ids: Vec<String> = hunks.iter().map(|h| h.id.clone()).collect();
        let mut summary = sizes(files);
        if symbols {
            summary += &touches(&hunks);
        }
        if tests {
            summary += "; with tests";
        }
        Chapter {
            id: chapter_id(&hunk_ids),
            title,
            summary,
            hunk_ids,
        }
    }
}

/// `a, b, c`, or `a, b and 3 more`.
fn name_list(names: &[&str]) -> String {
    if names.len() <= NAMES {
        return names.join(", ");
    }
    let shown = &names[..NAMES - 1];
    format!(
        "{} and {} more",
        shown.join(", "),
        names.len() - shown.len()
    )
}

/// `+120 −30 in 3 files (1 added, 1 binary)`.
fn sizes(files: &[&ReviewFile]) -> String {
    let additions: u32 = files.iter().map(|f| f.additions).sum();
    let deletions: u32 = files.iter().map(|f| f.deletions).sum();
    let plural = if files.len() == 1 { "" } else { "s" };
    let mut text = format!("+{additions} −{deletions} in {} file{plural}", files.len());
    let count = |status| files.iter().filter(|f| f.status == status).count();
    let notes: Vec<String> = [
        (count(FileStatus::Added), "added"),
        (count(FileStatus::Deleted), "deleted"),
        (count(FileStatus::Renamed), "renamed"),
        (count(FileStatus::Copied), "copied"),
        (files.iter().filter(|f| f.binary).count(), "binary"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if !notes.is_empty() {
        text += &format!(" ({})", notes.join(", "));
    }
    text
}

/// `; touches build, count` from the hunk headers (of hunks with lines: a line-less hunk's
/// header is a note, not code).
fn touches(hunks: &[&Hunk]) -> String {
    let mut symbols: Vec<String> = Vec::new();
    for hunk in hunks.iter().filter(|h| !h.lines.is_empty()) {
        // One more than shown is enough to know there are more.
        if symbols.len() > SYMBOLS {
            break;
        }
        if let Some(symbol) = symbol(&hunk.header)
            && !symbols.contains(&symbol)
        {
            symbols.push(symbol);
        }
    }
    if symbols.is_empty() {
        return String::new();
    }
    let more = if symbols.len() > SYMBOLS { ", …" } else { "" };
    symbols.truncate(SYMBOLS);
    format!("; touches {}{more}", symbols.join(", "))
}

/// The name a function-context line defines, roughly: generic arguments dropped, the text before
/// its parameters (or its body, or a value), last word: `pub fn build<T: X>(x: T) {` → `build`,
/// `impl Display for Point {` → `Point`, `class Parser:` → `Parser`, `void Foo::bar()` →
/// `Foo::bar`.
fn symbol(header: &str) -> Option<String> {
    let mut depth = 0usize;
    let mut head = String::new();
    for c in header.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            '(' | '{' | '=' | ';' if depth == 0 => break,
            _ if depth == 0 => head.push(c),
            _ => {}
        }
    }
    let word = head
        .trim_end()
        .trim_end_matches(':')
        .rsplit(char::is_whitespace)
        .next()?;
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let word = word.trim_start_matches(|c: char| !is_name(c));
    let end = word
        .find(|c: char| !(is_name(c) || c == ':'))
        .unwrap_or(word.len());
    let name = word[..end].trim_end_matches(':');
    (!name.is_empty()).then(|| name.to_owned())
}

#[cfg(test)]
mod tests;
