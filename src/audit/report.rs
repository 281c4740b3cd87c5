//! How the statistics read: a text table, and a self-contained HTML report
//! (inline SVG, no external resources) with the verdict first, then each test
//! with its plot and its numbers.

use std::fmt::Write;

use fairdeal_stats::evidence::{Outcome, StatsReport, Verdict};
use fairdeal_stats::format_p_value;

/// The CSS class that colours a verdict in the HTML report.
fn verdict_class(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "pass",
        Verdict::Warn => "warn",
        Verdict::Fail => "fail",
        Verdict::Insufficient => "insufficient",
    }
}

/// A verdict in words, as every report writes it.
pub fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "PASS",
        Verdict::Warn => "WARN",
        Verdict::Fail => "FAIL",
        Verdict::Insufficient => "NOT ENOUGH DATA",
    }
}

fn summary_line(test: &Outcome) -> String {
    match (test.p_value, test.needed) {
        (Some(p), _) => format!(
            "{}: {} (statistic {:.2}{}, p = {}, {} samples)",
            test.name,
            verdict_word(test.verdict),
            test.statistic.unwrap_or_default(),
            test.df.map(|df| format!(", {df} df")).unwrap_or_default(),
            format_p_value(p),
            test.samples
        ),
        (None, Some(needed)) => format!(
            "{}: not enough data ({} samples; needs about {needed} for every expected count to reach 5)",
            test.name, test.samples
        ),
        (None, None) => format!("{}: no samples of this kind", test.name),
    }
}

