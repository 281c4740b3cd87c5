use super::*;
use serde_json::json;

fn findings(entries: &[Value]) -> Vec<(&'static str, String)> {
    let mut checker = LogChecker {
        vkey: String::new(),
        origin: String::new(),
        size: 0,
        root_text: String::new(),
        trusted: false,
        previous: None,
        keep_rounds: false,
        tree: TileBuilder::default(),
        root_at_previous: None,
        ready: Vec::new(),
        resumed: false,
        memory: Memory::default(),
        facts: HashMap::new(),
        facts_of: None,
        cross: None,
        ledger_wanted: false,
        ledger_out: None,
        games: Default::default(),
        witnessed_by: None,
        latest_unwitnessed_size: None,
        disproven: false,
    };
    for (index, entry) in entries.iter().enumerate() {
        checker.draw_entry(index as u64, entry);
    }
    checker
        .memory
        .findings
        .listed
        .into_iter()
        .map(|f| (f.kind, f.detail))
        .collect()
}

#[test]
fn a_draw_result_must_open_its_commitment_and_name_distinct_winners() {
    let seed = "00".repeat(32);
    let hash = hex::encode(Sha256::digest([0u8; 32]));
    let commit = json!({"type": "draw_commit", "draw": "d", "server_seed_hash": hash,
                        "entries": 5, "winners": 2, "time": "2026-11-23T00:00:00Z"});
    let seeded = json!({"type": "draw_client_seed", "draw": "d", "time": "2026-11-23T00:00:01Z"});
    let result = |winners: Value, seed: &str| json!({"type": "draw_result", "draw": "d", "server_seed": seed, "winners": winners});
    assert!(findings(&[commit.clone(), seeded.clone(), result(json!([3, 0]), &seed)]).is_empty());
    let kinds = |entries: &[Value]| -> Vec<&'static str> {
        findings(entries)
            .into_iter()
            .map(|(kind, _)| kind)
            .collect()
    };
    assert_eq!(
        kinds(&[commit.clone(), seeded.clone(), result(json!([3, 3]), &seed)]),
        ["draw"]
    );
    assert_eq!(
        kinds(&[commit.clone(), seeded.clone(), result(json!([3]), &seed)]),
        ["draw"]
    );
    assert_eq!(
        kinds(&[commit.clone(), seeded.clone(), result(json!([3, 5]), &seed)]),
        ["draw"]
    );
    assert_eq!(
        kinds(&[
            commit.clone(),
            seeded.clone(),
            result(json!([3, 0]), &"11".repeat(32))
        ]),
        ["reveal"]
    );
    assert_eq!(
        kinds(&[commit.clone(), result(json!([3, 0]), &seed)]),
        ["order"]
    );
    assert_eq!(kinds(std::slice::from_ref(&seeded)), ["order"]);
    assert_eq!(kinds(&[commit.clone(), commit.clone()]), ["order"]);
    assert_eq!(kinds(&[commit, seeded.clone(), seeded]), ["order"]);
}
