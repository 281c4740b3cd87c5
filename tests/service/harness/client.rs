//! The one HTTP client of the service tests, for the in-process server, the
//! real `fairdeal serve` process and the page test alike: a base URL, an
//! optional operator key sent as a bearer token, and replies read whole.

use std::sync::{Arc, Mutex};

use reqwest::header::HeaderMap;
use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::{Value, json};

/// A server's base URL and, for operator calls, an API key.
#[derive(Clone, Debug)]
pub struct Client {
    http: reqwest::Client,
    base: String,
    key: Option<String>,
    /// When recording, every response body in order (shared by clones).
    transcript: Option<Arc<Mutex<Vec<String>>>>,
}

/// A response read whole: the body as text, and as JSON when it is JSON
/// (`Value::Null` otherwise).
#[derive(Debug)]
pub struct Reply {
    /// `METHOD URL` of the request, for assertion messages.
    pub request: String,
    pub status: StatusCode,
    pub headers: HeaderMap,
    /// The body as sent (tiles are binary).
    pub bytes: Vec<u8>,
    pub text: String,
    pub json: Value,
}

/// The `id` of a seed pair or round.
pub fn id(value: &Value) -> String {
    value["id"].as_str().expect("an id").to_owned()
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or("")
    }

    /// The `id` in the body.
    pub fn id(&self) -> String {
        id(&self.json)
    }

    /// The JSON body, once the status is checked to be 2xx.
    pub fn success(self) -> Value {
        assert!(
            self.status.is_success(),
            "{}: {}\n{}",
            self.request,
            self.status,
            self.text
        );
        self.json
    }
}

impl Client {
    /// A public reader (no key) of the server at `base`.
    pub fn new(base: &str) -> Self {
        Self {
            http: reqwest::Client::new(),
            base: base.to_owned(),
            key: None,
            transcript: None,
        }
    }

    /// Sends `Authorization: Bearer KEY` with every request.
    pub fn with_key(mut self, key: &str) -> Self {
        self.key = Some(key.to_owned());
        self
    }

    /// The same server, read without a key.
    pub fn without_key(&self) -> Self {
        Self {
            key: None,
            ..self.clone()
        }
    }

    /// Another server, with the same key and transcript.
    pub fn at(&self, base: &str) -> Self {
        Self {
            base: base.to_owned(),
            ..self.clone()
        }
    }

    /// Keeps every response body, for [`Client::transcript`].
    pub fn recording(mut self) -> Self {
        self.transcript = Some(Arc::default());
        self
    }

    /// A new connection for every request, never an idle pooled one.
    pub fn without_connection_reuse(mut self) -> Self {
        self.http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("client");
        self
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn key(&self) -> &str {
        self.key.as_deref().expect("an operator client")
    }

    /// Every response body so far, in order (when recording).
    pub fn transcript(&self) -> Vec<String> {
        let transcript = self.transcript.as_ref().expect("a recording client");
        transcript.lock().expect("lock").clone()
    }

    /// A request to `base + path`, with the key if there is one; add headers
    /// or a body, then [`Client::send`] it.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let request = self.http.request(method, format!("{}{path}", self.base));
        match &self.key {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    /// Sends and reads the whole reply; `Err` if either fails.
    pub async fn try_send(&self, request: RequestBuilder) -> Result<Reply, reqwest::Error> {
        let (http, request) = request.build_split();
        let request = request?;
        let description = format!("{} {}", request.method(), request.url());
        let response = http.execute(request).await?;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await?.to_vec();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if let Some(transcript) = &self.transcript {
            transcript.lock().expect("lock").push(text.clone());
        }
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        if headers
            .get(reqwest::header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes() == b"application/problem+json")
        {
            check_problem(&description, status, &json);
        }
        Ok(Reply {
            request: description,
            status,
            headers,
            bytes,
            text,
            json,
        })
    }

    pub async fn send(&self, request: RequestBuilder) -> Reply {
        self.try_send(request)
            .await
            .expect("request sent and reply read")
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(self.request(Method::GET, path)).await
    }

    /// `POST` without a body.
    pub async fn post(&self, path: &str) -> Reply {
        self.send(self.request(Method::POST, path)).await
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> Reply {
        self.send(self.request(Method::POST, path).json(body)).await
    }

    pub async fn put_json(&self, path: &str, body: &Value) -> Reply {
        self.send(self.request(Method::PUT, path).json(body)).await
    }

    /// Creates a seed pair and sets its client seed: the pair's id, ready to
    /// deal.
    pub async fn active_pair(&self, client_seed: &str) -> String {
        self.pair_with(json!({ "client_seed": client_seed })).await
    }

    /// A new pair given `client_seed` while another live pair of the
    /// tenant may hold it (`allow_reuse`): the deal-shopping the monitor
    /// and the page must catch.
    pub async fn reusing_pair(&self, client_seed: &str) -> String {
        self.pair_with(json!({ "client_seed": client_seed, "allow_reuse": true }))
            .await
    }

    async fn pair_with(&self, body: Value) -> String {
        let created = self.post("/v1/seed-pairs").await;
        assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
        let id = created.id();
        let set = self
            .put_json(&format!("/v1/seed-pairs/{id}/client-seed"), &body)
            .await;
        assert_eq!(set.status, StatusCode::OK, "{}", set.text);
        id
    }

    pub async fn deal(&self, pair_id: &str, game: Value) -> Reply {
        self.post_json(
            &format!("/v1/seed-pairs/{pair_id}/rounds"),
            &json!({ "game": game }),
        )
        .await
    }

    /// Closes a round, checking that it closed.
    pub async fn close(&self, round_id: &str) {
        let closed = self.post(&format!("/v1/rounds/{round_id}/close")).await;
        assert_eq!(closed.status, StatusCode::OK, "{}", closed.text);
        assert_eq!(closed.json["status"], "closed");
    }

    pub async fn rotate(&self, pair_id: &str, client_seed: &str) -> Reply {
        self.post_json(
            &format!("/v1/seed-pairs/{pair_id}/rotate"),
            &json!({ "client_seed": client_seed }),
        )
        .await
    }
}

/// Every problem the API answers, in every test: its `type` is one of the
/// kinds the API declares, with that kind's title and status, so a backend
/// can switch on it.
fn check_problem(request: &str, status: StatusCode, problem: &Value) {
    use fairdeal::service::http::problems::ProblemKind;
    let uri = problem["type"].as_str().unwrap_or_default();
    let kind = ProblemKind::ALL
        .iter()
        .find(|k| k.uri() == uri)
        .unwrap_or_else(|| panic!("{request}: an undeclared problem type {uri:?}: {problem}"));
    assert_eq!(problem["title"], kind.title(), "{request}: {problem}");
    assert_eq!(kind.status(), status, "{request}: {problem}");
    assert_eq!(problem["status"], status.as_u16(), "{request}: {problem}");
}
