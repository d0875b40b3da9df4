//! Writing a file whole or not at all.
//!
//! Output goes to a temporary file beside the destination, is synced, then renamed over it: an
//! interrupted run leaves the old file (or none), never half of a new one. A destination that
//! is not a regular file (`/dev/null`, a FIFO, a terminal) is written directly instead: renaming
//! over it would replace the device node. A symbolic link is followed, so the link survives and
//! its target is replaced. A process killed outright (SIGKILL) cannot remove its temporary
//! file; the next write of the same file removes temporaries whose writer no longer runs.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

pub fn write_atomically<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> io::Result<T> {
    write_file_atomically_with(path, |w| write(w), |_, e| e)
}

/// What [`write_file_atomically_with`] was doing when an I/O error happened (errors of the `write`
/// closure itself are the closure's own); an error type only for its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Step {
    /// Looking at the destination: its metadata, or following its symbolic link.
    #[error("looking at the destination")]
    Inspect,
    #[error("creating temporary file {}", .0.display())]
    CreateTemp(PathBuf),
    #[error("flushing temporary file {} to disk", .0.display())]
    SyncTemp(PathBuf),
    #[error("renaming {} to {}", from.display(), to.display())]
    Rename { from: PathBuf, to: PathBuf },
    /// Opening a destination that is not a regular file, written directly.
    #[error("opening for writing")]
    OpenDirect,
    #[error("flushing")]
    FlushDirect,
}

/// [`write_atomically`] for a closure with its own error type, handed the buffered file itself
/// (for a writer that wants the file underneath, such as [`super::DirectWriter`]): an I/O error
/// of the write itself (creating, syncing, renaming) becomes `io_err(step, error)`.
pub fn write_file_atomically_with<T, E>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<T, E>,
    io_err: impl Fn(Step, io::Error) -> E,
) -> Result<T, E> {
    let target = match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => return write_directly(path, write, io_err),
        // Follow a link to a regular file so the link itself is kept.
        Ok(_) => std::fs::canonicalize(path).map_err(|e| io_err(Step::Inspect, e))?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => path.to_path_buf(),
        Err(e) => return Err(io_err(Step::Inspect, e)),
    };
    remove_stale_temps(&target);
    let tmp = temp_path(&target);
    let result = (|| {
        let file = File::create(&tmp).map_err(|e| io_err(Step::CreateTemp(tmp.clone()), e))?;
        let mut w = BufWriter::new(file);
        let value = write(&mut w)?;
        let sync = |e| io_err(Step::SyncTemp(tmp.clone()), e);
        let file = w.into_inner().map_err(|e| sync(e.into_error()))?;
        file.sync_all().map_err(sync)?;
        std::fs::rename(&tmp, &target).map_err(|e| {
            io_err(
                Step::Rename {
                    from: tmp.clone(),
                    to: target.clone(),
                },
                e,
            )
        })?;
        Ok(value)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn write_directly<T, E>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<T, E>,
    io_err: impl Fn(Step, io::Error) -> E,
) -> Result<T, E> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| io_err(Step::OpenDirect, e))?;
    let mut w = BufWriter::new(file);
    let value = write(&mut w)?;
    w.flush().map_err(|e| io_err(Step::FlushDirect, e))?;
    Ok(value)
}

/// Removes `.NAME.PID.tmp` files left beside `target` by writers that are no longer running
/// (`/proc/PID` is gone). Best effort: what cannot be listed or removed is left alone.
fn remove_stale_temps(target: &Path) {
    let Some(name) = target.file_name() else {
        return;
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir_of(target)) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = file
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The directory `target` is in (`.` for a bare name).
fn dir_of(target: &Path) -> &Path {
    match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// `.NAME.PID.tmp` in the destination's directory (same file system, so the rename is atomic).
fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    dir_of(target).join(format!(".{name}.{}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_the_old_file_and_no_temp_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        write_atomically(&path, |w| w.write_all(b"whole")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"whole");
        let err = write_atomically(&path, |w| {
            w.write_all(b"half")?;
            Err::<(), _>(io::Error::other("interrupted"))
        });
        assert!(err.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"whole", "old file intact");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp left"
        );
    }

    #[test]
    fn removes_temporaries_of_dead_writers_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.csv");
        // PID 0x7fff_fff0 is above Linux's pid_max: never a running process.
        let dead = dir.path().join(".summary.csv.2147483632.tmp");
        let alive = dir.path().join(".summary.csv.1.tmp"); // init always runs
        let other = dir.path().join(".other.csv.2147483632.tmp");
        for f in [&dead, &alive, &other] {
            std::fs::write(f, b"half").unwrap();
        }
        write_atomically(&path, |w| w.write_all(b"whole")).unwrap();
        assert!(!dead.exists());
        assert!(alive.exists() && other.exists());
    }

    #[test]
    fn writes_through_devices_and_keeps_symlinks() {
        // /dev/null stays a device: written to, not replaced.
        write_atomically(Path::new("/dev/null"), |w| w.write_all(b"discarded")).unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());

        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        std::fs::write(&real, b"old").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomically(&link, |w| w.write_all(b"new")).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
    }
}
