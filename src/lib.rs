pub mod catalog;
pub mod cli;
pub mod solver;
