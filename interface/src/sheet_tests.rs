//! The GitHub sheets (`/github`, `/pr`, `/stack`, `/restack`): what opens them, what each key
//! sends, refusals where the person acted, and every sheet's screen at 80×24 and 120×40.

use luxe_core::protocol::events::{Ready, RequestFailed};
use luxe_core::protocol::github::{PreviewCommit, PullRequestOpened, PullRequestPreview};
use luxe_core::protocol::stack::{
    OldHead, RestackMove, RestackPlan, RestackPlanned, Restacked, RestackedBranch, RetargetFailed,
    RetargetPlace, StackDraft, StackPreview,
};

use super::*;

fn ready(ui: &mut Interface, github_writes: bool) {
    event(
        ui,
        Event::Ready(Ready {
            protocol_version: 2,
            luxe_version: "0".into(),
            session_id: "s".into(),
            cwd: "/work/widgets".into(),
            github_writes,
            read_only: false,
            resumed: false,
            started: None,
        }),
    );
}

fn command(ui: &mut Interface, now: Instant, line: &str) -> String {
    typed(ui, now, line);
    press(ui, now, Key::plain(KeyCode::Enter));
    let request = ui.next_request;
    format!("ui_{request}")
}

fn preview(request_id: &str) -> Event {
    Event::PullRequestPreview(Box::new(PullRequestPreview {
        request_id: request_id.into(),
        title: "Frob the widgets".into(),
        description: "Frobs them.\n\n- a1b2c3 frob".into(),
        base: "main".into(),
        head: "frobs".into(),
        commits: vec![PreviewCommit {
            sha: "a1b2c3d4e5f6".into(),
            subject: "frob".into(),
        }],
    }))
}

fn plan(request_id: &str) -> Event {
    let moving = |branch: &str, pr: u64, parent: &str, base: &str| RestackMove {
        branch: branch.into(),
        pull_request: pr,
        old_head: OldHead {
            local: "1111111122".into(),
            remote: Some("1111111122".into()),
        },
        old_parent: "00000000aa".into(),
        new_parent: parent.into(),
        new_parent_sha: (parent == "origin/main").then(|| "cafebabe99".into()),
        new_base: base.into(),
        commits: 2,
    };
    Event::RestackPlanned(Box::new(RestackPlanned {
        request_id: request_id.into(),
        plan: Some(RestackPlan {
            id: "plan_1".into(),
            branches: vec![
                moving("frobs-1-parse", 11, "origin/main", "main"),
                moving("frobs-2-render", 12, "frobs-1-parse", "frobs-1-parse"),
            ],
        }),
        refusal: None,
    }))
}

/// Every sheet's screen at one size.
fn sheet_screens(width: u16, height: u16) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let (mut ui, now) = interface(width, height);
    ready(&mut ui, true);
    dock(&mut ui);
    command(&mut ui, now, "/github");
    out.push(("sheet_github", screen(&mut ui)));
    press(&mut ui, now, Key::plain(KeyCode::Esc));
    let id = command(&mut ui, now, "/pr");
    event(&mut ui, preview(&id));
    out.push(("sheet_pull_request", screen(&mut ui)));
    event(
        &mut ui,
        Event::PullRequestOpened(PullRequestOpened {
            request_id: id,
            number: 8,
            url: "https://github.com/acme/widgets/pull/8".into(),
        }),
    );
    out.push(("sheet_pull_request_opened", screen(&mut ui)));
    press(&mut ui, now, Key::plain(KeyCode::Esc));
    let id = command(&mut ui, now, "/stack");
    let draft = |branch: &str, base: &str, title: &str| StackDraft {
        branch: branch.into(),
        base: base.into(),
        title: title.into(),
        description: String::new(),
    };
    event(
        &mut ui,
        Event::StackPreview(Box::new(StackPreview {
            request_id: id,
            pull_requests: vec![
                draft("frobs-1-parse", "main", "Parse frobs"),
                draft("frobs-2-render", "frobs-1-parse", "Render frobs"),
            ],
        })),
    );
    out.push(("sheet_stack", screen(&mut ui)));
    press(&mut ui, now, Key::plain(KeyCode::Esc));
    let id = command(&mut ui, now, "/restack");
    let planned = plan(&id);
    event(&mut ui, planned);
    out.push(("sheet_restack_plan", screen(&mut ui)));
    event(
        &mut ui,
        Event::Restacked(Restacked {
            plan_id: "plan_1".into(),
            request_id: Some(id),
            branches: vec![RestackedBranch {
                branch: "frobs-1-parse".into(),
                old_head: "1111111122".into(),
                new_head: "2222222233".into(),
                backup_ref: "refs/luxe/backup/frobs-1-parse".into(),
            }],
            retarget_failed: vec![RetargetFailed {
                branch: "frobs-2-render".into(),
                pull_request: Some(12),
                place: RetargetPlace::Github,
                reason: "gh pr edit failed: HTTP 502".into(),
            }],
        }),
    );
    out.push(("sheet_restacked_with_a_failure", screen(&mut ui)));
    let (mut off, now) = interface(width, height);
    ready(&mut off, false);
    let id = command(&mut off, now, "/pr");
    event(&mut off, preview(&id));
    press(&mut off, now, Key::plain(KeyCode::Enter));
    out.push(("sheet_refused_without_github_writes", screen(&mut off)));
    out
}

