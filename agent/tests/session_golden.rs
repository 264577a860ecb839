//! Golden comparisons with session files the reference pi 0.84.1 wrote (machine paths
//! rewritten to `/project`): loading them back byte for byte, building the same session through
//! the store, forking, compaction-aware context and migration of a version 1 file.
#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pi_agent::store::{NewCompaction, SessionStore};
use pi_rpc_protocol::message::AgentMessage;
use serde_json::{Map, Value};

/// `set_session_name "  my\nsession  "`, prompt `hello`, `set_thinking_level high`, `set_model
/// mock-model-2` (thinking clamped to off), prompt `again`.
const REFERENCE_SESSION: &str = r#"{"type":"session","version":3,"id":"01a22dce-d5d3-7fc6-9dfa-7e69dd2c7164","timestamp":"2026-11-30T18:54:19.603Z","cwd":"/project"}
{"type":"model_change","id":"16a8c2cb","parentId":null,"timestamp":"2026-11-30T18:54:19.683Z","provider":"mock","modelId":"mock-model-1"}
{"type":"thinking_level_change","id":"79ab6f5c","parentId":"16a8c2cb","timestamp":"2026-11-30T18:54:19.683Z","thinkingLevel":"medium"}
{"type":"session_info","id":"7ee65747","parentId":"79ab6f5c","timestamp":"2026-11-30T18:54:19.701Z","name":"my session"}
{"type":"message","id":"24cbbe07","parentId":"7ee65747","timestamp":"2026-11-30T18:54:19.719Z","message":{"role":"user","content":[{"type":"text","text":"hello"}],"timestamp":1796064859702}}
{"type":"message","id":"39e96228","parentId":"24cbbe07","timestamp":"2026-11-30T18:54:19.828Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":1796064859776,"responseId":"msg_1","rawStopReason":"end_turn"}}
{"type":"thinking_level_change","id":"d6b220bd","parentId":"39e96228","timestamp":"2026-11-30T18:54:19.830Z","thinkingLevel":"high"}
{"type":"model_change","id":"476cb041","parentId":"d6b220bd","timestamp":"2026-11-30T18:54:19.839Z","provider":"mock","modelId":"mock-model-2"}
{"type":"thinking_level_change","id":"2abaa27d","parentId":"476cb041","timestamp":"2026-11-30T18:54:19.839Z","thinkingLevel":"off"}
{"type":"message","id":"0149f15c","parentId":"2abaa27d","timestamp":"2026-11-30T18:54:19.841Z","message":{"role":"user","content":[{"type":"text","text":"again"}],"timestamp":1796064859841}}
{"type":"message","id":"c2b9ffe5","parentId":"0149f15c","timestamp":"2026-11-30T18:54:19.892Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-2","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":1796064859842,"responseId":"msg_1","rawStopReason":"end_turn"}}
"#;

/// The reference's `fork` of [`REFERENCE_SESSION`] at the user message `0149f15c` (`again`),
/// before anything else was appended.
const REFERENCE_FORK: &str = r#"{"type":"session","version":3,"id":"01a22dce-fdf9-7935-bd3d-70b5ea89e6db","timestamp":"2026-11-30T18:54:29.881Z","cwd":"/project","parentSession":"/project/s1/2026-11-30T18-54-19-603Z_01a22dce-d5d3-7fc6-9dfa-7e69dd2c7164.jsonl"}
{"type":"model_change","id":"16a8c2cb","parentId":null,"timestamp":"2026-11-30T18:54:19.683Z","provider":"mock","modelId":"mock-model-1"}
{"type":"thinking_level_change","id":"79ab6f5c","parentId":"16a8c2cb","timestamp":"2026-11-30T18:54:19.683Z","thinkingLevel":"medium"}
{"type":"session_info","id":"7ee65747","parentId":"79ab6f5c","timestamp":"2026-11-30T18:54:19.701Z","name":"my session"}
{"type":"message","id":"24cbbe07","parentId":"7ee65747","timestamp":"2026-11-30T18:54:19.719Z","message":{"role":"user","content":[{"type":"text","text":"hello"}],"timestamp":1796064859702}}
{"type":"message","id":"39e96228","parentId":"24cbbe07","timestamp":"2026-11-30T18:54:19.828Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":1796064859776,"responseId":"msg_1","rawStopReason":"end_turn"}}
{"type":"thinking_level_change","id":"d6b220bd","parentId":"39e96228","timestamp":"2026-11-30T18:54:19.830Z","thinkingLevel":"high"}
{"type":"model_change","id":"476cb041","parentId":"d6b220bd","timestamp":"2026-11-30T18:54:19.839Z","provider":"mock","modelId":"mock-model-2"}
{"type":"thinking_level_change","id":"2abaa27d","parentId":"476cb041","timestamp":"2026-11-30T18:54:19.839Z","thinkingLevel":"off"}
"#;

