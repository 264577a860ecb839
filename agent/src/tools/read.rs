//! The `read` tool: text files from an offset, within a line limit, cut at the head limits with
//! a notice saying where to continue; supported images as attachments.

use serde_json::json;
use tokio::io::AsyncReadExt;

use super::args::ReadArgs;
use super::image::{self, Processed};
use super::truncate::{DEFAULT_MAX_BYTES, TruncatedBy, format_size, truncate_head};
use super::{
    ToolContent, ToolContext, ToolError, ToolOutcome, ToolResult, fs_error, image_block, js, path,
    regular_file, text_block,
};
use crate::release::Feature;

const NON_VISION_NOTE: &str =
    "[Current model does not support images. The image will be omitted from this request.]";

pub(super) async fn run(args: ReadArgs, ctx: &ToolContext) -> ToolResult {
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    tokio::select! {
        result = read(args, ctx) => result,
        () = ctx.cancel.cancelled() => Err(ToolError::aborted()),
    }
}

async fn read(args: ReadArgs, ctx: &ToolContext) -> ToolResult {
    let absolute = path::resolve_read_path(&args.path, &ctx.cwd);
    rustix::fs::access(&absolute, rustix::fs::Access::READ_OK).map_err(|errno| {
        ToolError::new(fs_error::node_message(
            &errno.into(),
            "access",
            Some(&absolute),
        ))
    })?;
    regular_file::check_readable(&absolute)?;
    let mime_type = sniff(&absolute).await?;
    let bytes = tokio::fs::read(&absolute)
        .await
        .map_err(|error| ToolError::new(fs_error::node_message(&error, "read", None)))?;
    let Some(mime_type) = mime_type else {
        return read_text(&args, &String::from_utf8_lossy(&bytes));
    };
    let note = (ctx.model_accepts_images == Some(false)).then_some(NON_VISION_NOTE);
    let auto_resize = ctx.auto_resize_images;
    let processed =
        tokio::task::spawn_blocking(move || image::process(&bytes, mime_type, auto_resize))
            .await
            .map_err(|error| ToolError::new(error.to_string()))?;
    let content = match processed {
        Processed::Omitted(message) => {
            let mut text = format!("Read image file [{mime_type}]\n{message}");
            if let Some(note) = note {
                text.push_str(&format!("\n{note}"));
            }
            vec![text_block(text)]
        }
        Processed::Attached {
            data,
            mime_type,
            hints,
        } => {
            let mut text = format!("Read image file [{mime_type}]");
            for line in hints.iter().map(String::as_str).chain(note) {
                text.push('\n');
                text.push_str(line);
            }
            vec![text_block(text), image_block(data, mime_type)]
        }
    };
    Ok(structured_image(ToolOutcome::success(content, None)))
}

/// An image result's data for programmatic callers: the image with the text as its note, or
/// the text alone when the image was left out.
fn structured_image(outcome: ToolOutcome) -> ToolOutcome {
    let mut note = String::new();
    let mut image = None;
    for block in &outcome.content {
        match block {
            ToolContent::Text { text } if note.is_empty() => note = text.clone(),
            ToolContent::Image { data, mime_type } if image.is_none() => {
                image = Some((data.clone(), mime_type.clone()));
            }
            _ => {}
        }
    }
    let structured = match image {
        Some((data, mime_type)) => {
            serde_json::json!({"type": "image", "data": data, "mimeType": mime_type, "note": note})
        }
        None => serde_json::Value::String(note),
    };
    outcome.with_structured(Feature::ReadStructuredContent, structured)
}

/// The image type of the file, from its first bytes.
async fn sniff(path: &std::path::Path) -> Result<Option<&'static str>, ToolError> {
    let mut file = tokio::fs::File::open(path)
        .await
        .map_err(|error| ToolError::new(fs_error::node_message(&error, "open", Some(path))))?;
    let mut head = Vec::with_capacity(image::SNIFF_BYTES);
    (&mut file)
        .take(image::SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .await
        .map_err(|error| ToolError::new(fs_error::node_message(&error, "read", None)))?;
    Ok(image::detect_mime_type(&head))
}

/// JavaScript's `Array.prototype.slice` bounds for fractional or negative arguments.
fn slice_bounds(len: usize, start: f64, end: Option<f64>) -> (usize, usize) {
    let clamp = |value: f64| -> usize {
        let value = if value.is_nan() { 0.0 } else { value.trunc() };
        if value < 0.0 {
            (len as f64 + value).max(0.0) as usize
        } else {
            value.min(len as f64) as usize
        }
    };
    let from = clamp(start);
    let to = end.map_or(len, clamp);
    (from, to.max(from))
}

fn read_text(args: &ReadArgs, text: &str) -> ToolResult {
    let lines: Vec<&str> = text.split('\n').collect();
    let total = lines.len();
    let offset = args.offset.unwrap_or(0.0);
    // `offset ? Math.max(0, offset - 1) : 0`: zero and NaN mean "from the start".
    let start = if offset != 0.0 && !offset.is_nan() {
        (offset - 1.0).max(0.0)
    } else {
        0.0
    };
    let start_display = start + 1.0;
    if start >= total as f64 {
        let shown = args
            .offset
            .map_or_else(|| "undefined".into(), js::number_to_string);
        return Err(ToolError::new(format!(
            "Offset {shown} is beyond end of file ({total} lines total)"
        )));
    }
    let (selected, user_limited) = match args.limit {
        Some(limit) => {
            let end = (start + limit).min(total as f64);
            let (from, to) = slice_bounds(total, start, Some(end));
            (lines[from..to].join("\n"), Some(end - start))
        }
        None => {
            let (from, to) = slice_bounds(total, start, None);
            (lines[from..to].join("\n"), None)
        }
    };
    let truncation = truncate_head(&selected);
    let number = js::number_to_string;
    let (output, details) = if truncation.first_line_exceeds_limit {
        let first = lines.get(start as usize).map_or(0, |line| line.len());
        let text = format!(
            "[Line {0} is {1}, exceeds {2} limit. Use bash: sed -n '{0}p' {3} | head -c {4}]",
            number(start_display),
            format_size(first),
            format_size(DEFAULT_MAX_BYTES),
            args.path,
            DEFAULT_MAX_BYTES
        );
        (text, Some(json!({ "truncation": truncation })))
    } else if truncation.truncated {
        let end_display = start_display + truncation.output_lines as f64 - 1.0;
        let next = number(end_display + 1.0);
        let range = format!("{}-{}", number(start_display), number(end_display));
        let notice = if truncation.truncated_by == Some(TruncatedBy::Lines) {
            format!("[Showing lines {range} of {total}. Use offset={next} to continue.]")
        } else {
            format!(
                "[Showing lines {range} of {total} ({} limit). Use offset={next} to continue.]",
                format_size(DEFAULT_MAX_BYTES)
            )
        };
        (
            format!("{}\n\n{notice}", truncation.content),
            Some(json!({ "truncation": truncation })),
        )
    } else if let Some(taken) = user_limited.filter(|taken| start + taken < total as f64) {
        let remaining = number(total as f64 - (start + taken));
        let next = number(start + taken + 1.0);
        let text = format!(
            "{}\n\n[{remaining} more lines in file. Use offset={next} to continue.]",
            truncation.content
        );
        (text, None)
    } else {
        (truncation.content, None)
    };
    Ok(
        ToolOutcome::success(vec![text_block(output.clone())], details)
            .with_structured(Feature::ReadStructuredContent, output.into()),
    )
}
