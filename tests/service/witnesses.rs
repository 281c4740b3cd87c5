//! The service asks witnesses to cosign its checkpoints (c2sp.org/tlog-witness)
//! and serves their cosignatures; a witness down, slow, or answering garbage
//! stops nothing; `fairdeal monitor` with a witness policy trusts only a
//! checkpoint the quorum cosigned.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode as AxumStatus;
use axum::response::{IntoResponse, Response};
use fairdeal::service::http::Limits;
use fairdeal::service::log::witnessing::{Witness, Witnesses};
use fairdeal::tlog::cosignature::{CosignatureVerifier, Cosigner, split_note};
use reqwest::StatusCode;
use serde_json::json;

use crate::harness::{Backend, TestApp, TestDatabase, run_monitor};
use crate::witness_process::WitnessProcess;

/// How a fake witness answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Behaviour {
    /// As tlog-witness says (the size it holds, 409 otherwise), without
    /// checking proofs: the real one is `fairdeal witness`.
    Honest,
    /// 200 with text that is no cosignature.
    Garbage,
    /// Never within the service's patience.
    Slow,
    /// An answer far longer than any cosignature.
    Huge,
    /// Holds a larger tree of this log than the log has (a fork, or the
    /// log's database rolled back).
    Ahead,
    /// Cosigns with a time far in the future.
    Future,
}

struct FakeWitness {
    cosigner: Cosigner,
    behaviour: Behaviour,
    /// The size and root it last cosigned.
    held: Mutex<(u64, String)>,
}

async fn add_checkpoint(State(witness): State<Arc<FakeWitness>>, body: Bytes) -> Response {
    match witness.behaviour {
        Behaviour::Garbage => return (AxumStatus::OK, "— nobody AAAA\n").into_response(),
        Behaviour::Slow => {
            tokio::time::sleep(Duration::from_secs(30)).await;
            return AxumStatus::OK.into_response();
        }
        Behaviour::Huge => return (AxumStatus::OK, "— x ".repeat(1 << 18)).into_response(),
        Behaviour::Ahead => {
            return (
                AxumStatus::CONFLICT,
                [("content-type", "text/x.tlog.size")],
                "1000000\n",
            )
                .into_response();
        }
        Behaviour::Honest | Behaviour::Future => {}
    }
    let text = String::from_utf8_lossy(&body);
    let Some(old) = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("old "))
        .and_then(|n| n.parse::<u64>().ok())
    else {
        return AxumStatus::BAD_REQUEST.into_response();
    };
    let Some(at) = text.find("\n\n") else {
        return AxumStatus::BAD_REQUEST.into_response();
    };
    let note = &text[at + 2..];
    let Some((note_body, _)) = split_note(note) else {
        return AxumStatus::BAD_REQUEST.into_response();
    };
    let size: u64 = note_body
        .lines()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_default();
    let root = note_body.lines().nth(2).unwrap_or_default().to_owned();
    let mut held = witness.held.lock().expect("lock");
    if old != held.0 {
        return (
            AxumStatus::CONFLICT,
            [("content-type", "text/x.tlog.size")],
            format!("{}\n", held.0),
        )
            .into_response();
    }
    if size == held.0 && root != held.1 && size > 0 {
        return (AxumStatus::CONFLICT, "same size, another root\n").into_response();
    }
    *held = (size, root);
    let mut now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    if witness.behaviour == Behaviour::Future {
        now += 10_000_000;
    }
    (AxumStatus::OK, witness.cosigner.cosign(note_body, now)).into_response()
}

/// A fake witness on a port of its own: its verifier key and `VKEY@URL`.
async fn fake_witness(name: &str, behaviour: Behaviour) -> (CosignatureVerifier, String) {
    let cosigner = Cosigner::generate(name).expect("key");
    let verifier = cosigner.verifier();
    let witness = Arc::new(FakeWitness {
        cosigner,
        behaviour,
        held: Mutex::new((0, String::new())),
    });
    let app = axum::Router::new()
        .route("/add-checkpoint", axum::routing::post(add_checkpoint))
        .with_state(witness);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    let given = format!("{}@http://{addr}", verifier.vkey());
    (verifier, given)
}

