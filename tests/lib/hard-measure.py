#!/usr/bin/env python3
"""hard-measure.py OUT CMD...: runs CMD (stdout and stderr to OUT.stdout and
OUT.stderr) and writes "EXIT ELAPSED_MS PEAK_RSS_KB" to OUT, the peak
resident set size of CMD and its children as getrusage reports it. A
command still running after 120 s is killed (EXIT 124)."""
import resource, subprocess, sys, time

out, cmd = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
with open(out + ".stdout", "wb") as so, open(out + ".stderr", "wb") as se:
    try:
        rc = subprocess.run(cmd, stdout=so, stderr=se, timeout=120).returncode
    except subprocess.TimeoutExpired:
        rc = 124
ms = int((time.monotonic() - t0) * 1000)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(out, "w").write("%d %d %d\n" % (rc, ms, rss))