/// The statistics as text lines.
pub fn text(stats: &StatsReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "statistics ({} tests with enough data; fail below p = {:.0e} / k, warn below {:.2} / k):",
        stats.tests_run, stats.alpha_fail, stats.alpha_warn
    );
    for test in &stats.tests {
        let _ = writeln!(out, "  {}", summary_line(test));
    }
    let _ = writeln!(out, "statistics verdict: {}", verdict_word(stats.verdict));
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Observed (bars) against expected (ticks), one group per cell.
fn bars_svg(test: &Outcome) -> String {
    let cells = &test.cells;
    if cells.is_empty() {
        return String::new();
    }
    let many = cells.len() > 20;
    let (width, height, pad) = (if many { 1020.0 } else { 640.0 }, 220.0, 30.0);
    let max = cells
        .iter()
        .map(|c| (c.observed as f64).max(c.expected))
        .fold(1.0, f64::max);
    let slot = (width - 2.0 * pad) / cells.len() as f64;
    let mut svg = format!(
        "<svg viewBox=\"0 0 {width} {}\" role=\"img\" aria-label=\"observed against expected for {}\">",
        height + 60.0,
        escape(test.name)
    );
    for (i, cell) in cells.iter().enumerate() {
        let x = pad + i as f64 * slot;
        let h = cell.observed as f64 / max * height;
        let e = cell.expected / max * height;
        let _ = write!(
            svg,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" class=\"obs\"><title>{}: observed {}, expected {:.1}</title></rect>\
             <line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" class=\"exp\"/>",
            x + slot * 0.1,
            height - h + 10.0,
            slot * 0.8,
            h,
            escape(&cell.label),
            cell.observed,
            cell.expected,
            x + slot * 0.05,
            x + slot * 0.95,
            height - e + 10.0,
            height - e + 10.0
        );
        if !many {
            let _ = write!(
                svg,
                "<text x=\"{:.1}\" y=\"{:.1}\" class=\"label\">{}</text>",
                x + slot / 2.0,
                height + 28.0,
                escape(&cell.label)
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// Card × position: standardised residuals, blue below expectation, red above.
fn heat_map_svg(residuals: &[Vec<f64>]) -> String {
    let cell = 10.0;
    let mut svg = format!(
        "<svg viewBox=\"0 0 {0} {0}\" role=\"img\" aria-label=\"card by position residuals\" class=\"heat\">",
        52.0 * cell + 40.0
    );
    for (card, row) in residuals.iter().enumerate() {
        for (pos, r) in row.iter().enumerate() {
            let t = (r / 4.0).clamp(-1.0, 1.0);
            let (red, green, blue) = if t >= 0.0 {
                (255.0, 255.0 * (1.0 - t), 255.0 * (1.0 - t))
            } else {
                (255.0 * (1.0 + t), 255.0 * (1.0 + t), 255.0)
            };
            let _ = write!(
                svg,
                "<rect x=\"{}\" y=\"{}\" width=\"{cell}\" height=\"{cell}\" fill=\"rgb({:.0},{:.0},{:.0})\"><title>{} at position {}: residual {:.2}</title></rect>",
                40.0 + pos as f64 * cell,
                card as f64 * cell,
                red,
                green,
                blue,
                fairdeal_core::Card::from_deck_index(card),
                pos + 1,
                r
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// A self-contained HTML report. `verification` is the audit's summary lines,
/// shown first when there are any.
pub fn html(title: &str, verification: &[String], overall: &str, stats: &StatsReport) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <title>{}</title><style>\
         body{{font:15px/1.45 system-ui,sans-serif;max-width:1080px;margin:0 auto;padding:16px;color:#1d2430}}\
         .verdict{{font-size:1.4rem;font-weight:700;padding:10px 14px;border-radius:8px;display:inline-block}}\
         .pass{{background:#e3f4e8;color:#1b7a3a}} .warn{{background:#fff4d6;color:#7a5600}}\
         .fail{{background:#fde7e5;color:#b3261e}} .insufficient{{background:#eef1f6;color:#394457}}\
         section{{border-top:1px solid #d5d9e0;margin-top:18px;padding-top:8px}}\
         table{{border-collapse:collapse;font-size:.9rem}} td,th{{border-bottom:1px solid #e3e6ea;padding:3px 8px;text-align:right}}\
         td:first-child,th:first-child{{text-align:left}} svg{{max-width:100%;height:auto}}\
         .obs{{fill:#5b7fd6}} .exp{{stroke:#111;stroke-width:2}} .label{{font-size:11px;text-anchor:middle}}\
         details{{margin:6px 0}}\
         </style></head><body><h1>{}</h1>",
        escape(title),
        escape(title)
    );
    let class = verdict_class(stats.verdict);
    let _ = write!(
        out,
        "<p class=\"verdict {class}\">{}</p><ul>",
        escape(overall)
    );
    for line in verification {
        let _ = write!(out, "<li>{}</li>", escape(line));
    }
    for test in &stats.tests {
        let _ = write!(out, "<li>{}</li>", escape(&summary_line(test)));
    }
    let _ = write!(
        out,
        "</ul><p>Each test fails below p = {} / k and warns below p = {} / k, where k = {} is the number of tests \
         with enough data (Bonferroni): for a fair deck, the chance that any test fails is at most {}.</p>",
        stats.alpha_fail, stats.alpha_warn, stats.tests_run, stats.alpha_fail
    );
    for test in &stats.tests {
        let _ = write!(
            out,
            "<section><h2>{} <span class=\"verdict {}\">{}</span></h2><p>{}</p><p>{}</p>",
            escape(test.name),
            verdict_class(test.verdict),
            verdict_word(test.verdict),
            escape(test.what),
            escape(&summary_line(test))
        );
        if let Some(residuals) = &test.residuals {
            out.push_str(&heat_map_svg(residuals));
        }
        out.push_str(&bars_svg(test));
        if !test.cells.is_empty() {
            let _ = write!(
                out,
                "<details><summary>Numbers</summary><table><tr><th>cell</th><th>observed</th><th>expected</th><th>(O−E)/√E</th></tr>"
            );
            for cell in &test.cells {
                let _ = write!(
                    out,
                    "<tr><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.2}</td></tr>",
                    escape(&cell.label),
                    cell.observed,
                    cell.expected,
                    (cell.observed as f64 - cell.expected) / cell.expected.sqrt()
                );
            }
            out.push_str("</table></details>");
        }
        out.push_str("</section>");
    }
    out.push_str("</body></html>\n");
    out
}
