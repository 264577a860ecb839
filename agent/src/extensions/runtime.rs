//! pi-agent's own versions of the packages the reference hands every extension (`typebox`,
//! `@earendil-works/pi-ai`, `pi-tui`, `pi-coding-agent`, `pi-agent-core`), as ES modules in
//! `runtime/`, embedded by the build script. The host's module loader serves them to an
//! extension that imports one of those packages, wherever the extension is.

use serde::Serialize;

/// Every runtime module: its file name and its JavaScript.
pub const FILES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/runtime_files.rs"));

/// The runtime modules as the host is given them: file name to JavaScript.
#[derive(Debug, Clone, Copy, Default)]
pub struct RuntimeModules;

impl Serialize for RuntimeModules {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(FILES.iter().copied())
    }
}
