//! The paths a bash command's words name, for path rules such as `read(secrets/**)`: each
//! word after quote removal and brace expansion, split at `=` and `:` (so `--file=x` counts),
//! read relative to cwd, with its globs kept as globs. A word that names a directory counts
//! for what lies below it (`tar czf x.tgz secrets`), except cwd itself.

use super::glob::{Atom, GlobMode, atoms, intersects};
use super::shell::Word;
use crate::paths::resolve;

/// The first word that could name a path `pattern` covers.
pub fn named(pattern: &str, words: &[Word], cwd: &str) -> Option<String> {
    let rule = atoms(pattern, GlobMode::Path);
    words
        .iter()
        .find(|word| {
            super::shell::brace_words(&word.chars).iter().any(|alt| {
                std::iter::once(alt.as_slice())
                    .chain(alt.split(|&(c, _)| c == '=' || c == ':'))
                    .any(|piece| piece_names(&rule, piece, cwd))
            })
        })
        .map(|word| word.text.clone())
}

/// Whether `pattern` covers some path inside the directory `dir` (a search root).
pub fn covers_below(pattern: &str, dir: &str) -> bool {
    if dir == "." || dir.is_empty() {
        return false;
    }
    let mut below: Vec<Atom> = dir.chars().map(Atom::Lit).collect();
    below.push(Atom::Lit('/'));
    below.push(Atom::Many { slash: true });
    intersects(&atoms(pattern, GlobMode::Path), &below)
}

fn piece_names(rule: &[Atom], piece: &[(char, bool)], cwd: &str) -> bool {
    let globbing = piece
        .iter()
        .any(|&(c, live)| live && matches!(c, '*' | '?' | '['));
    let text: String = piece.iter().map(|&(c, _)| c).collect();
    if text.is_empty() {
        return false;
    }
    let mut path = if globbing || cwd.is_empty() {
        as_atoms(strip_dot(piece))
    } else {
        let shown = resolve(cwd, &text).shown;
        shown.chars().map(Atom::Lit).collect()
    };
    if intersects(rule, &path) {
        return true;
    }
    // `"$PWD"/secrets/k`: a computed start may be cwd, so what follows any `/` counts too.
    if piece.first().is_some_and(|&(c, live)| !live && c == '$') {
        let tail = || piece.iter().skip_while(|&&(c, _)| c != '/').skip(1);
        let mut rest: Vec<(char, bool)> = tail().copied().collect();
        while !rest.is_empty() {
            if intersects(rule, &as_atoms(&rest)) {
                return true;
            }
            let next = rest
                .iter()
                .position(|&(c, _)| c == '/')
                .map_or(rest.len(), |p| p + 1);
            rest.drain(..next);
        }
    }
    if path.is_empty() || path == [Atom::Lit('.')] {
        return false;
    }
    path.push(Atom::Lit('/'));
    path.push(Atom::Many { slash: true });
    intersects(rule, &path)
}

fn strip_dot(mut piece: &[(char, bool)]) -> &[(char, bool)] {
    while let [('.', _), ('/', _), rest @ ..] = piece {
        piece = rest;
    }
    piece
}

/// A word's characters as atoms: live `*` any run within a directory, live `?` and bracket
/// expressions one character.
fn as_atoms(piece: &[(char, bool)]) -> Vec<Atom> {
    let mut out = Vec::with_capacity(piece.len());
    let mut i = 0;
    while let Some(&(c, live)) = piece.get(i) {
        i += 1;
        out.push(match (c, live) {
            ('*', true) => Atom::Many { slash: false },
            ('?', true) => Atom::One { slash: false },
            ('[', true) => {
                if let Some(close) = piece
                    .get(i + 1..)
                    .and_then(|r| r.iter().position(|&(c, _)| c == ']'))
                {
                    i += close + 2;
                }
                Atom::One { slash: false }
            }
            _ => Atom::Lit(c),
        });
    }
    out
}
