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
            "{}: {} (statistic {:.2}{}, p {}, {} {})",
            test.name,
            verdict_word(test.verdict),
            test.statistic.unwrap_or_default(),
            test.df.map(|df| format!(", {df} df")).unwrap_or_default(),
            // `= 0.0123`, or `< 1e-300` for what underflows.
            match format_p_value(p) {
                text if text.starts_with('<') => text,
                text => format!("= {text}"),
            },
            test.samples,
            test.unit
        ),
        (None, Some(needed)) => format!(
            "{}: not enough data ({} {unit}; needs about {needed} {unit} in all, for every expected count to reach 5)",
            test.name,
            test.samples,
            unit = test.unit
        ),
        (None, None) => format!("{}: no {} in the input", test.name, test.unit),
    }
}

/// Where a report's numbers came from, shown at its foot.
#[derive(Clone, Debug)]
pub struct Provenance {
    /// The source as given (a file, `-`, or a URL).
    pub source: String,
    /// Lowercase hex SHA-256 of the bytes read.
    pub sha256: String,
    /// How many bytes were read.
    pub bytes: u64,
    /// When the report was made (RFC 3339 UTC).
    pub generated_at: String,
    /// The command line that made it.
    pub command: String,
}

/// A headline verdict at the top of the HTML report, coloured by itself.
#[derive(Clone, Debug)]
pub struct Headline {
    pub verdict: Verdict,
    pub text: String,
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

/// Card × position: standardised residuals, blue below expectation, red
/// above, with both axes labelled and a colour legend.
fn heat_map_svg(residuals: &[Vec<f64>]) -> String {
    const CELL: f64 = 10.0;
    const LEFT: f64 = 60.0;
    const TOP: f64 = 24.0;
    let grid = 52.0 * CELL;
    let colour = |r: f64| {
        let t = (r / 4.0).clamp(-1.0, 1.0);
        let (red, green, blue) = if t >= 0.0 {
            (255.0, 255.0 * (1.0 - t), 255.0 * (1.0 - t))
        } else {
            (255.0 * (1.0 + t), 255.0 * (1.0 + t), 255.0)
        };
        format!("rgb({red:.0},{green:.0},{blue:.0})")
    };
    let mut svg = format!(
        "<svg viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"card by position residuals\" class=\"heat\">",
        LEFT + grid + 20.0,
        TOP + grid + 90.0
    );
    let _ = write!(
        svg,
        "<text class=\"label\" x=\"{}\" y=\"14\">position in the shuffled deck (1 = top)</text>\
         <text class=\"label\" transform=\"translate(14 {}) rotate(-90)\">card, in deck order (2♣ … A♠)</text>",
        LEFT + grid / 2.0,
        TOP + grid / 2.0
    );
    for tick in [1usize, 13, 26, 39, 52] {
        let _ = write!(
            svg,
            "<text class=\"label\" x=\"{}\" y=\"{}\">{tick}</text>",
            LEFT + (tick as f64 - 0.5) * CELL,
            TOP + grid + 12.0
        );
        let _ = write!(
            svg,
            "<text class=\"label\" x=\"{}\" y=\"{}\">{}</text>",
            LEFT - 16.0,
            TOP + (tick as f64 - 0.5) * CELL + 4.0,
            fairdeal_core::Card::from_deck_index(tick - 1)
        );
    }
    for (card, row) in residuals.iter().enumerate() {
        for (pos, &r) in row.iter().enumerate() {
            let _ = write!(
                svg,
                "<rect x=\"{}\" y=\"{}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"{}\"><title>{} at position {}: residual {:.2}</title></rect>",
                LEFT + pos as f64 * CELL,
                TOP + card as f64 * CELL,
                colour(r),
                fairdeal_core::Card::from_deck_index(card),
                pos + 1,
                r
            );
        }
    }
    // The legend: residual (O − E)/√E from −4 to +4.
    let legend_y = TOP + grid + 30.0;
    for step in 0..=16 {
        let r = -4.0 + f64::from(step) * 0.5;
        let _ = write!(
            svg,
            "<rect x=\"{}\" y=\"{legend_y}\" width=\"20\" height=\"12\" fill=\"{}\"/>",
            LEFT + f64::from(step) * 20.0,
            colour(r)
        );
    }
    let _ = write!(
        svg,
        "<text class=\"label\" x=\"{}\" y=\"{}\">−4 or less</text>\
         <text class=\"label\" x=\"{}\" y=\"{}\">0 (as expected)</text>\
         <text class=\"label\" x=\"{}\" y=\"{}\">+4 or more</text>\
         <text class=\"label\" x=\"{}\" y=\"{}\">residual (observed − expected) / √expected</text>",
        LEFT + 10.0,
        legend_y + 26.0,
        LEFT + 170.0,
        legend_y + 26.0,
        LEFT + 330.0,
        legend_y + 26.0,
        LEFT + 170.0,
        legend_y + 44.0
    );
    svg.push_str("</svg>");
    svg
}

/// A self-contained HTML report: each headline in its own colour (the
/// records' verdict, when the records were judged), then the statistics
/// verdict; `verification` (the audit's summary lines), each test with its
/// plot and numbers, and the provenance.
pub fn html(
    title: &str,
    headlines: &[Headline],
    verification: &[String],
    provenance: &Provenance,
    stats: &StatsReport,
) -> String {
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
    let statistics = Headline {
        verdict: stats.verdict,
        text: format!("Statistics: {}", verdict_word(stats.verdict)),
    };
    for headline in headlines.iter().chain([&statistics]) {
        let _ = write!(
            out,
            "<p><span class=\"verdict {}\">{}</span></p>",
            verdict_class(headline.verdict),
            escape(&headline.text)
        );
    }
    out.push_str("<ul>");
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
    let _ = write!(
        out,
        "<section><h2>Provenance</h2><table class=\"provenance\">\
         <tr><th>made by</th><td>fairdeal {}</td></tr>\
         <tr><th>input</th><td>{}</td></tr>\
         <tr><th>input SHA-256</th><td>{}</td></tr>\
         <tr><th>input size</th><td>{} bytes</td></tr>\
         <tr><th>made at</th><td>{}</td></tr>\
         <tr><th>command</th><td>{}</td></tr></table></section>",
        escape(crate::VERSION),
        escape(&provenance.source),
        escape(&provenance.sha256),
        provenance.bytes,
        escape(&provenance.generated_at),
        escape(&provenance.command)
    );
    out.push_str("</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use fairdeal_stats::evidence::{Outcome, Verdict};

    use super::summary_line;

    #[test]
    fn a_p_value_reads_as_a_comparison() {
        let outcome = |p: f64| Outcome {
            name: "runs",
            what: "",
            unit: "decks",
            samples: 10,
            needed: None,
            statistic: Some(1.0),
            df: None,
            p_value: Some(p),
            verdict: Verdict::Pass,
            cells: Vec::new(),
            residuals: None,
        };
        assert!(summary_line(&outcome(0.25)).contains("p = 0.25"));
        let underflow = summary_line(&outcome(0.0));
        assert!(underflow.contains("p < 1e-300"), "{underflow}");
        assert!(!underflow.contains("= <"), "{underflow}");
    }
}
