//! What an OpenAI-compatible server says about the model it runs: the context window it runs
//! with and whether its chat template can use tools. Asked once per model outside the catalogue
//! with two GETs: `/v1/models` (llama.cpp's `meta.n_ctx`, vLLM's `max_model_len`) and
//! llama.cpp's `/props` (`n_ctx`, `chat_template_caps.supports_tools`). Servers without an
//! endpoint answer 404, which teaches nothing.

use serde_json::Value;

use crate::model::wire::{Endpoint, HttpMethod, HttpRequest};

/// Which question a probe asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerQuestion {
    /// `GET {base}/models`.
    Models,
    /// `GET {server}/props` (llama.cpp), beside the `/v1` base.
    Props,
}

/// What a server said of its model; `None` where it said nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerFacts {
    /// The context window the server runs the model with (not the model's training length).
    pub window: Option<u32>,
    /// Whether the chat template can use tools.
    pub supports_tools: Option<bool>,
}

/// The GET for `question`.
pub fn probe_request(endpoint: &Endpoint, question: ServerQuestion) -> HttpRequest {
    let base = endpoint.base_url.trim_end_matches('/');
    let url = match question {
        ServerQuestion::Models => format!("{base}/models"),
        ServerQuestion::Props => format!("{}/props", base.strip_suffix("/v1").unwrap_or(base)),
    };
    let mut headers = vec![("accept".to_owned(), "application/json".to_owned())];
    if let Some(key) = &endpoint.api_key {
        headers.push(("authorization".to_owned(), format!("Bearer {key}")));
    }
    HttpRequest {
        method: HttpMethod::Get,
        url,
        headers,
        body: Vec::new(),
    }
}

/// Reads the answer to `question` about `model`; a body that is not what was asked teaches
/// nothing.
pub fn read_answer(question: ServerQuestion, model: &str, body: &[u8]) -> ServerFacts {
    let Ok(json) = serde_json::from_slice::<Value>(body) else {
        return ServerFacts::default();
    };
    match question {
        ServerQuestion::Models => read_models(&json, model),
        ServerQuestion::Props => ServerFacts {
            window: window(json.get("n_ctx")).or_else(|| {
                window(
                    json.get("default_generation_settings")
                        .and_then(|s| s.get("n_ctx")),
                )
            }),
            supports_tools: json
                .get("chat_template_caps")
                .and_then(|c| c.get("supports_tools"))
                .and_then(Value::as_bool),
        },
    }
}

/// `/v1/models`: the entry named `model`, or the only one (llama.cpp serves one model under
/// its file name, whatever the client calls it).
fn read_models(json: &Value, model: &str) -> ServerFacts {
    let Some(data) = json.get("data").and_then(Value::as_array) else {
        return ServerFacts::default();
    };
    let entry = data
        .iter()
        .find(|e| e.get("id").and_then(Value::as_str) == Some(model))
        .or_else(|| (data.len() == 1).then(|| &data[0]));
    let Some(entry) = entry else {
        return ServerFacts::default();
    };
    ServerFacts {
        window: window(entry.get("meta").and_then(|m| m.get("n_ctx")))
            .or_else(|| window(entry.get("max_model_len"))),
        supports_tools: None,
    }
}

fn window(value: Option<&Value>) -> Option<u32> {
    value
        .and_then(Value::as_u64)
        .and_then(|w| u32::try_from(w).ok())
        .filter(|w| *w > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint() -> Endpoint {
        Endpoint {
            base_url: "http://127.0.0.1:8080/v1".into(),
            api_key: None,
        }
    }

    #[test]
    fn the_questions_go_to_models_and_props() {
        let models = probe_request(&endpoint(), ServerQuestion::Models);
        assert_eq!(
            (models.method, models.url.as_str()),
            (HttpMethod::Get, "http://127.0.0.1:8080/v1/models")
        );
        let props = probe_request(&endpoint(), ServerQuestion::Props);
        assert_eq!(props.url, "http://127.0.0.1:8080/props");
        assert!(props.body.is_empty());
    }

    #[test]
    fn llama_cpp_says_the_window_it_runs_with_not_the_training_length() {
        let models = br#"{"models":[{"name":"SmolLM2.gguf"}],"object":"list","data":[{"id":"SmolLM2.gguf","object":"model","owned_by":"llamacpp","meta":{"vocab_type":2,"n_vocab":49152,"n_ctx_train":8192,"n_ctx":2048,"n_embd":576,"n_params":134515008,"size":85000000}}]}"#;
        let facts = read_answer(ServerQuestion::Models, "smollm2", models);
        assert_eq!(facts.window, Some(2048));
        let props = br#"{"default_generation_settings":{"n_ctx":2048,"params":{}},"total_slots":1,"model_path":"m.gguf","chat_template_caps":{"supports_tools":false,"supports_tool_calls":false}}"#;
        let facts = read_answer(ServerQuestion::Props, "smollm2", props);
        assert_eq!(
            facts,
            ServerFacts {
                window: Some(2048),
                supports_tools: Some(false)
            }
        );
    }

    #[test]
    fn vllm_says_max_model_len_and_strangers_say_nothing() {
        let vllm = br#"{"object":"list","data":[{"id":"Qwen/Qwen2.5-7B","object":"model","max_model_len":32768},{"id":"other","max_model_len":4096}]}"#;
        assert_eq!(
            read_answer(ServerQuestion::Models, "Qwen/Qwen2.5-7B", vllm).window,
            Some(32768)
        );
        assert_eq!(
            read_answer(ServerQuestion::Models, "missing", vllm),
            ServerFacts::default(),
            "several models and none named: nothing learned"
        );
        let ollama = br#"{"object":"list","data":[{"id":"qwen3:8b","object":"model","owned_by":"library"}]}"#;
        assert_eq!(
            read_answer(ServerQuestion::Models, "qwen3:8b", ollama),
            ServerFacts::default()
        );
        assert_eq!(
            read_answer(ServerQuestion::Props, "m", b"404 page not found"),
            ServerFacts::default()
        );
    }
}
