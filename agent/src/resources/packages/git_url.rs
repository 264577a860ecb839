//! Git package sources read as the reference reads them: with `git:` any shorthand
//! (`github.com/user/repo`, `git@host:user/repo`, `user/repo` for GitHub), without it only
//! `https://`, `http://`, `ssh://` and `git://` URLs; `@ref` after the path pins a ref. The
//! host and path name the clone's folder (`<agent dir>/git/<host>/<path>`).

use reqwest::Url;

/// A git repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSource {
    /// The URL to clone.
    pub repo: String,
    /// The host (`github.com`).
    pub host: String,
    /// The repository's path on it, without `.git` (`user/repo`).
    pub path: String,
    /// The pinned ref (`@v1` or `#v1`), if any.
    pub git_ref: Option<String>,
}

/// The repository a source names, or `None` when it is not one.
pub fn parse_git_url(source: &str) -> Option<GitSource> {
    let trimmed = crate::js::trim(source);
    let prefixed = trimmed.strip_prefix("git:");
    let url = prefixed.map_or(trimmed, crate::js::trim);
    let is_url = ["https://", "http://", "ssh://", "git://"]
        .iter()
        .any(|scheme| {
            url.len() >= scheme.len() && url[..scheme.len()].eq_ignore_ascii_case(scheme)
        });
    if prefixed.is_none() && !is_url {
        return None;
    }
    let (repo, git_ref) = split_ref(url);
    let with_ref = |prefix: &str| git_ref.as_ref().map(|r| format!("{prefix}{repo}#{r}"));
    let hosted_tries = [
        (with_ref(""), false),
        (Some(url.to_owned()), false),
        (with_ref("https://"), true),
        (Some(format!("https://{url}")), true),
    ];
    for (candidate, https) in hosted_tries {
        let Some(info) = candidate.as_deref().and_then(hosted) else {
            continue;
        };
        if git_ref.is_some() && info.project.contains('@') {
            continue;
        }
        let schemes = ["http://", "https://", "ssh://", "git://", "git@"];
        let repo = if https || !schemes.iter().any(|scheme| repo.starts_with(scheme)) {
            format!("https://{repo}")
        } else {
            repo.clone()
        };
        let git_ref = info.committish.or_else(|| git_ref.clone());
        return build(
            repo,
            info.domain,
            format!("{}/{}", info.user, info.project),
            git_ref,
        );
    }
    generic(url)
}

/// `(repository, ref)`: the ref is what follows the first `@` of the path.
fn split_ref(url: &str) -> (String, Option<String>) {
    let cut = |path: &str| -> Option<(String, String)> {
        let (repo_path, git_ref) = path.split_once('@')?;
        (!repo_path.is_empty() && !git_ref.is_empty())
            .then(|| (repo_path.to_owned(), git_ref.to_owned()))
    };
    if let Some((host, path)) = scp_like(url) {
        return match cut(path) {
            Some((path, git_ref)) => (format!("git@{host}:{path}"), Some(git_ref)),
            None => (url.to_owned(), None),
        };
    }
    if url.contains("://") {
        let Ok(mut parsed) = Url::parse(url) else {
            return (url.to_owned(), None);
        };
        let Some((path, git_ref)) = cut(parsed.path().trim_start_matches('/')) else {
            return (url.to_owned(), None);
        };
        parsed.set_path(&format!("/{path}"));
        let text = parsed.to_string();
        return (
            text.strip_suffix('/').unwrap_or(&text).to_owned(),
            Some(git_ref),
        );
    }
    let Some((host, path)) = url.split_once('/') else {
        return (url.to_owned(), None);
    };
    match cut(path) {
        Some((path, git_ref)) => (format!("{host}/{path}"), Some(git_ref)),
        None => (url.to_owned(), None),
    }
}

/// `git@host:path`.
fn scp_like(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("git@")?;
    let (host, path) = rest.split_once(':')?;
    (!host.is_empty() && !path.is_empty()).then_some((host, path))
}

/// A repository of a known host (GitHub, GitLab, Bitbucket, Gist, SourceHut).
struct Hosted {
    domain: String,
    user: String,
    project: String,
    committish: Option<String>,
}

