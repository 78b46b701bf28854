//! Properties of built reviews over random files and random edits: the hunks turn the old text
//! into the new one exactly, their numbers agree with their lines, and the chapters and files
//! account for every hunk once.

use quickcheck::{Arbitrary, Gen, quickcheck};

use super::build::build;
use crate::effects::{ChangedFile, DiffSource};
use crate::protocol::guided_review::{FileStatus, Hunk, HunkLine, LineKind, Review, ReviewTarget};

/// A file's two sides, drawn from a few lines so that lines repeat and changes can slide.
#[derive(Debug, Clone)]
struct Sides {
    old: Vec<u8>,
    new: Vec<u8>,
}

const LINES: &[&str] = &["", "a", "b", "}", "    c", "fn f() {", "x\r", "é", "\t"];

fn random_text(g: &mut Gen, max_lines: usize) -> Vec<String> {
    let n = usize::arbitrary(g) % (max_lines + 1);
    (0..n)
        .map(|_| (*g.choose(LINES).unwrap()).to_owned())
        .collect()
}

fn join(lines: &[String], newline_at_end: bool) -> Vec<u8> {
    let mut text = lines.join("\n");
    if newline_at_end && !lines.is_empty() {
        text.push('\n');
    }
    text.into_bytes()
}

impl Arbitrary for Sides {
    fn arbitrary(g: &mut Gen) -> Self {
        let old = random_text(g, 40);
        let mut new = old.clone();
        for _ in 0..usize::arbitrary(g) % 5 {
            let at = usize::arbitrary(g) % (new.len() + 1);
            let n = (usize::arbitrary(g) % 4).min(new.len() - at);
            new.splice(at..at + n, random_text(g, 4));
        }
        Sides {
            old: join(&old, bool::arbitrary(g)),
            new: join(&new, bool::arbitrary(g)),
        }
    }
}

fn review_of(files: &[Sides]) -> Review {
    let files = files
        .iter()
        .enumerate()
        .map(|(i, sides)| ChangedFile {
            path: format!("dir{}/f{i}.txt", i % 3),
            old_path: None,
            status: FileStatus::Modified,
            old_mode: Some(0o100644),
            new_mode: Some(0o100644),
            old: Some(sides.old.clone()),
            new: Some(sides.new.clone()),
        })
        .collect();
    let source = DiffSource {
        root: "/r".into(),
        files,
        ..DiffSource::default()
    };
    build(&ReviewTarget::WorkingTree, &source)
}

/// A line as it stands in a file: text, and whether a newline follows.
type Line = (String, bool);

fn file_lines(bytes: &[u8]) -> Vec<Line> {
    let text = String::from_utf8_lossy(bytes);
    let line = |l: &str| match l.strip_suffix('\n') {
        Some(l) => (l.to_owned(), true),
        None => (l.to_owned(), false),
    };
    text.split_inclusive('\n').map(line).collect()
}

fn as_line(line: HunkLine<'_>) -> Line {
    (line.text.to_owned(), !line.no_newline)
}

/// Applies a file's hunks to its old lines, checking context and deletions against them and the
/// hunks' numbers against where they apply.
fn apply(old: &[Line], hunks: &[&Hunk]) -> Result<Vec<Line>, String> {
    let mut new = Vec::new();
    let mut at = 0;
    for hunk in hunks.iter().filter(|h| !h.lines.is_empty()) {
        let first_old = (hunk.old_start - u32::from(hunk.old_lines > 0)) as usize;
        let first_new = (hunk.new_start - u32::from(hunk.new_lines > 0)) as usize;
        if first_old < at {
            return Err(format!("hunk {} overlaps the previous one", hunk.id));
        }
        new.extend_from_slice(&old[at..first_old]);
        at = first_old;
        if new.len() != first_new {
            return Err(format!("hunk {} says new line {}", hunk.id, hunk.new_start));
        }
        let (mut olds, mut news) = (0, 0);
        for line in &hunk.lines {
            if line.kind != LineKind::Add {
                if old.get(at) != Some(&as_line(line)) || line.old_line != Some(at as u32 + 1) {
                    return Err(format!(
                        "hunk {} does not match old line {}",
                        hunk.id,
                        at + 1
                    ));
                }
                at += 1;
                olds += 1;
            }
            if line.kind != LineKind::Del {
                if line.new_line != Some(new.len() as u32 + 1) {
                    return Err(format!("hunk {} numbers new lines wrong", hunk.id));
                }
                new.push(as_line(line));
                news += 1;
            }
        }
        if (olds, news) != (hunk.old_lines, hunk.new_lines) {
            return Err(format!("hunk {} counts its lines wrong", hunk.id));
        }
    }
    new.extend_from_slice(&old[at..]);
    Ok(new)
}

