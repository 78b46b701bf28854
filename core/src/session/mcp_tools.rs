//! The session's MCP machine (`crate::mcp`), made from the settings' servers. Its servers start
//! after `ready`, their tools join the model's, and a call named `mcp__…` goes to it after the
//! permission decision; the session's routing for all that is `routes/turn.rs`.

use crate::config::Config;
use crate::mcp::config::ServerConfig;
use crate::mcp::{Mcp, McpSettings};

/// The machine for a session started from `config` with the settings' `servers`.
pub(super) fn machine(config: &Config, servers: Vec<ServerConfig>) -> Mcp {
    let mut all = servers;
    for extra in &config.extra_mcp_servers {
        all.retain(|s| s.name != extra.name);
        all.push(extra.clone());
    }
    let settings = McpSettings {
        timeout: config.timings.mcp_timeout,
        restart_base: config.timings.mcp_restart,
        restart_max: std::time::Duration::from_secs(60).max(config.timings.mcp_restart),
        cwd: config.cwd.clone(),
        env: config.mcp_env.clone(),
        client_version: config.luxe_version.clone(),
    };
    Mcp::new(all, settings)
}
