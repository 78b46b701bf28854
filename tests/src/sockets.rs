//! Which sockets a process holds that accept connections or datagrams (Linux `/proc`).

use std::collections::BTreeSet;
use std::fs;

/// Descriptions of the listening sockets `pid` holds: TCP in LISTEN, bound UDP, and unix
/// sockets that accept connections. Empty when it listens on nothing.
pub fn listening_sockets(pid: u32) -> Vec<String> {
    let inodes = socket_inodes(pid);
    let mut found = Vec::new();
    for table in ["tcp", "tcp6", "udp", "udp6"] {
        let Ok(text) = fs::read_to_string(format!("/proc/{pid}/net/{table}")) else {
            continue;
        };
        for row in text.lines().skip(1) {
            let cols: Vec<&str> = row.split_whitespace().collect();
            let (Some(local), Some(state), Some(inode)) = (cols.get(1), cols.get(3), cols.get(9))
            else {
                continue;
            };
            let listening = if table.starts_with("tcp") {
                *state == "0A"
            } else {
                !local.ends_with(":0000")
            };
            if listening && inodes.contains(*inode) {
                found.push(format!("{table} {local} inode {inode}"));
            }
        }
    }
    if let Ok(text) = fs::read_to_string(format!("/proc/{pid}/net/unix")) {
        for row in text.lines().skip(1) {
            let cols: Vec<&str> = row.split_whitespace().collect();
            let (Some(flags), Some(inode)) = (cols.get(3), cols.get(6)) else {
                continue;
            };
            // __SO_ACCEPTCON: the socket called listen().
            let accepts = u32::from_str_radix(flags, 16).is_ok_and(|f| f & 0x0001_0000 != 0);
            if accepts && inodes.contains(*inode) {
                found.push(format!("unix {} inode {inode}", cols.get(7).unwrap_or(&"")));
            }
        }
    }
    found
}

/// The inodes of every socket among the process's open file descriptors.
pub fn socket_inodes(pid: u32) -> BTreeSet<String> {
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return BTreeSet::new();
    };
    fds.filter_map(|fd| fs::read_link(fd.ok()?.path()).ok())
        .filter_map(|target| {
            let target = target.to_string_lossy().into_owned();
            Some(
                target
                    .strip_prefix("socket:[")?
                    .strip_suffix(']')?
                    .to_owned(),
            )
        })
        .collect()
}
