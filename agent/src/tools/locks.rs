//! One queue per file for `edit` and `write`: calls on the same file run one after the other in
//! the order they started; calls on different files run in parallel.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::OwnedMutexGuard;

/// The per-file queues of one session. Clones share the queues.
#[derive(Debug, Clone, Default)]
pub struct FileLocks {
    queues: Arc<Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>>,
}

/// Holds a file's turn; the next call on the file proceeds when it drops.
pub(crate) struct FileTurn {
    _guard: OwnedMutexGuard<()>,
}

impl FileLocks {
    /// Waits for the turn of `path` (keyed by its real path when it exists).
    pub(crate) async fn acquire(&self, path: &Path) -> FileTurn {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let queue = {
            let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
            // Forget queues nobody holds or waits for, so the table stays small.
            queues.retain(|_, queue| Arc::strong_count(queue) > 1);
            Arc::clone(queues.entry(key).or_default())
        };
        FileTurn {
            _guard: queue.lock_owned().await,
        }
    }
}
