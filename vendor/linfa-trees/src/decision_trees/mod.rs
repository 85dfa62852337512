mod algorithm;
mod hyperparams;
mod iter;
mod tikz;

pub use algorithm::*;
pub use hyperparams::*;
pub use iter::*;
pub use tikz::*;
