// An editor, as far as the tests need one: the official ACP SDK's client drives `luxe --acp`
// through one scenario and prints every message it received, in order, as JSON lines for
// tests/tests/e2e_acp.rs to judge. The SDK checks each message against the ACP schema; a
// message off the schema rejects, and the script exits 1.
//
// Environment: LUXE_BIN (the binary), LUXE_ARGS (its flags, space-separated), DIR_A and DIR_B
// (two project directories), SCENARIO_PERMISSIONS (how to answer permission requests, comma
// separated: allow_once, allow_always, reject_once, cancelled; a question is answered with its
// last choice), FS_FILES (JSON object: path →
// the text the client serves as its unsaved buffer).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const scenario = process.argv[2];
const env = process.env;
const dirA = env.DIR_A;
const dirB = env.DIR_B;
const answers = (env.SCENARIO_PERMISSIONS || "").split(",").filter(Boolean);
const served = JSON.parse(env.FS_FILES || "{}");
const log = (entry) => process.stdout.write(JSON.stringify(entry) + "\n");

const luxe = spawn(env.LUXE_BIN, ["--acp", ...(env.LUXE_ARGS || "").split(" ").filter(Boolean)], {
  stdio: ["pipe", "pipe", "inherit"],
});
const exited = new Promise((resolve) => luxe.on("exit", (code, signal) => resolve({ code, signal })));
const stream = acp.ndJsonStream(Writable.toWeb(luxe.stdin), Readable.toWeb(luxe.stdout));

// Waiters for a matching update: resolve when one arrives.
const waiters = [];
const updates = [];
function waitFor(predicate) {
  const seen = updates.find(predicate);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => waiters.push({ predicate, resolve }));
}

const app = acp
  .client({ name: "luxe-tests" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    log({ kind: "update", sessionId: params.sessionId, update: params.update });
    updates.push(params);
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i].predicate(params)) {
        waiters[i].resolve(params);
        waiters.splice(i, 1);
      }
    }
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    const choice = answers.shift() || "reject_once";
    log({ kind: "permission", sessionId: params.sessionId, toolCall: params.toolCall,
      options: params.options, answered: choice });
    if (choice === "cancelled") return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: choice } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    log({ kind: "fs_read", path: params.path });
    if (!(params.path in served)) throw acp.RequestError.resourceNotFound(params.path);
    return { content: served[params.path] };
  })
  .onRequest(acp.methods.client.elicitation.create, ({ params }) => {
    const field = params.requestedSchema.properties.answer;
    const choices = (field.oneOf || []).map((c) => c.const);
    log({ kind: "elicitation", message: params.message, choices, toolCallId: params.toolCallId });
    return { action: "accept", content: { answer: choices[choices.length - 1] } };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    log({ kind: "fs_write", path: params.path, content: params.content });
    served[params.path] = params.content;
    return {};
  });

const text = (t) => [{ type: "text", text: t }];

async function call(ctx, method, params) {
  try {
    const result = await ctx.request(method, params);
    log({ kind: "response", method, result });
    return result;
  } catch (error) {
    if (error instanceof acp.RequestError) {
      log({ kind: "error", method, code: error.code, message: error.message });
      return undefined;
    }
    throw error;
  }
}

async function started(ctx, caps = {}) {
  await call(ctx, acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: caps,
    clientInfo: { name: "luxe-tests", version: "1" },
  });
  return call(ctx, acp.methods.agent.session.new, { cwd: dirA, mcpServers: [] });
}

