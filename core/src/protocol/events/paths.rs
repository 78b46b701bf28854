//! `paths_completed`: the answer to `complete_path`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `paths_completed`: files under the working directory whose path holds what was typed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PathsCompleted {
    /// The `complete_path` request.
    pub request_id: String,
    /// What was typed, echoed so a client can drop an answer to text it no longer shows.
    pub prefix: String,
    /// Paths relative to the working directory, best first: those that start with `prefix`,
    /// then those whose file name does, then the rest; shorter first within each. Files only
    /// (what `.gitignore` leaves, no hidden ones), at most 50.
    pub paths: Vec<String>,
}
