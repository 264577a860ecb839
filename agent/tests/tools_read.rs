//! The read tool on real files, against results taken from the reference pi 0.84.1.
#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

mod tools_common;

use std::path::Path;

use pi_agent::tools::{ToolContent, ToolContext, ToolOutcome, execute, text_block};
use serde_json::{Value, json};
use tools_common::encoded_image;

async fn read(dir: &Path, args: Value) -> ToolOutcome {
    read_with(&ToolContext::new(dir), args).await
}

async fn read_with(ctx: &ToolContext, args: Value) -> ToolOutcome {
    execute("read", &args, ctx, &mut |_| panic!("read does not stream")).await
}

fn numbered_lines(count: usize) -> String {
    (1..=count).map(|n| format!("line {n}\n")).collect()
}

#[tokio::test]
async fn a_small_file_comes_back_whole_without_details() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.txt"), "line1\nline2\nline3\n").unwrap();
    let outcome = read(dir.path(), json!({ "path": "small.txt" })).await;
    assert_eq!(
        outcome,
        ToolOutcome::success(vec![text_block("line1\nline2\nline3\n")], None).with_structured(
            pi_agent::release::Feature::ReadStructuredContent,
            json!("line1\nline2\nline3\n")
        )
    );
}

#[tokio::test]
async fn a_limit_that_stops_early_says_where_to_continue() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.txt"), "line1\nline2\nline3\n").unwrap();
    let outcome = read(
        dir.path(),
        json!({ "path": "small.txt", "offset": 2, "limit": 1 }),
    )
    .await;
    assert_eq!(
        outcome.text(),
        "line2\n\n[2 more lines in file. Use offset=3 to continue.]"
    );
    assert_eq!(outcome.details, None);
}

#[tokio::test]
async fn numbers_given_as_text_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.txt"), "line1\nline2\nline3\n").unwrap();
    let outcome = read(dir.path(), json!({ "path": "small.txt", "offset": "3" })).await;
    assert_eq!(outcome.text(), "line3\n");
}

#[tokio::test]
async fn an_offset_past_the_end_is_an_error_counting_lines_as_split_on_newlines() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.txt"), "line1\nline2\nline3\n").unwrap();
    let outcome = read(dir.path(), json!({ "path": "small.txt", "offset": 5 })).await;
    assert_eq!(
        outcome,
        ToolOutcome::error("Offset 5 is beyond end of file (4 lines total)")
    );
}

#[tokio::test]
async fn long_files_stop_at_two_thousand_lines_with_truncation_details() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("many.txt"), numbered_lines(2500)).unwrap();
    let outcome = read(dir.path(), json!({ "path": "many.txt" })).await;
    let shown: String = numbered_lines(2000);
    let shown = shown.trim_end_matches('\n');
    assert_eq!(
        outcome.text(),
        format!("{shown}\n\n[Showing lines 1-2000 of 2501. Use offset=2001 to continue.]")
    );
    assert_eq!(
        outcome.details,
        Some(json!({ "truncation": {
            "content": shown,
            "truncated": true,
            "truncatedBy": "lines",
            "totalLines": 2500,
            "totalBytes": 23893,
            "outputLines": 2000,
            "outputBytes": 18892,
            "lastLinePartial": false,
            "firstLineExceedsLimit": false,
            "maxLines": 2000,
            "maxBytes": 51200
        } }))
    );
}

#[tokio::test]
async fn wide_files_stop_at_fifty_kilobytes() {
    let dir = tempfile::tempdir().unwrap();
    let wide: String = (1..=1000)
        .map(|n| format!("{n:04} {}\n", "x".repeat(95)))
        .collect();
    std::fs::write(dir.path().join("wide.txt"), wide).unwrap();
    let outcome = read(dir.path(), json!({ "path": "wide.txt" })).await;
    let text = outcome.text();
    assert!(text.ends_with(
        "\n\n[Showing lines 1-506 of 1001 (50.0KB limit). Use offset=507 to continue.]"
    ));
    assert_eq!(
        outcome.details.unwrap()["truncation"]["truncatedBy"],
        "bytes"
    );
}

#[tokio::test]
async fn a_first_line_over_the_limit_points_to_bash() {
    let dir = tempfile::tempdir().unwrap();
    let content = format!("short\n{}\nafter\n", "y".repeat(60_000));
    std::fs::write(dir.path().join("long-line.txt"), content).unwrap();
    let outcome = read(dir.path(), json!({ "path": "long-line.txt", "offset": 2 })).await;
    assert_eq!(
        outcome.text(),
        "[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' long-line.txt | head -c 51200]"
    );
    assert_eq!(
        outcome.details.unwrap()["truncation"]["firstLineExceedsLimit"],
        true
    );
}

