#!/usr/bin/env python3
"""fake_worker.py - stands in for `numalab run --ndjson` (serve --worker) so the
runner's failure paths can be made to happen. The mode is read from the file
named by $FAKE_WORKER_MODE, so one server can go through all of them."""

import json
import os
import signal
import sys
import time


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


mode = open(os.environ["FAKE_WORKER_MODE"]).read().strip()
emit({"type": "start", "experiment": sys.argv[3], "params": {},
      "machine": {"hostname": "fake-worker"}, "version": "fake"})
emit({"type": "note", "level": "info", "text": json.dumps(sys.argv[1:])})

if mode == "garbage":
    sys.stdout.write("hello, this is not json\n")
    sys.stdout.flush()
    time.sleep(60)  # the runner kills it long before
elif mode == "array":
    sys.stdout.write("[1, 2, 3]\n")
    sys.stdout.flush()
    time.sleep(60)
elif mode == "server_event":
    emit({"type": "done", "status": "done"})
    time.sleep(60)
elif mode == "exit3":
    sys.stderr.write("first complaint\nthe kernel could not allocate its buffer\n")
    sys.stderr.flush()
    sys.exit(3)
elif mode == "noend":
    sys.exit(0)
elif mode == "segv":
    sys.stderr.write("about to crash\n")
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode == "unterminated":
    emit({"type": "summary", "key": "k", "value": 2.5, "unit": "x"})
    emit({"type": "headline", "text": "a fake outcome"})
    sys.stdout.write(json.dumps({"type": "end", "status": "done"}))
    sys.stdout.flush()
elif mode == "ignore_term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    emit({"type": "progress", "done": 0, "total": 1, "what": "obstinate"})
    time.sleep(60)
elif mode == "hang":
    emit({"type": "progress", "done": 0, "total": 1, "what": "hanging"})
    time.sleep(60)  # past any time limit a test sets
elif mode == "detach":
    # closes its pipes and lingers: only its exit says it is done
    emit({"type": "progress", "done": 0, "total": 1, "what": "detached"})
    os.close(1)
    os.close(2)
    time.sleep(60)
elif mode == "grandchild":
    # leaves a process behind that holds stdout open
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
    emit({"type": "end", "status": "done"})
    sys.exit(0)
elif mode == "progress_burst":
    # the worker's compact lines, several progress lines in one write (one
    # read for the runner: a pipe write under 4 KiB is whole), then one
    # written with spaces, which is not the worker's own form
    line = lambda o: json.dumps(o, separators=(",", ":")) + "\n"  # noqa: E731
    sys.stdout.write("".join(line({"type": "progress", "done": i, "total": 4,
                                   "what": "point %d" % i}) for i in range(3)) +
                     line({"type": "note", "level": "info", "text": "between"}) +
                     line({"type": "progress", "done": 3, "total": 4, "what": "point 3"}))
    sys.stdout.flush()
    emit({"type": "progress", "done": 4, "total": 4, "what": "spaced"})
    emit({"type": "progress", "done": 4, "total": 4, "what": "spaced again"})
    emit({"type": "end", "status": "done"})
elif mode == "progress_garbage":
    # a broken progress line that a good one after it in the same write
    # would pass over: it is still garbage
    sys.stdout.write('{"type":"progress","done":[[1}\n' +
                     json.dumps({"type": "progress", "done": 1, "total": 2},
                                separators=(",", ":")) + "\n")
    sys.stdout.flush()
    emit({"type": "end", "status": "done"})
elif mode == "marks":
    # the events a verdict that disowns a value sends: the mark before the
    # headline
    emit({"type": "summary", "key": "slowdown_2_threads", "value": 2.17, "unit": "x"})
    # the verdict sends a value again with the interval it states beside it
    emit({"type": "summary", "key": "slowdown_1_threads", "value": 1.0, "unit": "x"})
    emit({"type": "summary", "key": "slowdown_1_threads", "value": 1.0, "unit": "x",
          "lo": 0.98, "hi": 1.03})
    emit({"type": "mark", "key": "slowdown_2_threads*", "mark": "disowned",
          "why": "the threads ran together only 10% of the time"})
    emit({"type": "headline", "text": "false sharing could not be measured"})
    emit({"type": "end", "status": "done"})
else:
    emit({"type": "end", "status": "done"})
