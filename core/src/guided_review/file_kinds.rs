//! What a changed file is for a reader, from its path alone: build and dependency files,
//! configuration and CI, tests, documentation, or code.

/// The kind of a file. Test data comes first (a fixture's `Cargo.lock` is not a dependency
/// change), then build, configuration, tests, documentation and code, in that order of checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Manifests, lock files, build scripts, container and toolchain files.
    Build,
    /// CI, editor and tool settings: anything under a dot-directory or named with a dot, and
    /// the usual tool configuration files.
    Config,
    /// Tests, benches, fuzz targets and their fixtures.
    Test,
    /// Documentation: `docs/`, Markdown and similar text, READMEs, changelogs, licenses.
    Docs,
    /// Everything else, grouped by directory.
    Code,
}

const BUILD_NAMES: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "rust-toolchain",
    "rust-toolchain.toml",
    "package.json",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    "bun.lockb",
    "deno.json",
    "deno.lock",
    "go.mod",
    "go.sum",
    "go.work",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "Pipfile",
    "Pipfile.lock",
    "poetry.lock",
    "uv.lock",
    "Gemfile",
    "Gemfile.lock",
    "composer.json",
    "composer.lock",
    "mix.exs",
    "mix.lock",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "gradle.properties",
    "Makefile",
    "GNUmakefile",
    "CMakeLists.txt",
    "meson.build",
    "BUILD",
    "BUILD.bazel",
    "WORKSPACE",
    "MODULE.bazel",
    "Dockerfile",
    "docker-compose.yml",
    "docker-compose.yaml",
    "compose.yaml",
    "flake.nix",
    "flake.lock",
];

const BUILD_EXTENSIONS: &[&str] = &[
    "gemspec", "cabal", "csproj", "fsproj", "sln", "cmake", "bzl", "mk",
];

const CONFIG_NAMES: &[&str] = &[
    "clippy.toml",
    "rustfmt.toml",
    "deny.toml",
    "taplo.toml",
    "typos.toml",
    "Jenkinsfile",
    "appveyor.yml",
    "azure-pipelines.yml",
    "codecov.yml",
    "renovate.json",
    "tsconfig.json",
    "jsconfig.json",
    "tox.ini",
    "pytest.ini",
    "mypy.ini",
];

/// Directories whose files are tests (or test data).
const TEST_DIRS: &[&str] = &[
    "tests",
    "test",
    "__tests__",
    "spec",
    "specs",
    "testdata",
    "benches",
    "bench",
    "benchmarks",
    "fuzz",
];

/// Directories of test data, whatever the files in them look like.
const TEST_DATA_DIRS: &[&str] = &["fixtures", "testdata", "snapshots", "__snapshots__"];

const DOC_DIRS: &[&str] = &["docs", "doc", "documentation"];
const DOC_EXTENSIONS: &[&str] = &[
    "md", "mdx", "markdown", "rst", "adoc", "asciidoc", "org", "txt",
];
const DOC_PREFIXES: &[&str] = &[
    "README",
    "CHANGELOG",
    "CHANGES",
    "CONTRIBUTING",
    "LICENSE",
    "LICENCE",
    "COPYING",
    "AUTHORS",
    "NOTICE",
    "CODE_OF_CONDUCT",
    "SECURITY",
];

/// The kind of the file at `path` (`/`-separated, relative to the repository root).
pub fn file_kind(path: &str) -> FileKind {
    let (dirs, name) = split(path);
    let (stem, extension) = name.rsplit_once('.').unwrap_or((name, ""));
    if dirs.iter().any(|d| TEST_DATA_DIRS.contains(d)) {
        FileKind::Test
    } else if BUILD_NAMES.contains(&name)
        || BUILD_EXTENSIONS.contains(&extension)
        || (name.starts_with("requirements") && extension == "txt")
        || name.starts_with("Dockerfile.")
        // Cargo's build script sits beside the manifest; a `build.rs` in `src/` is a module.
        || (name == "build.rs" && !dirs.contains(&"src"))
    {
        FileKind::Build
    } else if path.split('/').any(|c| c.starts_with('.'))
        || CONFIG_NAMES.contains(&name)
        || name.contains(".config.")
        || (name.starts_with("tsconfig.") && extension == "json")
    {
        FileKind::Config
    } else if test_dir(&dirs).is_some() || is_test_name(stem) {
        FileKind::Test
    } else if dirs.iter().any(|d| DOC_DIRS.contains(d))
        || DOC_EXTENSIONS.contains(&extension)
        || DOC_PREFIXES.iter().any(|p| {
            name.get(..p.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(p))
        })
    {
        FileKind::Docs
    } else {
        FileKind::Code
    }
}

