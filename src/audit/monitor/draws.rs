//! The rules of the log's draw entries: what the log said of each draw
//! so far, each entry against it, and the findings at the end (a draw
//! seeded and never run, two draws of one list with one seed).

use super::*;

/// What the log has said about one draw so far.
#[derive(Default, Serialize, Deserialize)]
pub(super) struct DrawTrack {
    pub(super) commitment: Option<[u8; 32]>,
    pub(super) list: String,
    pub(super) entries: u64,
    pub(super) winners: u64,
    pub(super) tenant: u32,
    pub(super) client_seed_at_ms: Option<i64>,
    pub(super) client_seed: bool,
    pub(super) drawn: bool,
}

impl LogChecker {
    /// Checks a draw entry against what the log said of its draw before.
    pub(super) fn draw_entry(&mut self, index: u64, entry: &Value) {
        let m = &mut self.memory;
        let id_text = entry["draw"].as_str().unwrap_or_default();
        let kind = entry["type"].as_str().unwrap_or_default();
        let id = if kind == "draw_commit" {
            m.names.keep(id_text)
        } else {
            m.names.id(id_text)
        };
        if kind == "draw_commit" {
            if m.draws.contains_key(&id) {
                m.findings.add(
                    "order",
                    Some(index),
                    format!("draw {id_text} is committed twice (the first commitment stands)"),
                );
                return;
            }
            let track = DrawTrack {
                commitment: hash32(entry["server_seed_hash"].as_str().unwrap_or_default()),
                list: entry["entries_sha256"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                entries: entry["entries"].as_u64().unwrap_or_default(),
                winners: entry["winners"].as_u64().unwrap_or_default(),
                tenant: m.tenants.of(entry["tenant"].as_str()),
                ..DrawTrack::default()
            };
            m.draws.insert(id, track);
            return;
        }
        let Some(track) = m.draws.get_mut(&id) else {
            m.findings.add(
                "order",
                Some(index),
                format!("a {kind} entry of draw {id_text}, never committed"),
            );
            return;
        };
        if kind == "draw_client_seed" {
            if track.client_seed || track.drawn {
                m.findings.add(
                    "order",
                    Some(index),
                    format!("draw {id_text} gets a second client seed (the first stands)"),
                );
                return;
            }
            track.client_seed = true;
            track.client_seed_at_ms = entry["time"].as_str().and_then(time_ms);
            // Grouped by list and seed: the list's hash leads each key.
            let list = track.list.clone();
            let tenant = track.tenant;
            let exact = digest16(&[
                list.as_bytes(),
                entry["client_seed_sha256"]
                    .as_str()
                    .unwrap_or_default()
                    .as_bytes(),
            ]);
            let lookalike = entry["client_seed_lookalike_sha256"]
                .as_str()
                .map(|l| digest16(&[list.as_bytes(), l.as_bytes()]));
            let draws = &m.draws;
            let (_, more) = m.draw_seeds.join(id, exact, lookalike, |first| {
                Some(draws.get(&first).map_or(0, |d| d.tenant))
            });
            if let Some(more) = more {
                more.add(tenant);
            }
            return;
        }
        if !track.client_seed || track.drawn {
            m.findings.add(
                "order",
                Some(index),
                format!("draw {id_text} is drawn before its client seed, or twice"),
            );
            if track.drawn {
                return;
            }
        }
        track.drawn = true;
        if !opens(
            entry["server_seed"].as_str().unwrap_or_default(),
            track.commitment,
        ) {
            m.findings.add(
                "reveal",
                Some(index),
                format!("draw {id_text}'s revealed seed does not hash to its commitment"),
            );
        }
        let winners: Vec<u64> = entry["winners"]
            .as_array()
            .map(|w| w.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        let mut distinct = winners.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if winners.len() as u64 != track.winners
            || distinct.len() != winners.len()
            || winners.iter().any(|&w| w >= track.entries)
        {
            m.findings.add(
                "draw",
                Some(index),
                format!(
                    "draw {id_text} promised {} distinct winners of {} entries; its result names {} winner(s)",
                    track.winners,
                    track.entries,
                    winners.len()
                ),
            );
        }
    }

    pub(super) fn draw_findings(
        &mut self,
        now_ms: i64,
        reveal_within_ms: i64,
        notes: &mut Findings,
    ) {
        let m = &mut self.memory;
        let mut unrun: Vec<(String, i64)> = m
            .draws
            .iter()
            .filter(|(_, d)| d.client_seed && !d.drawn)
            .filter_map(|(id, d)| Some((*id, now_ms.saturating_sub(d.client_seed_at_ms?))))
            .filter(|(_, age)| *age > reveal_within_ms)
            .map(|(id, age)| (m.names.name(id), age))
            .collect();
        unrun.sort();
        for (id, age) in unrun {
            m.findings.add(
                "draw_not_run",
                None,
                format!(
                    "draw {id} got its client seed {} s ago and was never run: its winners were knowable to the operator",
                    age / 1000
                ),
            );
        }
        // The same list with the same (or a lookalike) client seed in two
        // draws of one tenant: the operator could publish whichever result
        // it liked (draw-shopping).
        for group in m.draw_seeds.many() {
            let unknown = group.count(0);
            let same_tenant = group
                .tenants
                .iter()
                .any(|(t, n)| *n > 1 || (*t != 0 && unknown > 0));
            let alike = if group.lookalike {
                "with client seeds that look alike"
            } else {
                "with the same client seed"
            };
            let members = m.names.named(&group.named, group.members);
            if same_tenant {
                m.findings.add(
                    "draw_reuse",
                    None,
                    format!(
                        "draws {members} draw from the same list {alike}: the operator could publish the result it liked"
                    ),
                );
            } else {
                notes.add(
                    "draw_seed_shared",
                    None,
                    format!("draws {members} of different tenants draw from the same list {alike}"),
                );
            }
        }
    }
}
