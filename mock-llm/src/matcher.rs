//! Deciding whether a scripted response may answer a request.

use crate::request::RequestInfo;
use crate::script::Matcher;

/// Whether every condition of `matcher` holds for `request`.
pub(crate) fn matches(matcher: &Matcher, request: &RequestInfo) -> bool {
    if matcher
        .request_index
        .is_some_and(|index| index != request.index)
    {
        return false;
    }
    if matcher
        .model
        .as_ref()
        .is_some_and(|model| *model != request.model)
    {
        return false;
    }
    if matcher
        .format
        .is_some_and(|format| format != request.format)
    {
        return false;
    }
    if matcher
        .last_message_role
        .is_some_and(|role| Some(role) != request.last_role)
    {
        return false;
    }
    if let Some(text) = &matcher.last_message_text
        && !request.last_text.contains(text.as_str())
    {
        return false;
    }
    if let Some(pattern) = &matcher.last_message_pattern {
        // Validated when the script was loaded; an invalid pattern matches nothing.
        let found = regex::Regex::new(pattern).is_ok_and(|re| re.is_match(&request.last_text));
        if !found {
            return false;
        }
    }
    if let Some(id) = &matcher.has_tool_result
        && !request.tool_result_ids.iter().any(|known| known == id)
    {
        return false;
    }
    true
}

/// A one-line description of a request for error messages.
pub(crate) fn describe(request: &RequestInfo) -> String {
    let role = match request.last_role {
        Some(role) => serde_json::to_value(role)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        None => "none".to_owned(),
    };
    let mut text: String = request.last_text.chars().take(60).collect();
    if request.last_text.chars().count() > 60 {
        text.push_str("...");
    }
    format!(
        "format {}, model `{}`, last message role {role}, text {text:?}",
        request.format.name(),
        request.model
    )
}