#[tokio::test]
async fn a_missing_file_reports_nodes_error_text() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = read(dir.path(), json!({ "path": "missing.txt" })).await;
    let path = dir.path().join("missing.txt");
    assert_eq!(
        outcome,
        ToolOutcome::error(format!(
            "ENOENT: no such file or directory, access '{}'",
            path.display()
        ))
    );
}

#[tokio::test]
async fn a_folder_cannot_be_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let outcome = read(dir.path(), json!({ "path": "sub" })).await;
    assert_eq!(
        outcome,
        ToolOutcome::error("EISDIR: illegal operation on a directory, read")
    );
}

#[tokio::test]
async fn paths_may_start_with_at_and_hold_dot_segments() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("small.txt"), "hello").unwrap();
    assert_eq!(
        read(dir.path(), json!({ "path": "@sub/../small.txt" }))
            .await
            .text(),
        "hello"
    );
    let absolute = dir.path().join("sub/./../small.txt");
    let outcome = read(
        dir.path(),
        json!({ "path": absolute.display().to_string() }),
    )
    .await;
    assert_eq!(outcome.text(), "hello");
}

const PNG_3X2: &str = "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAJUlEQVR4AQEaAOX/AMgAHv/IAR7/yAIe/wDIAx7/yAQe/8gFHv+SFwtuewqJWQAAAABJRU5ErkJggg==";

fn write_png(dir: &Path) {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(PNG_3X2)
        .unwrap();
    std::fs::write(dir.join("image.png"), bytes).unwrap();
}

#[tokio::test]
async fn images_come_back_as_base64_attachments() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path());
    let outcome = read(dir.path(), json!({ "path": "image.png" })).await;
    assert_eq!(
        serde_json::to_value(&outcome).unwrap(),
        json!({
            "content": [
                { "type": "text", "text": "Read image file [image/png]" },
                { "type": "image", "data": PNG_3X2, "mimeType": "image/png" }
            ],
            "isError": false
        })
    );
}

#[tokio::test]
async fn a_model_without_vision_gets_a_note_with_the_image() {
    let dir = tempfile::tempdir().unwrap();
    write_png(dir.path());
    let mut ctx = ToolContext::new(dir.path());
    ctx.model_accepts_images = Some(false);
    let outcome = read_with(&ctx, json!({ "path": "image.png" })).await;
    assert_eq!(
        outcome.content[0],
        text_block(
            "Read image file [image/png]\n[Current model does not support images. The image will \
             be omitted from this request.]"
        )
    );
    assert_eq!(outcome.content.len(), 2);
}

fn decoded_size(outcome: &ToolOutcome) -> (u32, u32) {
    use base64::Engine;
    let ToolContent::Image { data, .. } = &outcome.content[1] else {
        panic!("no image in {outcome:?}");
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    let image = image::load_from_memory(&bytes).unwrap();
    (image.width(), image.height())
}

#[tokio::test]
async fn wide_images_are_scaled_to_two_thousand_pixels_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let png = encoded_image(2100, 10, image::ImageFormat::Png);
    std::fs::write(dir.path().join("wide.png"), png).unwrap();
    let outcome = read(dir.path(), json!({ "path": "wide.png" })).await;
    assert_eq!(
        outcome.content[0],
        text_block(
            "Read image file [image/png]\n[Image: original 2100x10, displayed at 2000x10. \
             Multiply coordinates by 1.05 to map to original image.]"
        )
    );
    assert_eq!(decoded_size(&outcome), (2000, 10));
}

#[tokio::test]
async fn bitmaps_are_converted_to_png() {
    let dir = tempfile::tempdir().unwrap();
    let bmp = encoded_image(3, 2, image::ImageFormat::Bmp);
    std::fs::write(dir.path().join("small.bmp"), bmp).unwrap();
    let outcome = read(dir.path(), json!({ "path": "small.bmp" })).await;
    assert_eq!(
        outcome.content[0],
        text_block("Read image file [image/png]\n[Image converted from image/bmp to image/png.]")
    );
    assert!(
        matches!(&outcome.content[1], ToolContent::Image { mime_type, .. } if mime_type == "image/png")
    );
    assert_eq!(decoded_size(&outcome), (3, 2));
}

#[tokio::test]
async fn a_png_signature_without_a_header_chunk_is_read_as_text() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("fake.png"), b"\x89PNG\r\n\x1a\nnot really").unwrap();
    let outcome = read(dir.path(), json!({ "path": "fake.png" })).await;
    assert_eq!(outcome.text(), "\u{fffd}PNG\r\n\u{1a}\nnot really");
}

#[tokio::test]
async fn a_cancelled_run_reads_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.txt"), "x").unwrap();
    let ctx = ToolContext::new(dir.path());
    ctx.cancel.cancel();
    let outcome = read_with(&ctx, json!({ "path": "small.txt" })).await;
    assert_eq!(outcome, ToolOutcome::error("Operation aborted"));
}
