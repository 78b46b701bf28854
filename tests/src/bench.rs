//! What the benchmarks in `benches/` share: medians, milliseconds, memory figures.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::model_server::ModelServer;

/// `d` in milliseconds, for printing.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The sections a run asks for: `cargo bench --bench NAME -- a b` runs those whose names
/// contain `a` or `b`; with none given, every one.
pub fn sections() -> impl Fn(&str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    move |name| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
}

/// The median of `runs` samples, after one warm-up sample that is not counted.
pub fn median(runs: usize, mut sample: impl FnMut() -> Duration) -> Duration {
    let _warm_up = sample();
    let mut times: Vec<Duration> = (0..runs).map(|_| sample()).collect();
    times.sort();
    times[runs / 2]
}

/// The medians of `runs` samples of `a` and of `b`, taken in turn (after one warm-up each), so
/// that a machine whose speed drifts, or work one sample leaves behind (processes still dying),
/// weighs on both alike.
pub fn medians_in_turn(
    runs: usize,
    mut a: impl FnMut() -> Duration,
    mut b: impl FnMut() -> Duration,
) -> (Duration, Duration) {
    let (_, _) = (a(), b());
    let (mut at, mut bt): (Vec<Duration>, Vec<Duration>) = (0..runs).map(|_| (a(), b())).unzip();
    at.sort();
    bt.sort();
    (at[runs / 2], bt[runs / 2])
}

/// A memory field of `/proc/<pid>/status` in KiB (`field` such as `VmHWM`, the peak resident
/// set; `pid` may be `self`); 0 when it is not there.
pub fn proc_status_kib(pid: &str, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("procfs");
    status_field_kib(&status, field)
}

/// A memory field of a `/proc/<pid>/status` text in KiB; 0 when it is not there.
fn status_field_kib(status: &str, field: &str) -> u64 {
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// User and system CPU time a process has used, in milliseconds (Linux `/proc`).
pub fn cpu_ms(pid: u32) -> (f64, f64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields[i].parse::<f64>().unwrap_or(0.0);
    // USER_HZ is 100 on Linux.
    (ticks(11) * 10.0, ticks(12) * 10.0)
}

/// The time every thread of a process has spent on a CPU, in milliseconds: the sum of
/// `/proc/<pid>/task/*/schedstat`'s first field, which the scheduler keeps in nanoseconds (the
/// ticks of [`cpu_ms`] are 10 ms, too coarse for a stream that takes 10).
pub fn cpu_on_core_ms(pid: u32) -> f64 {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("procfs");
    let ns: u64 = tasks
        .filter_map(|task| {
            let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
            stat.split_whitespace().next()?.parse::<u64>().ok()
        })
        .sum();
    ns as f64 / 1e6
}

/// Reads the server's response to one request straight off the socket, as a client with no
/// processing at all would; returns the time to the end of the body.
pub fn read_directly(server: &ModelServer, provider: Provider) -> Duration {
    let url = server.anthropic_base_url();
    let addr = url.trim_start_matches("http://");
    let body = json!({"model":"m","max_tokens":10,"messages":[{"role":"user","content":"x"}],"stream":true,"stream_options":{"include_usage":true}}).to_string();
    let (path, last) = match provider {
        Provider::Anthropic => ("/v1/messages", &b"message_stop"[..]),
        Provider::OpenAi => ("/v1/chat/completions", &b"[DONE]"[..]),
    };
    let start = Instant::now();
    let mut stream = TcpStream::connect(addr).expect("the model server accepts");
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("request written");
    let mut sink = Vec::with_capacity(32 << 20);
    stream.read_to_end(&mut sink).expect("response read");
    let elapsed = start.elapsed();
    assert!(
        sink.windows(last.len()).any(|w| w == last),
        "the whole stream arrived"
    );
    elapsed
}

/// Which wire format a stream speaks. The direct side reads the raw response to its end; luxe's
/// side reads luxe's frames line by line; the difference is luxe's work: HTTP, SSE and JSON
/// decoding, frame encoding, and the pipe.
#[derive(Clone, Copy, Debug)]
pub enum Provider {
    /// The Messages API.
    Anthropic,
    /// Chat Completions.
    OpenAi,
}

/// The median of samples already taken (the upper one of an even count); `None` for none.
pub fn median_of<T: PartialOrd + Copy>(mut samples: Vec<T>) -> Option<T> {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    samples.get(samples.len() / 2).copied()
}

/// The processes whose environment holds `HOME=home` (as they were started): a program run
/// with a `HOME` of its own and everything it started, daemons that left its process group
/// included (Codex leaves an app server running).
pub fn processes_with_home(home: &std::path::Path) -> Vec<u32> {
    let mut wanted = b"HOME=".to_vec();
    wanted.extend_from_slice(home.as_os_str().as_encoded_bytes());
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
            environ
                .split(|b| *b == 0)
                .any(|var| var == wanted.as_slice())
                .then_some(pid)
        })
        .collect()
}

/// The resident memory of `pids` in KiB, summed: now (`VmRSS`) and each one's peak (`VmHWM`,
/// so the second sum is an upper bound of their peak together). A process gone meanwhile
/// counts 0.
pub fn memory_kib(pids: &[u32]) -> (u64, u64) {
    pids.iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/status")).ok())
        .map(|s| (status_field_kib(&s, "VmRSS"), status_field_kib(&s, "VmHWM")))
        .fold((0, 0), |(rss, hwm), (r, h)| (rss + r, hwm + h))
}

/// User and system CPU time of the children this process has waited for, in milliseconds
/// (`getrusage(RUSAGE_CHILDREN)`, whose sum is the scheduler's exact runtime): its change across
/// one child's wait is that child's whole CPU time, its own waited-for children's included.
pub fn waited_children_cpu_ms() -> f64 {
    use nix::sys::resource::{UsageWho, getrusage};
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage of children");
    let ms = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 * 1e3 + t.tv_usec() as f64 / 1e3;
    ms(usage.user_time()) + ms(usage.system_time())
}
