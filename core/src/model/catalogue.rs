//! The built-in model catalogue: context windows and prices for the models luxe knows, and the
//! rule for a `provider/model` outside it (accepted with unknown limits and prices).

use crate::protocol::events::{ModelCost, ModelInfo, ModelsListed, ProviderStatus};

/// A model provider luxe speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Provider {
    /// The Messages API.
    Anthropic,
    /// Chat Completions (also Ollama, vLLM, llama.cpp's server, LM Studio, OpenRouter).
    OpenAi,
}

impl Provider {
    /// Every provider, in the order defaults are chosen.
    pub const ALL: [Provider; 2] = [Provider::Anthropic, Provider::OpenAi];

    /// The prefix in `provider/model`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::OpenAi => "openai",
        }
    }

    /// The model chosen when this provider is configured and nothing names one.
    pub fn default_model(self) -> &'static str {
        match self {
            Self::Anthropic => "claude-sonnet-4-5",
            Self::OpenAi => "gpt-5",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// What to set so this provider can be called.
    pub fn setup_hint(self) -> &'static str {
        match self {
            Self::Anthropic => "set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a proxy)",
            Self::OpenAi => {
                "set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server (Ollama, vLLM, llama.cpp, LM Studio)"
            }
        }
    }
}

/// Which providers have what they need to be called (from the environment, read by io).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProviderAccess {
    /// `ANTHROPIC_API_KEY` is set.
    pub anthropic: bool,
    /// `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set (local servers need no key).
    pub openai: bool,
}

impl ProviderAccess {
    /// Whether `provider` can be called.
    pub fn has(self, provider: Provider) -> bool {
        match provider {
            Provider::Anthropic => self.anthropic,
            Provider::OpenAi => self.openai,
        }
    }
}

struct Entry {
    provider: Provider,
    id: &'static str,
    name: &'static str,
    context_window: u32,
    max_output_tokens: u32,
    reasoning: bool,
    /// Input, output, cache read, cache write; USD per million tokens.
    cost: [f64; 4],
}

const CATALOGUE: &[Entry] = &[
    Entry {
        provider: Provider::Anthropic,
        id: "claude-opus-4-5",
        name: "Claude Opus 4.5",
        context_window: 200_000,
        max_output_tokens: 64_000,
        reasoning: true,
        cost: [5.0, 25.0, 0.5, 6.25],
    },
    Entry {
        provider: Provider::Anthropic,
        id: "claude-sonnet-4-5",
        name: "Claude Sonnet 4.5",
        context_window: 200_000,
        max_output_tokens: 64_000,
        reasoning: true,
        cost: [3.0, 15.0, 0.3, 3.75],
    },
    Entry {
        provider: Provider::Anthropic,
        id: "claude-haiku-4-5",
        name: "Claude Haiku 4.5",
        context_window: 200_000,
        max_output_tokens: 64_000,
        reasoning: true,
        cost: [1.0, 5.0, 0.1, 1.25],
    },
    Entry {
        provider: Provider::OpenAi,
        id: "gpt-5",
        name: "GPT-5",
        context_window: 400_000,
        max_output_tokens: 128_000,
        reasoning: true,
        cost: [1.25, 10.0, 0.125, 1.25],
    },
    Entry {
        provider: Provider::OpenAi,
        id: "gpt-5-mini",
        name: "GPT-5 mini",
        context_window: 400_000,
        max_output_tokens: 128_000,
        reasoning: true,
        cost: [0.25, 2.0, 0.025, 0.25],
    },
    Entry {
        provider: Provider::OpenAi,
        id: "gpt-4.1",
        name: "GPT-4.1",
        context_window: 1_047_576,
        max_output_tokens: 32_768,
        reasoning: false,
        cost: [2.0, 8.0, 0.5, 2.0],
    },
];

/// A model the session can use: a catalogue entry, or an unknown id under a known provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// The provider it is called through (the `provider/` of `provider/model`).
    pub provider: Provider,
    /// The model id as the provider names it.
    pub id: String,
}

impl ModelRef {
    /// Parses `provider/model`; an unknown provider or a missing part is an error in words.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let Some((provider, id)) = spec.split_once('/') else {
            return Err(format!(
                "model {spec:?} must be provider/model, for example anthropic/{}",
                Provider::Anthropic.default_model()
            ));
        };
        let provider = Provider::parse(provider)
            .ok_or_else(|| format!("unknown provider {provider:?} (known: anthropic, openai)"))?;
        if id.trim().is_empty() {
            return Err(format!("model {spec:?} names no model after the provider"));
        }
        Ok(Self {
            provider,
            id: id.to_owned(),
        })
    }

    /// `provider/model`, as it was given.
    pub fn spec(&self) -> String {
        format!("{}/{}", self.provider.as_str(), self.id)
    }

    /// The default for the first provider that has access, if any.
    pub fn default_for(access: ProviderAccess) -> Option<Self> {
        Provider::ALL
            .into_iter()
            .find(|p| access.has(*p))
            .map(|provider| Self {
                provider,
                id: provider.default_model().to_owned(),
            })
    }

    /// Every model of the built-in catalogue, in order.
    pub fn catalogue() -> impl Iterator<Item = ModelRef> {
        CATALOGUE.iter().map(|e| ModelRef {
            provider: e.provider,
            id: e.id.to_owned(),
        })
    }

    /// The most output tokens to ask for: the catalogue's limit, else a size every
    /// OpenAI-compatible server accepts.
    pub fn max_output_tokens(&self) -> u32 {
        self.entry().map_or(8192, |e| e.max_output_tokens)
    }

    /// The context window, when known.
    pub fn context_window(&self) -> Option<u32> {
        self.entry().map(|e| e.context_window)
    }

    /// Prices, when known.
    pub fn cost(&self) -> Option<ModelCost> {
        self.entry().map(|e| ModelCost {
            input: e.cost[0],
            output: e.cost[1],
            cache_read: e.cost[2],
            cache_write: e.cost[3],
        })
    }

    fn entry(&self) -> Option<&'static Entry> {
        CATALOGUE
            .iter()
            .find(|e| e.provider == self.provider && e.id == self.id)
    }

    /// The model as `state_changed` and `models_listed` show it.
    pub fn info(&self, access: ProviderAccess) -> ModelInfo {
        let entry = self.entry();
        ModelInfo {
            id: format!("{}/{}", self.provider.as_str(), self.id),
            provider: self.provider.as_str().to_owned(),
            name: entry.map_or_else(|| self.id.clone(), |e| e.name.to_owned()),
            context_window: entry.map(|e| e.context_window),
            max_output_tokens: entry.map(|e| e.max_output_tokens),
            reasoning: entry.is_some_and(|e| e.reasoning),
            available: access.has(self.provider),
            cost: self.cost(),
            supports_tools: None,
        }
    }
}

