//! Tenants and labels: an operator sees and acts on its own tenant's pairs
//! only (another tenant's are answered as if they did not exist), a label is
//! shown to the pair's operators only, and `GET /v1/seed-pairs` lists a
//! tenant's pairs by status and label, page by page.

use fairdeal::service::keys::generate;
use fairdeal::service::store::InsertKey;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::{Backend, Client, Deployment, TestApp, TestDatabase, on_both_backends};

/// An operator key of `tenant` for `app`.
pub(crate) async fn operator_of(app: &TestApp, name: &str, tenant: &str) -> Client {
    let key = generate(name, tenant, 0).expect("key");
    assert_eq!(
        app.dealer
            .store()
            .insert_key(&key.row)
            .await
            .expect("insert"),
        InsertKey::Inserted
    );
    app.public.clone().with_key(&key.key)
}

fn ids(page: &Value) -> Vec<String> {
    page["seed_pairs"]
        .as_array()
        .expect("seed_pairs")
        .iter()
        .map(|pair| pair["id"].as_str().expect("id").to_owned())
        .collect()
}

async fn each_tenant_sees_and_acts_on_its_own_pairs_only(app: &TestApp) {
    let brand_a = &app.operator;
    let brand_b = operator_of(app, "brand-b-backend", "brand-b").await;

    let created = brand_a
        .post_json("/v1/seed-pairs", &json!({"label": "table-7"}))
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    assert_eq!(created.json["label"], "table-7");
    let pair = created.id();
    let set = brand_a
        .put_json(
            &format!("/v1/seed-pairs/{pair}/client-seed"),
            &json!({"client_seed": "mine"}),
        )
        .await;
    assert_eq!(set.status, StatusCode::OK);
    let round = brand_a
        .deal(&pair, json!({"type": "holdem", "players": 2}))
        .await
        .id();

    // Another tenant's operator: every operator endpoint says 404.
    let refused = [
        brand_b
            .put_json(
                &format!("/v1/seed-pairs/{pair}/client-seed"),
                &json!({"client_seed": "theirs"}),
            )
            .await,
        // Even the seed the pair has: a retry is the owner's only.
        brand_b
            .put_json(
                &format!("/v1/seed-pairs/{pair}/client-seed"),
                &json!({"client_seed": "mine"}),
            )
            .await,
        brand_b
            .post_json(
                &format!("/v1/seed-pairs/{pair}/rounds"),
                &json!({"game": {"type": "deck"}}),
            )
            .await,
        brand_b
            .post_json(
                &format!("/v1/seed-pairs/{pair}/rotate"),
                &json!({"client_seed": "theirs"}),
            )
            .await,
        brand_b.post(&format!("/v1/rounds/{round}/close")).await,
    ];
    for reply in &refused {
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.text);
        assert_eq!(reply.content_type(), "application/problem+json");
    }
    // It reads what the public reads: no cards in play, no label.
    let their_read = brand_b.get(&format!("/v1/rounds/{round}")).await.success();
    assert!(their_read.get("deal").is_none(), "{their_read}");
    let our_read = brand_a.get(&format!("/v1/rounds/{round}")).await.success();
    assert!(our_read.get("deal").is_some(), "{our_read}");
    for reader in [&brand_b, &app.public] {
        let seen = reader
            .get(&format!("/v1/seed-pairs/{pair}"))
            .await
            .success();
        assert!(seen.get("label").is_none(), "{seen}");
    }
    let listed = brand_b.get("/v1/seed-pairs").await.success();
    assert!(ids(&listed).is_empty(), "{listed}");
    assert_eq!(
        ids(&brand_a.get("/v1/seed-pairs").await.success()),
        std::slice::from_ref(&pair)
    );

    // Rotation keeps the tenant and the label; the export never shows it.
    brand_a.close(&round).await;
    let rotated = brand_a.rotate(&pair, "next").await.success();
    assert_eq!(rotated["current"]["label"], "table-7");
    let successor = rotated["current"]["id"].as_str().expect("id").to_owned();
    // A retry of that rotation is the owner's only too.
    let retried = brand_b.rotate(&pair, "next").await;
    assert_eq!(retried.status, StatusCode::NOT_FOUND, "{}", retried.text);
    assert!(!retried.text.contains(&successor), "{}", retried.text);
    let refused = brand_b
        .post_json(
            &format!("/v1/seed-pairs/{successor}/rounds"),
            &json!({"game": {"type": "deck"}}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);
    let export = app.public.get("/v1/export").await;
    assert!(export.text.contains(&pair), "the revealed pair is exported");
    assert!(!export.text.contains("table-7"), "no label in the export");
}
on_both_backends!(each_tenant_sees_and_acts_on_its_own_pairs_only);

