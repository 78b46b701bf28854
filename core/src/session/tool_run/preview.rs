//! What a permission prompt for a `write` or an `edit` shows of the change: the diff the call
//! would make of the file as it is when asked, read as the call itself reads it (through the
//! file opened for it, or over ACP the editor's buffer), or why there is none. The call reads
//! the file again when it runs, so what it changes is the file as it is then.

use crate::effects::FileContent;
use crate::guided_review::unified::file_diff;

use super::super::tools::args::ToolArgs;
use super::work::{edit_of, whole_text};
use crate::paths::resolve;

/// The diff a prompt shows, or why it shows none.
pub(super) type Shown = Result<String, String>;

/// How the change of a call about to be asked about is found.
#[derive(Debug)]
pub(super) enum Preview {
    /// Not a write or an edit: a prompt with nothing but its detail.
    Nothing,
    /// Known without reading: a write that creates its file.
    Known(Shown),
    /// Read the file at this absolute path first (through its handle, if the call has one).
    Read(String),
}

/// How the change of `args` (its path resolved; `exists`: the file opened for it existed) is
/// found, in a session in `cwd`.
pub(super) fn begin(args: &ToolArgs, cwd: &str, exists: bool) -> Preview {
    match args {
        ToolArgs::Write { path, content } if !exists => {
            Preview::Known(Ok(file_diff(&resolve(cwd, path).shown, None, content)))
        }
        ToolArgs::Write { path, .. } | ToolArgs::Edit { path, .. } => {
            Preview::Read(resolve(cwd, path).absolute)
        }
        _ => Preview::Nothing,
    }
}

/// The change of `args` against its file, read as `read`.
pub(super) fn of_read(args: &ToolArgs, cwd: &str, read: Result<FileContent, String>) -> Shown {
    match args {
        ToolArgs::Write { path, content } => {
            let shown = resolve(cwd, path).shown;
            let before = whole_text(read, &shown)?;
            Ok(file_diff(&shown, Some(&before), content))
        }
        ToolArgs::Edit {
            path,
            old_text,
            new_text,
            replace_all,
        } => {
            let shown = resolve(cwd, path).shown;
            let edit = edit_of(read, &shown, old_text, new_text, *replace_all)?;
            Ok(edit.diff(&shown))
        }
        _ => Err("nothing to show".to_owned()),
    }
}
