//! Stacks of branches, pure: the names `commit_review_chapters{stack}` gives its branches, the
//! chain of branches a stack is made of, the descriptions that list a stack, what git prints
//! about refs and commits, and the restack planner. The session runs the commands
//! (`session/stack.rs`) on the step-runner of `crate::steps`.

pub mod chain;
pub mod describe;
pub mod git;
pub mod graph;
pub mod names;
pub mod open;
pub mod plan_flow;
pub mod preview;
pub mod refs;
pub mod restack;
pub mod restack_planner;

#[cfg(test)]
mod fuzz_tests {
    quickcheck::quickcheck! {
        /// The fuzz body on random bytes, so `cargo test` runs it too.
        fn flows_survive_any_output(data: Vec<u8>) -> bool {
            crate::harness::stack_flows(&data);
            true
        }
    }
}
