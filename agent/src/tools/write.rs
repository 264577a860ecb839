//! The `write` tool: creates missing parent folders, then writes the whole file.

use super::args::WriteArgs;
use super::{
    ToolContext, ToolError, ToolOutcome, ToolResult, fs_error, js, path, regular_file, text_block,
};

pub(super) async fn run(args: WriteArgs, ctx: &ToolContext) -> ToolResult {
    let absolute = path::resolve_to_cwd(&args.path, &ctx.cwd);
    let _turn = ctx.file_locks.acquire(&absolute).await;
    let check_abort = || {
        if ctx.cancel.is_cancelled() {
            Err(ToolError::aborted())
        } else {
            Ok(())
        }
    };
    check_abort()?;
    if let Some(parent) = absolute.parent() {
        tokio::fs::create_dir_all(parent).await.map_err(|error| {
            ToolError::new(fs_error::node_message(&error, "mkdir", Some(parent)))
        })?;
    }
    check_abort()?;
    regular_file::write(&absolute, args.content.as_bytes().to_vec()).await?;
    check_abort()?;
    // Before 0.85.0 the reference counts UTF-16 code units and calls them bytes.
    let text = if ctx
        .release
        .has(crate::release::Feature::WriteResultWithoutSize)
    {
        format!("Successfully wrote to {}", args.path)
    } else {
        let count = js::utf16_len(&args.content);
        format!("Successfully wrote {count} bytes to {}", args.path)
    };
    Ok(ToolOutcome::success(vec![text_block(text)], None))
}