/// The known host a URL names, read as npm reads hosted git URLs; `user/repo` is GitHub's.
fn hosted(text: &str) -> Option<Hosted> {
    if github_shorthand(text) {
        let parsed = Url::parse(&format!("https://github.com/{text}")).ok()?;
        return extract("github.com", &parsed);
    }
    let corrected = correct_protocol(text);
    let parsed = Url::parse(&corrected)
        .ok()
        .or_else(|| Url::parse(&correct_url(&corrected)).ok())?;
    let host = parsed.host_str()?;
    let domain = host.strip_prefix("www.").unwrap_or(host);
    let protocols: &[&str] = match domain {
        "github.com" => &["git", "http", "git+ssh", "git+https", "ssh", "https"],
        "gist.github.com" => &["git", "git+ssh", "git+https", "ssh", "https"],
        "gitlab.com" | "bitbucket.org" => &["git+ssh", "git+https", "ssh", "https"],
        "git.sr.ht" => &["git+ssh", "https"],
        _ => return None,
    };
    if !protocols.contains(&parsed.scheme()) {
        return None;
    }
    extract(domain, &parsed)
}

/// The user, project and committish of a known host's URL, or `None` when its path is not a
/// repository's.
fn extract(domain: &str, url: &Url) -> Option<Hosted> {
    let decode = |text: &str| {
        percent_encoding::percent_decode_str(text)
            .decode_utf8()
            .ok()
            .map(|text| text.into_owned())
    };
    let hash = url.fragment().unwrap_or("");
    let path = url.path();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let segment = |index: usize| segments.get(index).copied().unwrap_or("");
    let no_git = |project: &str| project.strip_suffix(".git").unwrap_or(project).to_owned();
    let (user, project, committish) = match domain {
        "github.com" => {
            let kind = segment(2);
            if !kind.is_empty() && kind != "tree" {
                return None;
            }
            let committish = if kind.is_empty() { hash } else { segment(3) };
            (segment(0).to_owned(), no_git(segment(1)), committish)
        }
        "gitlab.com" => {
            let inner = path.trim_start_matches('/');
            if inner.contains("/-/") || inner.contains("/archive.tar.gz") {
                return None;
            }
            let (user, project) = inner.rsplit_once('/').unwrap_or(("", inner));
            (user.to_owned(), no_git(project), hash)
        }
        "gist.github.com" => {
            if segment(2) == "raw" {
                return None;
            }
            let (user, project) = if segment(1).is_empty() {
                ("null", segment(0))
            } else {
                (segment(0), segment(1))
            };
            (user.to_owned(), no_git(project), hash)
        }
        _ => {
            let refused = if domain == "bitbucket.org" {
                "get"
            } else {
                "archive"
            };
            if segment(2) == refused {
                return None;
            }
            (segment(0).to_owned(), no_git(segment(1)), hash)
        }
    };
    if user.is_empty() || project.is_empty() {
        return None;
    }
    Some(Hosted {
        domain: domain.to_owned(),
        user: decode(&user)?,
        project: decode(&project)?,
        committish: Some(decode(committish)?).filter(|c| !c.is_empty()),
    })
}

/// `user/repo` (no host, no `@` or `:` before a `#`).
fn github_shorthand(text: &str) -> bool {
    let before_hash = text.split('#').next().unwrap_or("");
    let Some(first_slash) = before_hash.find('/') else {
        return false;
    };
    first_slash > 0
        && !before_hash[first_slash + 1..].contains('/')
        && !before_hash.contains(['@', ':'])
        && !before_hash.contains(char::is_whitespace)
        && !before_hash.ends_with('/')
        && !text.starts_with('.')
}

/// A URL with its scheme made explicit: `user@host:path` is `git+ssh://`.
fn correct_protocol(text: &str) -> String {
    let colon = text.find(':');
    let scheme = colon.map_or("", |colon| &text[..colon]);
    let known = [
        "git+ssh",
        "ssh",
        "git+https",
        "git",
        "http",
        "https",
        "git+http",
    ];
    if colon.is_some() && known.contains(&scheme) {
        return text.to_owned();
    }
    if let Some(at) = text.find('@') {
        return if colon.is_none_or(|colon| at > colon) {
            format!("git+ssh://{text}")
        } else {
            text.to_owned()
        };
    }
    let after = colon.map_or(0, |colon| colon + 1);
    if text[after..].starts_with("//") {
        text.to_owned()
    } else {
        format!("{}//{}", &text[..after], &text[after..])
    }
}

/// An scp-like address's last `:` (before `#`, after the user's `@`) made a `/`.
fn correct_url(text: &str) -> String {
    let before_hash = text.split('#').next().unwrap_or("");
    let at = before_hash.rfind('@');
    let mut text = text.to_owned();
    if let Some(colon) = before_hash.rfind(':')
        && at.is_none_or(|at| colon > at)
    {
        text.replace_range(colon..=colon, "/");
    }
    let before_hash = text.split('#').next().unwrap_or("");
    if !before_hash.contains(':') && !text.contains("//") {
        text = format!("git+ssh://{text}");
    }
    text
}

