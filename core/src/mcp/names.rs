//! The names MCP tools are offered to the model under: `mcp__<server>__<tool>`, valid for
//! every provider (`[A-Za-z0-9_-]`, at most 64 characters) and unique across servers.

/// What every MCP tool's name starts with (and what permission rules about them name).
pub const PREFIX: &str = "mcp__";

/// The longest tool name every provider accepts.
pub const MAX_NAME: usize = 64;

/// Whether `name` is an MCP tool's (as offered to the model or named by a rule).
pub fn is_mcp(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// `mcp__<server>__<tool>` with every character a provider refuses made `_`, cut to
/// [`MAX_NAME`].
fn base_name(server: &str, tool: &str) -> String {
    let raw = format!("{PREFIX}{server}__{tool}");
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAME)
        .collect()
}

/// The model's names for `tools` (server, tool), in order: a name two tools would share gets
/// `_2`, `_3`… (cut so it still fits), the first keeping the plain one.
pub fn model_names<'a>(tools: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    let mut taken = std::collections::BTreeSet::new();
    let mut names = Vec::new();
    for (server, tool) in tools {
        let base = base_name(server, tool);
        let mut name = base.clone();
        let mut n = 2u32;
        while taken.contains(&name) {
            let suffix = format!("_{n}");
            let keep = base.len().min(MAX_NAME - suffix.len());
            name = format!("{}{suffix}", &base[..keep]);
            n += 1;
        }
        taken.insert(name.clone());
        names.push(name);
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    #[test]
    fn valid_names_stay_and_others_are_sanitized_and_made_unique() {
        let names = model_names([
            ("github", "create_issue"),
            ("server-everything", "get-sum"),
            ("my server", "a.b"),
            ("my_server", "a_b"),
        ]);
        assert_eq!(
            names,
            [
                "mcp__github__create_issue",
                "mcp__server-everything__get-sum",
                "mcp__my_server__a_b",
                "mcp__my_server__a_b_2",
            ]
        );
        let (a, b) = ("t".repeat(100), "t".repeat(90));
        let long = model_names([("s", a.as_str()), ("s", b.as_str())]);
        assert_eq!(long[0].len(), MAX_NAME);
        assert_eq!(long[1].len(), MAX_NAME);
        assert!(long[1].ends_with("_2"));
    }

    quickcheck! {
        /// Whatever servers call their tools, the names are valid and distinct.
        fn names_are_valid_and_distinct(tools: Vec<(String, String)>) -> bool {
            let names = model_names(tools.iter().map(|(s, t)| (s.as_str(), t.as_str())));
            let distinct: std::collections::BTreeSet<_> = names.iter().collect();
            distinct.len() == names.len()
                && names.iter().all(|n| {
                    n.len() <= MAX_NAME
                        && is_mcp(n)
                        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                })
        }
    }
}