quickcheck! {
    fn hunks_turn_the_old_text_into_the_new(files: Vec<Sides>) -> bool {
        let files: Vec<Sides> = files.into_iter().take(6).collect();
        let review = review_of(&files);
        let mut ok = true;
        for (i, sides) in files.iter().enumerate() {
            let path = format!("dir{}/f{i}.txt", i % 3);
            let Some(file) = review.files.iter().find(|f| f.path == path) else {
                return false;
            };
            let hunks: Vec<&Hunk> = review.hunks.iter().filter(|h| h.file_id == file.id).collect();
            let applied = apply(&file_lines(&sides.old), &hunks);
            ok &= applied.as_ref() == Ok(&file_lines(&sides.new));
            let lines = hunks.iter().flat_map(|h| h.lines.iter());
            let adds = lines.clone().filter(|l| l.kind == LineKind::Add).count() as u32;
            let dels = lines.filter(|l| l.kind == LineKind::Del).count() as u32;
            ok &= (file.additions, file.deletions) == (adds, dels);
            // A hunk with lines changes something and has at most three context lines on a side.
            ok &= hunks.iter().filter(|h| !h.lines.is_empty()).all(|h| {
                let lead = h.lines.iter().take_while(|l| l.kind == LineKind::Context).count();
                let trail = h.lines.iter().rev().take_while(|l| l.kind == LineKind::Context).count();
                lead <= 3 && trail <= 3 && lead < h.lines.len()
            });
        }
        ok && review == review_of(&files)
    }

    fn files_and_chapters_account_for_every_hunk_once(files: Vec<Sides>) -> bool {
        let files: Vec<Sides> = files.into_iter().take(8).collect();
        let review = review_of(&files);
        let mut in_chapters: Vec<&String> =
            review.chapters.iter().flat_map(|c| &c.hunk_ids).collect();
        let in_files: Vec<&String> = review.files.iter().flat_map(|f| &f.hunk_ids).collect();
        let in_hunks: Vec<&String> = review.hunks.iter().map(|h| &h.id).collect();
        let each_file_lists_its_hunks = review.files.iter().all(|f| {
            let own: Vec<&String> =
                review.hunks.iter().filter(|h| h.file_id == f.id).map(|h| &h.id).collect();
            own == f.hunk_ids.iter().collect::<Vec<_>>() && !own.is_empty()
        });
        in_chapters.sort();
        let mut sorted_hunks = in_hunks.clone();
        sorted_hunks.sort();
        let unique = sorted_hunks.windows(2).all(|w| w[0] != w[1]);
        in_files == in_hunks && in_chapters == sorted_hunks && unique && each_file_lists_its_hunks
    }
}

/// Paths a changed file may have: `.env` files (any case, any directory), templates that are
/// not, and ordinary files.
const PATHS: &[&str] = &[
    ".env",
    "app/.ENV.local",
    ".env.production",
    ".env.example",
    "src/env.rs",
    ".envrc",
];

quickcheck! {
    fn a_env_file_is_shown_changed_with_its_contents_withheld(
        changes: Vec<(u8, Option<u8>, Sides)>
    ) -> bool {
        let files: Vec<ChangedFile> = changes
            .iter()
            .take(6)
            .enumerate()
            .map(|(i, (path, old_path, sides))| {
                let pick = |n: u8| format!("{i}/{}", PATHS[usize::from(n) % PATHS.len()]);
                let old_path = old_path.map(pick);
                ChangedFile {
                    path: pick(*path),
                    status: if old_path.is_some() { FileStatus::Renamed } else { FileStatus::Modified },
                    old_path,
                    old_mode: Some(0o100644),
                    new_mode: Some(0o100644),
                    // Every line of a side says which file it is in, to be looked for.
                    old: Some([sides.old.as_slice(), format!("\nsecret-old-{i}\n").as_bytes()].concat()),
                    new: Some([sides.new.as_slice(), format!("\nsecret-new-{i}\n").as_bytes()].concat()),
                }
            })
            .collect();
        let source = DiffSource { root: "/r".into(), files: files.clone(), ..DiffSource::default() };
        let review = build(&ReviewTarget::WorkingTree, &source);
        let shown = serde_json::to_string(&review).unwrap();
        files.iter().enumerate().all(|(i, changed)| {
            let env = crate::permissions::is_env_file(&changed.path)
                || changed.old_path.as_deref().is_some_and(crate::permissions::is_env_file);
            let Some(file) = review.files.iter().find(|f| f.path == changed.path) else {
                return false;
            };
            let hunks: Vec<&Hunk> = review.hunks.iter().filter(|h| h.file_id == file.id).collect();
            let withheld_alone = hunks.len() == 1
                && hunks[0].lines.is_empty()
                && hunks[0].header == super::build::WITHHELD
                && (file.additions, file.deletions) == (0, 0);
            let hidden = !shown.contains(&format!("secret-old-{i}"))
                && !shown.contains(&format!("secret-new-{i}"));
            file.withheld == env && (!env || (withheld_alone && hidden))
        })
    }
}
