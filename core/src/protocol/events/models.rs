//! The model catalogue as frames carry it: `ModelInfo` (in `state_changed`) and `models_listed`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A model as the catalogue describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelInfo {
    /// `provider/model`, as `set_model` takes it.
    pub id: String,
    /// `anthropic` or `openai`.
    pub provider: String,
    /// A name for people (`Claude Sonnet 4.5`); for a model outside the catalogue, its id without
    /// `provider/`.
    pub name: String,
    /// Tokens of context; `null` for a model outside the catalogue.
    pub context_window: Option<u32>,
    /// Most tokens one response may have; `null` for a model outside the catalogue.
    pub max_output_tokens: Option<u32>,
    /// Whether the model takes a reasoning setting.
    pub reasoning: bool,
    /// Whether its provider is configured (a key, or for `openai` a base URL).
    pub available: bool,
    /// Prices; `null` when unknown.
    pub cost: Option<ModelCost>,
    /// `false` when the server said the model's chat template cannot use tools (llama.cpp's
    /// `/props`): tools are then not offered. Absent when not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_tools: Option<bool>,
}

/// Prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelCost {
    /// Prompt tokens.
    pub input: f64,
    /// Completion tokens.
    pub output: f64,
    /// Prompt tokens read from the cache.
    pub cache_read: f64,
    /// Prompt tokens written to the cache.
    pub cache_write: f64,
}

/// `models_listed`: the answer to `list_models`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelsListed {
    /// The `list_models` request.
    pub request_id: String,
    /// The catalogue; `available` says whether each can be used now.
    pub models: Vec<ModelInfo>,
    /// Each provider and whether it is configured.
    pub providers: Vec<ProviderStatus>,
}

/// A provider and whether it can be called.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProviderStatus {
    /// `anthropic` or `openai`.
    pub provider: String,
    /// Whether its variables are set.
    pub available: bool,
    /// What to set when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}
