"""A stand-in for released jp's locking, for the lock stress test.

python3 jp_lock_standin.py LOCK COUNTER ROUNDS [PAUSE [PID]]: ROUNDS times, open
LOCK (create, no truncate), take flock(LOCK_EX|LOCK_NB) (retrying while
held), do a slow read-modify-write of COUNTER, then close the handle and
delete LOCK, exactly in the order released jp does (close, then unlink),
pausing PAUSE seconds (default 0) between the two. PID, when given, is the
pid written into the lock file (one this machine cannot see, as a jp in
another pid namespace writes).
"""
import sys
import time

from jp_lock import try_lock, unlock

lock_path, counter_path, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
pause = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
pid = int(sys.argv[5]) if len(sys.argv) > 5 else None
done = 0
while done < rounds:
    fd = try_lock(lock_path, pid)
    if fd is None:
        time.sleep(0.001)
        continue
    with open(counter_path) as f:
        value = int(f.read())
    time.sleep(0.001)
    with open(counter_path, "w") as f:
        f.write(str(value + 1))
    unlock(fd, lock_path, pause)
    done += 1
