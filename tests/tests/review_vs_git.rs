//! `review::build` against git: for the same old and new bytes, each file's hunks print exactly
//! as `git diff -U3 --no-color --no-renames HEAD` prints them (the `@@ -a,b +c,d @@ header`
//! lines and every line below), in repositories made in temporary directories.
//!
//! Where they can differ: imara-diff's Myers search (core uses gitoxide's `gix-imara-diff` 0.3,
//! already in the tree through gix) departs from xdiff's in places (its middle-snake search and
//! its pruning of unmatched lines), so on some inputs it picks another diff of the same size:
//! about one file in a hundred with scattered edits. The corpus test therefore bounds the rate
//! and shows the differences; the hand-written cases and the slider corpus must agree exactly.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use luxe_core::effects::{ChangedFile, DiffSource};
use luxe_core::guided_review::build::build;
use luxe_core::protocol::guided_review::{FileStatus, LineKind, Review, ReviewTarget};
use luxe_core::rng::Rng;
use luxe_tests::git_repo::git_bytes as git;

type Tree = BTreeMap<String, Vec<u8>>;

fn write_tree(dir: &Path, tree: &Tree) {
    for (path, bytes) in tree {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// Git's diff and ours, per path.
struct Diffs {
    git: BTreeMap<String, String>,
    ours: BTreeMap<String, String>,
}

impl Diffs {
    /// Commits `old`, replaces it with `new` in the work tree and diffs both ways.
    fn of(old: &Tree, new: &Tree) -> Self {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        write_tree(dir.path(), old);
        git(dir.path(), &["add", "-A"]);
        git(dir.path(), &["commit", "-q", "--allow-empty", "-m", "old"]);
        for path in old.keys() {
            std::fs::remove_file(dir.path().join(path)).unwrap();
        }
        write_tree(dir.path(), new);
        git(dir.path(), &["add", "-A"]);
        let out = git(
            dir.path(),
            &["diff", "-U3", "--no-color", "--no-renames", "HEAD"],
        );
        let review = build(&ReviewTarget::WorkingTree, &source(old, new));
        Diffs {
            git: parse_git(&String::from_utf8_lossy(&out)),
            ours: print_review(&review),
        }
    }

    /// The paths whose diffs differ, each shown both ways.
    fn differences(&self) -> Vec<String> {
        let paths: BTreeSet<&String> = self.git.keys().chain(self.ours.keys()).collect();
        paths
            .into_iter()
            .filter(|p| self.git.get(*p) != self.ours.get(*p))
            .map(|p| {
                let git = self.git.get(p).map_or("(none)", String::as_str);
                let ours = self.ours.get(p).map_or("(none)", String::as_str);
                format!("=== {p}\n--- git\n{git}--- ours\n{ours}")
            })
            .collect()
    }

    fn assert_equal(&self) {
        let differences = self.differences();
        assert!(differences.is_empty(), "{}", differences.join("\n"));
        assert!(!self.git.is_empty());
    }
}

/// The source io would read: every path whose bytes differ, modes 100644.
fn source(old: &Tree, new: &Tree) -> DiffSource {
    let mut paths: Vec<&String> = old.keys().chain(new.keys()).collect();
    paths.sort();
    paths.dedup();
    let files = paths
        .into_iter()
        .filter(|p| old.get(*p) != new.get(*p))
        .map(|path| {
            let (old, new) = (old.get(path).cloned(), new.get(path).cloned());
            let status = match (&old, &new) {
                (None, _) => FileStatus::Added,
                (_, None) => FileStatus::Deleted,
                _ => FileStatus::Modified,
            };
            ChangedFile {
                path: path.clone(),
                old_path: None,
                status,
                old_mode: old.as_ref().map(|_| 0o100644),
                new_mode: new.as_ref().map(|_| 0o100644),
                old,
                new,
            }
        })
        .collect();
    DiffSource {
        root: "/repo".into(),
        files,
        ..DiffSource::default()
    }
}

/// Git's output cut per file: from the first `@@` to the next file, `Binary` for a binary file,
/// empty when git prints no hunk (an empty file added).
fn parse_git(out: &str) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for section in out.split("diff --git a/").skip(1) {
        let first_line = &section[..section.find('\n').unwrap()];
        let path = first_line[first_line.find(" b/").unwrap() + 3..].to_owned();
        let body = match section.find("\n@@ ") {
            Some(at) => section[at + 1..].to_owned(),
            None if section.contains("\nBinary files ") => "Binary".to_owned(),
            None => String::new(),
        };
        files.insert(path, body);
    }
    files
}

/// The review printed the way git prints a diff.
fn print_review(review: &Review) -> BTreeMap<String, String> {
    let side = |start: u32, lines: u32| match lines {
        1 => start.to_string(),
        _ => format!("{start},{lines}"),
    };
    let mut files = BTreeMap::new();
    for file in &review.files {
        let mut out = String::new();
        for hunk in review.hunks.iter().filter(|h| h.file_id == file.id) {
            if hunk.lines.is_empty() {
                continue;
            }
            out += &format!(
                "@@ -{} +{} @@",
                side(hunk.old_start, hunk.old_lines),
                side(hunk.new_start, hunk.new_lines)
            );
            if !hunk.header.is_empty() {
                out += &format!(" {}", hunk.header);
            }
            out.push('\n');
            for line in &hunk.lines {
                out.push(match line.kind {
                    LineKind::Context => ' ',
                    LineKind::Add => '+',
                    LineKind::Del => '-',
                });
                out += line.text;
                out.push('\n');
                if line.no_newline {
                    out += "\\ No newline at end of file\n";
                }
            }
        }
        if file.binary {
            out = "Binary".to_owned();
        }
        files.insert(file.path.clone(), out);
    }
    files
}

fn tree(files: &[(&str, &[u8])]) -> Tree {
    files
        .iter()
        .map(|(path, bytes)| (path.to_string(), bytes.to_vec()))
        .collect()
}

const C_OLD: &str = "#include <stdio.h>

static int counter;

int add(int a, int b)
{
\tint sum = a + b;
\tint unused_1 = 0;
\tint unused_2 = 0;
\tint unused_3 = 0;
\tcounter++;
\treturn sum;
}

/* A comment line does not start a function. */
static void a_function_with_a_really_long_signature_that_git_cuts(int first, int second, int third)
{
\tprintf(\"%d\\n\", first);
\tprintf(\"%d\\n\", second);
\tprintf(\"%d\\n\", third);
}

int main(void)
{
\tint x = add(1, 2);
\tprintf(\"%d\\n\", x);
\treturn 0;
}
";

const RUST_OLD: &str = "use std::fmt;

pub struct Point {
    x: i32,
    y: i32,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, \"({}, {})\", self.x, self.y)
    }
}

impl Point {
    pub fn new(x: i32, y: i32) -> Self {
        Self { x, y }
    }

    pub fn norm(&self) -> i32 {
        self.x.abs() + self.y.abs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norm() {
        assert_eq!(Point::new(1, -2).norm(), 3);
    }
}
";

#[test]
fn function_context_in_c_and_rust() {
    // Headers: the nearest line above each hunk that starts with a letter, `_` or `$` (`int
    // add`, the long signature cut at 80 bytes, `impl Point`; indented lines and comments do not
    // count), without a character the 80 bytes would split; none for a change at the top.
    let c_new = C_OLD
        .replace("\tcounter++;", "\tcounter += 1;")
        .replace("third);", "third + 1);")
        .replace("\treturn 0;", "\tprintf(\"%d\\n\", counter);\n\treturn 0;");
    let rust_new = RUST_OLD
        .replace("pub struct Point", "/// A point.\npub struct Point")
        .replace(
            "abs()\n    }\n}",
            "abs()\n    }\n\n    pub fn flip(&self) -> Self {\n        Self::new(self.y, self.x)\n    }\n}",
        )
        .replace(
            "3);\n    }",
            "3);\n        assert_eq!(Point::new(1, -2).flip().norm(), 3);\n    }",
        );
    // `é` takes bytes 80 and 81 of the line.
    let multibyte = format!(
        "fn {}é(x: u8) {{\n    a\n    b\n    c\n    d\n}}\n",
        "x".repeat(76)
    );
    let multibyte_new = multibyte.replace("    d\n", "    D\n");
    let symbols = format!(
        "$dollar\n{}_under\n{}",
        "  x\n".repeat(4),
        "  y\n".repeat(10)
    );
    let symbols_new = symbols.replacen("  x\n  x\n  x\n  x\n", "  x\n  x\n  x\n  X\n", 1) + "  Y\n";
    let old = tree(&[
        ("add.c", C_OLD.as_bytes()),
        ("point.rs", RUST_OLD.as_bytes()),
        ("top.rs", b"a\nb\nc\nd\ne\nf\ng\nh\n"),
        ("cut.rs", multibyte.as_bytes()),
        (
            "latin1.c",
            b"int caf\xe9(void)\n{\n  a;\n  b;\n  c;\n  d;\n}\n",
        ),
        ("symbols.txt", symbols.as_bytes()),
    ]);
    let new = tree(&[
        ("add.c", c_new.as_bytes()),
        ("point.rs", rust_new.as_bytes()),
        ("top.rs", b"A\nb\nc\nd\ne\nf\ng\nH\n"),
        ("cut.rs", multibyte_new.as_bytes()),
        (
            "latin1.c",
            b"int caf\xe9(void)\n{\n  a;\n  b;\n  c;\n  D;\n}\n",
        ),
        ("symbols.txt", symbols_new.as_bytes()),
    ]);
    let diffs = Diffs::of(&old, &new);
    diffs.assert_equal();
    assert!(diffs.git["add.c"].contains("@@ int add(int a, int b)\n"));
    assert!(diffs.git["add.c"].contains(
        "@@ static void a_function_with_a_really_long_signature_that_git_cuts(int first, int\n"
    ));
    assert!(diffs.git["point.rs"].contains("@@ impl Point {\n"));
    assert!(diffs.git["symbols.txt"].contains("@@ $dollar\n"));
    assert!(diffs.git["symbols.txt"].contains("@@ _under\n"));
    // Git drops the half of `é` that the 80 bytes kept.
    let cut = format!("@@ fn {}\n", "x".repeat(76));
    assert!(
        diffs.git["cut.rs"].contains(&cut),
        "{}",
        diffs.git["cut.rs"]
    );
    assert!(diffs.git["top.rs"].starts_with("@@ -1,8 +1,8 @@\n"));
    // A header that is not UTF-8 ends where it stops being so.
    assert!(diffs.git["latin1.c"].starts_with("@@ -3,5 +3,5 @@ int caf\n"));
}

#[test]
fn file_kinds_line_ends_and_hunk_grouping() {
    let lines = |n: usize, changed: &[usize]| -> Vec<u8> {
        (1..=n)
            .map(|i| match changed.contains(&i) {
                true => format!("changed {i}\n"),
                false => format!("line {i}\n"),
            })
            .collect::<String>()
            .into_bytes()
    };
    let old = tree(&[
        ("deleted.txt", b"gone\nfor good\n"),
        ("modified.txt", b"one\ntwo\n"),
        ("crlf.txt", b"one\r\ntwo\r\nthree\r\n"),
        ("no_newline_old.txt", b"a\nb"),
        ("no_newline_new.txt", b"a\nb\n"),
        ("no_newline_both.txt", b"a\nb"),
        ("binary.bin", b"\x89PNG\r\n\x1a\n\0\0\0"),
        ("ends.txt", &lines(20, &[])),
        ("merged.txt", &lines(30, &[])),
        ("apart.txt", &lines(30, &[])),
        ("to_empty.txt", b"some\ntext\n"),
    ]);
    let new = tree(&[
        ("added.txt", b"new\nfile\n"),
        ("empty.txt", b""),
        ("modified.txt", b"one\nTWO\nthree\n"),
        ("crlf.txt", b"one\r\n2\r\nthree\r\n"),
        ("no_newline_old.txt", b"a\nb\n"),
        ("no_newline_new.txt", b"a\nb"),
        ("no_newline_both.txt", b"a\nc"),
        ("binary.bin", b"\x89PNG\r\n\x1a\n\0\0\x01"),
        ("ends.txt", &lines(20, &[1, 20])),
        // Six unchanged lines between two changes: their contexts touch, one hunk.
        ("merged.txt", &lines(30, &[10, 17])),
        // Seven: two hunks.
        ("apart.txt", &lines(30, &[10, 18])),
        ("to_empty.txt", b""),
    ]);
    let diffs = Diffs::of(&old, &new);
    diffs.assert_equal();
    assert!(diffs.git["added.txt"].starts_with("@@ -0,0 +1,2 @@\n"));
    assert!(diffs.git["deleted.txt"].starts_with("@@ -1,2 +0,0 @@\n"));
    assert_eq!(diffs.git["merged.txt"].matches("\n@@ ").count(), 0);
    assert_eq!(diffs.git["apart.txt"].matches("@@ -").count(), 2);
    assert_eq!(diffs.git["binary.bin"], "Binary");
}

/// Lines drawn from a few blank, brace and indented lines, so that inserted and deleted runs
/// can slide and git's post-processing decides where they go.
#[test]
fn sliding_changes_land_where_git_puts_them() {
    const LINES: &[&str] = &["", "", "}", "    x();", "fn f() {", "\ty();", "  ", "    }"];
    let mut rng = Rng::new(7);
    let (mut old, mut new) = (Tree::new(), Tree::new());
    for i in 0..600 {
        let n = 1 + rng.below_or_equal(12) as usize;
        let lines: Vec<&str> = (0..n)
            .map(|_| LINES[rng.below_or_equal(LINES.len() as u64 - 1) as usize])
            .collect();
        // Insert a copy of the lines just above `at`: the insertion can slide.
        let at = rng.below_or_equal(n as u64) as usize;
        let from = at.saturating_sub(1 + rng.below_or_equal(2) as usize);
        let mut edited = lines.clone();
        edited.splice(at..at, lines[from..at].to_vec());
        let text = |lines: &[&str]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
        let (a, b) = (text(&lines), text(&edited));
        // Half of them the other way round: deletions.
        let (a, b) = if i % 2 == 0 { (a, b) } else { (b, a) };
        old.insert(format!("s{i:03}.txt"), a.into_bytes());
        new.insert(format!("s{i:03}.txt"), b.into_bytes());
    }
    Diffs::of(&old, &new).assert_equal();
}

/// Code-like text: functions with bodies, blank lines and braces.
fn code(rng: &mut Rng, functions: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for f in 0..functions {
        lines.push(format!("fn function_{f}(value: u32) -> u32 {{"));
        for s in 0..2 + rng.below_or_equal(8) {
            match rng.below_or_equal(4) {
                0 => lines.push(String::new()),
                1 => {
                    lines.push(format!("    if value > {s} {{"));
                    lines.push(format!("        return value - {s};"));
                    lines.push("    }".to_owned());
                }
                2 => lines.push("    let value = value + 1;".to_owned()),
                _ => lines.push(format!("    let v{s} = value * {s};")),
            }
        }
        lines.push("    value".to_owned());
        lines.push("}".to_owned());
        lines.push(String::new());
    }
    lines
}

/// Deletes, inserts (copies of nearby lines or new ones) and replaces a few runs of lines.
fn edit(rng: &mut Rng, lines: &[String]) -> Vec<String> {
    let mut edited = lines.to_vec();
    for _ in 0..=rng.below_or_equal(5) {
        let at = rng.below_or_equal(edited.len() as u64) as usize;
        let n = (1 + rng.below_or_equal(4) as usize).min(edited.len() - at);
        match rng.below_or_equal(2) {
            0 => {
                edited.drain(at..at + n);
            }
            1 => {
                let from = rng.below_or_equal(lines.len() as u64 - 1) as usize;
                let copied = lines[from..(from + n).min(lines.len())].to_vec();
                edited.splice(at..at, copied);
            }
            _ => {
                let new = (0..n).map(|k| format!("    changed({k});"));
                edited.splice(at..at + n, new);
            }
        }
    }
    edited
}

#[test]
fn code_like_edits_print_as_git_prints_them_but_for_imara_diffs_choices() {
    let mut rng = Rng::new(11);
    let (mut old, mut new) = (Tree::new(), Tree::new());
    for i in 0..400 {
        let functions = 2 + rng.below_or_equal(10) as usize;
        let lines = code(&mut rng, functions);
        let edited = edit(&mut rng, &lines);
        let text = |lines: &[String]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
        old.insert(format!("f{i:03}.rs"), text(&lines).into_bytes());
        new.insert(format!("f{i:03}.rs"), text(&edited).into_bytes());
    }
    let diffs = Diffs::of(&old, &new);
    let differences = diffs.differences();
    eprintln!(
        "{} of {} files differ from git:\n{}",
        differences.len(),
        diffs.git.len(),
        differences.join("\n")
    );
    assert!(diffs.git.len() > 350);
    assert!(
        differences.len() * 100 <= diffs.git.len() * 2,
        "more than 2% differ"
    );
}
