"""A stand-in for released jp's locking, for the lock stress test.

python3 jp_lock_standin.py LOCK COUNTER ROUNDS: ROUNDS times, open LOCK
(create, no truncate), take flock(LOCK_EX|LOCK_NB) (retrying while held),
do a slow read-modify-write of COUNTER, then close the handle and delete
LOCK, exactly in the order released jp does (close, then unlink).
"""
import fcntl
import os
import sys
import time

lock_path, counter_path, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
done = 0
while done < rounds:
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        # As jp does after acquiring: compact JSON about the holder.
        os.ftruncate(fd, 0)
        os.pwrite(fd, ('{"pid":%d,"acquired_at":"2026-01-01T00:00:00+00:00"}' % os.getpid()).encode(), 0)
    except BlockingIOError:
        os.close(fd)
        time.sleep(0.001)
        continue
    with open(counter_path) as f:
        value = int(f.read())
    time.sleep(0.001)
    with open(counter_path, "w") as f:
        f.write(str(value + 1))
    os.close(fd)
    try:
        os.unlink(lock_path)
    except FileNotFoundError:
        pass
    done += 1