#[test]
fn sheets_at_80x24_and_120x40() {
    for (width, height) in [(80, 24), (120, 40)] {
        for (name, shown) in sheet_screens(width, height) {
            insta::assert_snapshot!(format!("{name}_{width}x{height}"), shown);
        }
    }
}

#[test]
fn the_pull_request_sheet_sends_the_edited_title_and_description() {
    let (mut ui, now) = interface(80, 24);
    ready(&mut ui, true);
    let id = command(&mut ui, now, "/pr");
    assert!(ui.sheet.is_some());
    assert!(
        screen(&mut ui).contains("drafting the pull request"),
        "waiting for the preview"
    );
    event(&mut ui, preview(&id));
    typed(&mut ui, now, "!");
    press(&mut ui, now, Key::plain(KeyCode::Tab));
    typed(&mut ui, now, "q");
    assert!(
        ui.sheet.is_some(),
        "q types into a field, it does not close"
    );
    let mut sheet = ui.sheet.clone().expect("open");
    let writes = crate::sheet::Writes {
        github: true,
        read_only: false,
    };
    let asked = sheet.key(Key::plain(KeyCode::Enter), writes);
    assert_eq!(
        asked,
        crate::sheet::Asked::Send(
            "open_pull_request",
            serde_json::json!({
                "request_id": id,
                "title": "Frob the widgets!",
                "description": "Frobs them.\n\n- a1b2c3 frobq",
            })
        )
    );
}

#[test]
fn a_failed_open_says_why_and_enter_tries_again() {
    let (mut ui, now) = interface(80, 24);
    ready(&mut ui, true);
    let id = command(&mut ui, now, "/pr");
    event(&mut ui, preview(&id));
    event(
        &mut ui,
        Event::PullRequestOpenFailed(RequestFailed {
            request_id: id.clone(),
            reason: "git push failed: rejected".into(),
        }),
    );
    assert!(screen(&mut ui).contains("✗ git push failed: rejected (Enter tries again)"));
    // An answer to another request changes nothing.
    event(
        &mut ui,
        Event::PullRequestOpenFailed(RequestFailed {
            request_id: "other".into(),
            reason: "not ours".into(),
        }),
    );
    assert!(!screen(&mut ui).contains("not ours"));
}

#[test]
fn without_github_writes_enter_sends_nothing_and_says_why() {
    let (mut ui, now) = interface(80, 24);
    ready(&mut ui, false);
    let id = command(&mut ui, now, "/restack");
    // plan_restack is a write: the session refuses it, and the sheet shows that.
    let shown = screen(&mut ui);
    assert!(shown.contains("GitHub writes are off"), "{shown}");
    event(&mut ui, plan(&id));
    let Some(sheet) = ui.sheet.as_mut() else {
        panic!("the /restack sheet")
    };
    let off = crate::sheet::Writes::default();
    assert_eq!(
        sheet.key(Key::plain(KeyCode::Enter), off),
        crate::sheet::Asked::Nothing
    );
    let writes = crate::sheet::Writes {
        github: true,
        read_only: false,
    };
    assert_eq!(
        sheet.key(Key::plain(KeyCode::Enter), writes),
        crate::sheet::Asked::Send(
            "restack",
            serde_json::json!({"plan_id": "plan_1", "request_id": id})
        )
    );
    press(&mut ui, now, Key::plain(KeyCode::Char('q')));
    assert!(ui.sheet.is_none());
}
