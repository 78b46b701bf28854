// A small client of `luxe --rpc`, written as a front-end author would start one: against the
// types json-schema-to-typescript generates from docs/protocol.schema.json, nothing by hand.
// tests/tests/client_author.rs generates `protocol.ts` beside a copy of this file and checks both
// with `tsc --strict --noEmit`. The transport (a child process's stdin and stdout) is the host's,
// so the check needs no Node types.

import type {
  Action,
  Anchor,
  AnchorLine,
  Event,
  FileBefore,
  Finding,
  Mode,
  PermissionRequested,
  QuestionAsked,
  Ready,
  Review,
  ReviewTarget,
  ReviewTargetPullRequest,
  SessionSummary,
  Severity,
  Side,
} from "./protocol.js";

/** The protocol version this client speaks: it refuses any other. */
const PROTOCOL_VERSION = 2;

/** Where the client's actions go: one frame per line on luxe's stdin. */
export interface Outbox {
  send(action: Action): void;
}

/** What the client has seen so far. */
export interface Seen {
  ready?: Ready;
  mode?: Mode;
  text: string;
  review?: Review;
  findings: string[];
  sessions: SessionSummary[];
  /** Kinds these types do not know: luxe adds kinds without a version bump. */
  unknown: string[];
}

/** A frame as read, before its kind is known to be one the generated `Event` types. */
interface Frame {
  kind: string;
  content?: unknown;
}

/** Reads one line of luxe's stdout. */
export function onLine(line: string, seen: Seen, out: Outbox): void {
  const frame = JSON.parse(line) as Frame;
  if (seen.ready === undefined && frame.kind !== "ready") {
    throw new Error(`the first frame is ${frame.kind}, not ready`);
  }
  // `Event` types the kinds of the schema these types came from. The union is open, so a
  // frame is typed as one only to dispatch on `kind`, and `default` keeps every other kind.
  const event = frame as Event;
  switch (event.kind) {
    case "ready":
      if (event.content.protocol_version !== PROTOCOL_VERSION) {
        throw new Error(`protocol ${event.content.protocol_version} is not ${PROTOCOL_VERSION}`);
      }
      seen.ready = event.content;
      out.send(listSessions("sessions"));
      break;
    case "state_changed":
      seen.mode = event.content.mode;
      break;
    case "token_delta":
      seen.text += event.content.delta;
      break;
    case "permission_requested":
      out.send(allowOnce(event.content));
      break;
    case "question_asked":
      out.send(dismiss(event.content));
      break;
    case "tool_finished":
      seen.text += describeBefore(event.content.before);
      break;
    case "sessions_listed":
      seen.sessions = event.content.sessions;
      break;
    case "guided_review_loaded":
      seen.review = event.content.review;
      break;
    case "review_session_saved":
      seen.findings = event.content.session.findings.map(describeFinding);
      break;
    default:
      seen.unknown.push(frame.kind);
  }
}

/** `submit_user_message`: starts a turn. */
export function submit(text: string): Action {
  return { kind: "submit_user_message", content: { text } };
}

/** `load_guided_review` of `target`. */
export function loadReview(requestId: string, target: ReviewTarget): Action {
  return { kind: "load_guided_review", content: { request_id: requestId, target } };
}

/** The review of pull request `number` of this repository. */
export function pullRequest(number: number): ReviewTargetPullRequest {
  return { kind: "pull_request", number };
}

/** `list_sessions`. */
export function listSessions(requestId: string): Action {
  return { kind: "list_sessions", content: { request_id: requestId } };
}

/** `respond_permission`: allows this call only. */
export function allowOnce(prompt: PermissionRequested): Action {
  return { kind: "respond_permission", content: { id: prompt.id, reply: "once" } };
}

/** `answer_question`: no answer. */
export function dismiss(question: QuestionAsked): Action {
  return { kind: "answer_question", content: { id: question.id, reply: "dismissed" } };
}

/** What a write replaced, in a few words. */
function describeBefore(before: FileBefore | null | undefined): string {
  if (before === null || before === undefined) {
    return "";
  }
  switch (before.kind) {
    case "absent":
      return "(new file)";
    case "text":
      return `(replaced ${before.text.length} characters)`;
    case "unshown":
      return "(replaced a file not shown)";
  }
}

/** `question src/lib.rs:new 12: Why 40?` */
function describeFinding(finding: Finding): string {
  const severity: Severity = finding.severity;
  return `${severity} ${where(finding.anchor)}: ${finding.thread[0]?.body ?? ""}`;
}

/** Where an anchor points. */
function where(anchor: Anchor): string {
  switch (anchor.kind) {
    case "line":
      return atLine(anchor);
    case "range":
      return `${anchor.file_id}:${anchor.side} ${anchor.start_line}-${anchor.end_line}`;
    case "hunk":
      return `${anchor.file_id} ${anchor.hunk_id}`;
    case "file":
      return anchor.file_id;
  }
}

function atLine(anchor: AnchorLine): string {
  const side: Side = anchor.side;
  return `${anchor.file_id}:${side} ${anchor.line}`;
}
