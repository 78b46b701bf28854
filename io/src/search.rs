//! Blocking content search and file listing under a root, with ripgrep's rules for what to skip
//! (.gitignore and .ignore files, hidden files, `.git`); the performer runs them on smol's pool.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use globset::{Glob, GlobMatcher};
use ignore::{Walk, WalkBuilder};
use luxe_core::effects::SearchHit;
use regex::bytes::{Regex, RegexBuilder};

/// A file with a NUL in its first this many bytes is binary and not searched (git's rule).
const BINARY_SNIFF: usize = 8 * 1024;

/// Matching lines of the files under `root` (or of `root` itself, a file), at most
/// `max_results`, sorted by path then line.
pub(crate) fn search(
    root: &str,
    pattern: &str,
    glob: Option<&str>,
    case_insensitive: bool,
    max_results: usize,
) -> Result<Vec<SearchHit>, String> {
    let regex = RegexBuilder::new(pattern)
        .case_insensitive(case_insensitive)
        .build()
        .map_err(|err| format!("invalid regex: {err}"))?;
    let glob = glob.map(matcher).transpose()?;
    let mut hits = Vec::new();
    for (path, relative) in files(root)? {
        let remaining = max_results.saturating_sub(hits.len());
        if remaining == 0 {
            break;
        }
        if glob.as_ref().is_some_and(|glob| !glob.is_match(&relative)) {
            continue;
        }
        if let Err(err) = search_file(&path, &relative, &regex, remaining, &mut hits) {
            tracing::debug!("search skips {path}: {err}");
        }
    }
    hits.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
    Ok(hits)
}

/// Files under `root` whose path relative to it matches the glob `pattern`, at most
/// `max_results`, sorted.
pub(crate) fn list_files(
    root: &str,
    pattern: &str,
    max_results: usize,
) -> Result<Vec<String>, String> {
    let glob = matcher(pattern)?;
    let mut paths: Vec<String> = files(root)?
        .map(|(_, relative)| relative)
        .filter(|relative| glob.is_match(relative))
        .take(max_results)
        .collect();
    paths.sort();
    Ok(paths)
}

fn matcher(pattern: &str) -> Result<GlobMatcher, String> {
    Glob::new(pattern)
        .map(|glob| glob.compile_matcher())
        .map_err(|err| format!("invalid glob: {err}"))
}

/// The regular files under `root` that are not ignored, as (full path, path relative to root), in
/// a fixed order so that where `max_results` cuts does not vary between runs.
fn files(root: &str) -> Result<impl Iterator<Item = (String, String)>, String> {
    let root_path = Path::new(root);
    root_path
        .metadata()
        .map_err(|err| format!("{root}: {err}"))?;
    let walk: Walk = WalkBuilder::new(root_path)
        // Users run luxe outside git repositories too; their .gitignore still says what is noise.
        .require_git(false)
        .sort_by_file_name(Ord::cmp)
        .build();
    Ok(walk.filter_map(move |entry| {
        let entry = entry
            .inspect_err(|err| tracing::debug!("search walk: {err}"))
            .ok()?;
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            return None;
        }
        let path = entry.path();
        let relative = match path.strip_prefix(root_path) {
            // The root is itself the file.
            Ok(relative) if relative.as_os_str().is_empty() => Path::new(path.file_name()?),
            Ok(relative) => relative,
            Err(_) => path,
        };
        Some((
            path.to_string_lossy().into_owned(),
            relative.to_string_lossy().into_owned(),
        ))
    }))
}

/// Adds up to `limit` matching lines of one file to `hits`; binary files add none.
fn search_file(
    path: &str,
    relative: &str,
    regex: &Regex,
    limit: usize,
    hits: &mut Vec<SearchHit>,
) -> io::Result<()> {
    let mut reader = BufReader::with_capacity(64 * 1024, File::open(path)?);
    let head = reader.fill_buf()?;
    if head.iter().take(BINARY_SNIFF).any(|&byte| byte == 0) {
        return Ok(());
    }
    let mut found = 0;
    let mut line = Vec::new();
    let mut number = 0;
    while found < limit {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        number += 1;
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if regex.is_match(text) {
            hits.push(SearchHit {
                path: relative.to_owned(),
                line: number,
                text: String::from_utf8_lossy(text).into_owned(),
            });
            found += 1;
        }
    }
    Ok(())
}
