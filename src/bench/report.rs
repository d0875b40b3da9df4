//! The bench's last step: the report of its results folder, and the comparison with a baseline.

use std::path::Path;

use super::failure::Failure;
use super::resume;
use crate::capability::assess;
use crate::export::capabilities;
use crate::report;

/// `formats.json`: every format's capabilities, checked now (seconds), where the folder lacks
/// them (a resumed folder keeps its own). A failure is a warning: the report is made without.
pub(crate) fn write_capabilities(out: &Path) {
    let path = out.join(capabilities::FILE);
    if path.is_file() {
        return;
    }
    println!("== formats: schema, zero-copy, validation, evolution, other languages (seconds)");
    let written = assess::assess_sample(&assess::default_scratch())
        .and_then(|rows| capabilities::write(&rows, &path).map_err(|e| e.to_string()));
    if let Err(e) = written {
        eprintln!("warning: the formats' capabilities were not checked: {e}");
    }
}

/// `report/` from `runs.csv` and `hist/`, in this process; prints its summary, then the
/// comparison with `baseline` and the gate's verdict, when given.
/// `verbose`: the whole summary.md; otherwise each input's verdict table only.
pub(crate) fn write_report(
    out: &Path,
    baseline: Option<&Path>,
    gate: Option<report::baseline::Gate>,
    verbose: bool,
) -> Result<(), Failure> {
    let csv = out.join(resume::RUNS);
    let hist = out.join("hist");
    let report_dir = out.join("report");
    let fail = |e: &dyn std::fmt::Display| {
        Failure::Failed(format!(
            "the report failed: {e}; the results are in {} and {}/",
            csv.display(),
            hist.display()
        ))
    };
    let runs = report::load(std::slice::from_ref(&csv)).map_err(|e| fail(&e))?;
    let rows = std::fs::read_to_string(&csv)
        .map(|t| t.lines().count().saturating_sub(1))
        .unwrap_or(0);
    let summary = report::summarize(&runs);
    let against = match baseline {
        Some(b) => {
            let old = report::load(&[b.to_path_buf()]).map_err(|e| fail(&e))?;
            Some(report::baseline::compare(
                &summary,
                &report::summarize(&old),
                gate.map(|g| g.on).unwrap_or_default(),
            ))
        }
        None => None,
    };
    if let (Some(c), Some(_)) = (&against, gate) {
        if let Some(refused) = report::baseline::refusal(c) {
            return Err(Failure::Usage(format!(
                "{refused}; the results are in {}",
                csv.display()
            )));
        }
    }
    let decision = report::decision::Decision::load(std::slice::from_ref(&csv), None, Vec::new())
        .map_err(|e| fail(&e))?;
    let files = report::write_report_with(
        &summary,
        std::slice::from_ref(&hist),
        &report_dir,
        against.as_ref(),
        &decision,
        &report::by_type::Types::of(&runs, None).map_err(|e| fail(&e))?,
    )
    .map_err(|e| fail(&e))?;
    if verbose {
        if let Ok(md) = std::fs::read_to_string(report_dir.join("summary.md")) {
            println!("== summary across runs");
            print!("{md}");
            if !md.ends_with('\n') {
                println!();
            }
        }
    } else {
        println!(
            "== the verdicts (why each cell says what it says, the notes and the charts: \
             report/summary.md and report/index.html)"
        );
        print!("{}", files.verdicts);
    }
    // One line per kind of warning; each single warning is in summary.md and index.html.
    let groups = report::warnings::group(&files.warnings, &summary);
    eprint!("{}", report::terminal::warnings(&groups));
    println!("report: {}/ (open index.html)", report_dir.display());
    let logs = out.join("logs");
    println!(
        "results: {} ({rows} rows), histograms in {}/{}",
        csv.display(),
        hist.display(),
        if logs.is_dir() {
            format!(", each run's own output in {}/", logs.display())
        } else {
            String::new()
        }
    );
    if let Some(c) = &against {
        println!("{}", report::baseline::text(c).trim_end());
        if let Some(gate) = gate {
            let (lines, failed) = report::baseline::check(c, gate);
            println!("{}", lines.trim_end());
            if let Some(failed) = failed {
                return Err(Failure::Regressed(failed));
            }
        }
    }
    Ok(())
}
