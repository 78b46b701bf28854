//! What an OpenAI-compatible server says about the model it runs: the context window it runs
//! with and whether the model can use tools. Asked once per model outside the catalogue with
//! three questions: `GET /v1/models` (llama.cpp's `meta.n_ctx`, vLLM's `max_model_len`),
//! llama.cpp's `GET /props` (`n_ctx`, `chat_template_caps.supports_tools`) and Ollama's
//! `POST /api/show` (the `num_ctx` its Modelfile sets, capped by the model's
//! `<arch>.context_length`, and `capabilities`). Servers without an endpoint answer 404, which
//! teaches nothing.
//!
//! A training length alone (llama.cpp's `n_ctx_train`, Ollama's `<arch>.context_length` without
//! a `num_ctx`) is the model's, not the server's: llama.cpp runs with `-c`, Ollama with its own
//! default (`OLLAMA_CONTEXT_LENGTH`), which no endpoint reports. Taking it for the window would
//! let requests grow past what the server keeps (Ollama then cuts the prompt silently), so it
//! teaches nothing; only a limit it puts on `num_ctx` counts.

use serde_json::Value;

use crate::effects::{HttpMethod, HttpRequest};
use crate::model::wire::Endpoint;

/// Which question a probe asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerQuestion {
    /// `GET {base}/models`.
    Models,
    /// `GET {server}/props` (llama.cpp), beside the `/v1` base.
    Props,
    /// `POST {server}/api/show` with the model's name (Ollama), beside the `/v1` base.
    Show,
}

impl ServerQuestion {
    /// Every question, in the order asked.
    pub const ALL: [ServerQuestion; 3] = [
        ServerQuestion::Models,
        ServerQuestion::Props,
        ServerQuestion::Show,
    ];
}

/// What a server said of its model; `None` where it said nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerFacts {
    /// The context window the server runs the model with (not the model's training length).
    pub window: Option<u32>,
    /// Whether the model can use tools (llama.cpp: its chat template; Ollama: its capabilities).
    pub supports_tools: Option<bool>,
}

/// The request for `question` about `model` (its id as the server knows it).
pub fn probe_request(endpoint: &Endpoint, question: ServerQuestion, model: &str) -> HttpRequest {
    let base = endpoint.base_url.trim_end_matches('/');
    let server = base.strip_suffix("/v1").unwrap_or(base);
    let mut headers = vec![("accept".to_owned(), "application/json".to_owned())];
    if let Some(key) = &endpoint.api_key {
        headers.push(("authorization".to_owned(), format!("Bearer {key}")));
    }
    let (method, url, body) = match question {
        ServerQuestion::Models => (HttpMethod::Get, format!("{base}/models"), Vec::new()),
        ServerQuestion::Props => (HttpMethod::Get, format!("{server}/props"), Vec::new()),
        ServerQuestion::Show => {
            headers.push(("content-type".to_owned(), "application/json".to_owned()));
            let body = serde_json::json!({ "model": model })
                .to_string()
                .into_bytes();
            (HttpMethod::Post, format!("{server}/api/show"), body)
        }
    };
    HttpRequest {
        method,
        url,
        headers,
        body,
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
        ServerQuestion::Show => read_show(&json),
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

/// Ollama's `/api/show`: `parameters` is the Modelfile's text, one `name value` a line; the
/// server cannot run the model past its training length.
fn read_show(json: &Value) -> ServerFacts {
    let num_ctx = json
        .get("parameters")
        .and_then(Value::as_str)
        .and_then(|text| {
            text.lines().find_map(|line| {
                let mut words = line.split_whitespace();
                (words.next() == Some("num_ctx"))
                    .then(|| words.next()?.parse::<u32>().ok())
                    .flatten()
            })
        })
        .filter(|n| *n > 0);
    let info = json.get("model_info");
    let trained = info
        .and_then(|i| i.get("general.architecture"))
        .and_then(Value::as_str)
        .and_then(|arch| window(info?.get(format!("{arch}.context_length").as_str())));
    ServerFacts {
        window: num_ctx.map(|n| trained.map_or(n, |t| n.min(t))),
        supports_tools: json
            .get("capabilities")
            .and_then(Value::as_array)
            .map(|caps| caps.iter().any(|c| c == "tools")),
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
        let models = probe_request(&endpoint(), ServerQuestion::Models, "m");
        assert_eq!(
            (models.method, models.url.as_str()),
            (HttpMethod::Get, "http://127.0.0.1:8080/v1/models")
        );
        let props = probe_request(&endpoint(), ServerQuestion::Props, "m");
        assert_eq!(props.url, "http://127.0.0.1:8080/props");
        assert!(props.body.is_empty());
        let show = probe_request(&endpoint(), ServerQuestion::Show, "qwen2.5:0.5b");
        assert_eq!(
            (show.method, show.url.as_str()),
            (HttpMethod::Post, "http://127.0.0.1:8080/api/show")
        );
        assert_eq!(show.body, br#"{"model":"qwen2.5:0.5b"}"#);
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

    #[test]
    fn ollama_says_the_num_ctx_it_runs_with_capped_by_the_training_length() {
        let show = |parameters: &str, trained: u64, caps: &str| {
            format!(
                r#"{{"parameters":"{parameters}","details":{{"family":"qwen2"}},"model_info":{{"general.architecture":"qwen2","qwen2.context_length":{trained},"qwen2.block_count":24}},"capabilities":{caps}}}"#
            )
        };
        let set = show(
            r#"stop \"<|im_end|>\"\nnum_ctx                        8192"#,
            32768,
            r#"["completion","tools"]"#,
        );
        assert_eq!(
            read_answer(ServerQuestion::Show, "qwen2.5", set.as_bytes()),
            ServerFacts {
                window: Some(8192),
                supports_tools: Some(true)
            }
        );
        let over = show("num_ctx 65536", 32768, r#"["completion"]"#);
        assert_eq!(
            read_answer(ServerQuestion::Show, "qwen2.5", over.as_bytes()),
            ServerFacts {
                window: Some(32768),
                supports_tools: Some(false)
            }
        );
        // Without num_ctx the server runs with its own default, which it does not say.
        let unset = show(r#"stop \"<|im_end|>\""#, 32768, r#"["completion","tools"]"#);
        assert_eq!(
            read_answer(ServerQuestion::Show, "qwen2.5", unset.as_bytes()).window,
            None
        );
        assert_eq!(
            read_answer(
                ServerQuestion::Show,
                "m",
                br#"{"error":"model 'm' not found"}"#
            ),
            ServerFacts::default()
        );
    }
}
