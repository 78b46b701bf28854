//! `plan_updated`: the agent's plan, whole, and its steps.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanEntry {
    /// The step's text, as the model wrote it in `update_plan`.
    pub content: String,
    /// `pending`, `in_progress` or `done`.
    pub status: PlanStatus,
}

/// Where a plan step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    /// Not started.
    Pending,
    /// Under way.
    InProgress,
    /// Done: the step is finished.
    Done,
}

/// `plan_updated`: the model's plan (`update_plan`), whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanUpdated {
    /// The whole plan.
    pub entries: Vec<PlanEntry>,
}