/// A prompt answered with thinking and a `bash` tool call, then text with non-ASCII and U+2028;
/// a `bash` command; the same again.
const REFERENCE_TOOLS: &str = r#"{"type":"session","version":3,"id":"01a22dd9-3d7a-7ffc-b78f-94bd6df8c842","timestamp":"2026-11-30T19:05:41.498Z","cwd":"/project"}
{"type":"model_change","id":"c19461b2","parentId":null,"timestamp":"2026-11-30T19:05:41.569Z","provider":"mock","modelId":"mock-model-1"}
{"type":"thinking_level_change","id":"b1cb43b9","parentId":"c19461b2","timestamp":"2026-11-30T19:05:41.569Z","thinkingLevel":"medium"}
{"type":"message","id":"50ca7192","parentId":"b1cb43b9","timestamp":"2026-11-30T19:05:41.579Z","message":{"role":"user","content":[{"type":"text","text":"run echo"}],"timestamp":1796065541577}}
{"type":"message","id":"3ceb93cb","parentId":"50ca7192","timestamp":"2026-11-30T19:05:41.715Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"Let me run it.","thinkingSignature":"sig=="},{"type":"toolCall","id":"toolu_01","name":"bash","arguments":{"command":"echo hi"}}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":7,"cacheRead":3,"cacheWrite":0,"totalTokens":20,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"toolUse","timestamp":1796065541614,"responseId":"msg_2","rawStopReason":"tool_use"}}
{"type":"message","id":"6e4623f6","parentId":"3ceb93cb","timestamp":"2026-11-30T19:05:41.728Z","message":{"role":"toolResult","toolCallId":"toolu_01","toolName":"bash","content":[{"type":"text","text":"hi\n"}],"isError":false,"timestamp":1796065541728}}
{"type":"message","id":"1f68b8a8","parentId":"6e4623f6","timestamp":"2026-11-30T19:05:41.735Z","message":{"role":"assistant","content":[{"type":"text","text":"done é "}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":3,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":1796065541729,"responseId":"msg_2","rawStopReason":"end_turn"}}
{"type":"message","id":"6d9011c3","parentId":"1f68b8a8","timestamp":"2026-11-30T19:05:41.741Z","message":{"role":"bashExecution","command":"echo from-bash","output":"from-bash\n","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1796065541741}}
{"type":"message","id":"7f3f2b57","parentId":"6d9011c3","timestamp":"2026-11-30T19:05:41.742Z","message":{"role":"user","content":[{"type":"text","text":"again"}],"timestamp":1796065541742}}
{"type":"message","id":"e0f352f8","parentId":"7f3f2b57","timestamp":"2026-11-30T19:05:41.792Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"Let me run it.","thinkingSignature":"sig=="},{"type":"toolCall","id":"toolu_01","name":"bash","arguments":{"command":"echo hi"}}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":7,"cacheRead":3,"cacheWrite":0,"totalTokens":20,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"toolUse","timestamp":1796065541743,"responseId":"msg_2","rawStopReason":"tool_use"}}
{"type":"message","id":"d9f7e980","parentId":"e0f352f8","timestamp":"2026-11-30T19:05:41.806Z","message":{"role":"toolResult","toolCallId":"toolu_01","toolName":"bash","content":[{"type":"text","text":"hi\n"}],"isError":false,"timestamp":1796065541806}}
{"type":"message","id":"638cfea9","parentId":"d9f7e980","timestamp":"2026-11-30T19:05:41.852Z","message":{"role":"assistant","content":[{"type":"text","text":"done é "}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":3,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":1796065541807,"responseId":"msg_2","rawStopReason":"end_turn"}}
"#;

/// Three prompts, `compact` (keepRecentTokens 1), a fourth prompt.
const REFERENCE_COMPACTED: &str = r#"{"type":"session","version":3,"id":"01a22dd4-1a30-7136-a2bb-f54660eac226","timestamp":"2026-11-30T19:00:04.784Z","cwd":"/project"}
{"type":"model_change","id":"5738423f","parentId":null,"timestamp":"2026-11-30T19:00:04.864Z","provider":"mock","modelId":"mock-model-1"}
{"type":"thinking_level_change","id":"277a64ca","parentId":"5738423f","timestamp":"2026-11-30T19:00:04.864Z","thinkingLevel":"medium"}
{"type":"message","id":"d1000b8e","parentId":"277a64ca","timestamp":"2026-11-30T19:00:04.878Z","message":{"role":"user","content":[{"type":"text","text":"one"}],"timestamp":1796065204876}}
{"type":"message","id":"d8cf7cb9","parentId":"d1000b8e","timestamp":"2026-11-30T19:00:05.052Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":1796065204989,"responseId":"msg_1","rawStopReason":"end_turn"}}
{"type":"message","id":"1267abf4","parentId":"d8cf7cb9","timestamp":"2026-11-30T19:00:05.056Z","message":{"role":"user","content":[{"type":"text","text":"two"}],"timestamp":1796065205056}}
{"type":"message","id":"1a0eeba3","parentId":"1267abf4","timestamp":"2026-11-30T19:00:05.116Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":1796065205057,"responseId":"msg_1","rawStopReason":"end_turn"}}
{"type":"message","id":"845e05b4","parentId":"1a0eeba3","timestamp":"2026-11-30T19:00:05.117Z","message":{"role":"user","content":[{"type":"text","text":"three"}],"timestamp":1796065205117}}
{"type":"message","id":"734a034c","parentId":"845e05b4","timestamp":"2026-11-30T19:00:05.164Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":1796065205118,"responseId":"msg_1","rawStopReason":"end_turn"}}
{"type":"compaction","id":"9e8d3318","parentId":"734a034c","timestamp":"2026-11-30T19:00:05.244Z","summary":"hi\n\n---\n\n**Turn Context (split turn):**\n\nhi","firstKeptEntryId":"734a034c","tokensBefore":12,"details":{"readFiles":[],"modifiedFiles":[]},"usage":{"input":20,"output":4,"cacheRead":0,"cacheWrite":0,"cacheWrite1h":0,"totalTokens":24,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"fromHook":false}
{"type":"message","id":"5df4a087","parentId":"9e8d3318","timestamp":"2026-11-30T19:00:05.246Z","message":{"role":"user","content":[{"type":"text","text":"four"}],"timestamp":1796065205245}}
{"type":"message","id":"0a9c3303","parentId":"5df4a087","timestamp":"2026-11-30T19:00:05.296Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":1796065205246,"responseId":"msg_1","rawStopReason":"end_turn"}}
"#;