/// Any other host: `git@host:path`, a URL, or `host/path` (the host with a dot, or
/// `localhost`).
fn generic(url: &str) -> Option<GitSource> {
    let (repo, git_ref) = split_ref(url);
    if let Some((host, path)) = scp_like(&repo) {
        return build(repo.clone(), host.to_owned(), path.to_owned(), git_ref);
    }
    if ["https://", "http://", "ssh://", "git://"]
        .iter()
        .any(|scheme| repo.starts_with(scheme))
    {
        let parsed = Url::parse(&repo).ok()?;
        let host = parsed.host_str().unwrap_or("").to_owned();
        let path = parsed.path().trim_start_matches('/').to_owned();
        return build(repo.clone(), host, path, git_ref);
    }
    let (host, path) = repo.split_once('/')?;
    if !host.contains('.') && host != "localhost" {
        return None;
    }
    build(
        format!("https://{repo}"),
        host.to_owned(),
        path.to_owned(),
        git_ref,
    )
}

/// The source, unless its host or path could leave the clone folder.
fn build(repo: String, host: String, path: String, git_ref: Option<String>) -> Option<GitSource> {
    if path.starts_with('/') {
        return None;
    }
    let path = path.strip_suffix(".git").unwrap_or(&path);
    let path = path.trim_start_matches('/').to_owned();
    if host.is_empty() || path.is_empty() || path.split('/').count() < 2 {
        return None;
    }
    if unsafe_part(&host, false) || unsafe_part(&path, true) {
        return None;
    }
    Some(GitSource {
        repo,
        host,
        path,
        git_ref,
    })
}

fn unsafe_part(value: &str, allow_slash: bool) -> bool {
    let Ok(decoded) = percent_encoding::percent_decode_str(value).decode_utf8() else {
        return true;
    };
    [value, decoded.as_ref()].iter().any(|candidate| {
        candidate.contains(['\0', '\\'])
            || candidate.starts_with('/')
            || (!allow_slash && candidate.contains('/'))
            || candidate.split('/').any(|part| part == "..")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(source: &str) -> Option<(String, String, Option<String>)> {
        parse_git_url(source).map(|git| (git.host, git.path, git.git_ref))
    }

    fn expect(
        host: &str,
        path: &str,
        git_ref: Option<&str>,
    ) -> Option<(String, String, Option<String>)> {
        Some((host.into(), path.into(), git_ref.map(str::to_owned)))
    }

    #[test]
    fn the_documented_forms_name_host_path_and_ref() {
        let github = |r: Option<&str>| expect("github.com", "user/repo", r);
        assert_eq!(parts("git:github.com/user/repo@v1"), github(Some("v1")));
        assert_eq!(parts("git:git@github.com:user/repo@v1"), github(Some("v1")));
        assert_eq!(parts("https://github.com/user/repo@v1"), github(Some("v1")));
        assert_eq!(
            parts("ssh://git@github.com/user/repo@v1"),
            github(Some("v1"))
        );
        assert_eq!(parts("https://github.com/user/repo.git"), github(None));
        assert_eq!(
            parts("https://github.com/user/repo#main"),
            github(Some("main"))
        );
        assert_eq!(parts("git:user/repo"), github(None));
        assert_eq!(
            parts("git:gitlab.com/group/sub/proj@v2"),
            expect("gitlab.com", "group/sub/proj", Some("v2"))
        );
        assert_eq!(
            parts("https://git.example.org/team/tools.git@abc123"),
            expect("git.example.org", "team/tools", Some("abc123"))
        );
        assert_eq!(
            parts("git:localhost/team/tools"),
            expect("localhost", "team/tools", None)
        );
        assert_eq!(
            parse_git_url("git:github.com/user/repo@v1").map(|git| git.repo),
            Some("https://github.com/user/repo".into())
        );
    }

    #[test]
    fn what_is_not_a_repository_is_refused() {
        // Without `git:` only URLs; a host needs a dot; a path needs two parts.
        assert_eq!(parts("github.com/user/repo"), None);
        assert_eq!(parts("git:server/user/repo"), None);
        assert_eq!(parts("https://example.org/only"), None);
        assert_eq!(parts("git:example.org/a/../../etc"), None);
        assert_eq!(parts("git:example.org/a/%2e%2e/b"), None);
    }
}