const scenarios = {
  async basic(ctx) {
    const session = await started(ctx);
    await call(ctx, acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: text("hello") });
  },

  async permissions(ctx) {
    const { sessionId } = await started(ctx);
    for (const t of ["one", "two", "three", "four", "five"]) {
      await call(ctx, acp.methods.agent.session.prompt, { sessionId, prompt: text(t) });
    }
  },

  async cancel(ctx) {
    const { sessionId } = await started(ctx);
    const prompt = call(ctx, acp.methods.agent.session.prompt, { sessionId, prompt: text("long") });
    await waitFor((u) => u.update.sessionUpdate === "agent_message_chunk");
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
    await prompt;
  },

  async cancel_command(ctx) {
    const { sessionId } = await started(ctx);
    const prompt = call(ctx, acp.methods.agent.session.prompt, { sessionId, prompt: text("run") });
    await waitFor((u) => u.update.sessionUpdate === "tool_call_update" && u.update.status === "in_progress");
    log({ kind: "cancelling", at: Date.now() });
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
    await prompt;
    log({ kind: "cancelled", at: Date.now() });
  },

  async modes(ctx) {
    const { sessionId } = await started(ctx);
    await call(ctx, acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
    await call(ctx, acp.methods.agent.session.setMode, { sessionId, modeId: "bypass" });
    await call(ctx, acp.methods.agent.session.setMode, { sessionId, modeId: "read-only" });
    await call(ctx, acp.methods.agent.session.setConfigOption, { sessionId, configId: "thinking", value: "high" });
    await call(ctx, acp.methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "nope/x" });
    // bypass: the command runs without asking.
    await call(ctx, acp.methods.agent.session.prompt, { sessionId, prompt: text("run") });
  },

  async read_only(ctx) {
    const { sessionId } = await started(ctx);
    await call(ctx, acp.methods.agent.session.setMode, { sessionId, modeId: "bypass" });
    await call(ctx, acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
  },

  async load(ctx) {
    const { sessionId } = await started(ctx);
    await call(ctx, acp.methods.agent.session.prompt, { sessionId, prompt: text("remember the tool") });
    await call(ctx, acp.methods.agent.session.close, { sessionId });
    log({ kind: "mark", what: "load" });
    await call(ctx, acp.methods.agent.session.load, { sessionId, cwd: dirA, mcpServers: [] });
    await call(ctx, acp.methods.agent.session.close, { sessionId });
    log({ kind: "mark", what: "resume" });
    await call(ctx, acp.methods.agent.session.resume, { sessionId, cwd: dirA, mcpServers: [] });
    await call(ctx, acp.methods.agent.session.prompt, { sessionId, prompt: text("and now?") });
    log({ kind: "mark", what: "list" });
    await call(ctx, acp.methods.agent.session.list, { cwd: dirA });
    await call(ctx, acp.methods.agent.session.list, {});
  },

  // An editor that opens a thread and quits before anything is said in it.
  async new_only(ctx) {
    const { sessionId } = await started(ctx);
    await call(ctx, acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
    log({ kind: "mark", what: sessionId });
  },

  // The same editor restarted: it reopens the thread it recorded (SESSION_ID), loads it, then
  // resumes it and says something in it.
  async reopen(ctx) {
    await call(ctx, acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: "luxe-tests", version: "1" },
    });
    const sessionId = env.SESSION_ID;
    await call(ctx, acp.methods.agent.session.list, { cwd: dirA });
    await call(ctx, acp.methods.agent.session.load, { sessionId, cwd: dirA, mcpServers: [] });
    await call(ctx, acp.methods.agent.session.close, { sessionId });
    await call(ctx, acp.methods.agent.session.resume, { sessionId, cwd: dirA, mcpServers: [] });
    await call(ctx, acp.methods.agent.session.prompt, { sessionId, prompt: text("first words") });
    await call(ctx, acp.methods.agent.session.list, { cwd: dirA });
  },

  async two(ctx) {
    const a = await started(ctx);
    const b = await call(ctx, acp.methods.agent.session.new, { cwd: dirB, mcpServers: [] });
    // The first answer is slow; the second session's turn ends meanwhile.
    const first = call(ctx, acp.methods.agent.session.prompt, { sessionId: a.sessionId, prompt: text("slow") });
    await waitFor((u) => u.sessionId === a.sessionId && u.update.sessionUpdate === "agent_message_chunk");
    await call(ctx, acp.methods.agent.session.prompt, { sessionId: b.sessionId, prompt: text("fast") });
    log({ kind: "mark", what: "second done" });
    await first;
  },

  async fs(ctx) {
    const { sessionId } = await started(ctx, { fs: { readTextFile: true, writeTextFile: true } });
    await call(ctx, acp.methods.agent.session.prompt, { sessionId, prompt: text("read and write") });
  },

  async question(ctx) {
    const { sessionId } = await started(ctx, { elicitation: { form: {} } });
    await call(ctx, acp.methods.agent.session.prompt, { sessionId, prompt: text("ask me") });
  },

  async list(ctx) {
    await call(ctx, acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: "luxe-tests", version: "1" },
    });
    await call(ctx, acp.methods.agent.session.list, { cwd: dirA });
  },

  async bad(ctx) {
    await started(ctx);
    await call(ctx, acp.methods.agent.session.new, { cwd: "relative/dir", mcpServers: [] });
    await call(ctx, acp.methods.agent.session.new, { cwd: dirA + "/missing", mcpServers: [] });
    await call(ctx, acp.methods.agent.session.prompt, { sessionId: "no-such-session", prompt: text("x") });
    await call(ctx, "luxe/unknown_method", {});
    const { sessionId } = await call(ctx, acp.methods.agent.session.new, { cwd: dirB, mcpServers: [] });
    await call(ctx, acp.methods.agent.session.prompt, { sessionId, prompt: [
      { type: "resource", resource: { uri: `file://${dirB}/.env`, text: "TOKEN=never-shown-value" } },
    ] });
  },
};

try {
  await app.connectWith(stream, async (ctx) => {
    await scenarios[scenario](ctx);
  });
  log({ kind: "done" });
} catch (error) {
  log({ kind: "failed", error: String(error && error.stack || error) });
  process.exitCode = 1;
}
luxe.stdin.end();
const status = await exited;
log({ kind: "exit", ...status });
