//! `@file` arguments of print mode: each file's text inside a `<file name="...">` element, and
//! images attached (converted and resized as the `read` tool does), as the reference builds its
//! first message.

use std::path::Path;

use pi_rpc_protocol::content::ImageContent;

use super::Stop;
use crate::tools::image::{self, Processed};

/// The text the files add to the first message, and their images.
#[derive(Debug, Default)]
pub(super) struct FileArgs {
    pub(super) text: String,
    pub(super) images: Vec<ImageContent>,
}

/// Reads the files (paths relative to `cwd`, `~` expanded). A missing or unreadable file stops
/// start-up with the reference's error; an empty one is left out.
pub(super) fn read(args: &[String], cwd: &Path, auto_resize: bool) -> Result<FileArgs, Stop> {
    let mut files = FileArgs::default();
    for arg in args {
        let path = crate::tools::path::resolve_read_path(arg, cwd);
        let name = path.display().to_string();
        let Ok(metadata) = std::fs::metadata(&path) else {
            return Err(Stop::error(format!("File not found: {name}")));
        };
        if metadata.len() == 0 {
            continue;
        }
        let bytes = std::fs::read(&path).map_err(|error| {
            Stop::error(format!(
                "Could not read file {name}: {}",
                crate::tools::node_message(&error, "open", Some(&path))
            ))
        })?;
        let head = &bytes[..bytes.len().min(image::SNIFF_BYTES)];
        let Some(mime_type) = image::detect_mime_type(head) else {
            let content = String::from_utf8_lossy(&bytes);
            files
                .text
                .push_str(&format!("<file name=\"{name}\">\n{content}\n</file>\n"));
            continue;
        };
        match image::process(&bytes, mime_type, auto_resize) {
            Processed::Omitted(message) => {
                files
                    .text
                    .push_str(&format!("<file name=\"{name}\">{message}</file>\n"));
            }
            Processed::Attached {
                data,
                mime_type,
                hints,
            } => {
                files.images.push(ImageContent {
                    data,
                    mime_type,
                    extra: Default::default(),
                });
                files.text.push_str(&format!(
                    "<file name=\"{name}\">{}</file>\n",
                    hints.join("\n")
                ));
            }
        }
    }
    Ok(files)
}
