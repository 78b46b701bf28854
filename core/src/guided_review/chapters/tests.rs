//! Chapter rules one by one, on made-up files (the golden fixture covers them together).

use super::*;
use crate::protocol::guided_review::{HunkLine, LineKind};

/// A file with `lines` added lines in one hunk whose header is `header`.
fn changed(path: &str, lines: u32, header: &str) -> (ReviewFile, Hunk) {
    let file_id = format!("file:{path}");
    let hunk = Hunk {
        id: format!("hunk:{path}"),
        file_id: file_id.clone(),
        old_start: 1,
        old_lines: 0,
        new_start: 1,
        new_lines: lines,
        header: header.into(),
        lines: (1..=lines)
            .map(|n| HunkLine {
                kind: LineKind::Add,
                old_line: None,
                new_line: Some(n),
                text: "x",
                no_newline: false,
            })
            .collect(),
    };
    let file = ReviewFile {
        id: file_id,
        path: path.into(),
        old_path: None,
        status: FileStatus::Modified,
        binary: false,
        withheld: false,
        additions: lines,
        deletions: 0,
        hunk_ids: vec![hunk.id.clone()],
    };
    (file, hunk)
}

/// Chapters of files given as (path, added lines), titles with their files' paths.
fn read(files: &[(&str, u32)]) -> Vec<(String, Vec<String>)> {
    let (files, hunks): (Vec<ReviewFile>, Vec<Hunk>) =
        files.iter().map(|(p, n)| changed(p, *n, "")).unzip();
    chapters(&files, &hunks)
        .into_iter()
        .map(|c| {
            let paths = c.hunk_ids.iter().map(|h| h["hunk:".len()..].to_owned());
            (c.title, paths.collect())
        })
        .collect()
}

fn titles(chapters: &[(String, Vec<String>)]) -> Vec<&str> {
    chapters.iter().map(|(t, _)| t.as_str()).collect()
}

#[test]
fn build_and_configuration_come_first_and_documentation_last() {
    let chapters = read(&[
        ("README.md", 20),
        ("src/main.rs", 20),
        ("package-lock.json", 20),
        ("package.json", 20),
        (".github/workflows/ci.yml", 20),
    ]);
    assert_eq!(
        titles(&chapters),
        [
            "Dependencies and build",
            "Configuration and CI",
            "src: main.rs",
            "Documentation"
        ]
    );
    assert_eq!(chapters[0].1, ["package.json", "package-lock.json"]);
}

#[test]
fn tests_follow_the_code_they_name_or_else_their_package_s_last_module() {
    let chapters = read(&[
        ("core/src/a/x.rs", 20),
        ("core/src/b/y.rs", 20),
        ("core/tests/x_cases.rs", 20),
        ("core/tests/misc.rs", 20),
        ("pkg/parse.go", 20),
        ("pkg/parse_test.go", 20),
        ("tests/tests/y_end_to_end.rs", 20),
        ("tests/tests/other.rs", 20),
    ]);
    assert_eq!(
        chapters,
        [
            (
                "core/src/a: x.rs".into(),
                vec!["core/src/a/x.rs".into(), "core/tests/x_cases.rs".into()]
            ),
            (
                "core/src/b: y.rs".into(),
                vec![
                    "core/src/b/y.rs".into(),
                    "core/tests/misc.rs".into(),
                    "tests/tests/y_end_to_end.rs".into()
                ]
            ),
            (
                "pkg: parse.go".into(),
                vec!["pkg/parse.go".into(), "pkg/parse_test.go".into()]
            ),
            // A root tests directory names no package: only a name match places a test.
            (
                "tests/tests: other.rs".into(),
                vec!["tests/tests/other.rs".into()]
            ),
        ]
    );
}

#[test]
fn a_tiny_module_joins_a_related_neighbour_only() {
    let chapters = read(&[
        ("core/src/lib.rs", 2),
        ("core/src/review/build.rs", 50),
        ("io/src/main.rs", 3),
        ("web/app.ts", 2),
    ]);
    assert_eq!(
        titles(&chapters),
        [
            "core/src: lib.rs, review/build.rs",
            "io/src: main.rs",
            "web: app.ts"
        ]
    );
}

#[test]
fn a_large_module_is_split_between_files_with_its_tests_last() {
    let chapters = read(&[
        ("src/a.rs", 300),
        ("src/b.rs", 150),
        ("src/c.rs", 100),
        ("src/c_test.rs", 100),
        ("src/d.rs", 500),
    ]);
    assert_eq!(
        chapters,
        [
            ("src (1/4): a.rs".into(), vec!["src/a.rs".into()]),
            (
                "src (2/4): b.rs, c.rs".into(),
                vec!["src/b.rs".into(), "src/c.rs".into()]
            ),
            ("src (3/4): d.rs".into(), vec!["src/d.rs".into()]),
            ("src (4/4): c_test.rs".into(), vec!["src/c_test.rs".into()]),
        ]
    );
}

#[test]
fn long_titles_name_a_few_files_and_count_the_rest() {
    let files: Vec<(String, u32)> = (0..6).map(|i| (format!("src/f{i}.rs"), 20)).collect();
    let files: Vec<(&str, u32)> = files.iter().map(|(p, n)| (p.as_str(), *n)).collect();
    assert_eq!(titles(&read(&files)), ["src: f0.rs, f1.rs and 4 more"]);
    assert_eq!(titles(&read(&[("main.rs", 20)])), ["top level: main.rs"]);
}

#[test]
fn summaries_count_lines_files_kinds_and_name_symbols() {
    let (mut a, ha) = changed("src/a.rs", 3, "pub fn build<T: Into<u8>>(x: T) {");
    let (b, hb) = changed("src/b.rs", 2, "impl<T> Display for Point<T> {");
    let (mut c, hc) = changed("src/c.rs", 0, "binary file");
    let (d, hd) = changed("src/d.rs", 1, "class Parser:");
    let (e, he) = changed("src/e.rs", 1, "void Foo::bar(int x)");
    a.status = FileStatus::Added;
    (c.binary, c.deletions) = (true, 4);
    let files = [a, b, c, d, e];
    let chapters = chapters(&files, &[ha, hb, hc, hd, he]);
    assert_eq!(
        chapters[0].summary,
        "+7 −4 in 5 files (1 added, 1 binary); touches build, Point, Parser, …"
    );
    assert_eq!(symbol("void Foo::bar(int x)").as_deref(), Some("Foo::bar"));
    assert_eq!(symbol("    ").as_deref(), None);
}

#[test]
fn hunks_of_unlisted_files_still_get_a_chapter_and_files_count_once() {
    let (a, ha) = changed("src/a.rs", 1, "");
    let (_, orphan) = changed("src/gone.rs", 1, "");
    let chapters = chapters(&[a.clone(), a], &[ha, orphan]);
    let ids: Vec<&str> = chapters
        .iter()
        .flat_map(|c| c.hunk_ids.iter().map(String::as_str))
        .collect();
    assert_eq!(ids, ["hunk:src/a.rs", "hunk:src/gone.rs"]);
    assert_eq!(chapters[1].title, "Other changes");
}
