//! Every integration test, in one binary: one module per area (linking sixteen test binaries
//! separately cost more than running them). Shared fixtures live in `common`.

/// The counting allocator, as the `shootout` binary installs it: runs made through the library
/// count each format's allocations (`FormatResult::allocations`), as `shootout run` does.
#[global_allocator]
static GLOBAL: md_shootout::alloc_count::CountingAlloc = md_shootout::alloc_count::CountingAlloc;

mod common;

mod add_a_format;
mod allocations;
mod by_type;
mod capture;
mod cli_doc;
mod cli_errors;
mod corrupt_input;
mod crash_safety;
mod cut_short;
mod decision;
mod deep_plus;
mod deploy;
mod doc_examples;
mod doc_facts;
mod doc_links;
mod fetch;
mod format_names;
mod formats;
mod fuzz_regressions;
mod gate;
mod gen;
mod gen_deep_plus;
mod gen_like;
mod golden_encodings;
mod held_back;
mod iex_golden;
mod instructions;
mod jobs;
mod memory;
mod realdata;
mod report;
mod report_answer;
mod resync;
mod robustness;
mod roundtrip;
mod run;
mod run_script;
mod sample;
mod schema_v2;
mod schemas_current;
mod trusting;
mod verdict_runs;
mod window_format;
