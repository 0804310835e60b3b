"""Load: the service's CPU per ingest line in its loop thread and the feed's p50 latency, with 1 gateway
and 1 dashboard, against 1,000 gateways, and against 200 dashboards; and the CPU per delivered feed line
with 200 dashboards against a relay floor (a small C program that writes the same bytes to the same
number of sockets, relay.c). Every figure is a ratio between phases of one run, so that a busy machine
moves both sides."""
import multiprocessing as mp, os, selectors, shutil, socket, struct, subprocess, time
from common import (Server, Verdicts, free_ports, percentile, say, simulate, stamp_join)

RATE = 10_000          # offered ingest lines/s, every phase
TAGS = 250             # simulated tags: about 2,500 positions/s
TICK = 0.005           # the generator sends what is due every 5 ms
GATEWAYS = 1000
SUBSCRIBERS = 200
TARGET_GATEWAYS = 1.5  # 1,000 gateways against 1: CPU per line and p50 latency, at most
TARGET_RELAY = 2.0     # 200 dashboards: service CPU per delivered line against the relay's, at most
PRE_OPEN = 1.5         # seconds of lines before a switch of gateways at which the next set connects
GUARD = 2.0            # seconds between a window's end and its phase's end: the next set's connects, the
                       # next phase's dashboards and a late #stats answer fall outside the window
HERE = os.path.dirname(os.path.abspath(__file__))


def open_conns(port, n):
    conns = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        conns.append(s)
    return conns


