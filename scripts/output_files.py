"""What the plot scripts share with peerbench's command line (scripts/cli.sh is the shell side):
bad input is one line and exit code 2, and files are checked and written as peerbench writes
its own: an existing target must be a regular file (a symlink, even to a regular file, a
device, a FIFO or a folder is refused, never written through); the file is written under a
temporary name in its folder and renamed over the target; an existing file keeps its mode.
"""
import os
import stat
import sys
import tempfile


def fail(script, message):
    """Bad input: one line on stderr, exit code 2."""
    print(f"{script}: error: {message}", file=sys.stderr)
    sys.exit(2)


def check_out_dir(script, path):
    """A folder to write into: made when absent, refused when something else is there."""
    if os.path.lexists(path) and not os.path.isdir(path):
        fail(script, f"--out {path}: it exists and is not a folder")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        fail(script, f"--out {path}: cannot create the folder: {e.strerror}")
    if not os.access(path, os.W_OK | os.X_OK):
        fail(script, f"--out {path}: cannot create files there: permission denied")


def _mode_for(script, path):
    """The mode the file gets: an existing regular file's own, else 0644 less the umask."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o644 & ~umask
    if stat.S_ISLNK(st.st_mode):
        fail(script, f"cannot write {path}: it is a symbolic link; {script} does not write "
                     "through links (give the file it points to)")
    if stat.S_ISDIR(st.st_mode):
        fail(script, f"cannot write {path}: it is a folder; give a file name")
    if not stat.S_ISREG(st.st_mode):
        fail(script, f"cannot write {path}: it exists and is not a regular file (a device, "
                     f"FIFO or socket); {script} only replaces regular files")
    return stat.S_IMODE(st.st_mode)


def save_figure(script, fig, path, dpi=110):
    """fig as a PNG at path, through a temporary file in path's folder and a rename."""
    mode = _mode_for(script, path)
    folder, name = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=folder or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format="png", dpi=dpi)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        fail(script, f"cannot write {path}: {e.strerror}")
