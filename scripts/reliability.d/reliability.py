"""sextant reliability checks against the real server: load, SIGKILL, disk full. See scripts/reliability --help."""
import os, shutil, sys, tempfile, time
sys.path.insert(0, os.path.dirname(__file__))
from common import raise_nofile, say

USAGE = """usage: scripts/reliability [load|kill|diskfull|all] [--quick] [--keep] [--nice N] [--help]

Runs .build/release/sextant serve on spare loopback ports and checks:
  load      at 10,000 lines/s, 1 gateway + 1 dashboard against 1,000 gateways, and against 200
            dashboards: the loop thread's CPU per line and the feed's p50 latency as ratios (1,000
            gateways: at most 1.5x), and with 200 dashboards the CPU per delivered line against a C relay
            writing the same bytes to as many sockets (at most 2x)
  kill      SIGKILL during full-rate ingest, restart on the same data directory (5 times): integrity_check,
            no holes in a tag's history, the restart serves the last positions, the loss window
  diskfull  the data directory on a small tmpfs: service and feed go on, the error is reported, writing
            resumes when the tmpfs is remounted larger (SKIP when mount is not permitted)
  all       all three (the default)
--quick     shorter phases and fewer kills; --keep keeps the work directory (logs, databases)
--nice N    run the checks, the server included, at nice N (a negative N needs root): on a machine
            shared with other work, the figures then measure the server rather than the neighbours
Prints figures and PASS/MISS lines; exits 1 if any check misses, 64 on a usage error."""


def main(argv):
    if "--help" in argv or "-h" in argv:
        print(USAGE)
        return 0
    quick, keep = "--quick" in argv, "--keep" in argv
    if "--nice" in argv:
        i = argv.index("--nice")
        try:
            niceness = int(argv[i + 1])
        except (IndexError, ValueError):
            print(USAGE, file=sys.stderr)
            return 64
        del argv[i:i + 2]
        os.setpriority(os.PRIO_PROCESS, 0, niceness)
        say(f"reliability: running at nice {niceness}")
    names = [a for a in argv if not a.startswith("--")] or ["all"]
    known = ["load", "kill", "diskfull"]
    if any(n not in known + ["all"] for n in names) or any(a not in ("--quick", "--keep") for a in argv if a.startswith("--")):
        print(USAGE, file=sys.stderr)
        return 64
    checks = known if "all" in names else names
    limit = raise_nofile(4096)
    if "load" in checks and limit < 2300:
        say(f"reliability: the open-file limit is {limit}; the load check needs about 2,300 (2 per connection)")
        return 1
    work = tempfile.mkdtemp(prefix="sextant-reliability-")
    misses = []
    try:
        for name in checks:
            started = time.time()
            module = __import__(name)
            verdicts = module.run(work, quick)
            misses += [f"{name}: {m}" for m in verdicts.misses]
            say(f"{name}: {'ok' if not verdicts.misses else str(len(verdicts.misses)) + ' missed'} "
                f"({time.time() - started:.0f} s)\n")
    finally:
        if keep:
            say(f"reliability: work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    say("reliability: " + ("all checks passed" if not misses else "MISSED: " + "; ".join(misses)))
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