/// Whether a build file is a lock file (read after the manifest that produced it).
pub fn is_lock_file(path: &str) -> bool {
    let (_, name) = split(path);
    name.ends_with(".lock")
        || name.ends_with("-lock.json")
        || name.ends_with("-lock.yaml")
        || name == "go.sum"
        || name == "bun.lockb"
}

/// For a test inside a tests directory: the path before that directory (`""` at the root) and
/// the words of what follows it (`tests/review/build_cases.rs` → `review`, `build`, `cases`).
/// `None` for a test beside its code (`foo_test.go`).
pub fn test_place(path: &str) -> Option<(String, Vec<&str>)> {
    let (dirs, name) = split(path);
    let at = test_dir(&dirs)?;
    let stem = name.split('.').next().unwrap_or(name);
    let words = dirs[at + 1..]
        .iter()
        .copied()
        .chain([stem])
        .flat_map(|part| part.split(['_', '-', '.']))
        .filter(|w| !w.is_empty())
        .collect();
    Some((dirs[..at].join("/"), words))
}

/// The directory part of `path` (`""` at the root).
pub fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The file name's stem (before its first dot).
pub fn stem(path: &str) -> &str {
    let (_, name) = split(path);
    name.split('.').next().unwrap_or(name)
}

fn split(path: &str) -> (Vec<&str>, &str) {
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    (parts, name)
}

fn test_dir(dirs: &[&str]) -> Option<usize> {
    dirs.iter().position(|d| TEST_DIRS.contains(d))
}

fn is_test_name(stem: &str) -> bool {
    let lower = stem.to_ascii_lowercase();
    lower.starts_with("test_")
        || ["_test", "_tests", "_spec", ".test", ".spec"]
            .iter()
            .any(|s| lower.ends_with(s))
        || (stem.len() > 4 && (stem.ends_with("Test") || stem.ends_with("Tests")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use FileKind::*;

    #[test]
    fn paths_are_sorted_into_kinds() {
        let cases = [
            ("Cargo.toml", Build),
            ("core/Cargo.toml", Build),
            ("tests/Cargo.toml", Build),
            ("web/package-lock.json", Build),
            ("requirements-dev.txt", Build),
            ("tools/Dockerfile.ci", Build),
            ("io/build.rs", Build),
            ("io/src/build.rs", Code),
            (".github/workflows/ci.yml", Config),
            (".gitignore", Config),
            ("core/clippy.toml", Config),
            ("web/vite.config.ts", Config),
            ("core/tests/review.rs", Test),
            ("core/tests/fixtures/review/new/Cargo.lock", Test),
            ("core/tests/fixtures/review/new/src/lib.rs", Test),
            ("pkg/parse_test.go", Test),
            ("app/user.spec.ts", Test),
            ("src/ParserTest.java", Test),
            ("fuzz/fuzz_targets/decode.rs", Test),
            ("README.md", Docs),
            ("docs/protocol.schema.json", Docs),
            ("core/src/review/NOTES.md", Docs),
            ("LICENSE-MIT", Docs),
            ("core/src/review/build.rs", Code),
            ("assets/logo.png", Code),
            ("src/latest.rs", Code),
            ("main.c", Code),
        ];
        for (path, kind) in cases {
            assert_eq!(file_kind(path), kind, "{path}");
        }
    }

    #[test]
    fn lock_files_and_test_places() {
        assert!(is_lock_file("Cargo.lock") && is_lock_file("web/pnpm-lock.yaml"));
        assert!(!is_lock_file("Cargo.toml"));
        assert_eq!(
            test_place("core/tests/review/build_cases.rs"),
            Some(("core".into(), vec!["review", "build", "cases"]))
        );
        assert_eq!(
            test_place("tests/tests/review_vs_git.rs"),
            Some(("".into(), vec!["tests", "review", "vs", "git"]))
        );
        assert_eq!(test_place("pkg/parse_test.go"), None);
        assert_eq!((parent("a/b/c.rs"), parent("c.rs")), ("a/b", ""));
        assert_eq!(stem("a/b/c.test.ts"), "c");
    }
}
