//! Prompt templates named on the command line (`--prompt-template`): a file, or the markdown
//! files of a folder, after the discovered ones, each file once.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{PromptTemplate, ResourceOptions, collect_markdown, load_template, patterns};

/// Adds the templates of the `--prompt-template` paths (relative to `cwd`) to `templates`.
pub(super) fn add(templates: &mut Vec<PromptTemplate>, options: &ResourceOptions, cwd: &Path) {
    let real = |file: &Path| std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let mut seen: HashSet<PathBuf> = templates
        .iter()
        .map(|template| real(Path::new(&template.source_info.path)))
        .collect();
    for path in &options.prompt_template_paths {
        let path = patterns::resolve(&path.to_string_lossy(), cwd);
        let (files, base) = if path.is_dir() {
            let mut files = Vec::new();
            collect_markdown(&path, &mut files);
            (files, path.clone())
        } else if path.is_file() {
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            (vec![path.clone()], base)
        } else {
            continue;
        };
        for file in files {
            if seen.insert(real(&file))
                && let Some(mut template) = load_template(&file, &base, "temporary")
            {
                template.source_info.source = "local".into();
                templates.push(template);
            }
        }
    }
}