async fn witnessed_app(backend: Backend, given: &[String], quorum: usize) -> Option<TestApp> {
    let db = TestDatabase::create(backend).await?;
    let store = db.store(8).await;
    let list = given
        .iter()
        .map(|text| Witness::parse(text).expect("a witness"))
        .collect();
    Some(
        crate::harness::serve_app_witnessed(
            db,
            store,
            Limits::default(),
            Witnesses::new(list, quorum),
        )
        .await,
    )
}

/// Waits until `/log/checkpoint` of `size` or more carries a cosignature by
/// each of `verifiers`: the note.
async fn cosigned(app: &TestApp, size: u64, verifiers: &[&CosignatureVerifier]) -> String {
    for _ in 0..200 {
        let note = app.public.get("/log/checkpoint").await.text;
        let big_enough = note
            .lines()
            .nth(1)
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| n >= size);
        if big_enough && verifiers.iter().all(|v| v.verify_note(&note).is_some()) {
            return note;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "no checkpoint of {size} entries cosigned by every witness: {}",
        app.public.get("/readyz").await.text
    );
}

async fn checkpoints_are_served_with_their_witnesses_cosignatures(backend: Backend) {
    let (one, one_given) = fake_witness("witness.example/one", Behaviour::Honest).await;
    let (two, two_given) = fake_witness("witness.example/two", Behaviour::Honest).await;
    let Some(app) = witnessed_app(backend, &[one_given, two_given], 2).await else {
        return;
    };
    let pair = app.operator.active_pair("witnessed").await;
    for _ in 0..3 {
        let dealt = app.operator.deal(&pair, json!({"type": "deck"})).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    }
    let size = app.number("SELECT next_index FROM log_state").await as u64;
    let note = cosigned(&app, size, &[&one, &two]).await;
    // The log's own signature still verifies: the cosignatures are further
    // lines of the same note.
    fairdeal::tlog::key::verify_note(&note, &app.log.vkey()).expect("the log's signature");
    let witnessed = app.public.get("/v1/log/witnessed-checkpoint").await;
    assert_eq!(witnessed.status, StatusCode::OK, "{}", witnessed.text);
    assert!(one.verify_note(&witnessed.text).is_some());
    assert!(two.verify_note(&witnessed.text).is_some());
    let ready = app.public.get("/readyz").await.text;
    assert!(
        ready.contains("witness witness.example/one: cosigned"),
        "{ready}"
    );

    // A monitor that trusts both accepts it, naming them; one that trusts a
    // witness the log never asked does not.
    let args = [
        "--witness-key".to_owned(),
        one.vkey(),
        "--witness-key".to_owned(),
        two.vkey(),
    ];
    let (out, report) = run_monitor(app.public.base(), &args).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(
        report["witnessed_by"],
        json!(["witness.example/one", "witness.example/two"])
    );
    let stranger = Cosigner::generate("witness.example/stranger").expect("key");
    let args = ["--witness-key".to_owned(), stranger.vkey()];
    let (out, report) = run_monitor(app.public.base(), &args).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(crate::monitor::kinds(&report), ["witness"]);
    assert_eq!(report["checkpoint_accepted"], false);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn checkpoints_are_cosigned_by_the_witnesses_on_sqlite() {
    checkpoints_are_served_with_their_witnesses_cosignatures(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn checkpoints_are_cosigned_by_the_witnesses_on_postgres() {
    checkpoints_are_served_with_their_witnesses_cosignatures(Backend::Postgres).await;
}

/// A witness down, one slow, one answering garbage and one answering without
/// end stop no deal; the
/// good one keeps cosigning; `/readyz` names the ones behind and why; with
/// a quorum of one the witnessed checkpoint is still served.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn witnesses_down_slow_or_answering_garbage_stop_nothing() {
    let (good, good_given) = fake_witness("witness.example/good", Behaviour::Honest).await;
    let (_, garbage_given) = fake_witness("witness.example/garbage", Behaviour::Garbage).await;
    let (_, slow_given) = fake_witness("witness.example/slow", Behaviour::Slow).await;
    let (_, huge_given) = fake_witness("witness.example/huge", Behaviour::Huge).await;
    let (_, ahead_given) = fake_witness("witness.example/ahead", Behaviour::Ahead).await;
    let (_, future_given) = fake_witness("witness.example/future", Behaviour::Future).await;
    let down = Cosigner::generate("witness.example/down").expect("key");
    let down_given = format!("{}@http://127.0.0.1:9", down.vkey());
    let Some(app) = witnessed_app(
        Backend::Sqlite,
        &[
            good_given,
            garbage_given,
            slow_given,
            down_given,
            huge_given,
            ahead_given,
            future_given,
        ],
        1,
    )
    .await
    else {
        return;
    };
    let pair = app.operator.active_pair("witnesses failing").await;
    let started = std::time::Instant::now();
    for _ in 0..20 {
        let dealt = app.operator.deal(&pair, json!({"type": "deck"})).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    }
    // Not a timed assertion of speed: a deal waiting on a witness would
    // take the 5 s a submission may take.
    assert!(started.elapsed() < Duration::from_secs(5));
    let size = app.number("SELECT next_index FROM log_state").await as u64;
    let note = cosigned(&app, size, &[&good]).await;
    let witnessed = app.public.get("/v1/log/witnessed-checkpoint").await;
    assert_eq!(witnessed.status, StatusCode::OK, "{}", witnessed.text);
    assert!(good.verify_note(&witnessed.text).is_some());
    // Each failing witness is named behind, with its reason, once its
    // first submission has failed.
    let expected = [
        ("garbage", "without a cosignature by its key that verifies"),
        ("down", "no answer"),
        ("huge", "more than a cosignature takes"),
        ("ahead", "more than this log's"),
        ("future", "ahead of this clock"),
    ];
    let mut ready = String::new();
    for _ in 0..100 {
        let answer = app.public.get("/readyz").await;
        assert_eq!(answer.status, StatusCode::OK);
        ready = answer.text;
        let all = expected.iter().all(|(name, why)| {
            ready.lines().any(|l| {
                l.starts_with(&format!("witness witness.example/{name}: behind by"))
                    && l.contains(why)
            })
        });
        if all {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for (name, why) in expected {
        assert!(
            ready.lines().any(|l| l
                .starts_with(&format!("witness witness.example/{name}: behind by"))
                && l.contains(why)),
            "{name}: {ready}"
        );
    }
    let metrics = app.public.get("/metrics").await.text;
    assert!(
        metrics.contains("fairdeal_witness_behind_entries{witness=\"witness.example/good\"} 0"),
        "{metrics}"
    );
    assert!(metrics.contains("fairdeal_witness_failures_total{witness=\"witness.example/down\"}"));
    // A witness that never failed has its failure counter all the same, at 0.
    assert!(
        metrics.contains("fairdeal_witness_failures_total{witness=\"witness.example/good\"} 0\n"),
        "{metrics}"
    );
    // A witness ahead of the log, or dated ahead, is no witness keeping up.
    for name in ["ahead", "future"] {
        assert!(
            metrics.contains(&format!(
                "fairdeal_witness_cosigning{{witness=\"witness.example/{name}\"}} 0"
            )),
            "{metrics}"
        );
        assert!(
            !metrics.contains(&format!(
                "fairdeal_witness_behind_entries{{witness=\"witness.example/{name}\"}} 0\n"
            )),
            "{metrics}"
        );
    }
    assert!(
        metrics.contains("fairdeal_witness_cosigning{witness=\"witness.example/good\"} 1"),
        "{metrics}"
    );
    assert!(!note.is_empty());
    app.stop().await;
}

/// A log with no witnesses: a reader that requires them accepts nothing,
/// and says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_reader_that_requires_witnesses_does_not_trust_an_unwitnessed_log() {
    let Some(app) = crate::harness::spawn_app(Backend::Sqlite).await else {
        return;
    };
    let pair = app.operator.active_pair("alone").await;
    app.operator.deal(&pair, json!({"type": "deck"})).await;
    crate::monitor::integrated(&app).await;
    let none = app.public.get("/v1/log/witnessed-checkpoint").await;
    assert_eq!(none.status, StatusCode::NOT_FOUND, "{}", none.text);
    let witness = Cosigner::generate("witness.example/w").expect("key");
    let args = ["--witness-key".to_owned(), witness.vkey()];
    let (out, report) = run_monitor(app.public.base(), &args).await;
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(crate::monitor::kinds(&report), ["witness"]);
    let detail = report["findings"][0]["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("not yet witnessed"), "{detail}");
    app.stop().await;
}

/// Bad witness flags name the flag and the rule.
#[test]
fn bad_witness_flags_are_refused() {
    let witness = Cosigner::generate("witness.example/w").expect("key");
    for (args, flag) in [
        (
            vec!["--witness".to_owned(), "nonsense".to_owned()],
            "--witness",
        ),
        (
            vec![
                "--witness".to_owned(),
                format!("{}@ftp://x", witness.vkey()),
            ],
            "--witness",
        ),
        (
            vec![
                "--witness".to_owned(),
                format!("{}@http://127.0.0.1:9", witness.vkey()),
                "--witness-quorum".to_owned(),
                "2".to_owned(),
            ],
            "--witness-quorum",
        ),
    ] {
        let dir = tempfile::tempdir().expect("dir");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_fairdeal"))
            .args(["serve", "--data-dir"])
            .arg(dir.path())
            .args(&args)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(flag), "{args:?}: {stderr}");
    }
}

/// The fork attack at the service: the latest checkpoint, once cosigned, is
/// rewritten in the database as another tree of the same size, signed with
/// the log's own key. The service serves it with no cosignature (the stored
/// ones are of the other note), submits it again and is refused, and says
/// so; a monitor that requires the witness never accepts it.
async fn a_rewritten_checkpoint_is_never_served_as_witnessed(backend: Backend) {
    let (one, one_given) = fake_witness("witness.example/one", Behaviour::Honest).await;
    let Some(app) = witnessed_app(backend, &[one_given], 1).await else {
        return;
    };
    let pair = app.operator.active_pair("forked").await;
    for _ in 0..3 {
        app.operator.deal(&pair, json!({"type": "deck"})).await;
    }
    let size = app.number("SELECT next_index FROM log_state").await as u64;
    let honest = cosigned(&app, size, &[&one]).await;
    let origin = honest.lines().next().expect("origin").to_owned();
    let fork_root = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=";
    let fork = app
        .log
        .sign_note(&format!("{origin}\n{size}\n{fork_root}\n"))
        .expect("signed");
    let changed = app
        .tamper(
            "UPDATE log_checkpoints SET note = $1 WHERE size = (SELECT MAX(size) FROM log_checkpoints)",
            fork.clone(),
        )
        .await;
    assert_eq!(changed, 1);
    let served = app.public.get("/log/checkpoint").await.text;
    assert!(served.contains(fork_root), "{served}");
    assert!(one.verify_note(&served).is_none(), "{served}");
    // The service submits it again and the witness refuses: /readyz says.
    let mut refused = false;
    for _ in 0..100 {
        let ready = app.public.get("/readyz").await.text;
        if ready.contains("witness witness.example/one: behind") && ready.contains("refused (409)")
        {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(refused, "{}", app.public.get("/readyz").await.text);
    let args = ["--witness-key".to_owned(), one.vkey()];
    let (_, report) = run_monitor(app.public.base(), &args).await;
    // Either nothing is accepted, or an earlier checkpoint the witness did
    // cosign is, the fork named as the latest not witnessed.
    if report["checkpoint_accepted"] == true {
        assert_ne!(report["root"], fork_root, "{report:#}");
        assert_eq!(report["latest_unwitnessed_size"], size, "{report:#}");
        assert!(report["size"].as_u64() < Some(size), "{report:#}");
    } else {
        assert_eq!(crate::monitor::kinds(&report), ["witness"], "{report:#}");
    }
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_rewritten_checkpoint_is_never_served_as_witnessed_on_sqlite() {
    a_rewritten_checkpoint_is_never_served_as_witnessed(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_rewritten_checkpoint_is_never_served_as_witnessed_on_postgres() {
    a_rewritten_checkpoint_is_never_served_as_witnessed(Backend::Postgres).await;
}

/// `fairdeal witness` on `port` with the key in `dir`, witnessing the log
/// `origin` signed by `log_vkey` (again on the same port and data when
/// restarted).
fn start_witness(
    dir: &std::path::Path,
    port: u16,
    name: &str,
    origin: &str,
    log_vkey: &str,
) -> WitnessProcess {
    WitnessProcess::start(
        dir,
        &format!("127.0.0.1:{port}"),
        name,
        origin,
        log_vkey,
        &[],
    )
}

/// A free local port (bound, then let go).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a port")
        .port()
}

/// Two `fairdeal witness` processes witness a running service: every
/// checkpoint cosigned by both, a round's receipt proved against a
/// checkpoint both cosigned; one killed mid-stream and restarted is
/// survived and catches up; the latest checkpoint rewritten as a fork is
/// refused by both.
async fn two_fairdeal_witnesses_witness_the_service(backend: Backend) {
    let dir = tempfile::tempdir().expect("dir");
    let mut given = Vec::new();
    let mut verifiers = Vec::new();
    let mut places = Vec::new();
    for name in ["witness.example/regulator", "witness.example/players"] {
        let cosigner = Cosigner::generate(name).expect("key");
        let home = dir.path().join(name.replace('/', "-"));
        std::fs::create_dir_all(&home).expect("dir");
        std::fs::write(home.join("witness.key"), hex::encode(*cosigner.seed())).expect("key file");
        let port = free_port();
        given.push(format!("{}@http://127.0.0.1:{port}", cosigner.vkey()));
        verifiers.push(cosigner.verifier());
        places.push((home, port, name));
    }
    let Some(app) = witnessed_app(backend, &given, 2).await else {
        return;
    };
    let first = app.public.get("/log/checkpoint").await.text;
    let origin = first.lines().next().expect("origin").to_owned();
    let vkey = app.log.vkey();
    let mut witnesses: Vec<WitnessProcess> = places
        .iter()
        .map(|(home, port, name)| start_witness(home, *port, name, &origin, &vkey))
        .collect();
    let pair = app.operator.active_pair("witnessed by two").await;
    let dealt = app.operator.deal(&pair, json!({"type": "deck"})).await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    let size = app.number("SELECT next_index FROM log_state").await as u64;
    let both: Vec<&CosignatureVerifier> = verifiers.iter().collect();
    cosigned(&app, size, &both).await;
    // The round's receipt proves it against a checkpoint both cosigned.
    let receipt = app
        .public
        .get(&format!("/v1/rounds/{}/receipt", dealt.id()))
        .await;
    assert_eq!(receipt.status, StatusCode::OK, "{}", receipt.text);
    let proof = receipt.json["proof"].as_str().expect("a proof");
    let proof_checkpoint = &proof[proof.find("\n\n").expect("a checkpoint") + 2..];
    for verifier in &verifiers {
        assert!(verifier.verify_note(proof_checkpoint).is_some(), "{proof}");
    }

    // One witness killed mid-stream: deals go on, the other cosigns, the
    // first catches up once restarted (its state kept in its database).
    let (home, port) = (places[1].0.clone(), places[1].1);
    witnesses.pop();
    for _ in 0..5 {
        let dealt = app.operator.deal(&pair, json!({"type": "deck"})).await;
        assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    }
    let size = app.number("SELECT next_index FROM log_state").await as u64;
    cosigned(&app, size, &both[..1]).await;
    let ready = app.public.get("/readyz").await.text;
    assert!(
        ready.contains("witness witness.example/players: behind"),
        "{ready}"
    );
    witnesses.push(start_witness(&home, port, places[1].2, &origin, &vkey));
    cosigned(&app, size, &both).await;
    let args: Vec<String> = verifiers
        .iter()
        .flat_map(|v| ["--witness-key".to_owned(), v.vkey()])
        .collect();
    let (out, report) = run_monitor(app.public.base(), &args).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");

    // The latest checkpoint rewritten as another tree of the same size:
    // both witnesses refuse it, and it is served with no cosignature.
    let fork_root = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=";
    let fork = app
        .log
        .sign_note(&format!("{origin}\n{size}\n{fork_root}\n"))
        .expect("signed");
    app.tamper(
        "UPDATE log_checkpoints SET note = $1 WHERE size = (SELECT MAX(size) FROM log_checkpoints)",
        fork,
    )
    .await;
    let mut refused = false;
    for _ in 0..100 {
        let ready = app.public.get("/readyz").await.text;
        if ready.matches("refused (409)").count() == 2 {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(refused, "{}", app.public.get("/readyz").await.text);
    let served = app.public.get("/log/checkpoint").await.text;
    assert!(verifiers.iter().all(|v| v.verify_note(&served).is_none()));
    let (_, report) = run_monitor(app.public.base(), &args).await;
    assert_ne!(report["root"], fork_root, "{report:#}");
    drop(witnesses);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_fairdeal_witnesses_witness_the_service_on_sqlite() {
    two_fairdeal_witnesses_witness_the_service(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_fairdeal_witnesses_witness_the_service_on_postgres() {
    two_fairdeal_witnesses_witness_the_service(Backend::Postgres).await;
}

/// The log's entries, read one by one from `/v1/log/entries/{index}` up to
/// the latest checkpoint: those of type `kind`.
async fn entries_of_type(client: &crate::harness::Client, kind: &str) -> Vec<serde_json::Value> {
    let note = client.get("/log/checkpoint").await.text;
    let size: u64 = note.lines().nth(1).expect("size").parse().expect("a size");
    let mut found = Vec::new();
    for index in 0..size {
        let entry = client.get(&format!("/v1/log/entries/{index}")).await;
        assert_eq!(entry.status, StatusCode::OK, "{}", entry.text);
        let entry: serde_json::Value =
            serde_json::from_str(entry.json["entry"].as_str().expect("the entry's bytes"))
                .expect("JSON");
        if entry["type"] == kind {
            found.push(entry);
        }
    }
    found
}

/// Waits until `/v1/log/witnessed-checkpoint` answers `status` (and, for
/// 200, a note `verifier` cosigned).
async fn witnessed_answers(
    client: &crate::harness::Client,
    status: StatusCode,
    verifier: &CosignatureVerifier,
) {
    for _ in 0..300 {
        let reply = client.get("/v1/log/witnessed-checkpoint").await;
        if reply.status == status
            && (status != StatusCode::OK || verifier.verify_note(&reply.text).is_some())
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let reply = client.get("/v1/log/witnessed-checkpoint").await;
    panic!(
        "the witnessed checkpoint did not answer {status}: {} {}",
        reply.status, reply.text
    );
}

/// Witnesses added and removed while the service runs, with `fairdeal
/// witnesses`, and no restart: each change one `witness_set` entry, a
/// change that changes nothing none; bad input named; a monitor accepts the
/// log. The witness reads the log's key from the service (`--log-url`) and
/// pins it: a later start that reads another key is refused.
async fn witnesses_change_without_a_restart(backend: Backend) {
    use crate::harness::{Client, Deployment};
    let Some(db) = TestDatabase::create(backend).await else {
        return;
    };
    let deployment = Deployment::new(&db);
    let key = deployment.create_key("backend");
    let server = deployment.serve(
        &db.dir.path().join("serve.log"),
        &[("FAIRDEAL_LOG_INTERVAL", "0.05")],
    );
    let client = Client::new(&server.base).with_key(&key);
    let nobody = Cosigner::generate("witness.example/nobody")
        .expect("key")
        .verifier();
    witnessed_answers(&client, StatusCode::NOT_FOUND, &nobody).await;

    let home = db.dir.path().join("witness");
    let name = "witness.example/live";
    let witness = WitnessProcess::start_from_url(&home, "127.0.0.1:0", name, &server.base, &[]);
    let log_vkey = client.get("/log/key").await.text.trim().to_owned();
    let pins = home.join("pinned-logs.json");
    let pinned: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&pins).expect("pins")).expect("JSON");
    assert_eq!(pinned[&server.base], log_vkey.as_str(), "{pinned}");

    let run = |args: &[&str]| {
        let out = deployment.run(args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let given = format!("{}@{}", witness.vkey, witness.url);
    let (code, said, err) = run(&["witnesses", "add", &given]);
    assert_eq!(code, Some(0), "{err}");
    assert!(said.contains("log entry"), "{said}");
    let pair = client.active_pair("witnessed live").await;
    let dealt = client.deal(&pair, json!({"type": "deck"})).await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    witnessed_answers(&client, StatusCode::OK, &witness.verifier()).await;
    let (code, said, _) = run(&["witnesses", "add", &given]);
    assert_eq!(code, Some(0));
    assert!(said.starts_with("unchanged"), "{said}");
    let (_, listed, _) = run(&["witnesses", "list"]);
    assert!(
        listed.contains(name) && listed.contains("cosigned up to"),
        "{listed}"
    );
    assert!(listed.contains("quorum: 1 of 1 (all)"), "{listed}");

    for (args, field, rule) in [
        (
            vec!["witnesses", "remove", "nobody"],
            "NAME",
            "names no witness",
        ),
        (vec!["witnesses", "quorum", "2"], "K|all", "1 to the 1"),
        (vec!["witnesses", "quorum", "most"], "K|all", "whole number"),
        (vec!["witnesses", "add", "nonsense"], "VKEY@URL", "VKEY@URL"),
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(field) && err.contains(rule), "{args:?}: {err}");
    }

    let (code, said, err) = run(&["witnesses", "remove", name]);
    assert_eq!(code, Some(0), "{err}");
    assert!(said.contains("no witnesses"), "{said}");
    let index: u64 = said
        .split("log entry ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("an index: {said}"));
    crate::harness::log_reaches(&server.base, index + 1).await;
    witnessed_answers(&client, StatusCode::NOT_FOUND, &nobody).await;
    let ready = client.get("/readyz").await.text;
    assert!(!ready.contains(name), "{ready}");

    // The log says who witnessed it, and when that changed: twice.
    let sets = entries_of_type(&client, "witness_set").await;
    assert_eq!(sets.len(), 2, "{sets:?}");
    assert_eq!(sets[0]["witnesses"][0]["vkey"], witness.vkey.as_str());
    assert_eq!(sets[0]["quorum"], 1);
    assert_eq!(sets[1]["witnesses"], json!([]));
    assert_eq!(sets[1]["quorum"], 0);
    let (out, report) = run_monitor(&server.base, &[]).await;
    assert_eq!(out.status.code(), Some(0), "{report:#}");

    // Another key at the pinned URL: the witness refuses to start.
    drop(witness);
    let other = Cosigner::generate("witness.example/other").expect("key");
    std::fs::write(
        &pins,
        json!({ server.base.as_str(): other.vkey() }).to_string(),
    )
    .expect("pins");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(["witness", "--listen", "127.0.0.1:0", "--name", name])
        .args(["--log-url", &server.base, "--data-dir"])
        .arg(&home)
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("pinned"), "{said}");
    assert!(server.terminate().success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn witnesses_change_without_a_restart_on_sqlite() {
    witnesses_change_without_a_restart(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn witnesses_change_without_a_restart_on_postgres() {
    witnesses_change_without_a_restart(Backend::Postgres).await;
}
