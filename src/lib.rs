pub mod solver;
pub mod catalog;