/// `models_listed`, answering `list_models` (`request_id`) with the providers configured as
/// `access`: the catalogue, the session's `current` model too when it is not in it (a model
/// any provider serves, such as a local one), and each provider with what to set when it is
/// not configured.
pub fn listing(
    request_id: String,
    access: ProviderAccess,
    current: Option<&ModelRef>,
) -> ModelsListed {
    let mut models: Vec<_> = ModelRef::catalogue().map(|m| m.info(access)).collect();
    if let Some(current) = current {
        let info = current.info(access);
        if !models.iter().any(|m| m.id == info.id) {
            models.push(info);
        }
    }
    let providers = Provider::ALL
        .into_iter()
        .map(|p| ProviderStatus {
            provider: p.as_str().to_owned(),
            available: access.has(p),
            hint: (!access.has(p)).then(|| p.setup_hint().to_owned()),
        })
        .collect();
    ModelsListed {
        request_id,
        models,
        providers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_model_has_limits_and_prices() {
        let info = ModelRef::parse("anthropic/claude-sonnet-4-5")
            .unwrap()
            .info(ProviderAccess::default());
        assert_eq!(info.context_window, Some(200_000));
        assert_eq!(info.cost.map(|c| c.output), Some(15.0));
        assert!(!info.available);
    }

    #[test]
    fn unknown_model_under_known_provider_has_unknown_prices() {
        let info = ModelRef::parse("openai/qwen3-coder:30b")
            .unwrap()
            .info(ProviderAccess {
                anthropic: false,
                openai: true,
            });
        assert_eq!((info.cost, info.context_window), (None, None));
        assert_eq!(info.id, "openai/qwen3-coder:30b");
        assert!(info.available);
    }

    #[test]
    fn unknown_provider_and_bad_shapes_are_errors() {
        assert_eq!(
            ModelRef::parse("mistral/large").unwrap_err(),
            "unknown provider \"mistral\" (known: anthropic, openai)"
        );
        assert!(ModelRef::parse("gpt-5").is_err());
        assert!(ModelRef::parse("openai/").is_err());
    }

    #[test]
    fn every_default_model_is_in_the_catalogue() {
        for provider in Provider::ALL {
            let model = ModelRef {
                provider,
                id: provider.default_model().to_owned(),
            };
            assert!(model.info(ProviderAccess::default()).cost.is_some());
        }
    }

    #[test]
    fn default_prefers_anthropic_then_openai() {
        let both = ProviderAccess {
            anthropic: true,
            openai: true,
        };
        assert_eq!(
            ModelRef::default_for(both).unwrap().provider,
            Provider::Anthropic
        );
        let openai = ProviderAccess {
            anthropic: false,
            openai: true,
        };
        assert_eq!(
            ModelRef::default_for(openai).unwrap().provider,
            Provider::OpenAi
        );
        assert_eq!(ModelRef::default_for(ProviderAccess::default()), None);
    }

    #[test]
    fn a_listing_adds_the_current_model_once_and_says_what_to_set() {
        let access = ProviderAccess {
            anthropic: false,
            openai: true,
        };
        let local = ModelRef::parse("openai/qwen3-coder:30b").unwrap();
        let listed = listing("r1".into(), access, Some(&local));
        let ids: Vec<_> = listed.models.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(
            ids.iter()
                .filter(|id| **id == "openai/qwen3-coder:30b")
                .count(),
            1
        );
        assert_eq!(ids.len(), ModelRef::catalogue().count() + 1);
        let known = ModelRef::catalogue().next().unwrap();
        let again = listing("r2".into(), access, Some(&known));
        assert_eq!(
            again.models.len(),
            ModelRef::catalogue().count(),
            "not twice"
        );
        let anthropic = &listed.providers[0];
        assert_eq!(
            (anthropic.provider.as_str(), anthropic.available),
            ("anthropic", false)
        );
        assert!(
            anthropic
                .hint
                .as_deref()
                .is_some_and(|h| h.contains("ANTHROPIC_API_KEY"))
        );
        assert_eq!(listed.providers[1].hint, None);
    }
}
