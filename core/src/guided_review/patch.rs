//! A review built from a unified diff as `gh pr diff` prints it, for `pull_request` targets:
//! GitHub has both sides, luxe only the patch, so hunks, headers and numbers are the patch's;
//! ids and chapters are made as for any review.

use super::build::{WITHHELD, name_hunks, revision_id, withholds};
use super::chapters::chapters;
use super::ids::{file_id, review_id};
use crate::protocol::guided_review::{
    FileStatus, Hunk, HunkLine, HunkLines, LineKind, Review, ReviewFile, ReviewTarget,
};

/// The review of `patch` (a pull request's diff), identified by `root` and `target`.
pub fn build_from_patch(target: &ReviewTarget, root: &str, patch: &str) -> Review {
    let mut files: Vec<ReviewFile> = Vec::new();
    let mut hunks: Vec<Vec<Hunk>> = Vec::new();
    let mut notes: Vec<Vec<String>> = Vec::new();
    let (mut old, mut new) = (0u32, 0u32);
    for line in patch.lines() {
        if let Some(paths) = line.strip_prefix("diff --git ") {
            let path = paths.split_once(" b/").map_or(paths, |(_, b)| b).to_owned();
            files.push(ReviewFile {
                id: file_id(&path),
                path,
                old_path: None,
                status: FileStatus::Modified,
                binary: false,
                withheld: false,
                additions: 0,
                deletions: 0,
                hunk_ids: Vec::new(),
            });
            hunks.push(Vec::new());
            notes.push(Vec::new());
            continue;
        }
        let (Some(file), Some(file_hunks), Some(file_notes)) =
            (files.last_mut(), hunks.last_mut(), notes.last_mut())
        else {
            continue;
        };
        if let Some(header) = line.strip_prefix("@@ -") {
            let (ranges, context) = header.split_once(" @@").unwrap_or((header, ""));
            let mut parts = ranges.split(' ');
            let range = |part: Option<&str>| {
                let mut numbers = part
                    .unwrap_or_default()
                    .trim_start_matches('+')
                    .split(',')
                    .map(|n| n.parse::<u32>().unwrap_or(0));
                let start = numbers.next().unwrap_or(0);
                (start, numbers.next().unwrap_or(1))
            };
            let (old_start, old_lines) = range(parts.next());
            let (new_start, new_lines) = range(parts.next());
            old = old_start;
            new = new_start;
            file_hunks.push(Hunk {
                id: String::new(),
                file_id: file.id.clone(),
                old_start,
                old_lines,
                new_start,
                new_lines,
                header: context.trim_start().to_owned(),
                lines: HunkLines::default(),
            });
            continue;
        }
        if let Some(hunk) = file_hunks.last_mut() {
            let (kind, old_line, new_line) = match line.as_bytes().first() {
                Some(b'+') => (LineKind::Add, None, Some(new)),
                Some(b'-') => (LineKind::Del, Some(old), None),
                Some(b' ') => (LineKind::Context, Some(old), Some(new)),
                Some(b'\\') => {
                    mark_no_newline(&mut hunk.lines);
                    continue;
                }
                _ => continue,
            };
            old += u32::from(old_line.is_some());
            new += u32::from(new_line.is_some());
            file.additions += u32::from(kind == LineKind::Add);
            file.deletions += u32::from(kind == LineKind::Del);
            hunk.lines.push(HunkLine {
                kind,
                old_line,
                new_line,
                text: line.get(1..).unwrap_or_default(),
                no_newline: false,
            });
        } else if line.starts_with("new file mode") {
            file.status = FileStatus::Added;
        } else if line.starts_with("deleted file mode") {
            file.status = FileStatus::Deleted;
        } else if let Some(from) = line.strip_prefix("rename from ") {
            file.status = FileStatus::Renamed;
            file.old_path = Some(from.to_owned());
            file_notes.push(format!("renamed from {from}"));
        } else if line.starts_with("Binary files") {
            file.binary = true;
            file_notes.push("binary file".to_owned());
        } else if let Some(mode) = line.strip_prefix("new mode ") {
            file_notes.push(format!("mode → {mode}"));
        }
    }
    // A file whose change has no lines gets one hunk that says what changed, and a `.env`
    // file one that says it is withheld, as in `build`.
    for ((file, file_hunks), file_notes) in files.iter_mut().zip(&mut hunks).zip(&notes) {
        if withholds(&file.path, file.old_path.as_deref()) {
            file.withheld = true;
            file.binary = false;
            (file.additions, file.deletions) = (0, 0);
            *file_hunks = vec![Hunk::note(file.id.clone(), WITHHELD.to_owned())];
        } else if file_hunks.is_empty() {
            let header = if file_notes.is_empty() {
                "no content change".to_owned()
            } else {
                file_notes.join(", ")
            };
            file_hunks.push(Hunk::note(file.id.clone(), header));
        }
    }
    let counts: Vec<usize> = hunks.iter().map(Vec::len).collect();
    let mut hunks: Vec<Hunk> = hunks.into_iter().flatten().collect();
    name_hunks(&mut files, &counts, &mut hunks);
    let chapters = chapters(&files, &hunks);
    Review {
        id: review_id(root, target),
        revision_id: revision_id(&files, &hunks),
        target: target.clone(),
        files,
        hunks,
        chapters,
    }
}

