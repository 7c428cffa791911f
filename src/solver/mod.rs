//! The roofline solver: pure functions from plain data to plain data.
//!
//! No I/O, no terminal, no globals, no panics. Quantities are SI base units
//! in `f64`; formatting happens at the edges (see [`units`]). Read in this
//! order: [`types`] (inputs), [`cost`] (what a step costs), [`roofline`]
//! (how long it takes), [`fit`] (memory), [`compare`] (fit verdicts,
//! speedups and why), [`ops`] (where the time of a step goes, operator by
//! operator), [`sensitivity`], [`synthesis`]
//! (inverse roofline), [`sweep`], [`serving`], [`economics`], [`fleet`].

pub mod batching;
pub mod calibration;
pub mod collective;
pub mod compare;
pub mod cost;
pub mod economics;
pub mod error;
pub mod explore;
pub mod fit;
pub mod fleet;
pub mod ops;
pub mod replica_scale;
pub mod roofline;
pub mod sensitivity;
pub mod serving;
pub mod sweep;
pub mod synthesis;
pub mod target;
pub mod training;
pub mod types;
pub mod units;
pub mod validation;

pub use error::SolverError;
pub use roofline::{Bottleneck, Evaluation, MemoryFit, Note, Parallelism, evaluate};
pub use sensitivity::{Param, Sensitivity, sensitivity};
pub use synthesis::{
    Match, NearestMiss, RankBy, Requirement, Resource, Shortfall, Target, nearest_miss, rank,
    synthesize,
};
pub use types::*;

#[cfg(test)]
mod compare_tests;
#[cfg(test)]
mod limits_tests;
#[cfg(test)]
mod refined_tests;
#[cfg(test)]
mod shape_tests;
#[cfg(test)]
mod tests;
