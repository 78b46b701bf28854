//! Whether a session can run in the directory an ACP client named, from what io found there,
//! and the words of the refusal when it cannot.

/// What io found at the directory a client named: its path with symlinks resolved and whether
/// that is a directory, or why it could not be resolved (in the system's words).
pub type Found = Result<(String, bool), String>;

/// The directory a session runs in (symlinks resolved), or the error the client's request is
/// answered with: a path that cannot be resolved, or one that is not a directory.
pub fn site_dir(cwd: &str, found: Found) -> Result<String, String> {
    match found {
        Ok((dir, true)) => Ok(dir),
        Ok((_, false)) => Err(format!("{cwd} is not a directory")),
        Err(err) => Err(format!("{cwd}: {err}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_runs_only_in_a_directory_that_resolves() {
        assert_eq!(
            site_dir("/w/link", Ok(("/w/app".into(), true))),
            Ok("/w/app".to_owned())
        );
        assert_eq!(
            site_dir("/w/a.txt", Ok(("/w/a.txt".into(), false))),
            Err("/w/a.txt is not a directory".to_owned())
        );
        assert_eq!(
            site_dir(
                "/w/gone",
                Err("No such file or directory (os error 2)".into())
            ),
            Err("/w/gone: No such file or directory (os error 2)".to_owned())
        );
    }
}