/// `get_messages` of the reference after [`REFERENCE_COMPACTED`].
const REFERENCE_COMPACTED_MESSAGES: &str = r#"[{"role":"compactionSummary","summary":"hi\n\n---\n\n**Turn Context (split turn):**\n\nhi","tokensBefore":12,"timestamp":1796065205244},{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":1796065205118,"responseId":"msg_1","rawStopReason":"end_turn"},{"role":"user","content":[{"type":"text","text":"four"}],"timestamp":1796065205245},{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":1796065205246,"responseId":"msg_1","rawStopReason":"end_turn"}]"#;

/// A file written by this store: a label, a second branch from the first prompt, an extension
/// message and state entry, a compaction, a second label, a name.
const BRANCHED: &str = r#"{"type":"session","version":3,"id":"01a22ddb-893b-73e6-aa07-e2f258082770","timestamp":"2026-11-30T19:08:11.963Z","cwd":"/project"}
{"type":"model_change","id":"87340211","parentId":null,"timestamp":"2026-11-30T19:08:11.963Z","provider":"mock","modelId":"mock-model-1"}
{"type":"thinking_level_change","id":"a94c480f","parentId":"87340211","timestamp":"2026-11-30T19:08:11.963Z","thinkingLevel":"medium"}
{"type":"message","id":"580659ca","parentId":"a94c480f","timestamp":"2026-11-30T19:08:11.966Z","message":{"role":"user","content":[{"type":"text","text":"one"}],"timestamp":1}}
{"type":"message","id":"45e6186f","parentId":"580659ca","timestamp":"2026-11-30T19:08:11.970Z","message":{"role":"assistant","content":[{"type":"text","text":"first answer"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":2,"responseId":"msg_1","rawStopReason":"end_turn"}}
{"type":"label","id":"212451ec","parentId":"45e6186f","timestamp":"2026-11-30T19:08:11.975Z","targetId":"580659ca","label":"start here"}
{"type":"message","id":"2fa11271","parentId":"580659ca","timestamp":"2026-11-30T19:08:11.978Z","message":{"role":"assistant","content":[{"type":"text","text":"second answer"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":3,"responseId":"msg_1","rawStopReason":"end_turn"}}
{"type":"message","id":"05daece6","parentId":"2fa11271","timestamp":"2026-11-30T19:08:11.981Z","message":{"role":"user","content":[{"type":"text","text":"two"}],"timestamp":4}}
{"type":"custom_message","customType":"note","content":"ext text","display":true,"details":{"k":1},"id":"c1271a44","parentId":"05daece6","timestamp":"2026-11-30T19:08:11.987Z"}
{"type":"custom","customType":"state","data":{"n":2},"id":"9a9476b2","parentId":"c1271a44","timestamp":"2026-11-30T19:08:11.990Z"}
{"type":"compaction","id":"1b468104","parentId":"9a9476b2","timestamp":"2026-11-30T19:08:11.993Z","summary":"summary text","firstKeptEntryId":"05daece6","tokensBefore":99,"details":{"readFiles":[],"modifiedFiles":[]}}
{"type":"label","id":"2f3f2786","parentId":"1b468104","timestamp":"2026-11-30T19:08:11.996Z","targetId":"05daece6","label":"two"}
{"type":"message","id":"d0213db3","parentId":"2f3f2786","timestamp":"2026-11-30T19:08:11.999Z","message":{"role":"user","content":[{"type":"text","text":"three"}],"timestamp":5}}
{"type":"message","id":"c41217ef","parentId":"d0213db3","timestamp":"2026-11-30T19:08:12.003Z","message":{"role":"assistant","content":[{"type":"text","text":"third answer"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":6,"responseId":"msg_1","rawStopReason":"end_turn"}}
{"type":"session_info","id":"a3834bca","parentId":"c41217ef","timestamp":"2026-11-30T19:08:12.006Z","name":"cross check"}
"#;

/// The reference's `get_tree` after `switch_session` to [`BRANCHED`].
const BRANCHED_TREE: &str = r#"{"tree":[{"entry":{"type":"model_change","id":"87340211","parentId":null,"timestamp":"2026-11-30T19:08:11.963Z","provider":"mock","modelId":"mock-model-1"},"children":[{"entry":{"type":"thinking_level_change","id":"a94c480f","parentId":"87340211","timestamp":"2026-11-30T19:08:11.963Z","thinkingLevel":"medium"},"children":[{"entry":{"type":"message","id":"580659ca","parentId":"a94c480f","timestamp":"2026-11-30T19:08:11.966Z","message":{"role":"user","content":[{"type":"text","text":"one"}],"timestamp":1}},"children":[{"entry":{"type":"message","id":"45e6186f","parentId":"580659ca","timestamp":"2026-11-30T19:08:11.970Z","message":{"role":"assistant","content":[{"type":"text","text":"first answer"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":2,"responseId":"msg_1","rawStopReason":"end_turn"}},"children":[{"entry":{"type":"label","id":"212451ec","parentId":"45e6186f","timestamp":"2026-11-30T19:08:11.975Z","targetId":"580659ca","label":"start here"},"children":[]}]},{"entry":{"type":"message","id":"2fa11271","parentId":"580659ca","timestamp":"2026-11-30T19:08:11.978Z","message":{"role":"assistant","content":[{"type":"text","text":"second answer"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":3,"responseId":"msg_1","rawStopReason":"end_turn"}},"children":[{"entry":{"type":"message","id":"05daece6","parentId":"2fa11271","timestamp":"2026-11-30T19:08:11.981Z","message":{"role":"user","content":[{"type":"text","text":"two"}],"timestamp":4}},"children":[{"entry":{"type":"custom_message","customType":"note","content":"ext text","display":true,"details":{"k":1},"id":"c1271a44","parentId":"05daece6","timestamp":"2026-11-30T19:08:11.987Z"},"children":[{"entry":{"type":"custom","customType":"state","data":{"n":2},"id":"9a9476b2","parentId":"c1271a44","timestamp":"2026-11-30T19:08:11.990Z"},"children":[{"entry":{"type":"compaction","id":"1b468104","parentId":"9a9476b2","timestamp":"2026-11-30T19:08:11.993Z","summary":"summary text","firstKeptEntryId":"05daece6","tokensBefore":99,"details":{"readFiles":[],"modifiedFiles":[]}},"children":[{"entry":{"type":"label","id":"2f3f2786","parentId":"1b468104","timestamp":"2026-11-30T19:08:11.996Z","targetId":"05daece6","label":"two"},"children":[{"entry":{"type":"message","id":"d0213db3","parentId":"2f3f2786","timestamp":"2026-11-30T19:08:11.999Z","message":{"role":"user","content":[{"type":"text","text":"three"}],"timestamp":5}},"children":[{"entry":{"type":"message","id":"c41217ef","parentId":"d0213db3","timestamp":"2026-11-30T19:08:12.003Z","message":{"role":"assistant","content":[{"type":"text","text":"third answer"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":6,"responseId":"msg_1","rawStopReason":"end_turn"}},"children":[{"entry":{"type":"session_info","id":"a3834bca","parentId":"c41217ef","timestamp":"2026-11-30T19:08:12.006Z","name":"cross check"},"children":[]}]}]}]}]}]}]}],"label":"two","labelTimestamp":"2026-11-30T19:08:11.996Z"}]}],"label":"start here","labelTimestamp":"2026-11-30T19:08:11.975Z"}]}]}],"leafId":"a3834bca"}"#;

/// The reference's `get_messages` after `switch_session` to [`BRANCHED`].
const BRANCHED_MESSAGES: &str = r#"[{"role":"compactionSummary","summary":"summary text","tokensBefore":99,"timestamp":1796065691993},{"role":"user","content":[{"type":"text","text":"two"}],"timestamp":4},{"role":"custom","customType":"note","content":"ext text","display":true,"details":{"k":1},"timestamp":1796065691987},{"role":"user","content":[{"type":"text","text":"three"}],"timestamp":5},{"role":"assistant","content":[{"type":"text","text":"third answer"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":6,"responseId":"msg_1","rawStopReason":"end_turn"}]"#;

/// The reference's `get_entries` after `fork` of [`BRANCHED`] at `d0213db3` (label entry ids are
/// random).
const BRANCHED_FORKED_ENTRIES: &str = r#"{"entries":[{"type":"model_change","id":"87340211","parentId":null,"timestamp":"2026-11-30T19:08:11.963Z","provider":"mock","modelId":"mock-model-1"},{"type":"thinking_level_change","id":"a94c480f","parentId":"87340211","timestamp":"2026-11-30T19:08:11.963Z","thinkingLevel":"medium"},{"type":"message","id":"580659ca","parentId":"a94c480f","timestamp":"2026-11-30T19:08:11.966Z","message":{"role":"user","content":[{"type":"text","text":"one"}],"timestamp":1}},{"type":"message","id":"2fa11271","parentId":"580659ca","timestamp":"2026-11-30T19:08:11.978Z","message":{"role":"assistant","content":[{"type":"text","text":"second answer"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cacheWrite1h":0},"stopReason":"stop","timestamp":3,"responseId":"msg_1","rawStopReason":"end_turn"}},{"type":"message","id":"05daece6","parentId":"2fa11271","timestamp":"2026-11-30T19:08:11.981Z","message":{"role":"user","content":[{"type":"text","text":"two"}],"timestamp":4}},{"type":"custom_message","customType":"note","content":"ext text","display":true,"details":{"k":1},"id":"c1271a44","parentId":"05daece6","timestamp":"2026-11-30T19:08:11.987Z"},{"type":"custom","customType":"state","data":{"n":2},"id":"9a9476b2","parentId":"c1271a44","timestamp":"2026-11-30T19:08:11.990Z"},{"type":"compaction","id":"1b468104","parentId":"9a9476b2","timestamp":"2026-11-30T19:08:11.993Z","summary":"summary text","firstKeptEntryId":"05daece6","tokensBefore":99,"details":{"readFiles":[],"modifiedFiles":[]}},{"type":"label","id":"75e4296c","parentId":"1b468104","timestamp":"2026-11-30T19:08:11.975Z","targetId":"580659ca","label":"start here"},{"type":"label","id":"32dc8056","parentId":"75e4296c","timestamp":"2026-11-30T19:08:11.996Z","targetId":"05daece6","label":"two"}],"leafId":"32dc8056"}"#;

/// A version 1 file (no ids, `hookMessage`, `firstKeptEntryIndex`), with a blank and a
/// malformed line.
const VERSION_1: &str = r#"{"type":"session","id":"sess-v1","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/project"}
{"type":"message","timestamp":"2024-12-03T14:00:01.000Z","message":{"role":"user","content":"Hello","timestamp":1733234401000}}
{"type":"message","timestamp":"2024-12-03T14:00:02.000Z","message":{"role":"hookMessage","customType":"x","content":"hook","display":true,"timestamp":1733234402000}}
{"type":"compaction","timestamp":"2024-12-03T14:00:03.000Z","summary":"sum","firstKeptEntryIndex":2,"tokensBefore":100}
{"type":"thinking_level_change","timestamp":"2024-12-03T14:00:04.000Z","thinkingLevel":"low"}

not json
"#;

/// What the reference rewrote [`VERSION_1`] to when `switch_session` opened it (its ids are
/// random).
const VERSION_1_MIGRATED: &str = r#"{"type":"session","id":"sess-v1","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/project","version":3}
{"type":"message","timestamp":"2024-12-03T14:00:01.000Z","message":{"role":"user","content":"Hello","timestamp":1733234401000},"id":"abdd43c3","parentId":null}
{"type":"message","timestamp":"2024-12-03T14:00:02.000Z","message":{"role":"custom","customType":"x","content":"hook","display":true,"timestamp":1733234402000},"id":"1e30de0a","parentId":"abdd43c3"}
{"type":"compaction","timestamp":"2024-12-03T14:00:03.000Z","summary":"sum","tokensBefore":100,"id":"c3032b86","parentId":"1e30de0a","firstKeptEntryId":"1e30de0a"}
{"type":"thinking_level_change","timestamp":"2024-12-03T14:00:04.000Z","thinkingLevel":"low","id":"06770d56","parentId":"c3032b86"}
"#;

/// The reference's `get_messages` after opening [`VERSION_1`].
const VERSION_1_MESSAGES: &str = r#"[{"role":"compactionSummary","summary":"sum","tokensBefore":100,"timestamp":1733234403000},{"role":"custom","customType":"x","content":"hook","display":true,"timestamp":1733234402000}]"#;

/// Keys whose values are entry ids.
const ID_KEYS: [&str; 5] = ["id", "parentId", "targetId", "firstKeptEntryId", "fromId"];

/// Replaces what differs between two runs (entry ids by order of first appearance, entry and
/// header times, the session id, the parent session path) and keeps everything else, key order
/// included. Returns one JSON text per line.
fn normalize(text: &str) -> Vec<String> {
    let mut ids: HashMap<String, String> = HashMap::new();
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let mut value: Map<String, Value> = serde_json::from_str(line).unwrap();
            let header = value.get("type") == Some(&Value::from("session"));
            for (key, field) in value.iter_mut() {
                let key = key.as_str();
                if key == "timestamp" && field.is_string() {
                    *field = "<time>".into();
                } else if header && key == "id" {
                    *field = "<session>".into();
                } else if header && key == "parentSession" {
                    *field = "<parent>".into();
                } else if !header
                    && ID_KEYS.contains(&key)
                    && let Value::String(id) = field
                {
                    let next = format!("<id{}>", ids.len());
                    *field = ids.entry(id.clone()).or_insert(next).clone().into();
                }
            }
            pi_rpc_protocol::json::to_string(&value).unwrap()
        })
        .collect()
}

fn lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .collect()
}

/// Writes `text` to `<dir>/<name>` and returns the path.
fn write_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn only_file(dir: &Path) -> Option<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert!(files.len() <= 1, "more than one file in {dir:?}: {files:?}");
    files.pop()
}

#[test]
fn a_reference_file_reads_back_byte_for_byte_in_entries_and_tree() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "s.jsonl", REFERENCE_SESSION);
    let store = SessionStore::open(&path, None, None).unwrap();

    assert_eq!(store.session_id(), "01a22dce-d5d3-7fc6-9dfa-7e69dd2c7164");
    assert_eq!(store.cwd(), PathBuf::from("/project"));
    assert_eq!(store.session_name().as_deref(), Some("my session"));
    assert_eq!(store.leaf_id(), Some("c2b9ffe5"));
    assert_eq!(store.session_dir(), dir.path());

    let entry_lines = &lines(REFERENCE_SESSION)[1..];
    let entries = pi_rpc_protocol::json::to_string(&store.entries_data(None).unwrap()).unwrap();
    assert_eq!(
        entries,
        format!(
            r#"{{"entries":[{}],"leafId":"c2b9ffe5"}}"#,
            entry_lines.join(",")
        )
    );
    // The session is one chain: each node's only child is the next line.
    let mut expected_tree = String::new();
    for line in entry_lines {
        expected_tree.push_str(&format!(r#"{{"entry":{line},"children":["#));
    }
    for _ in entry_lines {
        expected_tree.push_str("]}");
    }
    let tree = pi_rpc_protocol::json::to_string(&store.tree_data().unwrap()).unwrap();
    assert_eq!(
        tree,
        format!(r#"{{"tree":[{expected_tree}],"leafId":"c2b9ffe5"}}"#)
    );

    let since = pi_rpc_protocol::json::to_string(&store.entries_data(Some("0149f15c")).unwrap());
    assert_eq!(
        since.unwrap(),
        format!(r#"{{"entries":[{}],"leafId":"c2b9ffe5"}}"#, entry_lines[9])
    );

    let forks = serde_json::to_string(&store.fork_messages()).unwrap();
    assert_eq!(
        forks,
        r#"[{"entryId":"24cbbe07","text":"hello"},{"entryId":"0149f15c","text":"again"}]"#
    );
}

/// Appends the entries of a reference file through the store's API, in a new session under
/// `sessions`; returns the store and the first line index (1-based, after the header) at which a
/// file existed.
fn replay(reference: &str, sessions: &Path) -> (SessionStore, Option<usize>) {
    let mut store = SessionStore::new(Path::new("/project"), sessions, true).unwrap();
    let mut file_seen_after = None;
    for (index, line) in lines(reference).iter().enumerate().skip(1) {
        let entry: Value = serde_json::from_str(line).unwrap();
        let text = |key: &str| entry[key].as_str().unwrap().to_owned();
        match entry["type"].as_str().unwrap() {
            "model_change" => store.append_model_change(&text("provider"), &text("modelId")),
            "thinking_level_change" => store.append_thinking_level_change(&text("thinkingLevel")),
            // The reference was given "  my\nsession  ".
            "session_info" => store.append_session_info("  my\nsession  "),
            "message" => {
                let message: AgentMessage =
                    serde_json::from_value(entry["message"].clone()).unwrap();
                store.append_message(message)
            }
            other => panic!("unexpected entry type {other}"),
        }
        .unwrap();
        if file_seen_after.is_none() && only_file(sessions).is_some() {
            file_seen_after = Some(index);
        }
    }
    (store, file_seen_after)
}

#[test]
fn building_the_reference_session_through_the_store_writes_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let (store, file_seen_after) = replay(REFERENCE_SESSION, &sessions);
    // The file appears with the first assistant message (line 5), holding everything before it.
    assert_eq!(file_seen_after, Some(5));
    let file = only_file(&sessions).unwrap();
    assert_eq!(Some(file.clone()), store.session_file());
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(normalize(&written), normalize(REFERENCE_SESSION));

    // `<header time with : and . as ->_<session id>.jsonl`, the id a UUIDv7.
    let header: Value = serde_json::from_str(lines(&written)[0]).unwrap();
    let stamp = header["timestamp"]
        .as_str()
        .unwrap()
        .replace([':', '.'], "-");
    let name = file.file_name().unwrap().to_str().unwrap();
    assert_eq!(name, format!("{stamp}_{}.jsonl", store.session_id()));
    let id = uuid::Uuid::parse_str(store.session_id()).unwrap();
    assert_eq!(id.get_version_num(), 7);
}

#[test]
fn tool_calls_thinking_and_bash_executions_are_written_as_the_reference_writes_them() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let (store, file_seen_after) = replay(REFERENCE_TOOLS, &sessions);
    assert_eq!(file_seen_after, Some(4));
    let written = std::fs::read_to_string(store.session_file().unwrap()).unwrap();
    assert_eq!(normalize(&written), normalize(REFERENCE_TOOLS));
    // What the model sees is every message in order, the bash execution included.
    let roles: Vec<String> = store
        .build_context()
        .messages
        .iter()
        .map(|message| {
            serde_json::to_value(message).unwrap()["role"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "bashExecution",
            "user",
            "assistant",
            "toolResult",
            "assistant"
        ]
    );
}

#[test]
fn forking_a_reference_file_writes_what_the_reference_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let source = write_file(
        dir.path(),
        "2026-11-30T18-54-19-603Z_01a22dce-d5d3-7fc6-9dfa-7e69dd2c7164.jsonl",
        REFERENCE_SESSION,
    );
    let mut store = SessionStore::open(&source, None, None).unwrap();
    let text = store.fork("0149f15c").unwrap();
    assert_eq!(text.as_deref(), Some("again"));

    // The path holds an assistant message, so the new file is written at once.
    let file = store.session_file().unwrap();
    assert_ne!(file, source);
    assert_eq!(file.parent(), Some(dir.path()));
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(&lines(&written)[1..], &lines(REFERENCE_FORK)[1..]);
    assert_eq!(normalize(&written), normalize(REFERENCE_FORK));
    assert_eq!(store.parent_session(), Some(source.to_str().unwrap()));
    assert_eq!(store.leaf_id(), Some("2abaa27d"));
    assert_eq!(store.session_name().as_deref(), Some("my session"));
    // The source is untouched.
    assert_eq!(std::fs::read_to_string(&source).unwrap(), REFERENCE_SESSION);
}

#[test]
fn the_context_after_a_compaction_is_what_the_reference_sends_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "c.jsonl", REFERENCE_COMPACTED);
    let store = SessionStore::open(&path, None, None).unwrap();
    let context = store.build_context();
    assert_eq!(
        pi_rpc_protocol::json::to_string(&context.messages).unwrap(),
        REFERENCE_COMPACTED_MESSAGES
    );
    assert_eq!(context.thinking_level, "medium");
    let model = context.model.unwrap();
    assert_eq!(
        (model.provider.as_str(), model.model_id.as_str()),
        ("mock", "mock-model-1")
    );
}

#[test]
fn a_compaction_appended_through_the_store_matches_the_reference_line() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let mut store = SessionStore::new(Path::new("/project"), &sessions, true).unwrap();
    let reference = lines(REFERENCE_COMPACTED);
    for line in &reference[1..] {
        let entry: Value = serde_json::from_str(line).unwrap();
        let text = |key: &str| entry[key].as_str().unwrap().to_owned();
        match entry["type"].as_str().unwrap() {
            "model_change" => store.append_model_change(&text("provider"), &text("modelId")),
            "thinking_level_change" => store.append_thinking_level_change(&text("thinkingLevel")),
            "message" => {
                store.append_message(serde_json::from_value(entry["message"].clone()).unwrap())
            }
            "compaction" => {
                // The kept entry is the previous one: the leaf at this point.
                let kept = store.leaf_id().unwrap().to_owned();
                store.append_compaction(NewCompaction {
                    summary: text("summary"),
                    first_kept_entry_id: kept,
                    tokens_before: entry["tokensBefore"].as_u64().unwrap(),
                    details: Some(entry["details"].clone()),
                    usage: Some(entry["usage"].clone()),
                    from_hook: entry.get("fromHook").and_then(Value::as_bool),
                })
            }
            other => panic!("unexpected entry type {other}"),
        }
        .unwrap();
    }
    let written = std::fs::read_to_string(store.session_file().unwrap()).unwrap();
    assert_eq!(normalize(&written), normalize(REFERENCE_COMPACTED));
}

#[test]
fn a_version_1_file_is_migrated_and_rewritten_as_the_reference_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "old.jsonl", VERSION_1);
    let store = SessionStore::open(&path, None, None).unwrap();
    let rewritten = std::fs::read_to_string(&path).unwrap();
    assert_eq!(normalize(&rewritten), normalize(VERSION_1_MIGRATED));
    assert_eq!(store.session_id(), "sess-v1");
    assert_eq!(
        pi_rpc_protocol::json::to_string(&store.build_context().messages).unwrap(),
        VERSION_1_MESSAGES
    );
    assert_eq!(store.build_context().thinking_level, "low");
    // Ids are 8 hex digits, each entry the child of the one before.
    let mut parent = None;
    for entry in store.entries() {
        assert_eq!(entry.id().len(), 8);
        assert!(entry.id().chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(entry.parent_id(), parent.as_deref());
        parent = Some(entry.id().to_owned());
    }
    // Opening it again changes nothing.
    drop(store);
    SessionStore::open(&path, None, None).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), rewritten);
}

/// Replaces the ids of label entries (random on each fork) by their order.
fn without_label_ids(data: &Value) -> String {
    let mut text = pi_rpc_protocol::json::to_string(data).unwrap();
    let labels: Vec<String> = data["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["type"] == "label")
        .map(|entry| entry["id"].as_str().unwrap().to_owned())
        .collect();
    for (n, id) in labels.iter().enumerate() {
        text = text.replace(id.as_str(), &format!("<label{n}>"));
    }
    text
}

#[test]
fn a_branched_labelled_compacted_session_reads_as_the_reference_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "b.jsonl", BRANCHED);
    let store = SessionStore::open(&path, None, None).unwrap();
    let entries = pi_rpc_protocol::json::to_string(&store.entries_data(None).unwrap()).unwrap();
    let leaf = store.leaf_id().unwrap();
    assert_eq!(
        entries,
        format!(
            r#"{{"entries":[{}],"leafId":"{leaf}"}}"#,
            lines(BRANCHED)[1..].join(",")
        )
    );
    assert_eq!(store.tree_json().unwrap(), BRANCHED_TREE);
    assert_eq!(
        pi_rpc_protocol::json::to_string(&store.tree_data().unwrap()).unwrap(),
        BRANCHED_TREE
    );
    assert_eq!(
        pi_rpc_protocol::json::to_string(&store.build_context().messages).unwrap(),
        BRANCHED_MESSAGES
    );
    assert_eq!(store.session_name().as_deref(), Some("cross check"));

    let mut forked = SessionStore::open(&path, None, None).unwrap();
    assert_eq!(forked.fork("d0213db3").unwrap().as_deref(), Some("three"));
    let expected: Value = serde_json::from_str(BRANCHED_FORKED_ENTRIES).unwrap();
    assert_eq!(
        without_label_ids(&forked.entries_data(None).unwrap()),
        without_label_ids(&expected)
    );
    // What the fork wrote reads back the same.
    let reread = SessionStore::open(&forked.session_file().unwrap(), None, None).unwrap();
    assert_eq!(
        pi_rpc_protocol::json::to_string(&reread.entries_data(None).unwrap()).unwrap(),
        pi_rpc_protocol::json::to_string(&forked.entries_data(None).unwrap()).unwrap()
    );
}
