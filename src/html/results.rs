//! The page of `gpumc results --html`: the results database compared
//! across devices, GPUHarbor-style (Levine et al., ASPLOS'23) — one row
//! per test (or family), one column per device, each cell the share of
//! instances that showed the test's weak outcome (its condition) and,
//! in red, the instances in states the model forbids.

use super::escape::{esc, E};
use super::page::{document, Header, Total};
use super::Meta;
use gpumc_campaign::store::Row;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// `rows`: the database's summary by test (or family) and device.
pub fn page(meta: &Meta, rows: &[Row], what: &str) -> String {
    let devices: BTreeSet<&str> = rows.iter().map(|r| r.device.as_str()).collect();
    let mut by_group: BTreeMap<&str, BTreeMap<&str, &Row>> = BTreeMap::new();
    for r in rows {
        by_group
            .entry(r.group.as_str())
            .or_default()
            .insert(r.device.as_str(), r);
    }
    let mut body = String::new();
    let _ = write!(
        body,
        "<table class=\"compare\">\n<thead><tr><th>{}</th>",
        E(what)
    );
    for d in &devices {
        let _ = write!(body, "<th data-device=\"{}\">{}</th>", esc(d), E(d));
    }
    body.push_str("</tr></thead>\n<tbody>\n");
    for (group, cells) in &by_group {
        let _ = write!(
            body,
            "<tr data-test=\"{}\"><th>{}</th>",
            esc(group),
            E(group)
        );
        for d in &devices {
            match cells.get(d) {
                None => body.push_str("<td class=\"none\">–</td>"),
                Some(r) => {
                    let _ = write!(
                        body,
                        "<td data-device=\"{}\" data-weak=\"{}\" data-instances=\"{}\" data-violations=\"{}\" class=\"{}\">\
                         <span class=\"rate\">{:.2} %</span> <span class=\"n\">{} / {}</span>{}</td>",
                        esc(d),
                        r.weak,
                        r.instances,
                        r.violations,
                        if r.violations > 0 { "violation" } else if r.weak > 0 { "weak" } else { "strong" },
                        100.0 * r.weak_rate,
                        r.weak,
                        r.instances,
                        if r.violations > 0 {
                            format!(" <span class=\"v violation\">{} forbidden</span>", r.violations)
                        } else {
                            String::new()
                        }
                    );
                }
            }
        }
        body.push_str("</tr>\n");
    }
    body.push_str("</tbody>\n</table>\n<style>table.compare{border-collapse:collapse;margin:1em}\
        table.compare th,table.compare td{border:1px solid var(--line);padding:.3em .6em;text-align:left}\
        td.weak{background:#e6effa}td.violation{background:#f8dedb}td.none{color:var(--muted)}\
        .n{color:var(--muted);font-size:90%}</style>\n");
    let mut facts = vec![("command".to_string(), meta.command.clone())];
    facts.push(("date".into(), meta.date.clone()));
    facts.push(("devices".into(), devices.len().to_string()));
    facts.push((what.to_string(), by_group.len().to_string()));
    let totals = vec![
        Total {
            key: "weak".into(),
            label: "cells with weak outcomes".into(),
            count: rows.iter().filter(|r| r.weak > 0).count(),
        },
        Total {
            key: "violation".into(),
            label: "cells with violations".into(),
            count: rows.iter().filter(|r| r.violations > 0).count(),
        },
    ];
    document(
        &Header {
            title: meta.title.clone(),
            facts,
            totals,
        },
        &body,
    )
}
