//! The HTTP client of model calls, made on first use: a session that never calls a provider
//! (most short-lived ones, every start-up until the first prompt) never builds the TLS settings
//! and root certificates a client carries, a start-up cost in time and in resident pages.

use std::sync::OnceLock;

/// A client to be made with these proxies, or the one made.
#[derive(Debug)]
pub struct HttpClient {
    /// `HTTP_PROXY` / `HTTPS_PROXY` values from the settings, for variables the environment
    /// leaves unset.
    proxies: Vec<(String, String)>,
    client: OnceLock<reqwest::Client>,
}

impl HttpClient {
    /// A client with the environment's proxies, `proxies` filling in where it has none.
    pub fn new(proxies: Vec<(String, String)>) -> Self {
        Self {
            proxies,
            client: OnceLock::new(),
        }
    }

    /// The client (made now when this is the first use; clones share one connection pool).
    pub fn get(&self) -> reqwest::Client {
        self.client.get_or_init(|| build(&self.proxies)).clone()
    }
}

/// The environment's proxies (`http_proxy` before `HTTP_PROXY`, likewise for HTTPS, and
/// `NO_PROXY`), with `extra` filling in `HTTP_PROXY` / `HTTPS_PROXY` where the environment
/// leaves them unset.
fn build(extra: &[(String, String)]) -> reqwest::Client {
    if extra.is_empty() {
        return reqwest::Client::new();
    }
    // The lower-case variable comes first, as undici's `EnvHttpProxyAgent` reads them;
    // `httpProxy` only stands in for the upper-case one.
    let value = |name: &str| {
        std::env::var(name.to_ascii_lowercase())
            .ok()
            .or_else(|| {
                extra
                    .iter()
                    .find(|(key, _)| key == name)
                    .map(|(_, value)| value.clone())
            })
            .or_else(|| std::env::var(name).ok())
    };
    let mut builder = reqwest::Client::builder();
    let no_proxy = reqwest::NoProxy::from_env;
    if let Some(Ok(proxy)) = value("HTTP_PROXY").map(reqwest::Proxy::http) {
        builder = builder.proxy(proxy.no_proxy(no_proxy()));
    }
    if let Some(Ok(proxy)) = value("HTTPS_PROXY").map(reqwest::Proxy::https) {
        builder = builder.proxy(proxy.no_proxy(no_proxy()));
    }
    builder.build().unwrap_or_default()
}