def generator(port, lines, tag_index, t0, plan, out):
    """Sends `lines` at RATE from t0, each batch stamped with the wall clock just before its send.
    plan: [(first line index, connections)]: the gateway set changes at those indices; the next set
    connects PRE_OPEN seconds of lines before (opening 1,000 connections takes a while, and the lines
    would wait for it), idle until the switch. A tag always goes through the same gateway of a set.
    Reports per-window lines sent, lag and CPU."""
    sel = selectors.DefaultSelector()
    pending = {}
    phase, conns, ahead = 0, open_conns(port, plan[0][1]), None
    for s in conns:
        sel.register(s, selectors.EVENT_READ)
    sent, total, n = 0, len(lines), len(conns)
    bodies = [b for b, _ in lines]
    max_lag = [0.0] * len(plan)
    marks = []                      # (wall time, lines sent, cpu seconds)
    next_mark = time.time()
    while time.time() < t0:
        time.sleep(0.001)
    while sent < total:
        now = time.time()
        if now >= next_mark:
            marks.append((now, sent, time.process_time()))
            next_mark = now + 0.5
        due = min(total, int((now - t0) * RATE))
        if ahead is None and phase + 1 < len(plan) and sent >= plan[phase + 1][0] - int(RATE * PRE_OPEN):
            ahead = open_conns(port, plan[phase + 1][1])
            for s in ahead:
                sel.register(s, selectors.EVENT_READ)
            continue
        if phase + 1 < len(plan) and sent >= plan[phase + 1][0]:
            for s in conns:
                sel.unregister(s); s.close()
            pending.clear()           # only the old set's sockets have bytes waiting
            phase += 1
            conns, ahead = ahead, None
            n = len(conns)
            continue
        if due <= sent:
            flush(sel, pending, 0.0005)
            time.sleep(max(0.0, min(TICK, (sent + 1) / RATE - (time.time() - t0))))
            continue
        max_lag[phase] = max(max_lag[phase], (due - sent) / RATE)
        end = min(due, sent + RATE // 10)
        if phase + 1 < len(plan):
            end = min(end, plan[phase + 1][0])
        # One write per line in both phases, as a gateway forwards each measurement when it arrives:
        # the phases then differ in the number of connections alone, not in how the lines are packed.
        for i in range(sent, end):
            s = conns[tag_index[i] % n]
            data = stamp_join((bodies[i],))
            if s in pending:
                pending[s] += data
                continue
            rest = send_some(s, data)
            if rest:
                pending[s] = rest
                sel.modify(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
        sent = end
        flush(sel, pending, 0)
    marks.append((time.time(), sent, time.process_time()))
    out.put({"marks": marks, "max_lag": max_lag})
    time.sleep(1.0)
    for s in conns:
        s.close()


def send_some(s, data):
    """Sends what a nonblocking socket takes now; returns the bytes left (empty when all went)."""
    try:
        k = s.send(data)
    except BlockingIOError:
        k = 0
    return data[k:]


def flush(sel, pending, timeout):
    for key, ev in sel.select(timeout):
        s = key.fileobj
        if ev & selectors.EVENT_READ:
            try:
                s.recv(65536)      # replies to rejected lines, if any
            except BlockingIOError:
                pass
        if ev & selectors.EVENT_WRITE and s in pending:
            rest = send_some(s, pending.pop(s))
            if rest:
                pending[s] = rest
            else:
                sel.modify(s, selectors.EVENT_READ)


SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)    # Linux; Python does not name it


def kernel_time(ancillary):
    """The receive time (Unix ns) in a recvmsg's SCM_TIMESTAMPNS, or None."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
            seconds, nanoseconds = struct.unpack("qq", data[:16])
            return seconds * 1_000_000_000 + nanoseconds
    return None


def dashboards(port, plan, windows, end_at, out, record=None):
    """plan: [(start time, dashboards)]: the number of reading `kinds=position` dashboards from then on.
    Dashboard 0 parses every line: latency = its kernel receive time (SO_TIMESTAMPNS) - the position's
    timestamp, per window. The others only count bytes. record: (window name, path): dashboard 0's
    chunks in that window are written there, (receive offset ns, length, bytes), for the relay."""
    sel = selectors.DefaultSelector()
    socks, got = [], []
    lat = {name: [] for name, _, _ in windows}
    buf0 = b""
    sink = bytearray(1 << 20)
    rec = open(record[1], "wb") if record else None
    rec_start = None

    def connect():
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"subscribe kinds=position\n")
        if not socks:
            try:
                s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            except OSError:
                pass
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, len(socks))
        socks.append(s)
        got.append(0)

    step = 0
    while time.time() < end_at:
        while step < len(plan) and time.time() >= plan[step][0]:
            while len(socks) < plan[step][1]:
                connect()
            step += 1
        for key, _ in sel.select(0.05):
            s, i = key.fileobj, key.data
            if i:
                try:
                    n = s.recv_into(sink)
                except BlockingIOError:
                    continue
                except ConnectionResetError:     # the relay exits with their requests unread
                    n = 0
                if n == 0:
                    sel.unregister(s)
                got[i] += n
                continue
            try:
                data, ancillary, _, _ = s.recvmsg(1 << 20, socket.CMSG_SPACE(16))
            except BlockingIOError:
                continue
            except ConnectionResetError:
                data, ancillary = b"", []
            now = kernel_time(ancillary) or time.time_ns()
            if not data:
                sel.unregister(s)
                continue
            got[0] += len(data)
            window = next((name for name, a, b in windows if a <= now / 1e9 < b), None)
            if rec and window == record[0]:
                rec_start = rec_start or now
                rec.write(struct.pack("qi", now - rec_start, len(data)) + data)
            lines = (buf0 + data).split(b"\n")
            buf0 = lines.pop()
            if window:
                for line in lines:
                    if line.startswith(b"position"):
                        lat[window].append((now - int(line[line.rfind(b" ") + 1:])) / 1e6)
    if rec:
        rec.close()
    out.put({"lat": {k: sorted(v) for k, v in lat.items()}, "starved": sum(1 for g in got if g == 0),
             "readers": len(got)})
    for s in socks:
        s.close()


def read_record(path):
    """The recorded bytes and, per recorded chunk, (its first byte's index, receive offset in ns)."""
    with open(path, "rb") as f:
        raw = f.read()
    data, marks, i = bytearray(), [], 0
    while i + 12 <= len(raw):
        offset, n = struct.unpack_from("qi", raw, i)
        marks.append((len(data), offset))
        data += raw[i + 12:i + 12 + n]
        i += 12 + n
    return bytes(data), marks


def replay_to_relay(port, path, t0, chunks):
    """Sends dashboard 0's recorded bytes to the relay's source port in `chunks` pieces of whole lines
    (as many as the service's writes to one dashboard), each at the time its first byte was received,
    each framed with its length so that the relay writes it in one send (relay.c)."""
    data, marks = read_record(path)
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    start, m = 0, 0
    for k in range(1, chunks + 1):
        end = len(data) if k == chunks else data.find(b"\n", len(data) * k // chunks) + 1
        if end <= start:
            continue
        while m + 1 < len(marks) and marks[m + 1][0] <= start:
            m += 1
        wait = t0 + marks[m][1] / 1e9 - time.time()
        if wait > 0:
            time.sleep(wait)
        s.sendall(struct.pack("<I", end - start) + data[start:end])
        start = end
    s.close()


def loop_cpu(pid):
    """Seconds on a CPU of the service's loop thread (`sextant.loop`)."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if f.read().strip() != "sextant.loop":
                    continue
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                return int(f.read().split()[0]) / 1e9
        except OSError:
            pass
    return float("nan")


def relay_floor(work, seconds, record_path, chunks):
    """The relay with SUBSCRIBERS reading dashboards, fed dashboard 0's recorded bytes at their pace.
    Returns (CPU seconds, lines delivered, dashboards result)."""
    binary = os.path.join(work, "relay")
    # $CC, cc, or the clang of the Swift toolchain.
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("clang")
    subprocess.run([compiler, "-O2", "-o", binary, os.path.join(HERE, "relay.c")], check=True)
    sub_port, src_port = free_ports(2)
    relay = subprocess.Popen([binary, str(sub_port), str(src_port), str(SUBSCRIBERS)], stdout=subprocess.PIPE)
    relay.stdout.readline()
    ctx = mp.get_context("fork")
    # The relay takes its source once every dashboard is connected; what is sent before waits in the kernel.
    t0 = time.time() + 1.0
    end = t0 + seconds
    q = ctx.Queue()
    feed = ctx.Process(target=dashboards, args=(sub_port, [(0, SUBSCRIBERS)], [], end + 1.0, q))
    feed.start()
    replay_to_relay(src_port, record_path, t0, chunks)
    cpu = float(relay.stdout.readline().split()[1])
    relay.wait(timeout=30)
    result = q.get(timeout=60)
    feed.join()
    return cpu, read_record(record_path)[0].count(b"\n") * SUBSCRIBERS, result


def run(work, quick, same=False):
    v = Verdicts()
    phase_s, warm = (10, 2) if quick else (20, 4)
    names = ["1 gateway", f"{GATEWAYS:,} gateways", f"{SUBSCRIBERS} dashboards"]
    say(f"load: {RATE:,} lines/s offered ({TAGS} tags); {phase_s} s each of 1 gateway + 1 dashboard, "
        f"{GATEWAYS:,} gateways + 1 dashboard, 1 gateway + {SUBSCRIBERS} dashboards; then the relay floor")
    lines = simulate(work, TAGS, 3 * phase_s + 5)
    tag_ids = {}
    tag_index = [tag_ids.setdefault(t, len(tag_ids)) for _, t in lines]
    lines = lines[:int(RATE * 3 * phase_s)]
    server = Server(os.path.join(work, "load-data"), os.path.join(work, "load-serve.log")).start()
    ctx = mp.get_context("fork")
    gen_q, feed_q = ctx.Queue(), ctx.Queue()
    t0 = time.time() + 2.0
    starts = [t0 + k * phase_s for k in range(3)]
    end = t0 + 3 * phase_s
    windows = [(names[k], starts[k] + warm, starts[k] + phase_s - GUARD) for k in range(3)]
    record = os.path.join(work, "feed-record.bin")
    plan = [(0, 1), (int(RATE * phase_s), GATEWAYS), (int(RATE * 2 * phase_s), 1)]
    gen = ctx.Process(target=generator, args=(server.ingest, lines, tag_index, t0, plan, gen_q))
    feed = ctx.Process(target=dashboards, args=(server.feed, [(0, 1), (starts[2], SUBSCRIBERS)], windows,
                                                end + 0.5, feed_q, (names[2], record)))
    feed.start(); gen.start()
    samples = {}
    try:
        for name, a, b in windows:
            for edge, when in (("start", a), ("end", b)):
                time.sleep(max(0.0, when - time.time()))
                try:
                    samples[(name, edge)] = (time.time(), server.stats(), loop_cpu(server.pid))
                except OSError as e:
                    say(f"  {name} {edge}: no answer to #stats within 20 s ({e})")
        gres, fres = gen_q.get(timeout=120), feed_q.get(timeout=120)
        gen.join(); feed.join()
    finally:
        for p in (gen, feed):
            if p.is_alive():
                p.terminate()
        code = server.stop()
    if len(samples) < 6:
        v.check("#stats answered during the run", False, f"{len(samples)} of 6 samples")
        return v
    held = samples[(names[1], "start")][1]
    f = {}
    for name, a, b in windows:
        (ta, sa, ca), (tb, sb, cb) = samples[(name, "start")], samples[(name, "end")]
        ingest = max(1, sb["lines_in"] - sa["lines_in"])
        delivered = max(1, (sb["feed_lines_queued"] - sa["feed_lines_queued"])
                        - (sb["feed_lines_dropped"] - sa["feed_lines_dropped"]))
        lat = fres["lat"][name]
        f[name] = {"rate": ingest / (tb - ta), "cpu": cb - ca, "us_line": (cb - ca) / ingest * 1e6,
                   "delivered": delivered, "ns_delivered": (cb - ca) / delivered * 1e9, "n": len(lat),
                   "p50": percentile(lat, 50), "p99": percentile(lat, 99),
                   "dropped": sb["feed_lines_dropped"] - sa["feed_lines_dropped"],
                   "sends": sb.get("feed_sends", 0) - sa.get("feed_sends", 0)}
        x = f[name]
        say(f"  {name:15s} ingest {x['rate']:7,.0f} lines/s, loop thread {x['us_line']:5.2f} µs CPU/line, "
            f"{x['delivered'] / (tb - ta):9,.0f} feed lines delivered/s ({x['ns_delivered']:6.0f} ns CPU each), "
            f"dropped {x['dropped']:,}, {x['sends']:,} feed sends; latency ms (dashboard 0, n={x['n']:,}) p50 {x['p50']:.2f} p99 {x['p99']:.2f}")
    # As many writes to each dashboard as the service made (feed_sends), or, from a service that does
    # not count them, as many as dashboard 0 received.
    sends = f[names[2]]["sends"] // SUBSCRIBERS or len(read_record(record)[1])
    relay_cpu, relay_lines, rres = relay_floor(work, phase_s - warm - GUARD, record, sends)
    relay_ns = relay_cpu / max(1, relay_lines) * 1e9
    say(f"  relay floor     {SUBSCRIBERS} dashboards, the same bytes: {relay_lines:,} lines delivered, "
        f"{relay_ns:.0f} ns CPU each, in {sends:,} writes to each dashboard as the service made; "
        f"every dashboard read: {rres['starved'] == 0}")
    say(f"  {held.get('ingest_connections', '?')} gateways connected at the start of the {names[1]} window; "
        f"generator lag (max, s): {', '.join(f'{x:.3f}' for x in gres['max_lag'])}; exit after SIGTERM: {code}")
    a, b, c = (f[n] for n in names)
    fan_in = (c["cpu"] - a["us_line"] * 1e-6 * (c["rate"] * (phase_s - warm - GUARD))) / c["delivered"] * 1e9
    say(f"  fan-out alone (200-dashboard CPU less the 1-dashboard CPU per ingest line): {fan_in:.0f} ns per delivered line "
        f"= {fan_in / relay_ns:.2f}x the relay floor")
    ratio = lambda x, y: x / y if y else float("nan")
    v.check(f"held {GATEWAYS:,} gateways", held.get("ingest_connections") == GATEWAYS,
            f"{held.get('ingest_connections')} connected")
    v.check("every dashboard got lines", fres["starved"] == 0, f"{fres['readers'] - fres['starved']} of {fres['readers']}")
    r = ratio(b["us_line"], a["us_line"])
    v.check(f"{GATEWAYS:,} gateways: loop CPU per line <= {TARGET_GATEWAYS}x 1 gateway", r <= TARGET_GATEWAYS,
            f"{b['us_line']:.2f} vs {a['us_line']:.2f} µs = {r:.2f}x")
    r = ratio(b["p50"], a["p50"])
    v.check(f"{GATEWAYS:,} gateways: p50 latency <= {TARGET_GATEWAYS}x 1 gateway", r <= TARGET_GATEWAYS,
            f"{b['p50']:.2f} vs {a['p50']:.2f} ms = {r:.2f}x")
    say(f"  {SUBSCRIBERS} dashboards against 1: loop CPU per ingest line {ratio(c['us_line'], a['us_line']):.2f}x, "
        f"p50 latency {ratio(c['p50'], a['p50']):.2f}x ({c['p50']:.2f} vs {a['p50']:.2f} ms)")
    r = ratio(c["ns_delivered"], relay_ns)
    v.check(f"{SUBSCRIBERS} dashboards: loop CPU per delivered line <= {TARGET_RELAY}x the relay floor", r <= TARGET_RELAY,
            f"{c['ns_delivered']:.0f} vs {relay_ns:.0f} ns = {r:.2f}x")
    return v
