//! The checked-in schema and kinds list match the Rust types, and the kinds list only grows.
//! Regenerate both after a deliberate change with `LUXE_BLESS=1 cargo test -p luxe-tests --test protocol_schema`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use luxe_core::protocol::schema::{kinds_listing, schema};

fn docs(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(name)
}

fn bless() -> bool {
    std::env::var_os("LUXE_BLESS").is_some()
}

#[test]
fn schema_matches_the_types() {
    let generated = serde_json::to_string_pretty(&schema()).unwrap() + "\n";
    let path = docs("protocol.schema.json");
    if bless() {
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "docs/protocol.schema.json differs from the types: regenerate with LUXE_BLESS=1"
    );
}

#[test]
fn kinds_and_fields_only_grow() {
    let path = docs("protocol-kinds.txt");
    let generated = kinds_listing();
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    let now: BTreeSet<&str> = generated.iter().map(String::as_str).collect();
    let gone: Vec<&str> = checked_in
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(|l| !now.contains(l))
        .collect();
    assert!(
        gone.is_empty(),
        "kinds or fields a client may rely on disappeared (that needs protocol_version 3): {gone:#?}"
    );
    let text = format!(
        "# Every action and event kind of protocol v2, and every field of each typed one.\n\
         # This list may only grow: tests fail when a line disappears.\n{}\n",
        generated.join("\n")
    );
    if bless() {
        std::fs::write(&path, &text).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == text,
        "docs/protocol-kinds.txt is missing new kinds or fields: regenerate with LUXE_BLESS=1"
    );
}
