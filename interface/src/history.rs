//! The composer's earlier inputs across runs: one JSON line per input (`{"cwd", "text"}`) in a
//! file io keeps (`$LUXE_HOME/history.jsonl`), so Up walks this directory's inputs from earlier
//! runs too. io reads and appends the bytes; what they mean is decided here.

use serde_json::{Value, json};

/// The history file's name, in `$LUXE_HOME`.
pub const HISTORY_FILE: &str = "history.jsonl";

/// The most earlier inputs the composer takes from the file.
const MOST_REMEMBERED: usize = 1_000;

/// An input longer than this is not kept across runs (a paste has no place in a history file).
const LONGEST_KEPT: usize = 64 * 1024;

/// The inputs written in `cwd`, oldest first, the last `MOST_REMEMBERED` (1,000) of them, from the
/// history file's bytes. A line that is not one of ours (torn by a crash, edited by hand) is
/// passed by.
pub fn earlier_inputs(file: &[u8], cwd: &str) -> Vec<String> {
    let mut inputs: Vec<String> = file
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .filter(|entry| entry["cwd"] == cwd)
        .filter_map(|entry| entry["text"].as_str().map(str::to_owned))
        .collect();
    let first = inputs.len().saturating_sub(MOST_REMEMBERED);
    inputs.drain(..first);
    inputs
}

/// The line to append for `text` written in `cwd`; `None` for one too long to keep.
pub(crate) fn history_line(cwd: &str, text: &str) -> Option<Vec<u8>> {
    if text.len() > LONGEST_KEPT {
        return None;
    }
    let mut line = json!({"cwd": cwd, "text": text}).to_string().into_bytes();
    line.push(b'\n');
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    #[test]
    fn only_this_directorys_inputs_come_back_and_a_torn_line_is_passed_by() {
        let mut file = Vec::new();
        for (cwd, text) in [("/a", "one"), ("/b", "elsewhere"), ("/a", "two\nlines")] {
            file.extend(history_line(cwd, text).expect("kept"));
        }
        file.extend_from_slice(b"{\"cwd\":\"/a\",\"te");
        assert_eq!(earlier_inputs(&file, "/a"), ["one", "two\nlines"]);
        assert!(history_line("/a", &"x".repeat(LONGEST_KEPT + 1)).is_none());
    }

    #[test]
    fn the_last_thousand_are_kept() {
        let file: Vec<u8> = (0..1_500)
            .flat_map(|n| history_line("/a", &n.to_string()).expect("kept"))
            .collect();
        let inputs = earlier_inputs(&file, "/a");
        assert_eq!(inputs.len(), MOST_REMEMBERED);
        assert_eq!((inputs[0].as_str(), inputs[999].as_str()), ("500", "1499"));
    }

    quickcheck! {
        fn every_input_written_comes_back_as_it_was(inputs: Vec<String>) -> bool {
            let file: Vec<u8> = inputs.iter().flat_map(|t| history_line("/d", t).expect("short")).collect();
            earlier_inputs(&file, "/d") == inputs
        }
    }
}
