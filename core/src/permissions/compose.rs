//! Random compositions of shell grammar around a command, for the property test and the fuzz
//! target: whatever wraps a denied command, the decision must stay deny.

/// Spellings of the denied call `rm v`.
const SPELLINGS: &[&str] = &[
    "rm v",
    "\\rm v",
    "\"rm\" v",
    "'rm' v",
    "r\\m v",
    "/bin/rm v",
    "rm -f v",
];

/// Builds a command from `seed`: the first byte picks a spelling of `rm v`, each later byte
/// wraps what was built so far in one piece of shell grammar (at most `max_layers`).
pub fn around_denied(seed: &[u8], max_layers: usize) -> String {
    let mut bytes = seed.iter().copied();
    let first = usize::from(bytes.next().unwrap_or(0));
    let mut command = SPELLINGS[first % SPELLINGS.len()].to_owned();
    for byte in bytes.take(max_layers) {
        command = wrap(byte, &command);
    }
    command
}

/// `text` as one single-quoted word.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

fn wrap(byte: u8, c: &str) -> String {
    match byte % 40 {
        0 => format!("({c})"),
        1 => format!("echo $({c})"),
        2 => format!(
            "echo `{}`",
            c.replace('\\', "\\\\")
                .replace('`', "\\`")
                .replace('$', "\\$")
        ),
        3 => format!("if true; then {c}; fi"),
        4 => format!("if {c}; then :; fi"),
        5 => format!("{{ {c}; }}"),
        6 => format!("for x in a b; do {c}; done"),
        7 => format!("while true; do {c}; break; done"),
        8 => format!("cat <({c})"),
        9 => format!("! {c}"),
        10 => format!("time {c}"),
        11 => format!("ls && {c}"),
        12 => format!("ls; {c}"),
        13 => format!("ls | {c}"),
        14 => format!("{c} | cat"),
        15 => format!("command {c}"),
        16 => format!("env {c}"),
        17 => format!("nice {c}"),
        18 => format!("timeout 5 {c}"),
        19 => format!("exec {c}"),
        20 => format!("FOO=1 {c}"),
        21 => format!("sh -c {}", quoted(c)),
        22 => format!("bash -c {}", quoted(c)),
        23 => format!("eval {}", quoted(c)),
        24 => format!("x=$({c})"),
        25 => format!("echo \"$({c})\""),
        26 => format!("f() {{ {c}; }}; f"),
        27 => format!("case a in a) {c};; esac"),
        28 => format!("sudo {c}"),
        29 => format!("nohup {c}"),
        30 => format!("bash <<'EOF'\n{c}\nEOF"),
        31 => format!("bash <<< {}", quoted(c)),
        32 => format!("{c} &"),
        33 => format!("{c} 2>/dev/null"),
        34 => format!("{c} > out"),
        35 => format!("ls || {c}"),
        36 => format!("ls\n{c}"),
        37 => format!("[[ -n $({c}) ]]"),
        38 => format!("until {c}; do :; done"),
        _ => format!("echo \"${{x:-$({c})}}\""),
    }
}
