//! The MCP servers as frames show them: `mcp_servers_updated` and `mcp_servers_listed`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One configured MCP server, as `mcp_servers_updated` and `mcp_servers_listed` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpServer {
    /// Its name in the settings (its tools are `mcp__<name>__<tool>`).
    pub name: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// `starting`, `ready`, `failed` or `stopped`.
    pub status: String,
    /// How many tools it offers.
    pub tools: u32,
    /// Why it failed; for a ready server, the tools it listed that were left out and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `mcp_servers_updated`: an MCP server started, became ready, failed or stopped; every server's
/// state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpServersUpdated {
    /// Every configured server, in settings order.
    pub servers: Vec<McpServer>,
}

/// `mcp_servers_listed`: the answer to `list_mcp_servers`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpServersListed {
    /// The `list_mcp_servers` request.
    pub request_id: String,
    /// Every configured server.
    pub servers: Vec<McpServer>,
}
