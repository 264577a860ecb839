//! File-system errors worded as Node.js words them, since the reference passes them to the model
//! as they are: `ENOENT: no such file or directory, open '/x'`.

use std::io;
use std::path::Path;

use rustix::io::Errno;

/// The errno name and libuv's description of an error, when it has an OS error code.
pub(crate) fn code_and_description(error: &io::Error) -> Option<(&'static str, &'static str)> {
    let errno = Errno::from_raw_os_error(error.raw_os_error()?);
    let table: &[(Errno, &str, &str)] = &[
        (Errno::NOENT, "ENOENT", "no such file or directory"),
        (Errno::ACCESS, "EACCES", "permission denied"),
        (Errno::ISDIR, "EISDIR", "illegal operation on a directory"),
        (Errno::NOTDIR, "ENOTDIR", "not a directory"),
        (Errno::EXIST, "EEXIST", "file already exists"),
        (Errno::PERM, "EPERM", "operation not permitted"),
        (Errno::LOOP, "ELOOP", "too many symbolic links encountered"),
        (Errno::NAMETOOLONG, "ENAMETOOLONG", "name too long"),
        (Errno::ROFS, "EROFS", "read-only file system"),
        (Errno::NOSPC, "ENOSPC", "no space left on device"),
        (Errno::BUSY, "EBUSY", "resource busy or locked"),
        (Errno::TXTBSY, "ETXTBSY", "text file is busy"),
        (Errno::INVAL, "EINVAL", "invalid argument"),
        (Errno::MFILE, "EMFILE", "too many open files"),
        (Errno::IO, "EIO", "i/o error"),
        (Errno::FBIG, "EFBIG", "file too large"),
        (Errno::NXIO, "ENXIO", "no such device or address"),
        (Errno::DQUOT, "EDQUOT", "disk quota exceeded"),
    ];
    table
        .iter()
        .find(|(known, _, _)| *known == errno)
        .map(|(_, code, text)| (*code, *text))
}

/// Node's message for a failed call of `syscall` on `path`: `CODE: description, syscall 'path'`.
pub(crate) fn node_message(error: &io::Error, syscall: &str, path: Option<&Path>) -> String {
    let Some((code, description)) = code_and_description(error) else {
        return error.to_string();
    };
    match path {
        Some(path) => format!("{code}: {description}, {syscall} '{}'", path.display()),
        None => format!("{code}: {description}, {syscall}"),
    }
}

/// The error code text the edit tool reports (`Error code: ENOENT`), or the error itself.
pub(crate) fn code_text(error: &io::Error) -> String {
    match code_and_description(error) {
        Some((code, _)) => format!("Error code: {code}"),
        None => error.to_string(),
    }
}
