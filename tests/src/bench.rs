//! What the benchmarks in `benches/` share: medians, milliseconds, memory figures.

use std::time::Duration;

/// `d` in milliseconds, for printing.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The median of `runs` samples, after one warm-up sample that is not counted.
pub fn median(runs: usize, mut sample: impl FnMut() -> Duration) -> Duration {
    let _warm_up = sample();
    let mut times: Vec<Duration> = (0..runs).map(|_| sample()).collect();
    times.sort();
    times[runs / 2]
}

/// A memory field of `/proc/<pid>/status` in KiB (`field` such as `VmHWM`, the peak resident
/// set; `pid` may be `self`); 0 when it is not there.
pub fn proc_status_kib(pid: &str, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("procfs");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
