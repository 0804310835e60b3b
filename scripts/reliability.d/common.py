"""Shared pieces of the reliability checks: the server process, its counters, simulated input,
the sending of lines stamped with the wall clock, and figures."""
import os, random, signal, socket, sqlite3, subprocess, sys, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("SEXTANT_BIN") or os.path.join(ROOT, ".build", "release", "sextant")
SITE = os.path.join(ROOT, "Sites", "demo-warehouse.json")
HISTORY_MAX_DELAY = 0.2      # ServiceConfig.historyMaxDelay (s)
HISTORY_BATCH = 4096         # ServiceConfig.historyBatchSize (rows)
CLK_TCK = os.sysconf("SC_CLK_TCK")


def say(*args):
    print(*args, flush=True)


def free_ports(n):
    """n loopback ports that were free a moment ago."""
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class Server:
    """One `sextant serve` process on spare loopback ports; its stderr goes to `log`."""

    def __init__(self, data_dir, log, extra=()):
        self.data_dir, self.log, self.extra = data_dir, log, list(extra)
        self.ingest, self.feed = free_ports(2)
        self.proc = None

    def start(self, timeout=30):
        os.makedirs(self.data_dir, exist_ok=True)
        err = open(self.log, "ab")
        self.proc = subprocess.Popen(
            [BIN, "serve", "--ingest-port", str(self.ingest), "--feed-port", str(self.feed),
             "--http", "0", "--data-dir", self.data_dir, "--site", SITE] + self.extra,
            stdout=subprocess.DEVNULL, stderr=err)
        err.close()
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"reliability: the server exited at start ({self.proc.returncode}); see {self.log}")
            try:
                self.stats()
                return self
            except OSError:
                time.sleep(0.1)
        raise SystemExit(f"reliability: the server did not answer within {timeout} s; see {self.log}")

    @property
    def pid(self):
        return self.proc.pid

    def stats(self, timeout=20):
        """The `#stats` counters: numbers as int/float, the rest (history_error) as text."""
        with socket.create_connection(("127.0.0.1", self.feed), timeout=timeout) as s:
            s.sendall(b"#stats\n")
            data = b""
            while not data.endswith(b"# end\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        out = {}
        for line in data.decode(errors="replace").splitlines():
            if not line.startswith("# ") or "=" not in line:
                continue
            key, value = line[2:].split("=", 1)
            try:
                out[key] = int(value)
            except ValueError:
                try:
                    out[key] = float(value)
                except ValueError:
                    out[key] = value
        return out

    def cpu_seconds(self):
        """User + system CPU time of the server so far (all its threads)."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def sched(self):
        """(seconds on a CPU summed over the server's threads, seconds its busiest thread, the event
        loop, was runnable but waiting for a CPU)."""
        run, busiest = 0, (0, 0)
        for tid in os.listdir(f"/proc/{self.pid}/task"):
            try:
                with open(f"/proc/{self.pid}/task/{tid}/schedstat") as f:
                    r, w, _ = map(int, f.read().split())
                run, busiest = run + r, max(busiest, (r, w))
            except OSError:
                pass
        return run / 1e9, busiest[1] / 1e9

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self, timeout=30):
        """SIGTERM and wait: the service commits its history and exits 0."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return "killed after timeout"


def simulate(work, tags, duration, seed=1):
    """Simulated ingest lines of the demo warehouse: a list of (line without its timestamp, tag)."""
    out = os.path.join(work, f"sim-{tags}-{duration}-{seed}.lp")
    if not os.path.exists(out):
        subprocess.run([BIN, "simulate", "--site", SITE, "--tags", str(tags), "--duration", str(duration),
                        "--seed", str(seed), "--truth", os.path.join(work, "truth.csv"), "--output", out],
                       check=True, stderr=subprocess.DEVNULL)
    lines = []
    with open(out, "rb") as f:
        for raw in f:
            if raw.startswith(b"#") or len(raw) < 3:
                continue
            body = raw.rstrip(b"\n").rsplit(b" ", 1)[0]
            i = body.find(b",tag=")
            tag = body[i + 5:].split(b" ", 1)[0].split(b",", 1)[0] if i >= 0 else b""
            lines.append((body, tag))
    return lines


def stamp_join(bodies, now_ns=None):
    """The lines `bodies`, each ended by ` <now in Unix ns>\\n` (one C-level join)."""
    sep = b" %d\n" % (now_ns if now_ns is not None else time.time_ns())
    return sep.join(bodies) + sep


def integrity(db_path):
    con = sqlite3.connect(db_path, timeout=30)   # `with` would not close it
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    i = min(len(sorted_values) - 1, max(0, int(round(p / 100 * (len(sorted_values) - 1)))))
    return sorted_values[i]


def machine_probe(end_at, out):
    """Every 20 ms, times a fixed piece of arithmetic (calibrated to about 0.5 ms, 2.5 % of a core) until `end_at`, and
    puts the (start time, seconds) pairs on `out`. On a virtual machine with a busy host, the same work
    takes several times longer in episodes of tens of milliseconds, and the server slows with it; the
    share of slowed units per window says whether a latency tail came from the host."""
    def unit(n):
        t = time.perf_counter()
        x = 1.0
        for _ in range(n):
            x = x * 1.0000001 + 1e-9
        return time.perf_counter() - t
    n = 1000
    while unit(n) < 0.0005:
        n *= 2
    samples = []
    while time.time() < end_at:
        samples.append((time.time(), unit(n)))
        time.sleep(0.02)
    out.put(samples)


def probe_summary(samples, a, b):
    """The share of units in [a, b) that took at least twice the median of the whole run, and the worst."""
    durations = sorted(d for _, d in samples)
    if not durations:
        return "machine probe: no samples"
    median = durations[len(durations) // 2]
    window = [d for t, d in samples if a <= t < b]
    if not window:
        return "machine probe: no samples in the window"
    slowed = sum(1 for d in window if d >= 2 * median)
    return (f"machine probe: {100 * slowed / len(window):.1f} % of {len(window)} work units took "
            f"≥ 2× the median ({median * 1e3:.2f} ms), worst {max(window) / median:.1f}×")


class Verdicts:
    """PASS/MISS lines, remembered for the exit code."""

    def __init__(self):
        self.misses = []

    def check(self, name, ok, detail):
        say(f"  {'PASS' if ok else 'MISS'}  {name}: {detail}")
        if not ok:
            self.misses.append(name)
        return ok


def raise_nofile(wanted):
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
