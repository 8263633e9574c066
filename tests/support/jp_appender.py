"""A stand-in for released jp writing a conversation, for the lock race test.

python3 jp_appender.py DIR LOCK STOP: until the file STOP exists, take the
conversation lock as released jp does (open LOCK, flock LOCK_EX|LOCK_NB,
retry while held), read DIR/events.json, append one entry of an unknown type
carrying a counter, write the file back as jp does (2-space JSON, temporary
file renamed over it), then close the lock and delete the lock file (released
jp's order). Prints how many entries it appended.
"""
import json
import os
import sys
import time

from jp_lock import try_lock, unlock

directory, lock_path, stop_path = sys.argv[1], sys.argv[2], sys.argv[3]
events_path = os.path.join(directory, "events.json")
count = 0
while not os.path.exists(stop_path):
    fd = try_lock(lock_path)
    if fd is None:
        time.sleep(0.002)
        continue
    try:
        with open(events_path, encoding="utf-8") as f:
            events = json.load(f)
        events.append({
            "timestamp": "2026-01-01 00:00:00.0",
            "type": "jp_standin_marker",
            "n": count,
        })
        temporary = events_path + ".standin.tmp"
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(json.dumps(events, indent=2, ensure_ascii=False) + "\n")
        os.rename(temporary, events_path)
        count += 1
    finally:
        unlock(fd, lock_path)
    time.sleep(0.005)
print(count)
