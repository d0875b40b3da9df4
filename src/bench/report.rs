//! The bench's last step: the report of its results folder, and the comparison with a baseline.

use std::path::Path;

use super::failure::Failure;
use super::resume;
use crate::capability::assess;
use crate::export::capabilities;
use crate::report;

/// `report/` from `runs.csv` and `hist/`, in this process; prints its summary, then the
/// comparison with `baseline` and the gate's verdict, when given.
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

pub(crate) fn write_report(
    out: &Path,
    baseline: Option<&Path>,
    gate: Option<report::baseline::Gate>,
) -> Result<(), Failure> {
    let csv = resume::runs_csv(out);
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
            ))
        }
        None => None,
    };
    if let (Some(c), Some(gate)) = (&against, gate) {
        if let Some(refused) = report::baseline::refusal(c, gate) {
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
    )
    .map_err(|e| fail(&e))?;
    // One line per kind of warning; each single warning is in summary.md and index.html.
    for g in report::warnings::group(&files.warnings, &summary) {
        eprintln!("warning: {}", g.summary);
    }
    if let Ok(md) = std::fs::read_to_string(report_dir.join("summary.md")) {
        println!("== summary across runs");
        print!("{md}");
        if !md.ends_with('\n') {
            println!();
        }
    }
    println!("report: {}/", report_dir.display());
    println!(
        "results: {} ({rows} rows), histograms in {}/",
        csv.display(),
        hist.display()
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
