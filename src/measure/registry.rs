//! Every runner of the registry: one [`FormatRunner`](super::runner::FormatRunner) per entry of
//! `for_each_format!`, then one [`WindowRunner`](super::window_runner::WindowRunner) per entry of
//! `for_each_window_format!`. Apart from both runner files, so neither imports the other.

use super::runner::{runner, Runner};

macro_rules! boxed_runners {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {
        vec![$($(runner::<$F>()),+),*]
    };
}

macro_rules! boxed_window_runners {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {
        vec![$($(super::window_runner::runner::<$F>()),+),*]
    };
}

/// Every format under test: `for_each_format!`'s in order, then `for_each_window_format!`'s.
pub fn registry() -> Vec<Box<dyn Runner>> {
    let mut all = crate::for_each_format!(boxed_runners);
    all.extend(crate::for_each_window_format!(boxed_window_runners));
    all
}
