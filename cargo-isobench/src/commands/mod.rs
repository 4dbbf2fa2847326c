//! The commands that read git history and logs: each turns its arguments into work for
//! [`crate::mine`] (and, for `enrich`, a plan for [`crate::pipeline`]), so that `mine/`
//! stays a library the pipeline can use; `diff` compares two datasets; `completions` and
//! `man` describe the command line itself.

pub mod diff;
pub mod enrich;
pub mod manual;
pub mod mine;
pub mod timings;
