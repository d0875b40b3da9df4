//! How the results CSV's columns are declared: once, in file order ([`super::csv`]'s
//! `columns!` list), and the row type, its header, the columns every file must have and each
//! workload's cells as a group all come from that list, so none of them can drift from another.

/// A latency cell as ns: its statistics are counts of ns but for the mean.
pub trait Ns: Copy {
    fn ns(self) -> f64;
}

impl Ns for u64 {
    fn ns(self) -> f64 {
        self as f64
    }
}

impl Ns for f64 {
    fn ns(self) -> f64 {
        self
    }
}

/// Declares `Row` (its fields in column order, serde's names the columns'), `Latency` (one
/// workload's latency cells), `COLUMNS` (the header) and `REQUIRED` (the columns up to the
/// last required one, the first header `run` wrote) from one list:
///
/// - `statistics { p50: u64, … }`: the statistics of a workload's latency columns, in order;
/// - `required { … }` then `optional { … }`: the columns. An optional column's type is wrapped
///   in `Option` and defaults to `None`, so files from before it still load.
///
/// A column is `name: Type`; `latency ser = Encode` is one workload's statistics
/// (`ser_p50_ns` … `ser_total_ns`, each an `Option` that is empty where not measured; whether
/// the column must be in the header is `required()`'s to say), read and written with
/// `Row::latency`/`Row::set_latency`; `per_workload batch = _batch_ns: f64` is a cell per
/// workload (`ser_batch_ns`, `de_batch_ns`, `de_all_batch_ns`), read with `Row::batch` and
/// written with `Row::set_batch`.
macro_rules! columns {
    (
        statistics { $($s:ident: $st:ty),* $(,)? }
        required { $(#[$m:meta])* $first:ident: $t:ty, $($required:tt)* }
        optional { $($optional:tt)* }
    ) => {
        $crate::export::columns::columns! { @munch required [$($s: $st),*]
            [$(#[$m])* pub $first: $t,] [] [stringify!($first)] [] [];
            $($required)* @optional { $($optional)* } }
    };
    // The required columns are done: what has been named so far is what every file has.
    (@munch required $stats:tt $fields:tt $impls:tt [$($n:tt)*] $arms:tt [];
        @optional { $($rest:tt)* }) => {
        $crate::export::columns::columns! { @munch optional $stats $fields $impls
            [$($n)*] $arms [$($n)*]; $($rest)* }
    };
    (@munch $mode:ident [$($s:ident: $st:ty),*] [$($field:tt)*] [$($impl:tt)*] [$($n:tt)*]
        [$($arm:tt)*] $req:tt; latency $w:ident = $W:ident, $($rest:tt)*) => {
        $crate::export::columns::columns! { @munch $mode [$($s: $st),*]
            [$($field)* $(
                #[doc = "`" $w "`'s " $s ", ns: see [`Row::latency`]."]
                #[serde(default)] pub [<$w _ $s _ns>]: Option<$st>,
            )*]
            [$($impl)*
                fn [<$w _latency>](&self) -> Latency {
                    Latency { $($s: self.[<$w _ $s _ns>]),* }
                }
                fn [<set_ $w _latency>](&mut self, cells: Latency) {
                    $(self.[<$w _ $s _ns>] = cells.$s;)*
                }
            ]
            [$($n)* $(, ",", concat!(stringify!($w), "_", stringify!($s), "_ns"))*]
            [$($arm)* $w = $W] $req; $($rest)* }
    };
    (@munch $mode:ident $stats:tt [$($field:tt)*] [$($impl:tt)*] [$($n:tt)*] $arms:tt
        $req:tt; $(#[$m:meta])* per_workload $get:ident = $suffix:ident: $t:ty, $($rest:tt)*) => {
        $crate::export::columns::columns! { @munch $mode $stats
            [$($field)*
                $(#[$m])* #[serde(default)] pub [<ser $suffix>]: Option<$t>,
                #[serde(default)] pub [<de $suffix>]: Option<$t>,
                #[serde(default)] pub [<de_all $suffix>]: Option<$t>,
            ]
            [$($impl)*
                #[doc = "The `*" $suffix "` cells, per workload."]
                pub fn $get(&self) -> $crate::measure::PerWorkload<Option<$t>> {
                    $crate::measure::PerWorkload(
                        [self.[<ser $suffix>], self.[<de $suffix>], self.[<de_all $suffix>]],
                    )
                }
                #[doc = "Sets the `*" $suffix "` cells."]
                pub fn [<set_ $get>](&mut self, cells: $crate::measure::PerWorkload<Option<$t>>) {
                    [self.[<ser $suffix>], self.[<de $suffix>], self.[<de_all $suffix>]] = cells.0;
                }
            ]
            [$($n)*, ",", concat!("ser", stringify!($suffix)), ",",
                concat!("de", stringify!($suffix)), ",", concat!("de_all", stringify!($suffix))]
            $arms $req; $($rest)* }
    };
    (@munch required $stats:tt [$($field:tt)*] $impls:tt [$($n:tt)*] $arms:tt $req:tt;
        $(#[$m:meta])* $name:ident: $t:ty, $($rest:tt)*) => {
        $crate::export::columns::columns! { @munch required $stats [$($field)* $(#[$m])* pub $name: $t,]
            $impls [$($n)*, ",", stringify!($name)] $arms $req; $($rest)* }
    };
    (@munch optional $stats:tt [$($field:tt)*] $impls:tt [$($n:tt)*] $arms:tt
        $req:tt; $(#[$m:meta])* $name:ident: $t:ty, $($rest:tt)*) => {
        $crate::export::columns::columns! { @munch optional $stats
            [$($field)* $(#[$m])* #[serde(default)] pub $name: Option<$t>,]
            $impls [$($n)*, ",", stringify!($name)] $arms $req; $($rest)* }
    };
    (@munch optional [$($s:ident: $st:ty),*] [$($field:tt)*] [$($impl:tt)*]
        [$($n:tt)*] [$($w:ident = $W:ident)*] [$($req:tt)*];) => {
        paste::paste! {
            /// One CSV row, as `run` writes it and `shootout report` reads it back; field order is
            /// column order. The columns up to `git_rev` are [`required`]; every later one was
            /// added since, so it is optional (`None` for an empty cell or a file from before it)
            /// and old CSVs still load.
            #[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
            pub struct Row {
                $($field)*
            }

            impl Row {
                $($impl)*

                /// `workload`'s latency cells.
                pub fn latency(&self, workload: $crate::measure::Workload) -> Latency {
                    match workload {
                        $($crate::measure::Workload::$W => self.[<$w _latency>](),)*
                    }
                }

                /// Sets `workload`'s latency cells.
                pub fn set_latency(&mut self, workload: $crate::measure::Workload, cells: Latency) {
                    match workload {
                        $($crate::measure::Workload::$W => self.[<set_ $w _latency>](cells),)*
                    }
                }
            }
        }

        /// One workload's latency cells: empty on the row of a format timed only per window
        /// (`latency_note` says why), never a zero that would read as a measurement.
        #[derive(Debug, Clone, Copy, Default, PartialEq)]
        pub struct Latency {
            $(pub $s: Option<$st>,)*
        }

        impl Latency {
            /// The statistics as their columns name them (`ser_p999_ns` is p99.9), in order.
            pub const STATISTICS: [&str; [$(stringify!($s)),*].len()] = [$(stringify!($s)),*];

            /// The cells of a workload timed per unit.
            pub fn of(p: &$crate::measure::stats::Percentiles) -> Latency {
                Latency { $($s: Some(p.$s)),* }
            }

            /// The cells as ns, in [`Latency::STATISTICS`] order.
            pub fn ns(&self) -> [Option<f64>; Self::STATISTICS.len()] {
                use $crate::export::columns::Ns as _;
                [$(self.$s.map(|x| x.ns())),*]
            }
        }

        /// The header line, as written: [`Row`]'s fields in order.
        pub const COLUMNS: &str = concat!($($n)*);

        /// The columns every results CSV has, as a header.
        const REQUIRED: &str = concat!($($req)*);
    };
}

pub(crate) use columns;
