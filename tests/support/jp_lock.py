"""Released jp's conversation lock, for the Python stand-ins of jp.

try_lock(path): open the lock file (create, no truncate), flock it
LOCK_EX|LOCK_NB, and write jp's compact JSON about the holder; the handle, or
None while another process holds it. unlock(fd, path): close, then delete the
lock file, in the order released jp does.
"""
import fcntl
import os
import time


def try_lock(lock_path, pid=None):
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    # As jp does after acquiring: compact JSON about the holder.
    os.ftruncate(fd, 0)
    # A jp in another pid namespace (a dev container) writes a pid this
    # machine cannot see: `pid` stands in for it.
    os.pwrite(fd, ('{"pid":%d,"acquired_at":"2026-01-01T00:00:00+00:00"}' % (pid or os.getpid())).encode(), 0)
    return fd


def unlock(fd, lock_path, pause=0.0):
    os.close(fd)
    if pause > 0:
        time.sleep(pause)
    try:
        os.unlink(lock_path)
    except FileNotFoundError:
        pass
