//! `--export <session file> [out.html]`: the session as one HTML page, then exit.

use std::path::Path;

use super::Stop;
use crate::paths;
use crate::store::SessionStore;

/// Writes the page and says where (`Exported to: <path>` on stdout); the reference's errors
/// otherwise (`File not found: <path>`, a file that is not a session).
pub(super) fn run(input: &str, output: Option<&str>) -> Result<u8, Stop> {
    let resolved = paths::resolve(input);
    if !Path::new(&resolved).exists() {
        return Err(Stop::error(format!("File not found: {resolved}")));
    }
    let store = SessionStore::open(Path::new(&resolved), None, None)
        .map_err(|error| Stop::error(error.to_string()))?;
    let written = crate::export_html::export(&store, "", &crate::tools::ToolSet::default(), output)
        .map_err(|error| Stop::error(error.to_string()))?;
    super::write_stdout(format!("Exported to: {written}\n").as_bytes());
    Ok(0)
}
