//! The tools a new front-end author points at `docs/protocol.schema.json`, pinned in
//! `tests/client` (installed by `npm ci` there, as `.ci/run` does): json-schema-to-typescript
//! for types, `tsc --strict` to check a client written against them, and ajv in strict mode to
//! hold frames to the schema.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// `docs/protocol.schema.json`, as checked in.
pub fn schema_path() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/protocol.schema.json"
    ))
}

/// `tests/client`, once Node and its installed packages are found; fails the test with what to
/// run when they are not.
pub fn client_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/client"));
        let install = "run `npm ci --no-audit --no-fund` in tests/client (.ci/run does)";
        match Command::new("node").arg("--version").output() {
            Ok(out) if out.status.success() => {}
            _ => panic!("node is not on PATH: install Node.js and npm, then {install}"),
        }
        for needed in [
            "node_modules/.bin/json2ts",
            "node_modules/.bin/tsc",
            "node_modules/ajv/dist/2020.js",
        ] {
            assert!(
                dir.join(needed).exists(),
                "tests/client/{needed} is missing: {install}"
            );
        }
        dir
    })
}

/// The TypeScript json-schema-to-typescript writes for the checked-in schema, with its defaults.
pub fn generate_types() -> String {
    let out = node_tool("json2ts", &[schema_path().as_os_str()], client_dir());
    assert!(
        out.status.success(),
        "json2ts failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("json2ts writes UTF-8")
}

/// Type-checks `tests/client/client.ts` against `types` (written as `protocol.ts` beside a copy
/// of it in `dir`) with `tsc --strict --noEmit`; `Err` holds tsc's report.
pub fn type_check(dir: &Path, types: &str) -> Result<(), String> {
    std::fs::write(dir.join("protocol.ts"), types).expect("protocol.ts is written");
    std::fs::copy(client_dir().join("client.ts"), dir.join("client.ts")).expect("client.ts");
    let client = dir.join("client.ts");
    let out = node_tool(
        "tsc",
        &[
            "--strict".as_ref(),
            "--noEmit".as_ref(),
            "--target".as_ref(),
            "es2022".as_ref(),
            "--module".as_ref(),
            "nodenext".as_ref(),
            client.as_os_str(),
        ],
        dir,
    );
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// Validates every line of `files` against `$defs.<definition>` with `tests/client/validate.mjs`
/// (ajv, draft 2020-12, strict); `Err` holds what is wrong with each frame off the schema, or
/// why ajv refuses the schema.
pub fn validate(definition: &str, files: &[PathBuf]) -> Result<String, String> {
    let out = Command::new("node")
        .arg(client_dir().join("validate.mjs"))
        .arg(schema_path())
        .arg(definition)
        .args(files)
        .current_dir(client_dir())
        .output()
        .expect("node runs");
    let report =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        Ok(report)
    } else {
        Err(report)
    }
}

/// Runs `node_modules/.bin/<tool>` of `tests/client` with `args` in `cwd`.
fn node_tool(tool: &str, args: &[&std::ffi::OsStr], cwd: &Path) -> Output {
    Command::new(client_dir().join("node_modules/.bin").join(tool))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|e| panic!("{tool} runs: {e}"))
}