async fn pairs_are_listed_by_status_and_label_page_by_page(app: &TestApp) {
    let operator = &app.operator;
    let mut labelled = Vec::new();
    for n in 0..5 {
        let label = if n % 2 == 0 { "player-1" } else { "player-2" };
        let pair = operator
            .post_json("/v1/seed-pairs", &json!({"label": label}))
            .await
            .id();
        if label == "player-1" {
            labelled.push(pair);
        }
    }
    let active = operator.active_pair("unlabelled").await;

    let page = operator
        .get("/v1/seed-pairs?label=player-1")
        .await
        .success();
    assert_eq!(ids(&page), labelled);
    let page = operator.get("/v1/seed-pairs?status=active").await.success();
    assert_eq!(ids(&page), [active]);

    // Two at a time, following next_after, gives all six once, in order.
    let mut seen = Vec::new();
    let mut path = "/v1/seed-pairs?limit=2".to_owned();
    loop {
        let page = operator.get(&path).await.success();
        seen.extend(ids(&page));
        match page["next_after"].as_str() {
            Some(after) => path = format!("/v1/seed-pairs?limit=2&after={after}"),
            None => break,
        }
    }
    let all = ids(&operator.get("/v1/seed-pairs").await.success());
    assert_eq!(seen, all);
    assert_eq!(all.len(), 6);

    // Bad input names its field.
    for (method_path, body, status, field) in [
        ("/v1/seed-pairs", json!({"label": ""}), 422, "label"),
        (
            "/v1/seed-pairs",
            json!({"label": "x".repeat(129)}),
            422,
            "label",
        ),
        ("/v1/seed-pairs", json!({"label": "a\u{1}b"}), 422, "label"),
        ("/v1/seed-pairs", json!({"label": 7}), 400, "label"),
    ] {
        let reply = operator.post_json(method_path, &body).await;
        assert_eq!(reply.status.as_u16(), status, "{body}: {}", reply.text);
        assert_eq!(reply.json["field"], field, "{}", reply.text);
    }
    for (query, field) in [
        ("status=open", "status"),
        ("limit=0", "limit"),
        ("after=nonsense", "after"),
    ] {
        let reply = operator.get(&format!("/v1/seed-pairs?{query}")).await;
        assert!(reply.status.is_client_error(), "{query}: {}", reply.text);
        assert_eq!(reply.json["field"], field, "{query}: {}", reply.text);
    }
    // A client that declares JSON on every request, with no body: no label.
    let plain = operator
        .send(
            operator
                .request(reqwest::Method::POST, "/v1/seed-pairs")
                .header("content-type", "application/json"),
        )
        .await;
    assert_eq!(plain.status, StatusCode::CREATED, "{}", plain.text);
    let anonymous = app.public.get("/v1/seed-pairs").await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
}
on_both_backends!(pairs_are_listed_by_status_and_label_page_by_page);

/// `keys create --tenant` and `pairs list`, through the real binary.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_command_line_makes_tenant_keys_and_lists_pairs() {
    let db = TestDatabase::create(Backend::Sqlite)
        .await
        .expect("SQLite always runs");
    let deployment = Deployment::new(&db);
    let key = deployment.create_key("brand-b-backend");
    let out = deployment.run(&["keys", "create", "--name", "b2", "--tenant", "brand b"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a tenant name breaks the name rule"
    );
    let tenant_key = {
        let out = deployment.run(&["keys", "create", "--name", "b3", "--tenant", "brand-b"]);
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .expect("UTF-8")
            .trim()
            .to_owned()
    };
    let listed = deployment.run(&["keys", "list"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("b3\ttenant brand-b"), "{listed}");

    let log = db.dir.path().join("serve.log");
    let server = deployment.serve(&log, &[]);
    let brand_b = Client::new(&server.base).with_key(&tenant_key);
    let pair = brand_b
        .post_json("/v1/seed-pairs", &json!({"label": "table-9"}))
        .await
        .id();
    Client::new(&server.base)
        .with_key(&key)
        .post("/v1/seed-pairs")
        .await;
    // Each key's last use, to the minute, written beside the request; a key
    // never presented says so.
    let idle = deployment.run(&["keys", "create", "--name", "idle-one"]);
    assert!(idle.status.success());
    let mut listed = String::new();
    for _ in 0..50 {
        listed = String::from_utf8_lossy(&deployment.run(&["keys", "list"]).stdout).into_owned();
        if listed
            .lines()
            .filter(|l| l.contains("\tlast used 20"))
            .count()
            == 2
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    for (name, used) in [
        ("b3", "\tlast used 20"),
        ("brand-b-backend", "\tlast used 20"),
        ("idle-one", "\tnever used"),
    ] {
        assert!(
            listed
                .lines()
                .any(|l| l.starts_with(&format!("{name}\t")) && l.contains(used)),
            "{name}: {listed}"
        );
    }
    assert!(server.terminate().success());

    let out = deployment.run(&["pairs", "list", "--tenant", "brand-b"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.starts_with(&format!("{pair}\tawaiting_client_seed\ttable-9\t")),
        "{text}"
    );
    let out = deployment.run(&["pairs", "list", "--status", "closed"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--status"));
    db.remove().await;
}