/// Marks the last line added as one without a newline.
fn mark_no_newline(lines: &mut HunkLines) {
    let Some(last) = lines.len().checked_sub(1) else {
        return;
    };
    let mut rebuilt = HunkLines::with_capacity(lines.len(), 0);
    for (i, line) in lines.iter().enumerate() {
        rebuilt.push(HunkLine {
            no_newline: i == last,
            ..line
        });
    }
    *lines = rebuilt;
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "diff --git a/src/frob.rs b/src/frob.rs\nindex 1..2 100644\n--- a/src/frob.rs\n+++ b/src/frob.rs\n@@ -1,3 +1,4 @@ fn top()\n fn a() {}\n-fn b() {}\n+fn b() { frob() }\n+fn c() {}\n fn d() {}\ndiff --git a/logo.png b/logo.png\nnew file mode 100644\nBinary files /dev/null and b/logo.png differ\ndiff --git a/old.rs b/new.rs\nsimilarity index 100%\nrename from old.rs\nrename to new.rs\n";

    #[test]
    fn a_patch_becomes_files_hunks_and_chapters() {
        let target = ReviewTarget::PullRequest {
            number: 7,
            repository: None,
        };
        let review = build_from_patch(&target, "/w", PATCH);
        let paths: Vec<&str> = review.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["src/frob.rs", "logo.png", "new.rs"]);
        assert_eq!(
            (review.files[0].additions, review.files[0].deletions),
            (2, 1)
        );
        assert_eq!(review.files[1].status, FileStatus::Added);
        assert!(review.files[1].binary);
        assert_eq!(review.files[2].old_path.as_deref(), Some("old.rs"));
        let hunk = &review.hunks[0];
        assert_eq!(
            (
                hunk.old_start,
                hunk.old_lines,
                hunk.new_start,
                hunk.new_lines
            ),
            (1, 3, 1, 4)
        );
        assert_eq!(hunk.header, "fn top()");
        let third = hunk.lines.get(2).unwrap();
        assert_eq!(
            (third.kind, third.new_line, third.text),
            (LineKind::Add, Some(2), "fn b() { frob() }")
        );
        assert_eq!(
            review.hunks.len(),
            3,
            "a line-less hunk for the binary file and the rename"
        );
        let covered: usize = review.chapters.iter().map(|c| c.hunk_ids.len()).sum();
        assert_eq!(covered, 3);
        assert_eq!(
            build_from_patch(&target, "/w", PATCH),
            review,
            "deterministic"
        );
    }

    #[test]
    fn a_pull_requests_env_file_is_withheld() {
        let patch = "diff --git a/.env b/.env\nindex 1..2 100644\n--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-API_KEY=old-value-123\n+API_KEY=new-value-456\ndiff --git a/app.rs b/app.rs\n--- a/app.rs\n+++ b/app.rs\n@@ -1 +1 @@\n-a\n+b\n";
        let target = ReviewTarget::PullRequest {
            number: 7,
            repository: None,
        };
        let review = build_from_patch(&target, "/w", patch);
        let env = &review.files[0];
        assert!(env.withheld && !review.files[1].withheld);
        assert_eq!((env.additions, env.deletions), (0, 0));
        let hunks: Vec<&Hunk> = review
            .hunks
            .iter()
            .filter(|h| h.file_id == env.id)
            .collect();
        assert_eq!(hunks.len(), 1);
        assert!(hunks[0].lines.is_empty());
        assert_eq!(hunks[0].header, WITHHELD);
        let shown = serde_json::to_string(&review).unwrap();
        assert!(!shown.contains("value-"), "{shown}");
    }
}
